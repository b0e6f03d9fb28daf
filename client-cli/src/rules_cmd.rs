//! `dudo rules`: the presets, and any one of them in full.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use dudo_rules::presets;

#[derive(Args)]
pub struct RulesArgs {
    /// A preset to print in full; without one, list them all.
    pub preset: Option<String>,
    /// How to print a preset.
    #[arg(long, value_enum, default_value = "toml")]
    pub format: Format,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Toml,
    Json,
    /// How to play, in players' words (what a table shows beside its rules).
    Words,
}

pub fn run(args: RulesArgs) -> anyhow::Result<ExitCode> {
    let Some(name) = args.preset else {
        println!("Presets (print one with `dudo rules NAME`):");
        for name in presets::NAMES {
            println!("  {name:<18} {}", presets::summary(name));
        }
        return Ok(ExitCode::SUCCESS);
    };
    let rules = presets::by_name(&name).ok_or_else(|| {
        anyhow::anyhow!("no preset {name:?}; the presets are {}", presets::NAMES.join(", "))
    })?;
    match args.format {
        Format::Toml => print!("{}", toml::to_string_pretty(&rules)?),
        Format::Json => println!("{}", serde_json::to_string_pretty(&rules)?),
        Format::Words => {
            println!("{}", presets::title(&name));
            for note in dudo_rules::how_to_play::how_to_play(&rules) {
                println!("\n{}\n  {}", note.topic, note.text);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
