//! The ladder under load: many bot accounts queued at once, and whether the board sorts the
//! SDK's strategies by strength.
//!
//! Both start the real server on an in-memory database with a pools file of their own and
//! an admin token (registering a thousand accounts from one address is the admin's job).
//! Every account plays through the public API: `Ladder.Enter`, then a `Play` stream per
//! game, as any bot does.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dudo_client::Client;
use dudo_proto::v1 as pb;
use dudo_proto::v1::ladder_client::LadderClient;
use tokio_stream::StreamExt;

use super::{Server, authed, channels};

const ADMIN: &str = "dudo-load-admin";

/// A server running one pool, with `more` flags.
fn server(pool: &str, more: &[&str]) -> anyhow::Result<(Server, std::path::PathBuf)> {
    let dir = std::env::temp_dir().join(format!("dudo-load-ladder-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let pools = dir.join("pools.toml");
    std::fs::write(&pools, pool)?;
    let path = pools.to_string_lossy().to_string();
    let mut args = vec!["--ladder", &path, "--admin-token", ADMIN];
    args.extend_from_slice(more);
    let server = Server::start_with(":memory:", &args)?;
    Ok((server, dir))
}

/// Registers `name` (a bot's account) as the admin; its API token.
async fn register(client: &Client, name: &str) -> anyhow::Result<String> {
    let admin = client.clone().with_account(Some(ADMIN.to_string()));
    let registered = admin.register(name, true, "load").await?;
    Ok(registered.token.map(|t| t.token).unwrap_or_default())
}

/// `bots` accounts queue on a four-seat pool at once and play (each move the first legal
/// one) for `seconds`: the time until every one is seated, games a second, the server's
/// CPU and the matchmaker's share of it.
pub async fn queue(bots: usize, seconds: u64) -> anyhow::Result<()> {
    let metrics = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let pool = "[[pool]]\nname = \"load-4\"\npreset = \"fibbing\"\nseats = 4\nmove_millis = 30000\nbots = []\nmax_games = 1\n";
    let (server, dir) = server(pool, &["--metrics-listen", &metrics.to_string()])?;
    let client = Client::connect(&server.addr).await?;
    let registering = Instant::now();
    let mut tokens = Vec::with_capacity(bots);
    for i in 0..bots {
        tokens.push(register(&client, &format!("load{i:05}")).await?);
    }
    println!("registered {bots} accounts in {:.1} s", registering.elapsed().as_secs_f64());
    let conns = channels(&server.addr, bots.div_ceil(100).max(1)).await?;
    let seated = Arc::new(AtomicU64::new(0));
    let games = Arc::new(AtomicU64::new(0));
    let last_seated = Arc::new(std::sync::Mutex::new(Instant::now()));
    let cpu_before = dudo_tests::cpu_time(server.pid());
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for (i, token) in tokens.into_iter().enumerate() {
        let ch = conns[i % conns.len()].clone();
        let (seated, games, last_seated) =
            (Arc::clone(&seated), Arc::clone(&games), Arc::clone(&last_seated));
        tasks.push(tokio::spawn(async move {
            let mut ladder = LadderClient::new(ch.clone());
            let enter = pb::EnterRequest { pool: "load-4".into(), at_once: 1, games: 0 };
            let stream = match ladder.enter(authed(enter, &token)).await {
                Ok(stream) => stream,
                Err(e) => {
                    eprintln!("dudo-load: a bot could not enter: {e}");
                    return;
                }
            };
            let mut stream = stream.into_inner();
            let mut first = true;
            while Instant::now() < deadline {
                let Ok(Some(Ok(update))) = tokio::time::timeout_at(deadline.into(), stream.next()).await
                else {
                    return;
                };
                match update.update {
                    Some(pb::ladder_update::Update::Seated(s)) => {
                        if first {
                            first = false;
                            seated.fetch_add(1, Ordering::Relaxed);
                            if let Ok(mut at) = last_seated.lock() {
                                *at = Instant::now();
                            }
                        }
                        let play = pb_play(ch.clone(), s.table, s.token, deadline);
                        tokio::spawn(play);
                    }
                    Some(pb::ladder_update::Update::Ended(_)) => {
                        games.fetch_add(1, Ordering::Relaxed);
                    }
                    _ => {}
                }
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu_used = dudo_tests::cpu_time(server.pid()).saturating_sub(cpu_before);
    let all_seated = last_seated.lock().map(|at| at.duration_since(start).as_secs_f64()).unwrap_or(0.0);
    let seated = seated.load(Ordering::Relaxed);
    // Each game ended is counted once for each of its four players.
    let games = games.load(Ordering::Relaxed) as f64 / 4.0;
    let matchmaker = scrape(metrics, "dudo_matchmaker_seconds_sum").await.unwrap_or(0.0);
    println!(
        "ladder: {bots} bots queued on a 4-seat pool: {seated} seated, the last after {all_seated:.2} s; \
         {games:.0} games in {elapsed:.1} s ({:.1} games/s); server CPU {:.1} s ({:.0}% of one core), \
         matchmaker {matchmaker:.3} s",
        games / elapsed,
        cpu_used.as_secs_f64(),
        cpu_used.as_secs_f64() / elapsed * 100.0,
    );
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}

/// Plays a seat (the first legal move each prompt) until the game ends or the run does.
async fn pb_play(ch: tonic::transport::Channel, table: String, token: String, deadline: Instant) {
    let mut play = dudo_proto::v1::play_client::PlayClient::new(ch);
    let (tx, rx) = tokio::sync::mpsc::channel::<pb::PlayRequest>(16);
    let hello = pb::PlayRequest {
        request: Some(pb::play_request::Request::Hello(pb::Hello { table: table.clone(), since: None })),
        answers: None,
    };
    if tx.send(hello).await.is_err() {
        return;
    }
    let Ok(updates) = play.play(authed(tokio_stream::wrappers::ReceiverStream::new(rx), &token)).await else {
        return;
    };
    let mut updates = updates.into_inner();
    while let Ok(Some(Ok(u))) = tokio::time::timeout_at(deadline.into(), updates.next()).await {
        match u.update {
            Some(pb::play_update::Update::Prompt(p)) => {
                let Some(legal) = p.legal else { continue };
                // Asked for a call out of turn: no call, so the window never waits.
                let request = match p.call_window_unix_millis {
                    Some(_) => pb::play_request::Request::PassCall(pb::PassCall {}),
                    None => pb::play_request::Request::Action(super::simple_move(&legal)),
                };
                let action = pb::PlayRequest { request: Some(request), answers: p.last_seq };
                if tx.send(action).await.is_err() {
                    return;
                }
            }
            Some(pb::play_update::Update::Event(pb::Event {
                kind: Some(pb::event::Kind::GameOver(_)),
                ..
            })) => return,
            _ => {}
        }
    }
}

/// A metric's value from the server's Prometheus endpoint.
async fn scrape(addr: std::net::SocketAddr, name: &str) -> Option<f64> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.ok()?;
    tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.ok()?;
    let mut body = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), tcp.read_to_string(&mut body)).await;
    body.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse().ok())
}

/// `per_kind` accounts each for the SDK's random, odds and reader strategies play a
/// four-seat pool, `at_once` games at a time, until each has played `games`; every two
/// seconds, is the board (mean score per strategy) sorted reader, odds, random? With
/// `board`, the final board and wins by seat are printed.
pub async fn sort(per_kind: usize, games: usize, at_once: u32, board: bool) -> anyhow::Result<()> {
    let pool = "[[pool]]\nname = \"sort-4\"\npreset = \"fibbing\"\nseats = 4\nmove_millis = 30000\nbots = []\nmax_games = 4\n";
    let (server, dir) = server(pool, &[])?;
    let client = Client::connect(&server.addr).await?;
    let kinds = ["random", "odds", "reader"];
    let mut runs = Vec::new();
    for kind in kinds {
        for i in 0..per_kind {
            let token = register(&client, &format!("{kind}{i}")).await?;
            let bot_client = client.clone().with_account(Some(token));
            runs.push(tokio::spawn(async move {
                dudo_bot::ladder(&bot_client, "sort-4", at_once, games, |seed| {
                    dudo_bot::builtin(kind, seed).unwrap_or_else(unreachable_bot)
                })
                .await
            }));
        }
    }
    let start = Instant::now();
    let mut sorted_since: Option<i64> = None;
    let mut checks = 0;
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let board = client.leaderboard("sort-4", 1000).await?;
        let mean = |kind: &str| {
            let scores: Vec<f64> =
                board.iter().filter(|e| e.name.starts_with(kind)).map(|e| e.score).collect();
            scores.iter().sum::<f64>() / scores.len().max(1) as f64
        };
        let played = board.iter().map(|e| e.games).min().unwrap_or(0) as i64;
        let sorted = mean("reader") > mean("odds") && mean("odds") > mean("random");
        sorted_since = match (sorted, sorted_since) {
            (true, None) => Some(played),
            (true, since) => since,
            (false, _) => None,
        };
        checks += 1;
        if checks % 5 == 0 || played as usize >= games {
            println!(
                "after {played} games each ({:.0} s): mean score reader {:.2}, odds {:.2}, random {:.2}{}",
                start.elapsed().as_secs_f64(),
                mean("reader"),
                mean("odds"),
                mean("random"),
                if sorted { "  (sorted)" } else { "" }
            );
        }
        if played as usize >= games || runs.iter().all(|r| r.is_finished()) {
            break;
        }
    }
    if board {
        for e in client.leaderboard("sort-4", 1000).await? {
            println!(
                "  {:<10} mu {:6.2} sigma {:5.2} games {} wins {}",
                e.name, e.mu, e.sigma, e.games, e.wins
            );
        }
        let games = client.games(pb::ListGamesRequest { limit: 1000, ..Default::default() }).await?;
        let mut by_seat = [0u32; 8];
        for g in &games {
            if let Some(w) = g.players.iter().find(|p| p.place == 1) {
                by_seat[w.seat as usize % 8] += 1;
            }
        }
        println!("  wins by seat over {} games: {:?}", games.len(), &by_seat[..4]);
    }
    match sorted_since {
        Some(n) => println!(
            "ladder-sort: sorted reader > odds > random from {n} games each on, and still at the end"
        ),
        None => println!("ladder-sort: not sorted at the end"),
    }
    for r in runs {
        r.abort();
    }
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}

fn unreachable_bot() -> dudo_bot::Builtin {
    // The kinds above are the SDK's own; a missing one is a bug in this tool.
    #[allow(clippy::expect_used)]
    dudo_bot::builtin("random", 0).expect("the SDK has a random bot")
}
