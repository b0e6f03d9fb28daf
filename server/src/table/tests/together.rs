//! The table as a place people share: the wait after a showdown, the host's pause, talk,
//! a seat taken back on another device, the story so far.

use super::*;
use crate::table::talk::Speaker;
use dudo_rules::{Bid, Game};

fn clock() -> Clock {
    Clock::new(Duration::from_secs(30), Duration::ZERO)
}

/// Two people at a table that waits 5 s after a showdown, each with a stream open.
fn two_people(reveal: u32) -> (TableCore, Kept, Kept) {
    let pacing = Pacing { clock: Some(clock()), reveal_pause_millis: reveal, ..Pacing::default() };
    let mut core = table(pacing, true);
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    let (a, b) = (watch(&mut core, Some("ana"), None, at(0)), watch(&mut core, Some("ben"), None, at(0)));
    start(&mut core, at(1));
    (core, a, b)
}

/// Plays a bid and its challenge at `secs`: a showdown.
fn showdown(core: &mut TableCore, secs: u64) {
    let bidder = core.game().and_then(Game::turn).unwrap();
    assert!(core.play(bidder, Action::Bid(Bid::new(1, 2)), at(secs)).unwrap());
    core.settle(at(secs));
    let caller = core.game().and_then(Game::turn).unwrap();
    assert!(core.play(caller, Action::Dudo { target: None }, at(secs)).unwrap());
    core.settle(at(secs));
}

#[test]
fn after_a_showdown_the_next_round_waits_with_no_clock_until_everyone_says_next() {
    let (mut core, ana, ben) = two_people(5_000);
    let bidder = core.game().and_then(Game::turn).unwrap();
    assert!(core.play(bidder, Action::Bid(Bid::new(1, 2)), at(2)).unwrap());
    core.settle(at(2));
    core.deliver();
    ana.take();
    ben.take();
    let caller = core.game().and_then(Game::turn).unwrap();
    assert!(core.play(caller, Action::Dudo { target: None }, at(2)).unwrap());
    core.settle(at(2));
    assert_eq!(core.reveal_ends(), Some(Duration::from_secs(7)), "5 s from the showdown");
    assert_eq!(core.deadline(), None, "no clock runs while the reveal is shown");
    let starter = core.game().and_then(Game::turn).unwrap();
    assert_eq!(core.play(starter, Action::Bid(Bid::new(1, 3)), at(3)), Err(TableError::BetweenRounds));
    core.deliver();
    // Nobody is prompted; everyone is told until when the round waits.
    for stream in [&ana, &ben] {
        let updates = stream.updates();
        assert!(!updates.iter().any(|u| matches!(u, Up::Prompt(_))), "a prompt during the wait");
        let turn = updates.iter().rev().find_map(|u| match u {
            Up::Turn(t) => Some(t.clone()),
            _ => None,
        });
        assert_eq!(turn.and_then(|t| t.next_round_unix_millis), Some(at(7).wall as u64));
    }
    use crate::table::core::Ready;
    assert_eq!(core.next_round(0), Ok(Ready::Noted), "one of two has seen it");
    assert_eq!(core.next_round(0), Ok(Ready::Already), "said again, it changes nothing");
    assert_eq!(core.next_round(1), Ok(Ready::RoundGoesOn), "both have: the round goes on");
    core.settle(at(4));
    assert!(core.deadline().is_some(), "the clock runs again");
    assert_eq!(core.next_round(0), Err(TableError::NotBetweenRounds));
    assert!(core.play(starter, Action::Bid(Bid::new(1, 3)), at(4)).is_ok());
}

#[test]
fn the_wait_ends_by_itself_and_a_table_without_people_here_never_waits() {
    let (mut core, _ana, _ben) = two_people(5_000);
    showdown(&mut core, 2);
    core.end_reveal(at(7));
    assert_eq!(core.reveal_ends(), None);
    assert!(core.deadline().is_some());
    // Nobody's stream open: nobody to wait for.
    let pacing = Pacing { clock: Some(clock()), reveal_pause_millis: 5_000, ..Pacing::default() };
    let mut away = table(pacing, false);
    person(&mut away, "ana", at(0));
    person(&mut away, "ben", at(0));
    start(&mut away, at(1));
    showdown(&mut away, 2);
    assert_eq!(away.reveal_ends(), None);
    // A table that asked for no wait never waits.
    let (mut none, _a, _b) = two_people(0);
    showdown(&mut none, 2);
    assert_eq!(none.reveal_ends(), None);
}

