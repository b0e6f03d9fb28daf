//! Seats that go mid-game: removed or leaving after a round's first claim, they play the
//! round out by their default moves and go at its end; who is here is told to the table.

use dudo_proto::LeaveWhy;

use super::*;

/// Plays the seat whose turn it is by its default move (closing call windows as they come)
/// until `done` holds; the table plays its own seats. Panics after `most` moves.
fn play_until(core: &mut TableCore, mut secs: u64, most: usize, done: impl Fn(&TableCore) -> bool) -> u64 {
    for _ in 0..most {
        if done(core) {
            return secs;
        }
        secs += 1;
        if let Some(closes) = core.window_closes() {
            secs = secs.max(closes.as_secs() + 1);
            core.close_window(at(secs));
            continue;
        }
        let game = core.game().unwrap();
        let turn = game.turn().unwrap();
        let action = game.default_action(turn).unwrap();
        core.play(turn, action, at(secs)).unwrap();
        core.settle(at(secs));
    }
    panic!("not done after {most} moves");
}

#[test]
fn a_seat_removed_after_the_first_bid_plays_the_round_out_by_default_and_goes_at_its_end() {
    let mut core = table(Pacing::default(), false);
    for name in ["ana", "ben", "cat"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let game = core.game().unwrap();
    let opener = game.turn().unwrap();
    let round = game.round();
    let bid = game.default_action(opener).unwrap();
    core.play(opener, bid, at(2)).unwrap();
    core.settle(at(2));
    // The next to move is removed: the round has a claim, so it goes at the round's end.
    let gone = core.game().unwrap().turn().unwrap();
    let name = ["ana", "ben", "cat"][gone];
    let stream = watch(&mut core, Some(name), None, at(3));
    let spectator = watch(&mut core, None, None, at(3));
    stream.take();
    spectator.take();
    core.take_out(gone, LeaveWhy::Removed, at(3)).unwrap();
    core.settle(at(3));
    core.deliver();
    let told = spectator.table_events();
    assert!(
        told.contains(&TableEvent::SeatLeaving { seat: gone, why: LeaveWhy::Removed, at_round_end: true }),
        "{told:?}"
    );
    assert!(core.info().players[gone].leaving);
    assert!(
        matches!(core.take_out(gone, LeaveWhy::Removed, at(3)), Err(TableError::AlreadyLeaving { ref name }) if name == ["ana", "ben", "cat"][gone]),
        "a second removal names the player"
    );
    // Its move was played for it at once (held while the claim's call window is open).
    let mut secs = 3;
    if let Some(closes) = core.window_closes() {
        secs = closes.as_secs() + 1;
        core.close_window(at(secs));
    }
    assert_ne!(core.game().unwrap().turn(), Some(gone));
    assert!(!stream.updates().iter().any(|u| matches!(u, Up::Prompt(_))), "a leaving seat is never asked");
    play_until(&mut core, secs, 200, |c| c.seats().get(gone).is_some_and(|s| s.left));
    let game = core.game().unwrap();
    assert!(game.round() > round || game.is_over(), "it went when the round ended, not before");
    assert!(!game.is_active(gone));
    assert_eq!(core.seats().seat_of(name), Err(TableError::NotSeated));
    core.deliver();
    let ended = stream.take().into_iter().any(|d| matches!(d, Delivery::End(_)));
    assert!(ended, "the removed seat's stream ends");
    let told = spectator.table_events();
    assert!(
        told.iter()
            .any(|e| matches!(e.game(), Some(dudo_rules::EventKind::SeatLeft { seat, .. }) if *seat == gone))
    );
    assert!(!core.info().players[gone].leaving && core.info().players[gone].left);
}

/// Before a round's first claim a seat goes at once; after it, it is leaving; and a table
/// rebuilt from its journal is the same table, both ways (the seat gone, the seat leaving,
/// the events that said so).
#[test]
fn a_seat_that_leaves_before_the_first_bid_goes_at_once_and_the_journal_replays_both_ways() {
    let mut core = table(Pacing::default(), true);
    for name in ["ana", "ben", "cat", "dan"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let opener = core.game().unwrap().turn().unwrap();
    let quiet = (opener + 2) % 4;
    // Before the round's first claim: at once.
    core.take_out(quiet, LeaveWhy::Left, at(2)).unwrap();
    assert!(!core.game().unwrap().is_active(quiet));
    assert!(!core.info().players[quiet].leaving);
    // After it: leaving.
    let bid = core.game().unwrap().default_action(opener).unwrap();
    core.play(opener, bid, at(3)).unwrap();
    core.settle(at(3));
    let going = (opener + 3) % 4;
    core.take_out(going, LeaveWhy::Removed, at(4)).unwrap();
    assert!(core.info().players[going].leaving);
    let mut rebuilt = rebuild(&mut core);
    let leaving_of = |c: &TableCore| c.info().players.iter().map(|p| (p.left, p.leaving)).collect::<Vec<_>>();
    assert_eq!(leaving_of(&rebuilt), leaving_of(&core));
    let since = 0;
    let a = watch(&mut core, None, Some(since), at(5)).table_events();
    let b = watch(&mut rebuilt, None, Some(since), at(5)).table_events();
    assert_eq!(a, b, "the same events, seat_leaving both ways included");
    assert!(a.iter().any(|e| matches!(e, TableEvent::SeatLeaving { at_round_end: true, .. })));
    assert!(a.iter().any(|e| matches!(e, TableEvent::SeatLeaving { at_round_end: false, .. })));
}

#[test]
fn who_is_here_is_told_to_the_table_and_a_closed_tab_is_away_from_then() {
    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    let info = core.info();
    assert!(!info.players[1].connected, "a seat nobody has opened a stream for is away");
    assert_eq!(info.players[1].away_since_unix_millis, at(0).wall as u64);
    let ana = watch(&mut core, Some("ana"), None, at(1));
    let ben = watch(&mut core, Some("ben"), None, at(1));
    assert!(core.info().players.iter().all(|p| p.connected && p.away_since_unix_millis == 0));
    ana.take();
    ben.close();
    core.check_presence(at(5));
    core.deliver();
    let told: Vec<pb::TableInfo> = ana
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            Up::Table(t) => Some(*t),
            _ => None,
        })
        .collect();
    let last = told.last().expect("the table is told");
    assert!(!last.players[1].connected);
    assert_eq!(last.players[1].away_since_unix_millis, at(5).wall as u64);
    // Still away a second later: the time it left is kept, and nobody is told again.
    core.check_presence(at(6));
    core.deliver();
    assert!(ana.updates().iter().all(|u| !matches!(u, Up::Table(_))));
    // Back: here again.
    let _ben = watch(&mut core, Some("ben"), None, at(7));
    assert!(core.info().players[1].connected);
}

