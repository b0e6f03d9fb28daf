//! Finished games' records as the store keeps them (stored_record.rs): compact for every
//! rule set, stopped games and seats that left, and read back as the game was played.

use super::*;
use crate::table::stored_record;

/// Plays a game of `rules` between `seats` odds bots until it ends (at `length`'s limits),
/// with a spectator watching from the start: the stored record, and what the spectator saw.
fn played(rules: dudo_rules::RuleSet, seats: usize, length: GameLength) -> (Vec<u8>, Vec<pb::Event>) {
    let setup = setup(seats, Pacing::default(), true, length);
    let mut core = TableCore::new(rules, setup, [5; 32], at(0));
    for seed in 0..seats {
        bot(&mut core, "odds", seed as u64 + 1, at(0));
    }
    let spectator = watch(&mut core, None, None, at(0));
    start(&mut core, at(1));
    core.deliver();
    assert!(core.game().is_some_and(dudo_rules::Game::is_over), "the bots finish the game");
    (stored(&mut core), spectator.events())
}

/// The one game the table finished, its record made compact as the table does when it
/// writes it.
fn stored(core: &mut TableCore) -> Vec<u8> {
    let (_, finished) = core.take_unsaved();
    assert_eq!(finished.len(), 1, "one finished game");
    stored_record::compact_stored(&finished[0].record, core.dice_secret())
}

/// Every event the spectator was sent is in the record, the same at the same place in the
/// log: the engine's, the dice commitments and their salts, made again from the compact form.
fn reads_back_as_seen(name: &str, record: &[u8], seen: &[pb::Event]) -> pb::Replay {
    let replay = stored_record::decode(record).unwrap();
    for event in seen {
        let kept = replay.events.iter().find(|e| e.seq == event.seq);
        assert_eq!(kept, Some(event), "{name}: event {} as it was sent", event.seq);
    }
    assert_eq!(replay.events.len(), replay.event_unix_millis.len());
    replay
}

#[test]
fn every_rule_sets_records_are_compact_and_read_back_as_played() {
    for name in dudo_rules::presets::NAMES {
        let rules = dudo_rules::presets::by_name(name).unwrap();
        let seats = 3.clamp(usize::from(rules.players.min), usize::from(rules.players.max));
        let (record, seen) = played(rules, seats, GameLength::default());
        assert!(stored_record::is_compact(&record), "{name}: the record is compact");
        let replay = reads_back_as_seen(name, &record, &seen);
        assert!(
            replay.events.iter().any(|e| matches!(e.kind, Some(pb::event::Kind::DiceCommitted(_)))),
            "{name}: the commitments are made again"
        );
        // Far smaller than the replay it stands for, whose size it says in its first bytes.
        let whole = replay.encoded_len();
        assert_eq!(stored_record::whole_size(&record[..stored_record::HEAD], record.len()), whole);
        assert!(record.len() * 2 < whole, "{name}: {} bytes for a replay of {whole}", record.len());
    }
}

#[test]
fn a_stopped_game_and_a_seat_that_left_keep_compact_records() {
    let length = GameLength { max_moves: 12, ..GameLength::default() };
    let (record, seen) = played(dudo_rules::presets::fibbing(), 3, length);
    assert!(stored_record::is_compact(&record));
    let replay = reads_back_as_seen("stopped", &record, &seen);
    assert!(replay.events.iter().any(|e| matches!(e.kind, Some(pb::event::Kind::GameStopped(_)))));

    // Ana leaves at her first turn (before the round's first call, which the engine allows):
    // a deal where she opens.
    let (mut core, spectator, ana) = (0..64)
        .find_map(|seed| {
            let mut core = table(Pacing::default(), true);
            let ana = person(&mut core, "ana", at(0));
            bot(&mut core, "odds", 1, at(0));
            bot(&mut core, "reader", 2, at(0));
            let spectator = watch(&mut core, None, None, at(0));
            let started = Input::Started { seed: seed_from_u64(seed), game_id: "g-1".into() };
            core.apply(started, at(1)).unwrap();
            (core.game().and_then(dudo_rules::Game::turn) == Some(ana)).then_some((core, spectator, ana))
        })
        .expect("a deal where Ana opens");
    core.apply(Input::Removed { seat: ana, why: Some(dudo_proto::LeaveWhy::Left) }, at(2)).unwrap();
    core.settle(at(2));
    bots_play_on(&mut core, at(2));
    core.deliver();
    assert!(core.game().is_some_and(dudo_rules::Game::is_over));
    let record = stored(&mut core);
    assert!(stored_record::is_compact(&record));
    reads_back_as_seen("left", &record, &spectator.events());
}

