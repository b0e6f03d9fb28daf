//! Solves every preset's two-player one-die game by CFR+ and writes the tables the expert bot
//! ships (`rules/src/bots/solved/PRESET.bin`), saying for each preset how near equilibrium the
//! shipped table is, or why the preset's one-die game is not solved here.
//!
//!     cargo run --release -p dudo-rules --example solve -- [ITERATIONS] [DIR]
//!
//! 2,000 iterations by default; DIR defaults to the bot's own directory.

use std::path::PathBuf;
use std::time::Instant;

use dudo_rules::bots::solved::FLOOR;
use dudo_rules::presets;
use dudo_rules::solve::{Solver, Tree};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let iterations: u32 = match args.next() {
        Some(n) => n.parse().map_err(|_| format!("ITERATIONS: {n:?} is not a number"))?,
        None => 2_000,
    };
    let dir = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/bots/solved"));
    std::fs::create_dir_all(&dir)?;
    for &name in presets::NAMES {
        let Some(rules) = presets::by_name(name) else { continue };
        let start = Instant::now();
        let tree = match Tree::new(&rules) {
            Ok(tree) => tree,
            Err(why) => {
                println!("{name}: not solved: {why}");
                continue;
            }
        };
        let average = Solver::new(&tree).run(iterations).average();
        let table = tree.table(&average, FLOOR);
        let shipped = tree
            .with_table(&table, tree.uniform())
            .map_err(|key| format!("{name}: the table does not fit its own tree at {key:?}"))?;
        let path = dir.join(format!("{name}.bin"));
        std::fs::write(&path, table.to_bytes())?;
        println!(
            "{name}: {} nodes, {} information sets ({} shipped), {iterations} iterations in {:.1} s: \
             value {:+.5} to the opener, NashConv {:.5} (before rounding {:.5}); wrote {}",
            tree.len(),
            tree.infosets.len(),
            table.rows.len(),
            start.elapsed().as_secs_f64(),
            tree.value(&shipped),
            tree.nash_conv(&shipped),
            tree.nash_conv(&average),
            path.display(),
        );
    }
    Ok(())
}
