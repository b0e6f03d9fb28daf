//! The dudo game engine.
//!
//! Pure and deterministic: no I/O, no clocks, no threads. A game is a [`RuleSet`] (data), the
//! number of seats and a 32-byte seed; the same actions then always give the same game, byte
//! for byte. The pieces:
//!
//! - [`ruleset`] and [`presets`]: every knob of every seed, as validated serde data.
//! - [`bid`]: what counts as raising a bid, under every bidding system and special round.
//! - [`game`]: the one interface every game kind sits behind ([`Game`]: legal actions for any
//!   seat, `apply`, per-seat views), and the common-hand kind.
//! - [`individual`] and [`hand`]: the individual-hand kind (poker dice, Stanford, Mexican) and
//!   the hands it is played with.
//! - [`event`]: what happened, each event with the audience allowed to see it.
//! - [`odds`]: binomial odds of a bid from one seat's point of view.
//! - [`bots`] and [`sim`]: built-in players and whole games between them.
//! - [`script`] and [`describe`]: scripted games and events in words.
#![forbid(unsafe_code)]

pub mod action;
pub mod bid;
pub mod bots;
pub mod describe;
pub mod dice;
pub mod error;
pub mod event;
pub mod game;
pub mod hand;
pub mod how_to_play;
pub mod individual;
pub mod odds;
pub mod presets;
pub mod proof;
pub mod ruleset;
pub mod script;
pub mod settings_words;
pub mod sim;
pub mod solve;
pub mod space;
pub mod view;

pub use action::{Action, Seat, parse_call};
pub use bid::{Bid, BidRange};
pub use dice::{Seed, nth_seed, seed_from_u64};
pub use error::RuleError;
pub use event::{Audience, Counted, Event, EventKind, SeatSet, Viewer};
pub use game::{Game, Legal, View};
pub use ruleset::RuleSet;