#[test]
fn a_pause_during_a_reveal_holds_it_and_the_resume_shows_it_again_whole() {
    let (mut core, ana, _ben) = two_people(5_000);
    showdown(&mut core, 2);
    assert_eq!(core.reveal_ends(), Some(Duration::from_secs(7)));
    core.apply(Input::Paused { by: "ana".into(), at: at(6).wall }, at(6)).unwrap();
    assert_eq!(core.reveal_ends(), None, "no wait runs out while paused");
    core.settle(at(60));
    assert_eq!(
        core.next_round(1),
        Ok(crate::table::core::Ready::Noted),
        "still between rounds a minute later"
    );
    core.apply(Input::Resumed { by: "ana".into() }, at(60)).unwrap();
    core.settle(at(60));
    assert_eq!(core.reveal_ends(), Some(Duration::from_secs(65)), "its whole wait again from the resume");
    core.deliver();
    let turn = ana.updates().iter().rev().find_map(|u| match u {
        Up::Turn(t) => Some(t.clone()),
        _ => None,
    });
    assert_eq!(turn.and_then(|t| t.next_round_unix_millis), Some(at(65).wall as u64), "every stream is told");
}

#[test]
fn the_hosts_pause_holds_every_clock_and_move_and_is_kept_through_a_rebuild() {
    let (mut core, ana, _ben) = two_people(0);
    let turn = core.game().and_then(Game::turn).unwrap();
    let deadline = core.deadline().unwrap();
    core.apply(Input::Paused { by: "ana".into(), at: at(5).wall }, at(5)).unwrap();
    core.settle(at(5));
    assert_eq!(core.deadline(), None, "the clock stops");
    assert_eq!(core.play(turn, Action::Bid(Bid::new(1, 2)), at(6)), Err(TableError::Paused));
    assert_eq!(
        core.apply(Input::Paused { by: "ana".into(), at: at(6).wall }, at(6)),
        Err(TableError::AlreadyPaused)
    );
    core.deliver();
    let info = ana.updates().into_iter().rev().find_map(|u| match u {
        Up::Table(t) => Some(t),
        _ => None,
    });
    assert_eq!(info.and_then(|t| t.pause).map(|p| p.by), Some("ana".into()), "everyone sees who paused");
    assert!(core.may_resume(false, at(60).wall).is_err(), "only the host, at first");
    assert!(core.may_resume(false, at(5 + 5 * 60).wall).is_ok(), "anyone, after five minutes");
    // Rebuilt mid-pause, the table is still paused.
    let mut rebuilt = rebuild(&mut core);
    rebuilt.settle(at(20));
    assert!(rebuilt.info().pause.is_some());
    assert_eq!(rebuilt.deadline(), None);
    // Resumed 100 s later: the seat had used 4 s of its 30 before the pause, and has 26 left.
    core.apply(Input::Resumed { by: "ana".into() }, at(105)).unwrap();
    core.settle(at(105));
    assert_eq!(core.deadline(), Some(deadline + Duration::from_secs(100)));
    assert!(core.play(turn, Action::Bid(Bid::new(1, 2)), at(106)).is_ok());
}

#[test]
fn a_pause_past_its_longest_ends_the_game_as_a_reset_would() {
    let (mut core, _ana, _ben) = two_people(0);
    core.apply(Input::Paused { by: "ana".into(), at: at(5).wall }, at(5)).unwrap();
    let ends = core.pause_ends(at(5)).unwrap();
    assert_eq!(ends, Duration::from_secs(5 + 30 * 60));
    core.pause_ran_out(at(6));
    assert!(core.game().is_some(), "not yet");
    let late = at(5 + 30 * 60);
    core.pause_ran_out(late);
    assert!(core.game().is_none(), "the game ended as a reset would");
    assert!(core.info().pause.is_none());
}

