//! The table core on its own: no tokio, no store, time passed in by hand.

use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::play_update::Update as Up;
use dudo_proto::{TableEvent, convert};
use dudo_rules::{Action, seed_from_u64};
use prost::Message;

use super::TableError;
use super::clock::{Clock, Now};
use super::core::{GameLength, Pacing, Setup, TableCore};
use super::journal::Input;
use super::log::{Delivery, Sink, StreamBytes, StreamEnd};
use super::seats::{SeatBot, token_hash};
use crate::budget::Budget;

mod leaving;
mod limits;
mod records;
mod rule_sets;
mod together;
mod windows;
mod words;

/// A stream that keeps what it is sent, read as soon as sent (it holds nothing); its reader
/// can go (`close`).
#[derive(Clone)]
struct Kept(Arc<Mutex<Vec<Delivery>>>, Arc<StreamBytes>, Arc<std::sync::atomic::AtomicBool>);

impl Default for Kept {
    fn default() -> Kept {
        Kept(Arc::default(), StreamBytes::new(Budget::unlimited()), Arc::default())
    }
}

impl Sink for Kept {
    fn offer(&mut self, delivery: Delivery) -> Result<(), Delivery> {
        self.1.release(&delivery);
        if let Ok(mut kept) = self.0.lock() {
            kept.push(delivery);
        }
        Ok(())
    }
    fn is_closed(&self) -> bool {
        self.2.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn bytes(&self) -> &StreamBytes {
        &self.1
    }
}

impl Kept {
    /// The reader goes (a closed tab).
    fn close(&self) {
        self.2.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    fn take(&self) -> Vec<Delivery> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
    fn updates(&self) -> Vec<Up> {
        self.take()
            .into_iter()
            .filter_map(|d| match d {
                Delivery::Update(u) => u.update.clone(),
                Delivery::End(_) => None,
            })
            .collect()
    }
    /// The events among the updates, as the table logged them.
    fn table_events(&self) -> Vec<TableEvent> {
        self.events().iter().filter_map(|e| convert::event_from_wire(e).ok().map(|(_, k)| k)).collect()
    }
    /// The events among the updates.
    fn events(&self) -> Vec<pb::Event> {
        self.updates()
            .into_iter()
            .filter_map(|u| match u {
                Up::Event(e) => Some(e),
                _ => None,
            })
            .collect()
    }
}

fn at(secs: u64) -> Now {
    Now { wall: 1_700_000_000_000 + secs as i64 * 1000, mono: Duration::from_secs(secs) }
}

fn setup(capacity: usize, pacing: Pacing, journalled: bool, length: GameLength) -> Setup {
    Setup {
        id: "0123456789abcdef0123".into(),
        code: "ABCDEF".into(),
        capacity,
        seed: Some(7),
        pacing,
        rate: 50,
        rating_pool: String::new(),
        journalled,
        length,
        budget: Budget::unlimited(),
        host_token: None,
        stalling: Default::default(),
        hidden: false,
        spectators_chat: false,
    }
}

fn table(pacing: Pacing, journalled: bool) -> TableCore {
    let setup = setup(4, pacing, journalled, GameLength::default());
    TableCore::new(dudo_rules::presets::fibbing(), setup, [9; 32], at(0))
}

fn person(core: &mut TableCore, name: &str, now: Now) -> usize {
    let input = Input::Joined { name: name.into(), token_hash: token_hash(name), bot: None, account: None };
    core.apply(input, now).unwrap().seat.unwrap()
}

fn bot(core: &mut TableCore, kind: &str, seed: u64, now: Now) {
    let bot = Some(SeatBot { kind: kind.into(), seed });
    let name = core.seats().bot_name(kind);
    core.apply(Input::Joined { name, token_hash: [seed as u8; 32], bot, account: None }, now).unwrap();
}

fn start(core: &mut TableCore, now: Now) {
    core.apply(Input::Started { seed: seed_from_u64(11), game_id: "g-1".into() }, now).unwrap();
    core.settle(now);
    bots_play_on(core, now);
}

/// What the task does for bots that move at once: another slice of their moves, as long as
/// they have more to play now (a slice ends after `BOT_SLICE` of thinking).
fn bots_play_on(core: &mut TableCore, now: Now) {
    while core.bot_due().is_some_and(|due| due <= now.mono) {
        core.deliver();
        core.bot_moves(now);
    }
}

/// The table as another node rebuilds it from what `core` journalled (through the wire
/// encoding, as the store keeps it).
fn rebuild(core: &mut TableCore) -> TableCore {
    let (journal, _) = core.take_unsaved();
    replay(core, &journal)
}

/// The table as rebuilt from `journal` (all of it, its creation first).
fn replay(core: &TableCore, journal: &[(i64, pb::JournalEntry)]) -> TableCore {
    let entries: Vec<(i64, pb::JournalEntry)> = journal
        .iter()
        .map(|(t, e)| (*t, pb::JournalEntry::decode(e.encode_to_vec().as_slice()).unwrap()))
        .collect();
    let Some(pb::journal_entry::Entry::Created(created)) = &entries[0].1.entry else {
        panic!("creation first")
    };
    let mut rebuilt = TableCore::from_creation(
        core.id().into(),
        core.code().into(),
        created,
        core.length(),
        Budget::unlimited(),
    )
    .unwrap();
    for (t, entry) in &entries[1..] {
        rebuilt.apply(Input::from_entry(entry).unwrap(), Now::at(*t)).unwrap();
        rebuilt.restore_banks(&entry.banks_millis);
    }
    rebuilt
}

fn watch(core: &mut TableCore, token: Option<&str>, since: Option<u64>, now: Now) -> Kept {
    let kept = Kept::default();
    core.subscribe(token, since, Box::new(kept.clone()), now).unwrap();
    core.deliver();
    kept
}

#[test]
fn the_clock_plays_the_default_move_when_it_runs_out() {
    let clock = Clock::new(Duration::from_secs(10), Duration::from_secs(5));
    let mut core = table(
        Pacing {
            clock: Some(clock),
            bot_pause: Duration::ZERO,
            call_window_millis: 0,
            reveal_pause_millis: 0,
        },
        false,
    );
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    start(&mut core, at(1));
    let turn = core.game().and_then(dudo_rules::Game::turn).unwrap();
    // Move time and bank: the deadline is 15 s after the turn began.
    assert_eq!(core.deadline(), Some(Duration::from_secs(16)));
    let stream = watch(&mut core, None, None, at(2));
    stream.take();
    core.time_out(at(16));
    core.deliver();
    let events = stream.events();
    let first = convert::event_from_wire(&events[0]).unwrap().1;
    assert!(matches!(first, TableEvent::TurnTimedOut { seat, .. } if seat == turn), "{first:?}");
    // The next seat is timed now, with its full bank.
    assert_eq!(core.deadline(), Some(Duration::from_secs(16 + 15)));
}

/// The seat being timed, and it alone, is told once a turn when its clock runs low; a bot
/// check can have it told at once; what each seat was asked is kept at a check's table.
#[test]
fn the_seat_being_timed_is_warned_once_when_its_clock_runs_low() {
    let clock = Clock::new(Duration::from_secs(10), Duration::from_secs(30));
    let mut core = table(
        Pacing {
            clock: Some(clock),
            bot_pause: Duration::ZERO,
            call_window_millis: 0,
            reveal_pause_millis: 0,
        },
        false,
    );
    core.for_bot_check();
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    start(&mut core, at(1));
    let turn = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let (mover, other) = if turn == 0 { ("ana", "ben") } else { ("ben", "ana") };
    let mover_stream = watch(&mut core, Some(mover), None, at(2));
    let other_stream = watch(&mut core, Some(other), None, at(2));
    let spectator = watch(&mut core, None, None, at(2));
    for s in [&mover_stream, &other_stream, &spectator] {
        s.take();
    }
    // 40 s in all from 1 s: warned 10 s before the end, at 31 s.
    assert_eq!(core.warning_due(), Some(Duration::from_secs(31)));
    core.warn(at(31));
    core.deliver();
    let warned: Vec<_> = mover_stream
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            Up::ClockWarning(w) => Some(w),
            _ => None,
        })
        .collect();
    assert_eq!(warned.len(), 1, "the seat being timed is warned");
    assert_eq!(warned[0].left_millis, 10_000);
    assert_eq!(warned[0].deadline_unix_millis, at(41).wall as u64);
    assert!(other_stream.updates().is_empty() && spectator.updates().is_empty(), "nobody else is");
    assert_eq!(core.warning_due(), None, "once a turn");
    // A bot check's early warning comes as soon as the seat is timed.
    let next = 1 - turn;
    core.warn_soon(next);
    let action = core.game().and_then(|g| g.default_action(turn)).unwrap();
    core.play(turn, action, at(5)).unwrap();
    core.settle(at(5));
    assert_eq!(core.warning_due(), Some(Duration::ZERO));
    core.warn(at(5));
    let kinds = core.offers_of(next);
    assert!(kinds.offered.contains(&"clock warning"), "{kinds:?}");
    let first = core.offers_of(turn);
    assert!(first.offered.contains(&"opening bid") && first.played.contains(&"bid"), "{first:?}");
    assert!(kinds.offered_any.contains(&"opening bid"));
}

