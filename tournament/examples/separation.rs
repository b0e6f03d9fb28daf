//! How many deals a tournament needs before the 95% intervals tell the built-in bots apart,
//! with duplicate deals and without: the point of duplicate play, measured (BENCHMARKS.md).
//!
//! ```text
//! cargo run --release -p dudo-tournament --example separation -- [PRESET] [TOURNAMENTS] [MAX_DEALS] [SEATS]
//! ```
//!
//! Each tournament is a round robin of random, odds and reader (at one table of three, or
//! every pair with SEATS 2) on the preset (fibbing unless given), played by the engine's simulator with the schedule and
//! standings a server's tournament uses, three ways: a fresh deal for every game; duplicate
//! deals with the game's dice one stream, as a table deals today (a deal's rotations share
//! the first round's cups, then part as soon as the rounds differ); and duplicate deals dealt
//! by seat and roll (`DiceSource::dealt`: a seat's k-th cup is the same in every rotation). For each pair of bots it prints the median number of
//! deals after which the better bot is ahead with 95% confidence, and stays ahead at every
//! later count measured, and the mean half-width of the pair's interval after all the deals
//! (the narrower, the fewer deals a tournament needs: deals needed go as its square).

use std::sync::Arc;

use dudo_rules::{bots, presets, seed_from_u64, sim};
use dudo_tournament::{Deals, Finished, schedule, standings};

const BOTS: [&str; 3] = ["random", "odds", "reader"];
/// Deal counts at which the standings are looked at.
const CHECKPOINTS: [u32; 28] = [
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200,
];

/// One pair (better, worse) over the tournaments: the deals it needed in each (none: it never
/// stayed ahead), and its interval's half-width after all the deals.
type PairRuns = ((usize, usize), Vec<Option<u32>>, Vec<f64>);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a.starts_with('-')) {
        println!("usage: separation [PRESET] [TOURNAMENTS] [MAX_DEALS] [SEATS]   (fibbing 20 200 3)");
        return Ok(());
    }
    let preset = args.next().unwrap_or_else(|| "fibbing".into());
    let tournaments: u64 = args.next().map_or(Ok(20), |a| a.parse())?;
    let max_deals: u32 = args.next().map_or(Ok(200), |a| a.parse())?;
    let seats: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let rules = Arc::new(presets::by_name(&preset).ok_or_else(|| format!("no preset {preset:?}"))?);
    let checkpoints: Vec<u32> = CHECKPOINTS.iter().copied().filter(|&c| c <= max_deals).collect();
    println!(
        "{tournaments} round robins of {} on {preset}, {seats} seats, up to {max_deals} deals",
        BOTS.join(", ")
    );
    let ways = [
        (Deals::Fresh, sim::Dice::Secure, "fresh deals (no duplicate)"),
        (
            Deals::Duplicate,
            sim::Dice::Secure,
            "duplicate deals, the game's dice one stream (as a table deals)",
        ),
        (Deals::Duplicate, sim::Dice::Dealt, "duplicate deals, dealt by seat and roll"),
    ];
    for (kind, dice, what) in ways {
        let started = std::time::Instant::now();
        // Per pair (by index into BOTS, better first): deals needed, per tournament.
        let mut needed: Vec<PairRuns> = Vec::new();
        let mut games_played = 0usize;
        for t in 0..tournaments {
            let games = schedule::round_robin(BOTS.len(), seats, max_deals, t, kind)?;
            let mut runner = sim::Runner::new(dice);
            let mut finished = Vec::with_capacity(games.len());
            for game in &games {
                let mut table: Vec<Box<dyn bots::Bot>> = game
                    .seats
                    .iter()
                    .enumerate()
                    .filter_map(|(seat, &e)| bots::by_name(BOTS[e], bots::seat_seed(game.seed, seat)))
                    .collect();
                let outcome = runner.play(&rules, &mut table, seed_from_u64(game.seed))?;
                let finish = outcome.standings.iter().map(|&seat| game.seats[seat]).collect();
                finished.push(Finished { deal: game.deal, finish });
            }
            games_played += finished.len();
            // Which pairs are ahead at each checkpoint (the games are in deal order).
            let per_deal = finished.len() / max_deals as usize;
            let ahead_at: Vec<standings::Standings> = checkpoints
                .iter()
                .map(|&c| standings::standings(BOTS.len(), &finished[..c as usize * per_deal]))
                .collect::<Result<_, _>>()?;
            let last = ahead_at.last().ok_or("no checkpoints")?;
            for pair in &last.pairs {
                let key = (pair.better, pair.worse);
                // The first checkpoint from which the pair stays ahead to the end.
                let since = (0..checkpoints.len())
                    .rev()
                    .take_while(|&i| ahead_at[i].ahead(key.0, key.1))
                    .last()
                    .map(|i| checkpoints[i]);
                let width = pair.interval.map_or(f64::NAN, |(low, high)| (high - low) / 2.0);
                match needed.iter_mut().find(|(k, _, _)| *k == key) {
                    Some((_, v, w)) => {
                        v.push(since);
                        w.push(width);
                    }
                    None => needed.push((key, vec![since], vec![width])),
                }
            }
        }
        println!("\n{what} ({games_played} games in {:.1} s):", started.elapsed().as_secs_f64());
        needed.sort_by_key(|(k, _, _)| *k);
        for ((better, worse), v, widths) in &needed {
            let mut counts: Vec<u32> = v.iter().map(|d| d.unwrap_or(u32::MAX)).collect();
            counts.sort_unstable();
            let median = counts[counts.len() / 2];
            let separated = v.iter().filter(|d| d.is_some()).count();
            let median =
                if median == u32::MAX { format!("more than {max_deals}") } else { median.to_string() };
            let width = widths.iter().sum::<f64>() / widths.len() as f64;
            println!(
                "  {:>6} ahead of {:<6} in {:>3} of {} tournaments; median deals needed: {median}; \
                 interval ±{width:.3} points after {max_deals}",
                BOTS[*better],
                BOTS[*worse],
                separated,
                v.len()
            );
        }
    }
    Ok(())
}
