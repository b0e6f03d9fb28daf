//! `dudo script FILE`: run a scripted game and print its events.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use dudo_client::dudo_proto::v1 as pb;
use dudo_client::dudo_proto::{TableEvent, convert};
use dudo_rules::describe::Narrator;
use dudo_rules::event::{Audience, Event, Viewer};
use dudo_rules::{EventKind, script};
use prost::Message;

#[derive(Args)]
pub struct ScriptArgs {
    /// The script (JSON; see docs/scripts.md). `-` reads standard input.
    pub file: PathBuf,
    /// One JSON object per event, one line of text per event, or the whole game as a
    /// record's replay (a binary `dudo.v1.Replay`: every event with its words, as
    /// `History.GetReplay` sends them; the browser's front page replays the worked example
    /// from one).
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Json,
    Text,
    Replay,
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
    if let Format::Replay = args.format {
        let Some(game) = run.game.as_ref() else {
            anyhow::bail!(
                "{}",
                run.error.map_or_else(|| "the script made no game".to_string(), |e| e.to_string())
            );
        };
        out.write_all(&replay_of(game.rules(), &run.players, &run.events).encode_to_vec())?;
        out.flush()?;
        // The replay of the game up to where the script stopped, and why it stopped, as the
        // other formats say it.
        return Ok(match run.error {
            Some(e) => {
                eprintln!("dudo script: {e}");
                ExitCode::FAILURE
            }
            None => ExitCode::SUCCESS,
        });
    }
    let mut narrator = Narrator::default();
    for (seq, event) in run.events.iter().enumerate() {
        match args.format {
            Format::Json => {
                let mut value = serde_json::to_value(event)?;
                if let Some(map) = value.as_object_mut() {
                    map.insert("seq".into(), seq.into());
                }
                writeln!(out, "{}", serde_json::to_string(&value)?)?;
            }
            Format::Replay => {}
            Format::Text => {
                if let Some(line) = text_line(&run.events, seq, &mut narrator, &run.players, kind) {
                    writeln!(out, "{line}")?;
                }
            }
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

/// The scripted game as a record's replay shows it: what a replay may show of each event
/// (`Viewer::Replay`), each with the words a table says for it, the players in seat order.
fn replay_of(rules: &dudo_rules::RuleSet, names: &[String], events: &[Event]) -> pb::Replay {
    let mut narrator = Narrator::for_rules(rules);
    let game = rules.family.hand_game();
    let mut shown = Vec::new();
    for (seq, event) in events.iter().enumerate() {
        let event = TableEvent::Game(event.clone());
        // Every event is told, in order, as the table tells its log: the narrator keeps the bid in force.
        let text = event.words(&mut narrator, names, game);
        if event.admits(Viewer::Replay, true) {
            let mut wire = convert::event_to_wire(seq as u64, &event);
            wire.text = text;
            shown.push(wire);
        }
    }
    let players = names
        .iter()
        .enumerate()
        .map(|(seat, name)| pb::GamePlayer {
            seat: seat as u32,
            name: name.clone(),
            ..pb::GamePlayer::default()
        })
        .collect();
    pb::Replay {
        summary: Some(pb::GameSummary { preset: rules.name.clone(), players, ..pb::GameSummary::default() }),
        rules: Some(convert::rules_to_wire(rules)),
        event_unix_millis: vec![0; shown.len()],
        events: shown,
        ..pb::Replay::default()
    }
}

/// Event `i` as a line of text, or none when the line before said it already. A roll is two
/// events, what its owner sees and the truth (for the eliminated, and replays): the text says
/// it once, with what the owner saw beside it only when fibbing made that different.
fn text_line(
    events: &[Event],
    i: usize,
    narrator: &mut Narrator,
    names: &[String],
    kind: Option<dudo_rules::hand::HandGame>,
) -> Option<String> {
    let event = events.get(i)?;
    let sight = |e: &Event| match (&e.audience, &e.kind) {
        (Audience::Seats { .. }, EventKind::DiceRolled { seat, dice }) => Some((*seat, dice.clone())),
        _ => None,
    };
    if let (Audience::Hidden { .. }, EventKind::DiceRolled { seat, dice }) = (&event.audience, &event.kind) {
        let line = narrator.line(&event.kind, names, kind);
        let seen = i.checked_sub(1).and_then(|p| events.get(p)).and_then(sight);
        return Some(match seen {
            Some((s, mut seen)) if s == *seat => {
                let shown = dudo_rules::describe::describe_in(
                    &EventKind::DiceRolled { seat: s, dice: seen.clone() },
                    names,
                    kind,
                );
                seen.sort_unstable();
                let mut truth = dice.clone();
                truth.sort_unstable();
                if seen == truth {
                    line
                } else {
                    let sees = shown.split_once(" rolls ").map_or(shown.as_str(), |(_, d)| d).to_string();
                    format!("{line} (and sees {sees})")
                }
            }
            _ => line,
        });
    }
    // The owner's sight, said with the truth that follows it.
    if let Some((seat, _)) = sight(event)
        && let Some(next) = events.get(i + 1)
        && matches!((&next.audience, &next.kind), (Audience::Hidden { .. }, EventKind::DiceRolled { seat: s, .. }) if *s == seat)
    {
        return None;
    }
    Some(narrator.line(&event.kind, names, kind))
}
