//! Scripted games: a rule set, the players, the dice each seat rolls, and the calls in order.
//!
//! `dudo script FILE` runs one and prints every event; `docs/scripts.md` documents the format.
//! Rolls a script does not give come from its `seed`. A script is strict: an illegal call, a
//! round that ends before its listed calls do (or does not end when they run out, except in
//! the last round), and dice given for a roll that did not happen are all errors.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::action::{Action, Seat, parse_call};
use crate::dice::{DiceSource, seed_from_u64};
use crate::event::Event;
use crate::game::Game;
use crate::presets::RulesSpec;

/// A scripted game, as read from JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// What the script shows; printed by nothing, read by people.
    #[serde(default)]
    pub title: String,
    pub rules: RulesSpec,
    /// Player names in play order.
    pub players: Vec<String>,
    /// Seed for every roll the script does not give.
    #[serde(default)]
    pub seed: u64,
    /// Starting dice for some players, when not the rule set's `dice.start`.
    #[serde(default)]
    pub start_dice: BTreeMap<String, u16>,
    /// The roll-off throws in order; each gives the face each contender threw.
    #[serde(default)]
    pub roll_off: Vec<BTreeMap<String, u8>>,
    pub rounds: Vec<ScriptRound>,
}

/// One round of a script.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptRound {
    /// The dice each player rolls at the start of the round.
    #[serde(default)]
    pub dice: BTreeMap<String, Vec<u8>>,
    /// The calls, in order: `"Alice: two fives"`.
    pub actions: Vec<ScriptAction>,
}

/// A call, with the dice it re-rolls when it is a push.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged, try_from = "serde_json::Value")]
pub enum ScriptAction {
    Call(String),
    WithReroll { call: String, reroll: Vec<u8> },
}

/// Read by hand, so anything else is refused by what a call may be, not as "no variant of
/// an untagged enum matched".
impl TryFrom<serde_json::Value> for ScriptAction {
    type Error = String;

    fn try_from(value: serde_json::Value) -> Result<ScriptAction, String> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct WithReroll {
            call: String,
            reroll: Vec<u8>,
        }
        match value {
            serde_json::Value::String(call) => Ok(ScriptAction::Call(call)),
            serde_json::Value::Object(_) => serde_json::from_value::<WithReroll>(value)
                .map(|w| ScriptAction::WithReroll { call: w.call, reroll: w.reroll })
                .map_err(|e| format!("a call with a re-roll is {{\"call\": ..., \"reroll\": [dice]}}: {e}")),
            other => Err(format!(
                "a call is a string (\"Ann: two fives\") or {{\"call\": ..., \"reroll\": [dice]}}, not {}",
                crate::presets::json_kind(&other)
            )),
        }
    }
}

impl ScriptAction {
    fn call(&self) -> &str {
        match self {
            ScriptAction::Call(c) | ScriptAction::WithReroll { call: c, .. } => c,
        }
    }
}

/// Why a script stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct ScriptError {
    /// Where: "setup", or "round 3, call 2 (\"Bob: dudo\")".
    pub at: String,
    pub message: String,
}

/// The events of a script run, up to the error that stopped it, if any.
#[derive(Clone, Debug)]
pub struct ScriptRun {
    pub players: Vec<String>,
    pub events: Vec<Event>,
    pub error: Option<ScriptError>,
    pub game: Option<Game>,
}

/// Parses a script from JSON text.
pub fn parse(text: &str) -> Result<Script, ScriptError> {
    serde_json::from_str(text).map_err(|e| ScriptError { at: "script".into(), message: e.to_string() })
}

/// Runs a script to its end or its first error.
pub fn run(script: &Script) -> ScriptRun {
    let mut out = ScriptRun { players: script.players.clone(), events: Vec::new(), error: None, game: None };
    if let Err(e) = run_into(script, &mut out) {
        out.error = Some(e);
    }
    out
}

fn seat_of(players: &[String], name: &str) -> Option<Seat> {
    players.iter().position(|p| p.eq_ignore_ascii_case(name.trim()))
}

fn rolls_for(
    players: &[String],
    dice: &BTreeMap<String, Vec<u8>>,
    queues: &mut [VecDeque<Vec<u8>>],
    at: &str,
) -> Result<(), ScriptError> {
    for (name, roll) in dice {
        let seat = seat_of(players, name)
            .ok_or_else(|| ScriptError { at: at.into(), message: format!("no player named {name:?}") })?;
        queues[seat].push_back(roll.clone());
    }
    Ok(())
}

fn leftovers(game: &mut Game, players: &[String], at: &str) -> Result<(), ScriptError> {
    if let Some(m) = game.dice_source_mut().take_mismatch() {
        return Err(ScriptError { at: at.into(), message: m });
    }
    if let Some(seat) = game.dice_source_mut().unused_script_seat() {
        return Err(ScriptError {
            at: at.into(),
            message: format!("the script gives dice for {} that were not rolled", players[seat]),
        });
    }
    Ok(())
}

