//! The server's limits on a game: moves, size, memory, and readers that never read.

use super::*;

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
    let rebuilt = replay(&core, &journal);
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
    assert!(held <= crate::table::log::SUBSCRIBER_BYTES, "{held} bytes held");
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
        let (sink, reader) = crate::table::stream_channel(Arc::clone(&budget));
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
