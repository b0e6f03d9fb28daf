//! `dudo simulate`: many games between built-in bots, on every core.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use dudo_rules::{bots, seed_from_u64, sim};

use crate::RuleArgs;

#[derive(Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Players at each table (default: four, or as near as the rule set allows: two for
    /// openspiel).
    #[arg(long)]
    pub players: Option<usize>,
    /// Games to play (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// The bot in each seat, in seat order, repeated to fill the table (random, odds, reader, expert).
    /// Commas work too: --bot odds,random
    #[arg(long = "bot", value_delimiter = ',', default_value = "odds")]
    pub bots: Vec<String>,
    /// Seed for the whole run: the same seed plays the same games.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads, 1 to 1024 (default: every core).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub threads: Option<usize>,
    /// Deal from Xoshiro256++, a quicker generator than the ChaCha12 a server deals from:
    /// the same statistics, but not the games a server would deal from the same seeds.
    #[arg(long)]
    pub fast_dice: bool,
}

#[derive(Default, Clone)]
struct Tally {
    wins: Vec<u64>,
    place_sum: Vec<u64>,
    rounds: u64,
    actions: u64,
}

/// Four players, or the nearest the rule set seats.
fn default_players(rules: &dudo_rules::RuleSet) -> usize {
    4usize.clamp(usize::from(rules.players.min), usize::from(rules.players.max.max(rules.players.min)))
}

pub fn run(args: SimulateArgs) -> anyhow::Result<ExitCode> {
    let rules = std::sync::Arc::new(args.rules.resolve()?);
    let seats = args.players.unwrap_or_else(|| default_players(&rules));
    for name in &args.bots {
        if bots::by_name(name, 0).is_none() {
            anyhow::bail!("no bot {name:?}; the bots are {}", bots::NAMES.join(", "));
        }
    }
    let names: Vec<String> = (0..seats).map(|s| args.bots[s % args.bots.len()].clone()).collect();
    let threads =
        args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let started = Instant::now();
    let results: Vec<anyhow::Result<Tally>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let (rules, names) = (&rules, &names);
                scope.spawn(move || -> anyhow::Result<Tally> {
                    let mut tally =
                        Tally { wins: vec![0; seats], place_sum: vec![0; seats], ..Tally::default() };
                    let mut i = t;
                    // One game's buffers for the thread's every game.
                    let mut runner =
                        sim::Runner::new(if args.fast_dice { sim::Dice::Fast } else { sim::Dice::Secure });
                    let mut table: Vec<Box<dyn bots::Bot>> = Vec::with_capacity(seats);
                    while i < args.games {
                        let seed = dudo_rules::nth_seed(args.seed, i);
                        // The bots of the last game, seeded again for this one.
                        for (s, name) in names.iter().enumerate() {
                            let seat_seed = bots::seat_seed(seed, s);
                            let reseeded = table.get_mut(s).is_some_and(|bot| bot.reseed(seat_seed));
                            if !reseeded {
                                let bot = bots::by_name(name, seat_seed)
                                    .ok_or_else(|| anyhow::anyhow!("no bot {name:?}"))?;
                                table.truncate(s);
                                table.push(bot);
                            }
                        }
                        let outcome = runner.play(rules, &mut table, seed_from_u64(seed))?;
                        if let Some(&w) = outcome.standings.first() {
                            tally.wins[w] += 1;
                        }
                        for (place, &s) in outcome.standings.iter().enumerate() {
                            tally.place_sum[s] += place as u64 + 1;
                        }
                        tally.rounds += u64::from(outcome.rounds);
                        tally.actions += outcome.actions;
                        i += threads as u64;
                    }
                    Ok(tally)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a worker panicked"))))
            .collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let mut total = Tally { wins: vec![0; seats], place_sum: vec![0; seats], ..Tally::default() };
    for r in results {
        let t = r?;
        for s in 0..seats {
            total.wins[s] += t.wins[s];
            total.place_sum[s] += t.place_sum[s];
        }
        total.rounds += t.rounds;
        total.actions += t.actions;
    }
    let games = args.games.max(1) as f64;
    println!(
        "{} ({}), {} players, {} games in {:.2} s: {:.0} games/s, {:.0} actions/s on {} thread{}{}",
        rules.name,
        rules.dice.start,
        seats,
        args.games,
        elapsed,
        args.games as f64 / elapsed.max(1e-9),
        total.actions as f64 / elapsed.max(1e-9),
        threads,
        if threads == 1 { "" } else { "s" },
        if args.fast_dice { ", fast dice" } else { "" }
    );
    println!(
        "mean rounds per game {:.1}, mean actions per game {:.1}",
        total.rounds as f64 / games,
        total.actions as f64 / games
    );
    println!("{:<5} {:<8} {:>8} {:>7} {:>11}", "seat", "bot", "wins", "win%", "mean place");
    for (s, name) in names.iter().enumerate() {
        println!(
            "{:<5} {:<8} {:>8} {:>6.1}% {:>11.2}",
            s,
            name,
            total.wins[s],
            100.0 * total.wins[s] as f64 / games,
            total.place_sum[s] as f64 / games
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_table_is_one_the_rules_seat() {
        for name in dudo_rules::presets::NAMES {
            let rules = dudo_rules::presets::by_name(name).unwrap_or_default();
            let n = default_players(&rules);
            assert!(
                (usize::from(rules.players.min)..=usize::from(rules.players.max)).contains(&n),
                "{name}: {n}"
            );
        }
        let openspiel = dudo_rules::presets::by_name("openspiel").unwrap_or_default();
        assert_eq!(default_players(&openspiel), 2);
        assert_eq!(default_players(&dudo_rules::presets::fibbing()), 4);
    }
}
