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

/// A stream that keeps what it is sent, read as soon as sent (it holds nothing).
#[derive(Clone)]
struct Kept(Arc<Mutex<Vec<Delivery>>>, Arc<StreamBytes>);

impl Default for Kept {
    fn default() -> Kept {
        Kept(Arc::default(), StreamBytes::new(Budget::unlimited()))
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
        false
    }
    fn bytes(&self) -> &StreamBytes {
        &self.1
    }
}

impl Kept {
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

fn watch(core: &mut TableCore, token: Option<&str>, since: Option<u64>, now: Now) -> Kept {
    let kept = Kept::default();
    core.subscribe(token, since, Box::new(kept.clone()), now).unwrap();
    core.deliver();
    kept
}

#[test]
fn the_clock_plays_the_default_move_when_it_runs_out() {
    let clock = Clock::new(Duration::from_secs(10), Duration::from_secs(5));
    let mut core =
        table(Pacing { clock: Some(clock), bot_pause: Duration::ZERO, call_window_millis: 0 }, false);
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
    let events: Vec<pb::Event> = stream
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            Up::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let first = convert::event_from_wire(&events[0]).unwrap().1;
    assert!(matches!(first, TableEvent::TurnTimedOut { seat, .. } if seat == turn), "{first:?}");
    // The next seat is timed now, with its full bank.
    assert_eq!(core.deadline(), Some(Duration::from_secs(16 + 15)));
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
    let pacing = Pacing { clock: None, bot_pause: Duration::from_secs(2), call_window_millis: 0 };
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
    }
    assert!(core.game().is_some_and(dudo_rules::Game::is_over));
    let (journal, finished) = core.take_unsaved();
    assert_eq!(finished.len(), 1, "the finished game is recorded once");
    // Through the wire encoding, as the store keeps it.
    let entries: Vec<(i64, pb::JournalEntry)> = journal
        .into_iter()
        .map(|(t, e)| (t, pb::JournalEntry::decode(e.encode_to_vec().as_slice()).unwrap()))
        .collect();
    let Some(pb::journal_entry::Entry::Created(created)) = &entries[0].1.entry else {
        panic!("creation first")
    };
    let mut rebuilt = TableCore::from_creation(
        core.id().into(),
        core.code().into(),
        created,
        GameLength::default(),
        Budget::unlimited(),
    )
    .unwrap();
    for (t, entry) in &entries[1..] {
        rebuilt.apply(Input::from_entry(entry).unwrap(), Now::at(*t)).unwrap();
    }
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
    core.apply(Input::Removed { seat: ben, by_host: true }, at(2)).unwrap();
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
fn a_game_that_reaches_the_servers_move_limit_is_stopped_and_ranked() {
    let setup = setup(3, Pacing::default(), true, GameLength { max_moves: 20, ..GameLength::default() });
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [1; 32], at(0));
    for seed in 1..4 {
        bot(&mut core, "odds", seed, at(0));
    }
    let spectator = watch(&mut core, None, None, at(0));
    start(&mut core, at(1));
    core.deliver();
    assert!(core.game().is_some_and(dudo_rules::Game::is_over), "stopped at 20 moves");
    let kinds: Vec<pb::event::Kind> = spectator
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            Up::Event(e) => e.kind,
            _ => None,
        })
        .collect();
    let stop = kinds.iter().position(|k| matches!(k, pb::event::Kind::GameStopped(s) if s.limit == 20));
    let over = kinds.iter().position(|k| matches!(k, pb::event::Kind::GameOver(_)));
    assert!(stop.is_some() && over > stop, "a game_stopped, then the game_over: {kinds:?}");
    // The stop is journalled: the rebuilt table is stopped too, at the same move.
    let (journal, finished) = core.take_unsaved();
    assert_eq!(finished.len(), 1);
    let Some(pb::journal_entry::Entry::Created(created)) = &journal[0].1.entry else {
        panic!("creation first")
    };
    let mut rebuilt = TableCore::from_creation(
        core.id().into(),
        core.code().into(),
        created,
        GameLength::default(),
        Budget::unlimited(),
    )
    .unwrap();
    for (t, entry) in &journal[1..] {
        rebuilt.apply(Input::from_entry(entry).unwrap(), Now::at(*t)).unwrap();
    }
    assert_eq!(rebuilt.game().map(|g| g.standings()), core.game().map(|g| g.standings()));
}

/// A reader that never reads: what it is sent stays held.
#[derive(Clone)]
struct Stuck(Arc<StreamBytes>, Arc<AtomicUsize>);

impl Default for Stuck {
    fn default() -> Stuck {
        Stuck(StreamBytes::new(Budget::unlimited()), Arc::default())
    }
}

impl Sink for Stuck {
    fn offer(&mut self, _: Delivery) -> Result<(), Delivery> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    fn is_closed(&self) -> bool {
        false
    }
    fn bytes(&self) -> &StreamBytes {
        &self.0
    }
}

#[test]
fn a_reader_that_never_reads_is_dropped_once_it_holds_its_share_of_bytes() {
    let mut core = table(Pacing::default(), false);
    for seed in 1..4 {
        bot(&mut core, "odds", seed, at(0));
    }
    let stuck = Stuck::default();
    core.subscribe(None, None, Box::new(stuck.clone()), at(0)).unwrap();
    let offers = |s: &Stuck| s.1.load(std::sync::atomic::Ordering::Relaxed);
    let mut games = 0;
    let mut last = 0;
    for g in 0..200 {
        core.apply(Input::Started { seed: seed_from_u64(g), game_id: format!("g-{g}") }, at(g)).unwrap();
        core.settle(at(g));
        core.deliver();
        core.apply(Input::Reset, at(g)).unwrap();
        core.deliver();
        games += 1;
        if offers(&stuck) == last {
            break;
        }
        last = offers(&stuck);
    }
    let held = stuck.0.held();
    assert!(games < 200, "the stream was never dropped");
    assert!(held <= super::log::SUBSCRIBER_BYTES, "{held} bytes held");
}