/// A game night's table takes out a seat whose clock ran out twice in a row; a seeded
/// table (tests and puzzles) never does, whatever the timing.
#[test]
fn a_seat_out_of_time_twice_in_a_row_is_taken_out_at_a_game_night_only() {
    for seeded in [false, true] {
        let clock = Clock::new(Duration::from_secs(10), Duration::ZERO);
        let pacing = Pacing {
            clock: Some(clock),
            bot_pause: Duration::ZERO,
            call_window_millis: 0,
            reveal_pause_millis: 0,
        };
        let mut s = setup(4, pacing, false, GameLength::default());
        s.seed = seeded.then_some(7);
        // A seatless host: a host is never taken out (the table is theirs).
        s.host_token = Some([1; 32]);
        let mut core = TableCore::new(dudo_rules::presets::fibbing(), s, [9; 32], at(0));
        person(&mut core, "ana", at(0));
        bot(&mut core, "odds", 3, at(0));
        bot(&mut core, "odds", 4, at(0));
        let _ana = watch(&mut core, Some("ana"), None, at(0));
        start(&mut core, at(1));
        let mut secs = 1;
        let mut time_outs = 0;
        while time_outs < 4 && core.game().is_some_and(|g| !g.is_over() && g.is_active(0)) {
            secs += 11;
            if core.deadline().is_some() {
                core.time_out(at(secs));
                time_outs += 1;
            } else if let Some(closes) = core.window_closes() {
                secs = secs.max(closes.as_secs() + 1);
                core.close_window(at(secs));
            } else {
                break;
            }
            bots_play_on(&mut core, at(secs));
        }
        let out = core.info().players[0].left || core.info().players[0].leaving;
        let game_on = core.game().is_some_and(|g| !g.is_over());
        if seeded {
            assert!(!out, "a seeded table keeps every seat");
        } else {
            assert!(out, "out of time twice in a row: taken out ({time_outs} time-outs, game on: {game_on})");
        }
    }
}

