//! The dudo game server.
//!
//! One task per table owns a [`dudo_rules::Game`] and its event log; sessions talk to it over
//! bounded channels (see `../shared/DESIGN.md`). The gRPC service is built by the server issue;
//! this crate already depends on the engine and the protocol so the workspace has its shape.
#![forbid(unsafe_code)]

pub use dudo_rules as rules;
