//! End-to-end tests: the real binaries, driven as a user would drive them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Accounts: registration, API tokens, names that look alike, suspension, rated seats.
mod accounts;
mod bots;
mod cli;
// The ladder: pools, the matchmaker, Weng-Lin ratings, the board, benching.
mod client;
mod ladder;
mod records;
mod recovery;
mod server;
mod tty;

/// A dudo server in this test process, on a free port, for the life of the test's runtime;
/// returns `host:port`.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(dudo_server::run(listener, std::future::pending()));
    addr
}
