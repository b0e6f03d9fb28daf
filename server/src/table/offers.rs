//! What each seat at a bot check's table was asked to do and did, by kind, in the game's own
//! words: the check's report says which prompts its bot met and which it never did.
//!
//! Kept only at a check's tables: working out what a seat may do at every move costs the
//! engine's `legal`, which a ladder's or a tournament's tables have no use for.

use std::collections::{BTreeMap, BTreeSet};

use dudo_rules::{Game, Seat};

/// The kinds of prompt and action, each seat's.
#[derive(Clone, Debug, Default)]
pub struct Offers {
    offered: BTreeMap<Seat, BTreeSet<&'static str>>,
    played: BTreeMap<Seat, BTreeSet<&'static str>>,
}

/// A seat in a call window (asked to call out of turn or let the claim stand).
pub const CALL_WINDOW: &str = "call window";
/// A seat told its move clock is running low.
pub const CLOCK_WARNING: &str = "clock warning";
/// Letting a claim stand in a call window.
pub const PASS_CALL: &str = "pass call";

impl Offers {
    /// `seat` is about to move in `game`: what it may do now.
    pub fn asked(&mut self, game: &Game, seat: Seat) {
        let kinds = self.offered.entry(seat).or_default();
        kinds.extend(game.legal(seat).kinds());
        if game.in_palifico() {
            kinds.insert("palifico round");
        }
    }

    /// `seat` was asked something that is not a move (a call window, a clock warning).
    pub fn told(&mut self, seat: Seat, kind: &'static str) {
        self.offered.entry(seat).or_default().insert(kind);
    }

    /// `seat` played an action of `kind`.
    pub fn played(&mut self, seat: Seat, kind: &'static str) {
        self.played.entry(seat).or_default().insert(kind);
    }

    /// What `seat` was asked, what it played, and what any seat was asked.
    pub fn of(&self, seat: Seat) -> SeatOffers {
        let list =
            |m: &BTreeMap<Seat, BTreeSet<&'static str>>| m.get(&seat).map(|k| k.iter().copied().collect());
        SeatOffers {
            offered: list(&self.offered).unwrap_or_default(),
            played: list(&self.played).unwrap_or_default(),
            offered_any: self
                .offered
                .values()
                .flatten()
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
        }
    }
}

/// [`Offers::of`]: one seat's kinds, and every seat's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatOffers {
    pub offered: Vec<&'static str>,
    pub played: Vec<&'static str>,
    pub offered_any: Vec<&'static str>,
}