/// A table of three bots that play as soon as it settles, with `length` and `budget`.
fn bots_table(length: GameLength, budget: Arc<Budget>) -> TableCore {
    let mut setup = setup(3, Pacing::default(), false, length);
    setup.budget = budget;
    let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [1; 32], at(0));
    for seed in 1..4 {
        bot(&mut core, "odds", seed, at(0));
    }
    core
}

/// The reason the last game stopped, from a stream that saw it.
fn stopped(stream: &Kept) -> Option<pb::GameStop> {
    stream.updates().into_iter().find_map(|u| match u {
        Up::Event(pb::Event { kind: Some(pb::event::Kind::GameStopped(s)), .. }) => Some(s),
        _ => None,
    })
}

#[test]
fn a_game_whose_events_reach_the_servers_size_limit_is_stopped() {
    let mut core = bots_table(GameLength { max_bytes: 40_000, ..GameLength::default() }, Budget::unlimited());
    let spectator = watch(&mut core, None, None, at(0));
    start(&mut core, at(1));
    core.deliver();
    let stop = stopped(&spectator).expect("a game_stopped event");
    assert_eq!(stop.why, pb::game_stop::Why::Size as i32);
    assert_eq!(stop.limit, 40_000);
    assert!(core.game().is_some_and(dudo_rules::Game::is_over));
}

/// A finished game keeps its end for resumes, not its whole log: finished tables waiting for
/// their idle close hold next to nothing of the budget.
#[test]
fn a_finished_game_gives_back_all_but_its_end() {
    let budget = Budget::unlimited();
    let mut setup = setup(3, Pacing::default(), false, GameLength::default());
    setup.budget = Arc::clone(&budget);
    // Twenty dice each: a long game.
    let rules = dudo_rules::presets::with_setting(dudo_rules::presets::fibbing(), "dice.max", "20").unwrap();
    let rules = dudo_rules::presets::with_setting(rules, "dice.start", "20").unwrap();
    let mut core = TableCore::new(rules, setup, [1; 32], at(0));
    for seed in 1..4 {
        bot(&mut core, "odds", seed, at(0));
    }
    core.apply(Input::Started { seed: seed_from_u64(11), game_id: "g-1".into() }, at(1)).unwrap();
    let mut most = 0;
    core.settle(at(1));
    while core.bot_due().is_some() {
        most = most.max(budget.used());
        core.bot_moves(at(1));
    }
    assert!(core.game().is_some_and(dudo_rules::Game::is_over));
    let kept = budget.used();
    assert!(kept * 5 < most, "a finished game holds {kept} bytes, at most {most} while it was played");
    // A resume from before the kept end gets a snapshot of the final position.
    let resumed = watch(&mut core, None, Some(0), at(2)).updates();
    assert!(matches!(resumed.first(), Some(Up::Snapshot(_))), "{resumed:?}");
}

#[test]
fn games_stop_growing_when_the_server_is_past_its_memory_budget_and_give_it_back() {
    let budget = Budget::new(60_000);
    let mut core = bots_table(GameLength::default(), Arc::clone(&budget));
    let spectator = watch(&mut core, None, None, at(0));
    start(&mut core, at(1));
    core.deliver();
    let stop = stopped(&spectator).expect("a game_stopped event");
    assert_eq!(stop.why, pb::game_stop::Why::Memory as i32);
    assert!(budget.used() > 0, "the stopped game's events are still held");
    drop(core);
    assert_eq!(budget.used(), 0, "a table gone gives back everything it held");
}

#[test]
fn resumed_streams_share_the_logs_copies_and_a_reader_that_never_reads_stays_within_the_budget() {
    let budget = Budget::new(1024 * 1024);
    let mut core = bots_table(GameLength::default(), Arc::clone(&budget));
    start(&mut core, at(1));
    core.deliver();
    let log_bytes = budget.used();
    assert!(log_bytes > 0);
    // A resume from the kept events (a finished game keeps its end) hands out the log's own
    // updates, not new ones.
    let since = core.last_seq().unwrap() - 40;
    let mut readers = Vec::new();
    let mut refused = 0;
    for _ in 0..1000 {
        let (sink, reader) = super::stream_channel(Arc::clone(&budget));
        match core.subscribe(None, Some(since), Box::new(sink), at(2)) {
            Ok(()) => readers.push(reader),
            // Refused for the budget: the server is busy, the reader is not behind.
            Err(TableError::ServerBusy) => refused += 1,
            Err(e) => panic!("{e}"),
        }
        core.deliver();
    }
    assert!(refused > 0, "resumes past the budget are refused");
    assert!(!readers.is_empty());
    assert!(budget.used() <= 1024 * 1024, "{} held", budget.used());
    // Readers that go away give back what they never read.
    drop(readers);
    assert_eq!(budget.used(), log_bytes);
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
    assert_eq!(core.pass_call(third, at(5)), Err(TableError::NoCallWindow));
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
    let kinds: Vec<TableEvent> = all
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            Up::Event(e) => convert::event_from_wire(&e).ok().map(|(_, k)| k),
            _ => None,
        })
        .collect();
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
