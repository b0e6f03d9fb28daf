//! What the Tournaments service answers `Standings` and `Games` from: a tournament's schedule
//! and standings as made for one state of its games, kept on the director's handle while that
//! state stands.

use std::collections::HashMap;
use std::sync::Arc;

use super::Scheduled;

/// What `Standings` and `Games` answer from, made by the Tournaments service.
#[derive(Default)]
pub(crate) struct View {
    pub(crate) scheduled: Scheduled,
    /// Each game's id, by number, once its table was made.
    pub(crate) ids: HashMap<u32, String>,
    pub(crate) standings: dudo_tournament::Standings,
    /// Games ended.
    pub(crate) finished: u64,
    /// When it was made: a running tournament's view is served for the service's
    /// `VIEW_FRESH` whatever ended meanwhile, so a crowd of readers costs one making a
    /// second, not one a game.
    pub(crate) made: Option<std::time::Instant>,
}

/// The views kept, by tournament, with the state they were made for.
pub(crate) type Views = HashMap<String, ((String, (u64, u64)), Arc<View>)>;