#[test]
fn bots_move_at_once_until_a_person_must_act_and_the_person_is_prompted() {
    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    for seed in 1..4 {
        bot(&mut core, "odds", seed, at(0));
    }
    let ana = watch(&mut core, Some("ana"), None, at(0));
    start(&mut core, at(1));
    core.deliver();
    let updates = ana.updates();
    let prompt = updates.iter().find_map(|u| match u {
        Up::Prompt(p) => Some(p),
        _ => None,
    });
    let prompt = prompt.expect("a prompt for the person");
    assert_eq!(prompt.view.as_ref().and_then(|v| v.turn), Some(0), "the person moves when prompted");
    assert_eq!(core.game().and_then(dudo_rules::Game::turn), Some(0));
}

#[test]
fn a_paused_bot_moves_when_due_and_other_streams_learn_whose_turn_it_is() {
    let pacing = Pacing {
        clock: None,
        bot_pause: Duration::from_secs(2),
        call_window_millis: 0,
        reveal_pause_millis: 0,
    };
    let mut core = table(pacing, false);
    bot(&mut core, "random", 1, at(0));
    bot(&mut core, "random", 2, at(0));
    start(&mut core, at(0));
    let due = core.bot_due().expect("a bot waits out its pause");
    assert_eq!(due, Duration::from_secs(2));
    let spectator = watch(&mut core, None, None, at(1));
    spectator.take();
    let before = core.game().map(|g| g.spectator_view().claims.len());
    core.bot_moves(at(2));
    core.deliver();
    assert_ne!(core.game().map(|g| g.spectator_view().claims.len()), before, "the bot moved");
    let updates = spectator.updates();
    assert!(updates.iter().any(|u| matches!(u, Up::Turn(t) if t.view.is_some())), "{updates:?}");
}

