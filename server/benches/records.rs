//! What keeping a finished game's record costs (stored_record.rs): encoding it compact when
//! the game ends (which plays the moves through the engine again, to check the compact form
//! reads back exactly), and reading it back for a replay.
//!
//! The game: six odds bots playing `fibbing` with five dice each (72 moves, 499 events).
//!
//! Run: `cargo bench -p dudo-server --bench records`. Figures go in BENCHMARKS.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use dudo_proto::{TableEvent, convert, v1 as pb};
use dudo_rules::bots::{Bot, OddsBot};
use dudo_rules::{Game, Legal, presets, seed_from_u64};
use dudo_server::table::stored_record;
use prost::Message;

/// A finished six-seat game's replay, as the table makes it (less the dice proofs, which a
/// table adds and the engine does not).
fn replay() -> pb::Replay {
    let rules = Arc::new(presets::fibbing());
    let seed = seed_from_u64(3);
    let mut bots: Vec<OddsBot> = (0..6).map(OddsBot::new).collect();
    let (mut game, mut events) = Game::start(Arc::clone(&rules), 6, seed).unwrap();
    let mut moves = Vec::new();
    let mut legal = Legal::default();
    while let Some(seat) = game.turn() {
        game.legal_into(seat, &mut legal);
        let action = bots[seat].act(&rules, &game.view(seat), &legal);
        events.extend(game.apply(seat, &action).unwrap());
        let seat = u32::try_from(seat).unwrap();
        moves.push(pb::GameMove { seat, action: Some(convert::action_to_wire(&action)), timed_out: false });
    }
    let started = 1_700_000_000_000u64;
    let summary = pb::GameSummary {
        id: "0123456789abcdef-1".into(),
        table_id: "0123456789abcdef0123456789abcdef".into(),
        preset: "fibbing".into(),
        started_unix_millis: started,
        finished_unix_millis: started + 60_000,
        players: (0..6)
            .map(|seat| pb::GamePlayer {
                seat,
                name: format!("Odds {seat}"),
                bot: "odds".into(),
                ..Default::default()
            })
            .collect(),
        rating_pool: String::new(),
    };
    pb::Replay {
        summary: Some(summary),
        rules: Some(convert::rules_to_wire(&rules)),
        event_unix_millis: (0..events.len() as u64).map(|i| started + 400 * i).collect(),
        events: events
            .into_iter()
            .enumerate()
            .map(|(i, e)| convert::event_to_wire(i as u64 + 1, &TableEvent::Game(e)))
            .collect(),
        tournament: String::new(),
        seed: seed.to_vec(),
        moves,
    }
}

fn records(c: &mut Criterion) {
    let replay = replay();
    let stored = stored_record::encode(&replay, [7; 32]);
    assert!(stored_record::is_compact(&stored));
    println!(
        "a game of {} moves, {} events: {} bytes whole, {} bytes stored",
        replay.moves.len(),
        replay.events.len(),
        replay.encoded_len(),
        stored.len()
    );
    let mut group = c.benchmark_group("records");
    group.bench_function("encode_at_game_end", |b| {
        b.iter(|| black_box(stored_record::encode(&replay, [7; 32])))
    });
    group.bench_function("decode_for_a_replay", |b| {
        b.iter(|| black_box(stored_record::decode(&stored).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, records);
criterion_main!(benches);
