//! Engine throughput on one core.
//!
//! - `single_round_random`: the `openspiel` preset (two players, five dice, one round), random
//!   play from the deal to the challenge. Target: 2,000,000 playouts per second.
//! - `fibbing_six_players_odds`: complete six-player five-dice `fibbing` games between odds
//!   bots. Target: 20,000 games per second.
//!
//! Run: `cargo bench -p dudo-rules --bench playouts`. Figures go in BENCHMARKS.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dudo_rules::bots::{Bot, OddsBot};
use dudo_rules::dice::DiceSource;
use dudo_rules::game::Discard;
use dudo_rules::{Game, presets, seed_from_u64, sim};
use rand::SeedableRng;
use rand::rngs::SmallRng;

fn single_round_random(c: &mut Criterion) {
    let rules = std::sync::Arc::new(presets::openspiel());
    let mut group = c.benchmark_group("single_round_random");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(5));
    let mut rng = SmallRng::seed_from_u64(1);
    let mut n = 0u64;
    let mut game = Game::start_into(rules, 2, DiceSource::new(seed_from_u64(0)), None, &mut Discard).unwrap();
    group.bench_function("openspiel_2p_5d", |b| {
        b.iter(|| {
            n += 1;
            game.restart(DiceSource::new(seed_from_u64(n)), &mut Discard);
            let mut actions = 0u32;
            while let Some(seat) = game.turn() {
                let action = game.random_legal_action(seat, &mut rng).unwrap();
                game.apply_into(seat, &action, &mut Discard).unwrap();
                actions += 1;
            }
            black_box(actions)
        })
    });
    group.finish();
}

fn fibbing_six_players_odds(c: &mut Criterion) {
    let rules = std::sync::Arc::new(presets::fibbing());
    let mut group = c.benchmark_group("fibbing_6p_5d_odds");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(8));
    let mut n = 0u64;
    group.bench_function("game", |b| {
        b.iter(|| {
            n += 1;
            let mut bots: Vec<Box<dyn Bot>> =
                (0..6).map(|s| Box::new(OddsBot::new(n * 8 + s)) as Box<dyn Bot>).collect();
            black_box(sim::play(&rules, &mut bots, seed_from_u64(n)).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, single_round_random, fibbing_six_players_odds);
criterion_main!(benches);