#[test]
fn a_replay_the_moves_do_not_make_is_kept_whole_and_read_back_as_it_was() {
    let (record, _) = played(dudo_rules::presets::fibbing(), 3, GameLength::default());
    let mut replay = stored_record::decode(&record).unwrap();
    // A record whose events are not what its moves make (an engine that changed since, say).
    let bid = replay.events.iter_mut().find_map(|e| match &mut e.kind {
        Some(pb::event::Kind::BidMade(b)) => Some(b),
        _ => None,
    });
    bid.unwrap().seat += 1;
    let stored = stored_record::encode(&replay, [5; 32]);
    assert!(!stored_record::is_compact(&stored));
    assert_eq!(stored_record::decode(&stored).unwrap(), replay);
    // A record from before the compact form reads as it always did.
    assert_eq!(stored_record::decode(&replay.encode_to_vec()).unwrap(), replay);
    // And a compact record that was cut short or tampered with is an error, not a panic.
    assert!(stored_record::decode(&record[..record.len() / 2]).is_err());
    let mut garbled = record.clone();
    let last = garbled.len() - 1;
    garbled[last] ^= 0x55;
    let _ = stored_record::decode(&garbled);
}

/// A rated game rebuilt mid-game (a failover, a restart) is rated only if nobody it cut off
/// lost a move to the clock before moving again themselves; the rebuild is journalled, so a
/// second rebuild knows it too.
#[test]
fn a_rated_game_whose_rebuild_cost_a_seat_a_move_is_recorded_unrated() {
    for cost_a_move in [false, true] {
        let clock = Clock::new(Duration::from_secs(3), Duration::ZERO);
        let mut setup =
            setup(2, Pacing { clock: Some(clock), ..Pacing::default() }, true, GameLength::default());
        setup.rating_pool = "ladder:fibbing-2".into();
        let mut core = TableCore::new(dudo_rules::presets::fibbing(), setup, [5; 32], at(0));
        person(&mut core, "ana", at(0));
        person(&mut core, "ben", at(0));
        start(&mut core, at(1));
        // Rebuilt once, then again from the journal with what the first rebuild added.
        let (mut journal, _) = core.take_unsaved();
        let mut once = replay(&core, &journal);
        let _ = once.take_unsaved();
        once.apply(Input::Rebuilt, at(2)).unwrap();
        journal.extend(once.take_unsaved().0);
        let mut rebuilt = replay(&core, &journal);
        rebuilt.back_at(at(2));
        rebuilt.settle(at(2));
        let mut secs = 2;
        let mut first = true;
        while rebuilt.game().is_some_and(|g| !g.is_over()) && secs < 2_000 {
            secs += 4;
            let turn = rebuilt.game().unwrap().turn().unwrap();
            if first && cost_a_move {
                rebuilt.time_out(at(secs));
            } else {
                let action = rebuilt.game().unwrap().default_action(turn).unwrap();
                rebuilt.play(turn, action, at(secs)).unwrap();
                rebuilt.settle(at(secs));
            }
            first = false;
        }
        let (_, finished) = rebuilt.take_unsaved();
        let pool = &finished[0].summary.rating_pool;
        match cost_a_move {
            true => assert_eq!(pool, "", "a time-out of a seat cut off: unrated"),
            false => assert_eq!(pool, "ladder:fibbing-2", "everyone moved again: rated"),
        }
    }
}
