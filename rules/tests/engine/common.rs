//! Helpers: scripted games written the way the rule sources tell them.

use dudo_rules::script::{self, ScriptRun};
use dudo_rules::{Event, EventKind, Game};

/// Runs a script given as JSON text; panics if the JSON itself is malformed.
pub fn run(json: &str) -> ScriptRun {
    let script = script::parse(json).unwrap_or_else(|e| panic!("bad test script: {e}"));
    script::run(&script)
}

/// Runs a script that must succeed, returning the game and its events.
pub fn ok(json: &str) -> (Game, Vec<Event>) {
    let run = run(json);
    if let Some(e) = run.error {
        panic!("script failed: {e}");
    }
    (run.game.expect("game"), run.events)
}

/// Runs a script whose last call must be refused; returns the refusal's text.
pub fn refused(json: &str) -> String {
    let run = run(json);
    let e = run.error.expect("script was expected to fail");
    e.message
}

/// The event kinds, in order.
pub fn kinds(events: &[Event]) -> Vec<&EventKind> {
    events.iter().map(|e| &e.kind).collect()
}
