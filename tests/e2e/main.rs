//! End-to-end tests: the real binaries, driven as a user would drive them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bots;
mod cli;
mod client;
mod server;
mod tty;
