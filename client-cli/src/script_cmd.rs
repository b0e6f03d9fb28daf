//! `dudo script FILE`: run a scripted game and print its events.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use dudo_rules::describe::describe_in;
use dudo_rules::script;

#[derive(Args)]
pub struct ScriptArgs {
    /// The script (JSON; see docs/scripts.md). `-` reads standard input.
    pub file: PathBuf,
    /// One JSON object per event, or one line of text per event.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Json,
    Text,
}

pub fn run(args: ScriptArgs) -> anyhow::Result<ExitCode> {
    let text = if args.file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the script from standard input")?
    } else {
        std::fs::read_to_string(&args.file).with_context(|| format!("reading {}", args.file.display()))?
    };
    let script = script::parse(&text)?;
    let run = script::run(&script);
    let kind = run.game.as_ref().and_then(|g| g.rules().family.hand_game());
    let mut out = std::io::stdout().lock();
    for (seq, event) in run.events.iter().enumerate() {
        match args.format {
            Format::Json => {
                let mut value = serde_json::to_value(event)?;
                if let Some(map) = value.as_object_mut() {
                    map.insert("seq".into(), seq.into());
                }
                writeln!(out, "{}", serde_json::to_string(&value)?)?;
            }
            Format::Text => writeln!(out, "{}", describe_in(&event.kind, &run.players, kind))?,
        }
    }
    out.flush()?;
    match run.error {
        Some(e) => {
            eprintln!("dudo script: {e}");
            Ok(ExitCode::FAILURE)
        }
        None => Ok(ExitCode::SUCCESS),
    }
}
