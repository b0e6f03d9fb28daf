//! Calls out of turn: who is asked, who wins, and what the clock does meanwhile.

use super::*;

/// After a claim, every seat that may call out of turn is asked at once; the move of the
/// seat whose turn it is waits; the first caller in play order from the claimant wins,
/// whoever answered first; a second answer is refused.
#[test]
fn a_call_window_asks_every_caller_at_once_and_the_first_in_play_order_wins() {
    let mut core = table(Pacing { call_window_millis: 3_000, ..Pacing::default() }, false);
    let names = ["ana", "ben", "cat", "dan"];
    for name in names {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let (next, third, fourth) = ((bidder + 1) % 4, (bidder + 2) % 4, (bidder + 3) % 4);
    assert!(core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(2)).unwrap());
    core.settle(at(2));
    // The window closes 3 s on; the seats that may call calza are prompted with it.
    assert_eq!(core.window_closes(), Some(Duration::from_secs(5)));
    let asked = watch(&mut core, Some(names[third]), None, at(2));
    let prompt = asked.updates().into_iter().find_map(|u| match u {
        Up::Prompt(p) => Some(p),
        _ => None,
    });
    assert!(prompt.expect("the third seat is asked").call_window_unix_millis.is_some());
    // The next seat raises: held, the game unchanged.
    assert!(!core.play(next, Action::Bid(dudo_rules::Bid::new(3, 3)), at(3)).unwrap());
    assert_eq!(core.game().unwrap().view(next).claims.len(), 1);
    // The fourth seat calls first in time; the third (before it in play order) passes.
    assert!(!core.play(fourth, Action::Calza, at(3)).unwrap());
    assert_eq!(core.play(fourth, Action::Calza, at(3)), Err(TableError::AlreadyAnswered));
    let all = watch(&mut core, None, None, at(3));
    all.take();
    assert!(core.pass_call(third, at(4)).unwrap());
    core.settle(at(4));
    core.deliver();
    let called = all.updates().into_iter().find_map(|u| match u {
        Up::Event(e) => match convert::event_from_wire(&e).ok()?.1 {
            TableEvent::Game(event) => match event.kind {
                dudo_rules::EventKind::CalzaCalled { seat } => Some(seat),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    });
    assert_eq!(called, Some(fourth), "the fourth seat's calza is played, not the held raise");
}

/// A window nobody answers closes at its time: the claim stands, a late call is refused,
/// and a move held in a window plays when it closes.
#[test]
fn a_call_window_closes_at_its_time_and_the_held_move_plays() {
    let mut core = table(Pacing { call_window_millis: 3_000, ..Pacing::default() }, false);
    for name in ["ana", "ben", "cat"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let (next, third) = ((bidder + 1) % 3, (bidder + 2) % 3);
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(2)).unwrap();
    core.settle(at(2));
    core.close_window(at(5));
    assert_eq!(core.window_closes(), None);
    assert_eq!(core.play(third, Action::Calza, at(5)), Err(TableError::CallWindowClosed));
    // Its answer comes too late, whatever it is; a seat the window never asked has none.
    assert_eq!(core.pass_call(third, at(5)), Err(TableError::CallWindowClosed));
    assert_eq!(core.pass_call(next, at(5)), Err(TableError::NoCallWindow));
    // The next seat raises (no window open: played at once); the new claim's window asks
    // the first bidder, and the third seat's raise waits in it until it closes.
    assert!(core.play(next, Action::Bid(dudo_rules::Bid::new(3, 3)), at(6)).unwrap());
    core.settle(at(6));
    assert_eq!(core.window_closes(), Some(Duration::from_secs(9)));
    assert!(!core.play(third, Action::Bid(dudo_rules::Bid::new(4, 3)), at(7)).unwrap());
    assert_eq!(core.game().and_then(dudo_rules::Game::turn), Some(third));
    core.close_window(at(9));
    assert_eq!(core.game().and_then(dudo_rules::Game::turn), Some(bidder), "the held raise played");
}

/// The turn clock running out while a call window is open does not cut it short: the
/// default move waits in the window like any held move, and a call made in time still wins.
#[test]
fn a_time_out_during_a_call_window_waits_in_it_and_a_call_still_wins() {
    let clock = Clock::new(Duration::from_secs(1), Duration::ZERO);
    let mut core =
        table(Pacing { clock: Some(clock), call_window_millis: 3_000, ..Pacing::default() }, false);
    for name in ["ana", "ben", "cat", "dan"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let fourth = (bidder + 3) % 4;
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(2)).unwrap();
    core.settle(at(2));
    assert!(!core.play(fourth, Action::Calza, at(2)).unwrap());
    let all = watch(&mut core, None, None, at(2));
    all.take();
    // The next seat's clock runs out at 3 s: its default move is held, the window still open.
    core.time_out(at(3));
    assert_eq!(core.window_closes(), Some(Duration::from_secs(5)));
    core.close_window(at(5));
    core.deliver();
    let kinds = all.table_events();
    let called = kinds.iter().find_map(|k| match k {
        TableEvent::Game(e) => match e.kind {
            dudo_rules::EventKind::CalzaCalled { seat } => Some(seat),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(called, Some(fourth), "{kinds:?}");
    assert!(
        !kinds.iter().any(|k| matches!(k, TableEvent::TurnTimedOut { .. })),
        "the held default was played"
    );
}

/// A move made in time and held while the call window waits for others is the seat's move:
/// its clock stops, and running out later plays nothing over it (it did, with the default).
#[test]
fn a_move_held_in_a_call_window_is_not_timed_out() {
    let clock = Clock::new(Duration::from_secs(3), Duration::ZERO);
    let mut core =
        table(Pacing { clock: Some(clock), call_window_millis: 20_000, ..Pacing::default() }, false);
    for name in ["ana", "ben", "cat"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let next = (bidder + 1) % 3;
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(1)).unwrap();
    core.settle(at(1));
    // The next seat raises in time; the third seat has not answered the window.
    let raise = Action::Bid(dudo_rules::Bid::new(3, 3));
    assert!(!core.play(next, raise, at(2)).unwrap(), "held while the window waits");
    assert_eq!(core.deadline(), None, "its clock stopped");
    let all = watch(&mut core, None, None, at(2));
    all.take();
    core.time_out(at(4));
    core.close_window(at(21));
    core.deliver();
    let kinds = all.table_events();
    assert!(!kinds.iter().any(|k| matches!(k, TableEvent::TurnTimedOut { .. })), "{kinds:?}");
    let raised = kinds.iter().any(|k| match k {
        TableEvent::Game(e) => matches!(e.kind, dudo_rules::EventKind::BidMade { seat, .. } if seat == next),
        _ => false,
    });
    assert!(raised, "the held raise was played: {kinds:?}");
}

/// A forfeit seat (a tournament's benched entrant) holds nothing up: with no clock and no
/// move of its own, a game of it and two bots plays to its end at once, its every move its
/// default one recorded as a time-out, and it is never asked in a call window.
#[test]
fn a_forfeit_seat_plays_its_default_moves_at_once_and_is_never_asked() {
    let pacing =
        Pacing { clock: None, bot_pause: Duration::ZERO, call_window_millis: 1_000, reveal_pause_millis: 0 };
    let mut setup = setup(3, pacing, false, GameLength::default());
    setup.stalling = crate::table::core::Stalling::tournament(Vec::new(), vec![0]);
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [9; 32], at(0));
    person(&mut core, "Benched", at(0));
    bot(&mut core, "odds", 1, at(0));
    bot(&mut core, "odds", 2, at(0));
    let kept = watch(&mut core, None, None, at(0));
    start(&mut core, at(0));
    assert!(core.game().is_some_and(|g| g.is_over()), "the game ended with no input from the forfeit seat");
    core.deliver();
    let kinds = kept.table_events();
    let timed_out = kinds.iter().filter(|k| matches!(k, TableEvent::TurnTimedOut { seat: 0, .. })).count();
    assert!(timed_out > 0, "its moves were played for it: {kinds:?}");
    assert!(!kinds.iter().any(|k| matches!(k, TableEvent::CallWindowLapsed { .. })), "{kinds:?}");
}

/// A table rebuilt mid-window (another node adopting it) resumes the window: the answers given
/// stand (nobody is asked twice, the move held stays held), its time counts from the claim,
/// and its people are taken to be there while they reconnect (asked, not marked away).
#[test]
fn a_table_rebuilt_mid_window_resumes_it_with_its_answers_and_what_is_left_of_its_time() {
    let pacing = Pacing { call_window_millis: 3_000, ..Pacing::default() };
    let mut setup = setup(4, pacing, true, GameLength::default());
    // A game night's table: people away are not asked in windows.
    setup.seed = None;
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [9; 32], at(0));
    let names = ["ana", "ben", "cat", "dan"];
    let streams: Vec<Kept> = names
        .iter()
        .map(|&n| {
            person(&mut core, n, at(0));
            watch(&mut core, Some(n), None, at(0))
        })
        .collect();
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let (next, third, fourth) = ((bidder + 1) % 4, (bidder + 2) % 4, (bidder + 3) % 4);
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(2)).unwrap();
    core.settle(at(2));
    assert_eq!(core.window_closes(), Some(Duration::from_secs(5)));
    let raise = Action::Bid(dudo_rules::Bid::new(3, 3));
    assert!(!core.play(next, raise.clone(), at(3)).unwrap(), "held");
    assert!(!core.pass_call(third, at(3)).unwrap(), "the fourth seat has not answered");
    drop(streams);

    let mut rebuilt = rebuild(&mut core);
    rebuilt.back_at(at(4));
    rebuilt.settle(at(4));
    assert_eq!(rebuilt.window_closes(), Some(Duration::from_secs(5)), "1 s left of the claim's 3 s");
    assert!(rebuilt.info().players.iter().all(|p| p.connected), "nobody is told away while reconnecting");
    rebuilt.check_presence(at(5));
    assert!(rebuilt.info().players.iter().all(|p| p.connected), "within the grace");
    assert_eq!(rebuilt.pass_call(third, at(4)), Err(TableError::AlreadyAnswered), "its pass stands");
    assert_eq!(rebuilt.play(next, raise, at(4)), Err(TableError::AlreadyAnswered), "its raise is held");
    // The fourth seat, not reconnected yet, is asked still: its pass closes the window and
    // the held raise plays.
    assert!(rebuilt.pass_call(fourth, at(4)).unwrap());
    rebuilt.settle(at(4));
    assert_eq!(rebuilt.game().and_then(dudo_rules::Game::turn), Some(third), "the held raise played");
    assert_eq!(rebuilt.game().unwrap().view(third).claims.len(), 2);
}

/// A move the clock held for a seat in a window survives a rebuild as a time-out.
#[test]
fn a_default_move_the_clock_held_in_a_window_is_played_as_a_time_out_after_a_rebuild() {
    let clock = Clock::new(Duration::from_secs(3), Duration::ZERO);
    let pacing = Pacing { clock: Some(clock), call_window_millis: 20_000, ..Pacing::default() };
    let mut core = TableCore::new(
        dudo_rules::presets::fibbing(),
        setup(4, pacing, true, GameLength::default()),
        [9; 32],
        at(0),
    );
    for name in ["ana", "ben", "cat"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let next = (bidder + 1) % 3;
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(1)).unwrap();
    core.settle(at(1));
    core.time_out(at(4));
    assert!(core.window_closes().is_some(), "the window still waits");
    let mut rebuilt = rebuild(&mut core);
    rebuilt.back_at(at(5));
    rebuilt.settle(at(5));
    assert_eq!(rebuilt.deadline(), None, "nobody's clock runs: the move is held");
    let all = watch(&mut rebuilt, None, None, at(5));
    all.take();
    rebuilt.close_window(at(30));
    rebuilt.deliver();
    let timed_out = all
        .table_events()
        .into_iter()
        .any(|e| matches!(e, TableEvent::TurnTimedOut { seat, .. } if seat == next));
    assert!(timed_out, "played as the time-out it was");
}

/// On a ladder table a seat given less than the whole window (its patience) that runs out of
/// it is told so in a `call_window_lapsed` event (as `cut_short`, not held against it) before
/// the game moves on, and its late answer is refused as `call_window_closed`, not as a stale
/// prompt, however far the game has moved.
#[test]
fn a_window_cut_short_says_so_and_a_late_answer_to_it_is_call_window_closed() {
    let pacing = Pacing { call_window_millis: 3_000, ..Pacing::default() };
    let mut setup = setup(3, pacing, false, GameLength::default());
    (setup.seed, setup.rating_pool) = (None, format!("{}duel", dudo_store::ladder::POOL_PREFIX));
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [9; 32], at(0));
    for name in ["ana", "ben", "cat"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let (next, third) = ((bidder + 1) % 3, (bidder + 2) % 3);
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(2)).unwrap();
    core.settle(at(2));
    let claim = core.last_seq().unwrap();
    // A second into the game, the windows may wait a second in all: cut short to that.
    assert_eq!(core.window_closes(), Some(Duration::from_secs(3)));
    let all = watch(&mut core, None, None, at(2));
    all.take();
    core.close_window(at(3));
    core.deliver();
    let kinds = all.table_events();
    let told = kinds.iter().find_map(|k| match k {
        TableEvent::CallWindowLapsed { seats, cut_short } => Some((seats.clone(), cut_short.clone())),
        _ => None,
    });
    assert_eq!(told, Some((vec![], vec![third])), "{kinds:?}");
    assert_eq!(core.pass_call(third, at(3)), Err(TableError::CallWindowClosed));
    // The game moves on; an answer naming the window's prompt is still known for what it is.
    assert!(core.play(next, Action::Bid(dudo_rules::Bid::new(3, 3)), at(4)).unwrap());
    core.settle(at(4));
    assert_ne!(core.last_seq(), Some(claim));
    assert!(core.answers_closed_window(third, claim));
    assert!(!core.answers_closed_window(next, claim), "the window never asked the next seat");
}
