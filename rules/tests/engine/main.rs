//! The engine's integration tests, one binary: every rule with the seed that asks for it,
//! the scripted seed example, and property tests over random play.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod differential;
mod example;
mod individual_002;
mod inputs;
mod legal_agrees;
mod points_001;
mod properties;
mod rules_000;
mod rules_003;
mod rules_004;
mod stop;
mod variants_002;