/// A pause raced with a call window, and a chat line sent in it, leave the window exactly as
/// it was: it closes when it would, and what it decides is played.
#[test]
fn a_pause_or_a_chat_line_leaves_an_open_call_window_as_it_was() {
    let mut core = table(Pacing { call_window_millis: 3_000, ..Pacing::default() }, false);
    let names = ["ana", "ben", "cat", "dan"];
    for name in names {
        person(&mut core, name, at(0));
    }
    start(&mut core, at(1));
    let bidder = core.game().and_then(Game::turn).unwrap();
    let third = (bidder + 2) % 4;
    assert!(core.play(bidder, Action::Bid(Bid::new(2, 3)), at(2)).unwrap());
    core.settle(at(2));
    let closes = core.window_closes();
    assert_eq!(closes, Some(Duration::from_secs(5)));
    core.say(Speaker::Seat(third), "hmm", 0, at(2)).unwrap();
    core.say(Speaker::Seat(bidder), "", pb::Reaction::Laugh as i32, at(2)).unwrap();
    core.apply(Input::Paused { by: "ana".into(), at: at(3).wall }, at(3)).unwrap();
    core.settle(at(3));
    assert_eq!(core.window_closes(), closes, "the window closes when it would");
    assert!(core.awaits(third), "the seat asked may still call");
    assert!(core.play(third, Action::Calza, at(4)).is_ok(), "its call is taken, in the window");
    core.settle(at(4));
    // The calza was played (the round is over), and then the pause holds play.
    let round = core.game().map(|g| g.view(0).round);
    assert_eq!(round, Some(2), "the window's call was played");
    assert!(core.info().pause.is_some());
}

#[test]
fn talk_is_bounded_kept_for_latecomers_and_never_in_the_games_record() {
    let (mut core, ana, ben) = two_people(0);
    ana.take();
    core.say(Speaker::Seat(0), "nice bluff", 0, at(2)).unwrap();
    core.deliver();
    let line = ana.updates().into_iter().find_map(|u| match u {
        Up::Line(l) => Some(l),
        _ => None,
    });
    let line = line.expect("the line reaches the table");
    assert_eq!((line.name.as_str(), line.text.as_str()), ("ana", "nice bluff"));
    // Muted, refused; spectators only when allowed.
    ben.take();
    core.apply(Input::Muted { seat: 1, muted: true }, at(3)).unwrap();
    core.deliver();
    // Each reads the mute in words about them: the host did it, ben was muted.
    let said = |stream: &Kept| -> Vec<String> {
        let lines = stream.updates().into_iter().filter_map(|u| match u {
            Up::Line(l) => Some(l.text),
            _ => None,
        });
        lines.collect()
    };
    assert!(said(&ana).contains(&"You muted ben.".to_string()), "{:?}", said(&ana));
    assert!(said(&ben).contains(&"The host muted you.".to_string()), "{:?}", said(&ben));
    assert_eq!(core.say(Speaker::Seat(1), "hi", 0, at(3)), Err(TableError::Muted));
    let eve = Speaker::Spectator { name: "Eve".into(), from: None };
    assert_eq!(core.say(eve, "hi", 0, at(3)), Err(TableError::SpectatorsMayNotChat));
    // A spectator opening a stream now sees the story so far: the game's events and the talk.
    let late = watch(&mut core, None, None, at(4));
    let story = late.updates().into_iter().find_map(|u| match u {
        Up::Story(s) => Some(s),
        _ => None,
    });
    let story = story.expect("a story so far");
    assert!(
        story.events.iter().any(|e| e.text.contains("round 1") || e.text.contains("Round 1")),
        "{:?}",
        story.events.first()
    );
    assert!(story.lines.iter().any(|l| l.text == "nice bluff"));
    assert!(story.lines.iter().any(|l| l.text.contains("muted ben")), "the table says the mute");
    // Nothing said is journalled.
    let (journal, _) = core.take_unsaved();
    let said = journal.iter().any(|(_, e)| format!("{e:?}").contains("nice bluff"));
    assert!(!said, "talk in the journal");
}

