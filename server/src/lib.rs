//! The dudo game server.
//!
//! One task per table owns a [`dudo_rules::Game`] and its event log; sessions talk to it over
//! bounded channels (see `../shared/DESIGN.md`). So far this crate holds the one module
//! where the engine's types and the `dudo.v1` wire types meet ([`convert`]); the service
//! itself is being built on it.
#![forbid(unsafe_code)]

pub mod convert;

pub use dudo_rules as rules;