/// A reset ends the game a leaving seat was playing out: it goes with it.
#[test]
fn a_seat_leaving_when_the_host_resets_is_gone_after_the_reset() {
    let mut core = table(Pacing::default(), false);
    for name in ["ana", "ben", "cat"] {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let game = core.game().unwrap();
    let opener = game.turn().unwrap();
    let bid = game.default_action(opener).unwrap();
    core.play(opener, bid, at(2)).unwrap();
    core.settle(at(2));
    let going = (opener + 1) % 3;
    core.take_out(going, LeaveWhy::Left, at(3)).unwrap();
    assert!(core.info().players[going].leaving);
    core.apply(Input::Reset, at(4)).unwrap();
    assert_eq!(core.seats().len(), 2);
    assert_eq!(core.seats().seat_of(["ana", "ben", "cat"][going]), Err(TableError::NotSeated));
    assert!(core.info().players.iter().all(|p| !p.leaving && !p.left));
}

/// A seat marked leaving while a claim's call window is open counts as letting the claim
/// pass: the calls and the move already held in the window stand, and the window decides.
/// Leaving, it may neither move nor call (going anyway, it could call at no cost).
#[test]
fn a_seat_leaving_in_an_open_window_passes_and_the_calls_made_stand() {
    let mut core = table(Pacing { call_window_millis: 3_000, ..Pacing::default() }, false);
    let names = ["ana", "ben", "cat", "dan"];
    for name in names {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let (next, third, fourth) = ((bidder + 1) % 4, (bidder + 2) % 4, (bidder + 3) % 4);
    core.play(bidder, Action::Bid(dudo_rules::Bid::new(2, 3)), at(2)).unwrap();
    core.settle(at(2));
    // The next seat's raise is held; the fourth calls calza; the third, first in play
    // order, has not answered when it leaves.
    assert!(!core.play(next, Action::Bid(dudo_rules::Bid::new(3, 3)), at(3)).unwrap());
    assert!(!core.play(fourth, Action::Calza, at(3)).unwrap());
    let all = watch(&mut core, None, None, at(3));
    all.take();
    core.take_out(third, LeaveWhy::Left, at(4)).unwrap();
    assert_eq!(core.play(third, Action::Calza, at(4)), Err(TableError::Leaving));
    assert_eq!(core.pass_call(third, at(4)), Err(TableError::Leaving));
    core.settle(at(4));
    core.deliver();
    let called = all.table_events().into_iter().find_map(|e| match e {
        TableEvent::Game(event) => match event.kind {
            dudo_rules::EventKind::CalzaCalled { seat } => Some(seat),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(called, Some(fourth), "the calza made before the seat left is played");
}

/// After the game, a player may still leave (its token stops answering), and a table whose
/// people have all gone closes itself.
#[test]
fn a_seat_may_leave_after_the_game_and_a_table_of_no_people_is_orphaned() {
    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    bot(&mut core, "odds", 3, at(0));
    bot(&mut core, "odds", 4, at(0));
    start(&mut core, at(1));
    let ana = 0;
    core.take_out(ana, LeaveWhy::Left, at(2)).unwrap();
    core.settle(at(2));
    bots_play_on(&mut core, at(2));
    let mut secs = 2;
    while core.game().is_some_and(|g| !g.is_over()) && secs < 500 {
        secs += 1;
        if let Some(closes) = core.window_closes() {
            core.close_window(at(secs.max(closes.as_secs() + 1)));
        }
        core.settle(at(secs));
        bots_play_on(&mut core, at(secs));
    }
    assert!(core.game().unwrap().is_over(), "the bots play the game out");
    assert!(core.orphaned(), "nobody is left to start, reset or close it");

    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    bot(&mut core, "odds", 3, at(0));
    start(&mut core, at(1));
    core.apply(Input::Stopped { why: dudo_proto::StopWhy::Moves, limit: 1 }, at(2)).unwrap();
    core.take_out(1, LeaveWhy::Left, at(3)).unwrap();
    assert_eq!(core.seats().seat_of("ben"), Err(TableError::NotSeated));
    assert!(!core.orphaned(), "Ana is still here");
}

/// A game night's table of `people` and two odds bots, unseeded, with a 10 s clock and no
/// bank: its people never move, and the clock plays for them, `turns` times (or until the
/// game ends); `refused` are told to the table as refused at their address before each turn.
fn out_of_time_again_and_again(people: &[&str], turns: usize, refused: &[dudo_rules::Seat]) -> TableCore {
    let clock = Clock::new(Duration::from_secs(10), Duration::ZERO);
    let pacing = Pacing {
        clock: Some(clock),
        bot_pause: Duration::ZERO,
        call_window_millis: 0,
        reveal_pause_millis: 0,
    };
    let mut s = setup(4, pacing, false, GameLength::default());
    s.seed = None;
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), s, [9; 32], at(0));
    for name in people {
        person(&mut core, name, at(0));
    }
    bot(&mut core, "odds", 3, at(0));
    bot(&mut core, "odds", 4, at(0));
    start(&mut core, at(1));
    let mut secs = 1;
    for _ in 0..turns {
        core.reconnects_refused(refused.to_vec());
        secs += 11;
        if core.deadline().is_some() {
            core.time_out(at(secs));
        } else if let Some(closes) = core.window_closes() {
            secs = secs.max(closes.as_secs() + 1);
            core.close_window(at(secs));
        }
        bots_play_on(&mut core, at(secs));
        if core.game().is_none_or(dudo_rules::Game::is_over) {
            break;
        }
    }
    core
}

/// The host is never taken out for being away or out of time: the table is theirs, and the
/// clock plays their moves.
#[test]
fn the_host_out_of_time_again_and_again_keeps_the_seat() {
    let core = out_of_time_again_and_again(&["ana"], 6, &[]);
    let ana = &core.info().players[0];
    assert!(!ana.left && !ana.leaving, "{ana:?}");
}

/// A removed seat goes as the next round begins even when paused bots play every move and
/// each slice of their moves is one move long: a slice that ends on a round's last move
/// leaves the next round's first move due, and that move must wait for the leaving seat to
/// go (played as planned, it was the removed seat's own, and the seat stayed a round more).
#[test]
fn a_removed_seat_goes_as_the_next_round_begins_when_paused_bots_end_the_round() {
    let at_mono = |mono: Duration| Now { wall: 1_700_000_000_000 + mono.as_millis() as i64, mono };
    for game in 0..30u64 {
        let pacing = Pacing {
            clock: None,
            bot_pause: Duration::from_secs(1),
            call_window_millis: 0,
            reveal_pause_millis: 0,
        };
        let mut core = table(pacing, false);
        core.set_bot_slice(Duration::ZERO);
        person(&mut core, "ana", at(0));
        let cat = person(&mut core, "cat", at(0));
        bot(&mut core, "random", game * 10 + 1, at(0));
        bot(&mut core, "random", game * 10 + 2, at(0));
        start(&mut core, at(0));
        let first_round = core.game().unwrap().round();
        let mut now = Duration::ZERO;
        let mut removed = false;
        for _ in 0..10_000 {
            let game_now = core.game().unwrap();
            if game_now.is_over() {
                break;
            }
            let claims = game_now.spectator_view().claims.len();
            if !removed && claims > 0 {
                core.take_out(cat, LeaveWhy::Removed, at_mono(now)).unwrap();
                core.settle(at_mono(now));
                removed = true;
                continue;
            }
            if game_now.round() > first_round && claims > 0 {
                break;
            }
            now += Duration::from_millis(1);
            match (game_now.turn(), core.bot_due()) {
                (Some(0), _) => {
                    let action = game_now.default_action(0).unwrap();
                    core.play(0, action, at_mono(now)).unwrap();
                    core.settle(at_mono(now));
                }
                (_, Some(due)) => {
                    now = now.max(due);
                    core.bot_moves(at_mono(now));
                }
                (turn, None) => panic!("game {game}: nothing moves at seat {turn:?}"),
            }
        }
        let game_now = core.game().unwrap();
        assert!(removed, "game {game}: a claim was made");
        assert!(
            !game_now.is_active(cat),
            "game {game}: the removed seat is still in round {} (the first was {first_round})",
            game_now.round()
        );
    }
}

/// A player whose address a per-address limit is refusing (a shared address whose every
/// connection someone else holds) may be trying to come back: out of time three times in a
/// row meanwhile, they keep the seat; the same player with nothing refused is taken out. The
/// shield has its bound (a player could have their own address refused on purpose): out of
/// time a fourth time in a row, they are taken out all the same.
#[test]
fn a_player_whose_reconnects_are_being_refused_is_not_taken_out() {
    // Each turn is Ana's or Ben's, in turn: six are three of Ben's.
    let kept: Vec<bool> = [(&[][..], 6), (&[1][..], 6), (&[1][..], 12)]
        .into_iter()
        .map(|(refused, turns)| {
            let core = out_of_time_again_and_again(&["ana", "ben"], turns, refused);
            let ben = &core.info().players[1];
            !ben.left && !ben.leaving
        })
        .collect();
    assert_eq!(
        kept,
        vec![false, true, false],
        "taken out with nothing refused, kept while refused, within bounds"
    );
}