#[test]
fn a_seat_is_taken_back_with_its_link_until_the_host_revokes_it() {
    let (mut core, _ana, ben) = two_people(0);
    let secret_hash = token_hash("ben's link");
    core.apply(Input::SeatLinkMade { seat: 1, secret_hash }, at(2)).unwrap();
    assert_eq!(core.seats().seat_of_link("ben's link"), Ok(1));
    assert_eq!(core.seats().seat_of_link("a guess"), Err(TableError::NoSuchLink));
    core.apply(Input::SeatLinked { seat: 1, token_hash: token_hash("ben's phone") }, at(3)).unwrap();
    assert_eq!(core.seats().seat_of("ben's phone"), Ok(1), "the phone holds the seat");
    assert_eq!(core.seats().seat_of("ben"), Ok(1), "and so does the first device");
    // Rebuilt, the same.
    let mut rebuilt = rebuild(&mut core);
    assert_eq!(rebuilt.seats().seat_of("ben's phone"), Ok(1));
    ben.take();
    rebuilt.apply(Input::SeatLinkRevoked { seat: 1 }, at(4)).unwrap();
    core.apply(Input::SeatLinkRevoked { seat: 1 }, at(4)).unwrap();
    core.deliver();
    assert_eq!(core.seats().seat_of("ben's phone"), Err(TableError::NotSeated));
    assert_eq!(core.seats().seat_of_link("ben's link"), Err(TableError::NoSuchLink));
    assert_eq!(core.seats().seat_of("ben"), Ok(1));
    let ended = ben
        .take()
        .into_iter()
        .any(|d| matches!(d, Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Relinked))));
    assert!(ended, "the seat's streams are told to reconnect");
}

/// A fifth device pushes the oldest out: its token no longer answers, and the seat's streams
/// are told to reconnect, so the pushed-out one stops reading the seat's dice.
#[test]
fn a_device_pushed_out_by_a_fifth_stops_reading_the_seat() {
    let (mut core, _ana, ben) = two_people(0);
    for n in 0..4 {
        core.apply(Input::SeatLinked { seat: 1, token_hash: token_hash(&format!("device {n}")) }, at(2))
            .unwrap();
    }
    core.deliver();
    ben.take();
    let oldest = watch(&mut core, Some("device 0"), None, at(3));
    oldest.take();
    core.apply(Input::SeatLinked { seat: 1, token_hash: token_hash("device 4") }, at(4)).unwrap();
    core.deliver();
    assert_eq!(core.seats().seat_of("device 0"), Err(TableError::NotSeated));
    assert_eq!(core.seats().seat_of("device 4"), Ok(1));
    let ended = oldest.take().into_iter().any(|d| matches!(d, Delivery::End(StreamEnd::Reseated(_))));
    assert!(ended, "the pushed-out device's stream ends");
}

#[test]
fn the_table_says_its_news_in_words() {
    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    // A spectator's stream: a seat freed before the start renumbers (and reopens) the seats'.
    let stream = watch(&mut core, None, None, at(0));
    person(&mut core, "ben", at(1));
    bot(&mut core, "odds", 3, at(1));
    let rules = dudo_rules::presets::with_setting(dudo_rules::presets::fibbing(), "dice.start", "3").unwrap();
    core.apply(Input::RulesChanged { rules: Arc::new(rules) }, at(2)).unwrap();
    core.apply(Input::Removed { seat: 2, why: Some(dudo_proto::LeaveWhy::Removed) }, at(3)).unwrap();
    bot(&mut core, "odds", 4, at(4));
    core.deliver();
    let said: Vec<String> = stream
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            Up::Line(l) => Some(l.text),
            _ => None,
        })
        .collect();
    let first_bot = "Alba (odds bot)";
    assert_eq!(said.len(), 5, "{said:?}");
    assert_eq!(said[0], "ben sat down at seat 1.");
    assert_eq!(said[1], format!("The host added {first_bot} at seat 2."));
    assert!(
        said[2].starts_with("The host changed the rules: dice each player starts with: now 3, was 5"),
        "{}",
        said[2]
    );
    assert_eq!(said[3], format!("The host removed {first_bot}."));
    assert_eq!(
        said[4], "The host added Bruno (odds bot) at seat 2.",
        "a new bot never takes a removed one's name"
    );
}
