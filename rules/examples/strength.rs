//! How strong one built-in bot is against others, by duplicate play in this process.
//!
//!     cargo run --release -p dudo-rules --example strength -- PRESET SEATS BOT OTHER DEALS [SETTING=VALUE...]
//!
//! Each deal (a seed, dealt by seat and roll as a duplicate tournament deals) is played once
//! per rotation of the line-up (BOT in one seat, OTHER in the rest), so BOT sits in every
//! seat with the same dice. Prints BOT's share of wins with a 95% interval over deals, and
//! how long BOT took to decide its moves (each thread plays on one core of its own).
//! `dudo arena` measures the same through a server; this is the quick loop for tuning a bot.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dudo_rules::bots::Bot;
use dudo_rules::game::{Legal, View};
use dudo_rules::{Action, RuleSet, bots, nth_seed, presets, seed_from_u64, sim};

/// A bot whose decisions are timed.
struct Timed {
    bot: Box<dyn Bot>,
    took: Arc<Mutex<Vec<Duration>>>,
}

impl Bot for Timed {
    fn name(&self) -> &'static str {
        self.bot.name()
    }
    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
        let started = Instant::now();
        let action = self.bot.act(rules, view, legal);
        let took = started.elapsed();
        self.took.lock().map(|mut t| t.push(took)).unwrap_or_default();
        action
    }
    fn interject(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
        self.bot.interject(rules, view, legal)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        return Err("usage: strength PRESET SEATS BOT OTHER DEALS [SETTING=VALUE...]".into());
    }
    let mut rules = presets::by_name(&args[0]).ok_or("no such preset")?;
    for setting in &args[5..] {
        let (path, value) = setting.split_once('=').ok_or("a setting is SETTING=VALUE")?;
        rules = presets::with_setting(rules, path, value)?;
    }
    let rules = Arc::new(rules);
    let seats: usize = args[1].parse()?;
    let (bot, other) = (args[2].clone(), args[3].clone());
    let deals: u64 = args[4].parse()?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let took = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    for name in [&bot, &other] {
        if bots::by_name(name, 0).is_none() {
            return Err(format!("no bot {name:?}; the bots are {}", bots::NAMES.join(", ")).into());
        }
    }
    let per_deal: Result<Vec<Vec<f64>>, String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (rules, bot, other, took) = (Arc::clone(&rules), &bot, &other, Arc::clone(&took));
                scope.spawn(move || {
                    let mut runner = sim::Runner::new(sim::Dice::Dealt);
                    let mut out = Vec::new();
                    for deal in (t..deals).step_by(threads as usize) {
                        let deal_seed = nth_seed(7, deal);
                        let mut wins = 0.0;
                        for at in 0..seats {
                            let mut table: Vec<Box<dyn Bot>> = (0..seats)
                                .filter_map(|s| {
                                    let name = if s == at { bot } else { other };
                                    let b = bots::by_name(name, bots::seat_seed(deal_seed, s))?;
                                    Some(if s == at {
                                        Box::new(Timed { bot: b, took: Arc::clone(&took) })
                                    } else {
                                        b
                                    })
                                })
                                .collect();
                            let outcome = runner
                                .play(&rules, &mut table, seed_from_u64(deal_seed))
                                .map_err(|e| e.to_string())?;
                            wins += f64::from(u8::from(outcome.standings.first() == Some(&at)));
                        }
                        out.push(wins / seats as f64);
                    }
                    Ok(out)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().map_err(|_| "a worker panicked".to_string())?).collect()
    });
    let per_deal: Vec<f64> = per_deal?.concat();
    let n = per_deal.len() as f64;
    let mean = per_deal.iter().sum::<f64>() / n;
    let var = per_deal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let half = 1.96 * (var / n).sqrt();
    println!(
        "{} at {seats} seats, {bot} against {other}: {bot} won {:.1}% ± {:.1}% of {} games ({deals} deals × {seats} seats; fair share {:.1}%) in {:.1} s",
        args[0],
        100.0 * mean,
        100.0 * half,
        deals * seats as u64,
        100.0 / seats as f64,
        started.elapsed().as_secs_f64()
    );
    let mut took = took.lock().map(|t| t.clone()).unwrap_or_default();
    took.sort_unstable();
    let at = |q: f64| took.get(((took.len() as f64 * q) as usize).min(took.len().saturating_sub(1))).copied();
    if let (Some(p50), Some(p99), Some(max)) = (at(0.5), at(0.99), took.last()) {
        println!(
            "{bot}'s {} moves: {:.2} ms at the median, {:.2} ms at p99, {:.2} ms at most",
            took.len(),
            p50.as_secs_f64() * 1e3,
            p99.as_secs_f64() * 1e3,
            max.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