/// Paused bots never stall, whatever ends a slice of their moves: here every slice ends
/// after one move, so a call out of turn in a call window ends one, and the next round's
/// first move (a paused bot's) must still come due. Every move comes due until the game ends.
#[test]
fn paused_bots_play_on_whatever_ends_a_slice() {
    let at_mono = |mono: Duration| Now { wall: 1_700_000_000_000 + mono.as_millis() as i64, mono };
    for game in 0..20u64 {
        let pacing = Pacing {
            clock: None,
            bot_pause: Duration::from_secs(1),
            call_window_millis: 0,
            reveal_pause_millis: 0,
        };
        let mut core = table(pacing, false);
        core.set_bot_slice(Duration::ZERO);
        for seat in 1..=4 {
            bot(&mut core, "random", game * 10 + seat, at(0));
        }
        start(&mut core, at(0));
        for _ in 0..100_000 {
            if core.game().is_some_and(dudo_rules::Game::is_over) {
                break;
            }
            let due =
                core.bot_due().unwrap_or_else(|| panic!("game {game}: no bot move is due, the table stalls"));
            core.bot_moves(at_mono(due));
        }
        assert!(core.game().is_some_and(dudo_rules::Game::is_over), "game {game} ends");
    }
}

#[test]
fn a_resume_gets_what_it_missed_and_a_resume_from_before_the_kept_events_a_snapshot() {
    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    start(&mut core, at(1));
    let seen = watch(&mut core, Some("ana"), Some(2), at(2)).updates();
    assert!(matches!(seen[0], Up::Table(_)));
    let events: Vec<u64> = seen
        .iter()
        .filter_map(|u| match u {
            Up::Event(e) => Some(e.seq),
            _ => None,
        })
        .collect();
    assert!(events.first().is_some_and(|&s| s > 2), "{events:?}");
    // A reset forgets the game's events: a resume from inside it gets a snapshot instead.
    let ana_stream = watch(&mut core, Some("ana"), None, at(3));
    core.apply(Input::Reset, at(4)).unwrap();
    core.deliver();
    let ended = ana_stream.take();
    assert!(
        ended.iter().any(|d| matches!(d, Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Reset)))),
        "{ended:?}"
    );
    let again = watch(&mut core, Some("ana"), Some(2), at(5)).updates();
    assert!(matches!(again.first(), Some(Up::Snapshot(_))), "{again:?}");
}

