//! `dudo`: play, script and simulate Liar's Dice.
//!
//! Every subcommand lives in its own module; this file only parses the command line.
#![forbid(unsafe_code)]

mod play;
mod rules_cmd;
mod script_cmd;
mod simulate;

use clap::{Args, Parser, Subcommand};

/// Liar's Dice in the terminal: Perudo, Dudo, Calza, Palifico and the rest of the family.
#[derive(Parser)]
#[command(
    name = "dudo",
    version,
    after_help = "Examples:\n  dudo play --bots 3\n  dudo play --preset house --rule dice.faces=8\n  dudo rules house --format toml\n  dudo script examples/scripts/fibbing-example.json --format text\n  dudo simulate --players 6 --games 10000 --bot odds,random"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a game in the terminal against built-in bots.
    ///
    /// Example: dudo play --bots 3 --preset fibbing --name Roger
    Play(play::PlayArgs),
    /// List the presets, or print one as TOML or JSON.
    ///
    /// Examples: dudo rules; dudo rules house; dudo rules fibbing --format json
    Rules(rules_cmd::RulesArgs),
    /// Run a scripted game and print every event, one JSON object per line.
    ///
    /// Example: dudo script examples/scripts/fibbing-example.json --format text
    Script(script_cmd::ScriptArgs),
    /// Play many games between built-in bots on every core and print the results.
    ///
    /// Example: dudo simulate --preset fibbing --players 6 --games 10000 --bot odds --bot random
    Simulate(simulate::SimulateArgs),
}

/// Choosing a rule set: a preset plus any number of overrides.
#[derive(Args, Clone, Debug)]
pub struct RuleArgs {
    /// The preset to start from (see `dudo rules`).
    #[arg(long, default_value = "fibbing")]
    pub preset: String,
    /// A whole rule set from a file (TOML, or JSON if it ends in .json), instead of a preset;
    /// `dudo rules NAME > my.toml` makes one to edit.
    #[arg(long, value_name = "FILE", conflicts_with = "preset")]
    pub rules_file: Option<std::path::PathBuf>,
    /// Dice each player starts with (and the maximum).
    #[arg(long)]
    pub dice: Option<u8>,
    /// Override any rule: --rule dice.faces=8 --rule exact_call.who=on_turn
    #[arg(long = "rule", value_name = "FIELD=VALUE")]
    pub rules: Vec<String>,
}

impl RuleArgs {
    pub fn resolve(&self) -> anyhow::Result<dudo_rules::RuleSet> {
        use anyhow::Context;
        use dudo_rules::presets;
        let mut rules = match &self.rules_file {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
                let rules: dudo_rules::RuleSet = if path.extension().is_some_and(|e| e == "json") {
                    serde_json::from_str(&text)
                        .with_context(|| format!("reading the rule set in {}", path.display()))?
                } else {
                    toml::from_str(&text)
                        .with_context(|| format!("reading the rule set in {}", path.display()))?
                };
                rules.validate()?;
                rules
            }
            None => presets::by_name(&self.preset).ok_or_else(|| {
                anyhow::anyhow!("no preset {:?}; the presets are {}", self.preset, presets::NAMES.join(", "))
            })?,
        };
        if let Some(d) = self.dice {
            rules = presets::with_overrides(rules, &serde_json::json!({"dice": {"start": d, "max": d}}))?;
        }
        for setting in &self.rules {
            let (path, value) = setting.split_once('=').ok_or_else(|| {
                anyhow::anyhow!("--rule takes FIELD=VALUE, as in dice.faces=8; got {setting:?}")
            })?;
            rules = presets::with_setting(rules, path.trim(), value.trim())?;
        }
        Ok(rules)
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Play(a) => play::run(a),
        Command::Rules(a) => rules_cmd::run(a),
        Command::Script(a) => script_cmd::run(a),
        Command::Simulate(a) => simulate::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dudo: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
