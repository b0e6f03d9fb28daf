//! The built-in bots in a table's seats: who wants to move, and what.
//!
//! Each decision draws from the bot's seed and the game's move count (the engine's bots
//! reseed themselves from the view), not from a generator carried along, so a table rebuilt
//! from its journal decides as the original would have, and as `dudo simulate` does.

use std::time::Duration;

use dudo_rules::{Action, Game, Seat, bots};

use super::seats::Seats;

/// A bot's move, chosen and waiting out the table's bot pause.
#[derive(Clone, Debug)]
pub struct BotMove {
    /// When it is played (monotonic).
    pub due: Duration,
    pub seat: Seat,
    pub action: Action,
    /// The log's length when it was chosen: if anything happened since, it is stale.
    pub at_log_len: u64,
}

/// What the bot at `seat` does now: its move if it is its turn, or its call out of turn
/// (none: it lets the claim pass). None for a seat that is not a built-in bot.
pub fn decide(game: &Game, seats: &Seats, seat: Seat) -> Option<Action> {
    let bot = seats.get(seat).and_then(|s| s.bot.as_ref())?;
    let mut brain = bots::by_name(&bot.kind, bot.seed)?;
    let (view, legal) = (game.view(seat), game.legal(seat));
    let thinks = brain.thinks();
    let mut decide = || {
        if Some(seat) == game.turn() {
            Some(brain.act(game.rules(), &view, &legal))
        } else {
            brain.interject(game.rules(), &view, &legal)
        }
    };
    if thinks { aside(&mut decide) } else { decide() }
}

/// `think` run where it holds up no other task: the worker thread it blocks hands its other
/// tasks to another worker meanwhile (where the runtime has several; a test's single-thread
/// runtime, or none, runs it in place). A table's task is one, so the table waits for its
/// bot, as it must, but no other table does.
fn aside<T>(think: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(think)
        }
        _ => think(),
    }
}
