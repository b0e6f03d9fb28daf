//! End-to-end tests: the real binaries, driven as a user would drive them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Availability: bots held to a share of the CPU, silent connections, a full budget, the
// descriptor limit, concurrent creation: what one client must not take from the others.
mod availability;
// Accounts: registration, API tokens, names that look alike, suspension, rated seats.
mod accounts;
// The browser table: people in real browsers (Debian's chromium) play, watch, lose the
// network and come back.
mod browser;
// The bot check: good bots pass, each fault is named, ranked play waits for a pass.
mod bot_check;
// Bots: the SDK's bots, the Python example, external bots, the arena and its tournaments
// (round robin and Swiss, exported and verified, a Python bot among the entrants).
mod bots;
// Calls out of turn: the call window, the same game through a slow proxy.
mod calls;
// The cluster: nodes on one PostgreSQL database behind one address; a node killed, paused
// or restarted mid-game, and every game finishes as if nothing happened.
mod cluster;
// The docs hold to the server: refusal codes, services, health names, metrics.
mod docs;
// Failover times: a node killed or drained under tables of people, the stall measured.
mod failover;
// The command line: scripts, simulate, rules, mistakes named as typed.
mod cli;
// The Rust client library: sessions that reconnect and resume.
mod client;
// The ladder: pools, the matchmaker, Weng-Lin ratings, the board, benching.
mod ladder;
// Prompts: a refused answer is asked again at once; a late call-window answer is named so.
mod prompts;
// Records: history, replays, ratings pools, the arena's own database.
mod records;
// Recovery: a server killed mid-game comes back; a bad database stops it at start.
mod recovery;
// The server: the protocol, limits, memory bounds, hostile input.
mod server;
// A game at a shared address, as the tests of its defences (availability, cluster) play it.
mod shared_address;
// TLS: https:// for every client, clients that do not trust or speak it, renewal.
mod tls;
// The table as a place people share: the reveal's wait, the pause, talk, rejoin links.
mod together;
// Tournaments on the server: entrants' bots over Play, duplicate standings, the export
// verified, a server killed mid-tournament, bad settings refused by name.
mod tournaments;
// Tournaments that hold: a restart carries each game on at its one table, a staller is
// benched.
mod tournaments_hold;
// The terminal client in a pseudo-terminal, as a person uses it.
mod tty;

/// What a game's record, a spectator's stream and `dudo simulate`'s events all hold alike:
/// every call and each result, in order (the dice seen differ by audience).
fn calls_and_result(kind: &dudo_rules::EventKind) -> Option<String> {
    use dudo_rules::EventKind;
    match kind {
        EventKind::BidMade { .. }
        | EventKind::Passed { .. }
        | EventKind::DudoCalled { .. }
        | EventKind::CalzaCalled { .. }
        | EventKind::Claimed { .. }
        | EventKind::Accepted { .. }
        | EventKind::HandRolled { .. }
        | EventKind::RoundSettled { .. }
        | EventKind::GameOver { .. } => Some(format!("{kind:?}")),
        _ => None,
    }
}

/// A dudo server in this test process, on a free port, for the life of the test's runtime;
/// returns `host:port`.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    // Programs play its tables: after a showdown they go on at once (as `start_server`'s
    // servers do; a test of the wait asks for one in its table).
    let mut limits = dudo_server::node::Limits::default();
    limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::run_with(listener, limits, std::future::pending()));
    addr
}
