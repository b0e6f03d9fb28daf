//! The dudo bot SDK.
//!
//! The reference bots live in the engine today (`dudo_rules::bots`) so that `dudo simulate`
//! needs no server; this crate re-exports them and will grow the networked `Bot` runner.
#![forbid(unsafe_code)]

pub use dudo_rules::bots;
