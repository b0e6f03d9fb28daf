//! The `dudo.v1` protocol.
//!
//! The `.proto` files and the code generated from them live here so that the server, the CLI
//! and the bot SDK share one definition. The API itself is built by the server issue; until
//! then this crate only names the package so the workspace has its final shape.
#![forbid(unsafe_code)]

/// The protobuf package every dudo message lives in.
pub const PACKAGE: &str = "dudo.v1";
