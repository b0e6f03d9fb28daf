//! The dudo engine as a Python package: `import dudo`.
//!
//! The package is built by maturin from this crate with its `python` feature (the bindings,
//! `bind/`); without the feature the crate is the bindings' Rust half alone, which the
//! workspace builds and tests with no Python present:
//!
//! - [`batch`]: many games stepped at once from arrays of action ids, writing observations,
//!   masks and rewards into flat buffers (the Python side's numpy arrays).
//! - [`play`]: what one game needs beyond the engine: who acts, the returns, an
//!   event's JSON, a game started from given cups (OpenSpiel's chance nodes).
//!
//! The action ids and the observation vector are the engine's (`dudo_rules::space`), so the
//! Rust and Python sides cannot disagree on them.
#![forbid(unsafe_code)]

pub mod batch;
pub mod play;

#[cfg(feature = "python")]
mod bind;