#[test]
fn a_refused_move_changes_nothing_and_says_which_rule() {
    let mut core = table(Pacing::default(), true);
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    start(&mut core, at(1));
    let _ = core.take_unsaved();
    let turn = core.game().and_then(dudo_rules::Game::turn).unwrap();
    let other = 1 - turn;
    let before = core.game().map(|g| g.spectator_view());
    let refused = core.apply(Input::Moved { seat: other, action: Action::Calza, timed_out: false }, at(2));
    let err = refused.unwrap_err();
    assert!(matches!(err, TableError::Rule(_)), "{err:?}");
    assert!(!err.code().is_empty());
    assert_eq!(core.game().map(|g| g.spectator_view()), before);
    assert!(!core.has_unsaved(), "a refusal journals nothing");
}

#[test]
fn a_table_rebuilt_from_its_journal_is_the_same_table() {
    let mut core = table(Pacing::default(), true);
    person(&mut core, "ana", at(0));
    bot(&mut core, "odds", 1, at(0));
    bot(&mut core, "reader", 2, at(0));
    start(&mut core, at(1));
    // Ana plays her prompts until the game is over, the bots answering at once.
    for i in 0..500 {
        let Some(game) = core.game() else { break };
        if game.is_over() {
            break;
        }
        let seat = core.seats().seat_of("ana").unwrap();
        let action = game.default_action(seat).unwrap();
        core.apply(Input::Moved { seat, action, timed_out: false }, at(2 + i)).unwrap();
        core.settle(at(2 + i));
        // A loaded machine ends a slice of bot moves early: the rest, as the task plays them.
        bots_play_on(&mut core, at(2 + i));
    }
    assert!(core.game().is_some_and(dudo_rules::Game::is_over));
    let (journal, finished) = core.take_unsaved();
    assert_eq!(finished.len(), 1, "the finished game is recorded once");
    // Through the wire encoding, as the store keeps it.
    let mut rebuilt = replay(&core, &journal);
    assert_eq!(rebuilt.info(), core.info());
    assert_eq!(rebuilt.game().map(|g| g.spectator_view()), core.game().map(|g| g.spectator_view()));
    // The same log, salts and all: a stream on each sees the same events. A finished game
    // keeps only its end: a resume from its start gets the same snapshot on both.
    let since = core.last_seq().unwrap() - 20;
    let a = watch(&mut core, None, Some(since), at(900)).updates();
    let b = watch(&mut rebuilt, None, Some(since), at(900)).updates();
    assert_eq!(a, b);
    let (c, d) = (
        watch(&mut core, None, Some(0), at(900)).updates(),
        watch(&mut rebuilt, None, Some(0), at(900)).updates(),
    );
    assert!(matches!(c.first(), Some(Up::Snapshot(_))), "{c:?}");
    assert_eq!(c, d);
    assert!(
        a.iter().any(|u| matches!(u, Up::Event(e) if matches!(e.kind, Some(pb::event::Kind::DiceSalts(_)))))
    );
}

