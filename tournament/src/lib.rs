//! `dudo-tournament`: what makes a tournament fair and its result checkable, apart from the
//! server that runs it and the tools that check it.
//!
//! - [`schedule`]: who sits where on which deal. A deal is one seed for a whole game's dice;
//!   in duplicate play every deal is played once for each rotation of a table's entrants, so
//!   every entrant sits in every position over the same dice and the dice's luck cancels.
//! - [`standings`]: points by finishing place, mean place, wins, a 95% interval for each
//!   entrant's mean over deals, and for every pair whether one is ahead with 95% confidence.
//!
//! Both are pure functions of their inputs: the server, `dudo arena` and anyone verifying an
//! export get the same schedule from the same seed and the same standings from the same games.
#![forbid(unsafe_code)]

pub mod export;
pub mod layout;
pub mod schedule;
pub mod standings;

pub use export::{Export, Head, SeedProof, Verifier, VerifyError, seed_commitment, verify};
pub use schedule::{Deals, Game, ScheduleError};
pub use standings::{Comparison, Difference, Finished, Standing, Standings, StandingsError};
