//! The built-in bots in a table's seats: who wants to move, and what.
//!
//! Each decision draws from the bot's seed and the log's length, not from a generator carried
//! along, so a table rebuilt from its journal decides as the original would have.

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

/// The first bot that wants to move now, and its move: the bot whose turn it is, or one
/// calling out of turn.
pub fn choose(game: &Game, seats: &Seats, log_len: u64) -> Option<(Seat, Action)> {
    let moment = log_len.wrapping_mul(0xD1B5_4A32_D192_ED03);
    for seat in game.seats_to_ask().collect::<Vec<_>>() {
        let Some(bot) = seats.get(seat).and_then(|s| s.bot.as_ref()) else { continue };
        let Some(mut brain) = bots::by_name(&bot.kind, bot.seed ^ moment) else { continue };
        let (view, legal) = (game.view(seat), game.legal(seat));
        let offer = if Some(seat) == game.turn() {
            Some(brain.act(game.rules(), &view, &legal))
        } else {
            brain.interject(game.rules(), &view, &legal)
        };
        if let Some(action) = offer {
            return Some((seat, action));
        }
    }
    None
}