fn run_into(script: &Script, out: &mut ScriptRun) -> Result<(), ScriptError> {
    let setup = |message: String| ScriptError { at: "setup".into(), message };
    let rules = script.rules.resolve().map_err(|e| setup(e.to_string()))?;
    let players = &script.players;
    let n = players.len();
    // A call names its player as typed (case and spaces aside): each name must pick one seat.
    for (seat, name) in players.iter().enumerate() {
        if name.trim().is_empty() {
            return Err(setup(format!("players: seat {seat} has no name")));
        }
        if seat_of(players, name) != Some(seat) {
            return Err(setup(format!(
                "players: {name:?} is the name of an earlier seat (names are matched ignoring case and spaces)"
            )));
        }
    }
    let mut start = vec![u16::from(rules.dice.start); n];
    for (name, &dice) in &script.start_dice {
        let seat = seat_of(players, name).ok_or_else(|| setup(format!("no player named {name:?}")))?;
        start[seat] = dice;
    }
    let mut queues = vec![VecDeque::new(); n];
    for throw in &script.roll_off {
        let as_rolls = throw.iter().map(|(k, &v)| (k.clone(), vec![v])).collect();
        rolls_for(players, &as_rolls, &mut queues, "setup")?;
    }
    if let Some(first) = script.rounds.first() {
        rolls_for(players, &first.dice, &mut queues, "round 1")?;
    }
    let source = DiceSource::with_script(seed_from_u64(script.seed), queues);
    let (mut game, events) =
        Game::start_with(rules, n, source, Some(start)).map_err(|e| setup(e.to_string()))?;
    out.events.extend(events);
    leftovers(&mut game, players, "setup")?;
    let result = play_rounds(script, &mut game, out);
    out.game = Some(game);
    result
}

fn play_rounds(script: &Script, game: &mut Game, out: &mut ScriptRun) -> Result<(), ScriptError> {
    let players = &script.players;
    for (r, round) in script.rounds.iter().enumerate() {
        let last_round = r + 1 == script.rounds.len();
        if round.actions.is_empty() && !last_round {
            return Err(ScriptError {
                at: format!("round {}", r + 1),
                message: "only the last round of a script may list no calls".into(),
            });
        }
        for (i, step) in round.actions.iter().enumerate() {
            let at = format!("round {}, call {} ({:?})", r + 1, i + 1, step.call());
            let fail = |message: String| ScriptError { at: at.clone(), message };
            if game.is_over() {
                return Err(fail("the game is already over".into()));
            }
            let (name, call) =
                step.call().split_once(':').ok_or_else(|| fail("a call is written \"Name: call\"".into()))?;
            let seat =
                seat_of(players, name).ok_or_else(|| fail(format!("no player named {:?}", name.trim())))?;
            let action = match game.rules().family.hand_game() {
                None => parse_action(players, call).map_err(fail)?,
                Some(kind) => {
                    let previous = game.view(seat).hand.and_then(|h| h.claim).map(|c| c.1);
                    crate::action::parse_hand_call(kind, call, previous.as_ref())
                        .map_err(|e| fail(e.to_string()))?
                }
            };
            let mut queues = vec![VecDeque::new(); players.len()];
            if let ScriptAction::WithReroll { reroll, .. } = step {
                queues[seat].push_back(reroll.clone());
            }
            let last_call = i + 1 == round.actions.len();
            if last_call && let Some(next) = script.rounds.get(r + 1) {
                rolls_for(players, &next.dice, &mut queues, &at)?;
            }
            game.dice_source_mut().set_script(queues);
            let before = game.round();
            let events = game.apply(seat, &action).map_err(|e| fail(e.to_string()))?;
            out.events.extend(events);
            leftovers(game, players, &at)?;
            let ended = game.round() != before || game.is_over();
            if ended && !last_call {
                return Err(fail(format!(
                    "this call ended round {}, but the script lists more calls in it",
                    r + 1
                )));
            }
            if !ended && last_call && !last_round {
                return Err(fail(format!("round {} did not end with its last call", r + 1)));
            }
        }
    }
    Ok(())
}

/// A call as written in a script: anything [`parse_call`] reads, and "dudo NAME".
fn parse_action(players: &[String], call: &str) -> Result<Action, String> {
    let call = call.trim();
    let lower = call.to_ascii_lowercase();
    for word in ["dudo ", "challenge ", "liar "] {
        if let Some(rest) = lower.strip_prefix(word)
            && let Some(seat) = seat_of(players, rest)
        {
            return Ok(Action::Dudo { target: Some(seat) });
        }
    }
    parse_call(call).map_err(|e| e.to_string())
}