#[test]
fn seats_that_left_are_gone_after_a_reset_and_their_tokens_no_longer_answer() {
    let mut core = table(Pacing::default(), false);
    person(&mut core, "ana", at(0));
    person(&mut core, "ben", at(0));
    person(&mut core, "cat", at(0));
    start(&mut core, at(1));
    let ben = core.seats().seat_of("ben").unwrap();
    core.apply(Input::Removed { seat: ben, why: Some(dudo_proto::LeaveWhy::Removed) }, at(2)).unwrap();
    assert_eq!(core.seats().seat_of("ben"), Err(TableError::NotSeated));
    core.apply(Input::Reset, at(3)).unwrap();
    assert_eq!(core.seats().len(), 2);
    assert_eq!(core.seats().seat_of("cat"), Ok(1), "seats after the one that left move down");
    assert_eq!(core.seats().host(), 0);
}

#[test]
fn every_preset_comes_back_from_the_journal_as_it_went_in() {
    for name in dudo_rules::presets::NAMES {
        let rules = dudo_rules::presets::by_name(name).unwrap_or_else(|| panic!("{name}"));
        assert!(super::journals_faithfully(&rules), "{name}");
        let changed = dudo_rules::presets::with_setting(rules, "dice.faces", "8");
        if let Ok(changed) = changed {
            assert!(super::journals_faithfully(&changed), "{name} with eight faces");
        }
    }
}

#[test]
fn hex_is_lower_case_two_digits_a_byte() {
    assert_eq!(super::proofs::hex(&[0, 0x0f, 0xa0, 0xff]), "000fa0ff");
    assert_eq!(super::secret().len(), 32);
}

#[test]
fn a_host_that_holds_no_seat_hosts_and_is_rebuilt_so() {
    let mut setup = setup(2, Pacing::default(), true, GameLength::default());
    setup.host_token = Some(token_hash("the-host"));
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [3; 32], at(0));
    bot(&mut core, "odds", 1, at(0));
    bot(&mut core, "random", 2, at(0));
    assert_eq!(core.seats().host_only("the-host"), Ok(super::seats::NO_SEAT));
    assert_eq!(core.seats().seat_of("the-host"), Err(TableError::NotSeated), "no seat to play");
    assert_eq!(core.info().host, u32::MAX);
    assert_eq!(core.info().players.len(), 2, "every seat is a player's");
    start(&mut core, at(1));
    assert!(core.game().is_some_and(dudo_rules::Game::is_over), "two bots play it out");
    let (journal, _) = core.take_unsaved();
    let Some(pb::journal_entry::Entry::Created(created)) = &journal[0].1.entry else {
        panic!("creation first")
    };
    let rebuilt = TableCore::from_creation(
        core.id().into(),
        core.code().into(),
        created,
        GameLength::default(),
        Budget::unlimited(),
    )
    .unwrap();
    assert_eq!(
        rebuilt.seats().host_only("the-host"),
        Ok(super::seats::NO_SEAT),
        "the journal keeps the host"
    );
}

/// A seeded table's first game is the seed's (as `dudo simulate` plays it); a game after a
/// reset is dealt anew, or the last game's public replay would show the next one's cups.
#[test]
fn a_seeded_table_deals_each_game_anew() {
    use super::game_seed;
    assert_eq!(game_seed(7, 1), seed_from_u64(7));
    let seeds: std::collections::HashSet<_> = (1..=50).map(|n| game_seed(7, n)).collect();
    assert_eq!(seeds.len(), 50);
    assert_ne!(game_seed(7, 2), game_seed(8, 2));
}
