//! The engine's integration tests, one binary: every rule with the source that asks for it
//! (docs/sources.md), one file per rule family, the Fibbing Dice manual's worked example as a
//! script, and property tests over random play.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod common_hand_variants;
mod differential;
mod example;
mod house_rules;
mod individual_hand;
mod inputs;
mod legal_agrees;
mod perudo;
mod perudo_jonti;
mod points_game;
mod properties;
mod stop;
