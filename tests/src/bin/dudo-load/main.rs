//! `dudo-load`: a load tool for `dudo-server`, on loopback.
//!
//! It starts the real `dudo-server` binary (built next to it) with limits raised, then:
//! - `play`: N tables, each a person (this tool) and two odds bots, played for D seconds
//!   (the person waits `--think-ms` before each move, which sets the offered load); reports
//!   game actions accepted per second (the person's and the bots') and the latency from
//!   sending an action to its event arriving on the person's stream. The person answers
//!   each call window it is asked in (calza by the others) with `pass_call`, after the same
//!   think time; `--calza-on-turn` plays a rule set with no call windows (Calza on one's own
//!   turn), to measure the table without them. Every unary call's round trip is timed too
//!   (p50/p99 per call). `--bot-tables N` first starts N host-only tables of 64 reader bots
//!   with 20 dice each, from the same address (the attack of issue 21: bots that would eat
//!   the CPU), and keeps them playing through the run. `--house-tournaments N` and
//!   `--standings-readers N` run tournaments' load beside them (see `tournaments.rs`).
//! - `cluster`: the same games on `--nodes` cluster nodes on one PostgreSQL database, with a
//!   node killed or drained mid-run: failover and drain times, the forwarding hop (see
//!   `cluster.rs`).
//! - `idle`: N seats joined and subscribed but not playing; reports the server's resident
//!   memory per seat.
//! - `ladder`: N bot accounts queued at once on a four-seat ladder pool (see `ladder.rs`);
//!   reports the time until all are seated, games a second, and the matchmaker's time.
//! - `ladder-sort`: accounts playing the SDK's random, odds and reader strategies on one
//!   pool; reports after how many games each the board sorts them in that order.
//!
//! Run: `cargo run --release -p dudo-tests --bin dudo-load -- play --tables 1000 --seconds 10`
//! and `... -- idle --seats 10000`. Every loop is bounded in count and time.

mod attacks;
mod cluster;
mod ladder;
mod tournaments;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_tests::bearer as authed;
use tokio::sync::Mutex;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

fn simple_move(legal: &pb::Legal) -> pb::Action {
    use pb::action::Action as A;
    let action = if !legal.dudo.is_empty() {
        A::Dudo(pb::Dudo { target: None })
    } else if let Some(r) = legal.bids.first() {
        A::Bid(pb::Bid { quantity: r.min_quantity, face: r.face })
    } else {
        A::Calza(pb::Empty {})
    };
    pb::Action { action: Some(action) }
}

/// Events that are game actions (by anyone at the table).
fn is_action(kind: &pb::event::Kind) -> bool {
    use pb::event::Kind as K;
    matches!(kind, K::BidMade(_) | K::DudoCalled(_) | K::CalzaCalled(_) | K::Passed(_) | K::Watched(_))
}

/// The `p` quantile (0 to 1) of sorted samples; zero when there are none.
pub(crate) fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

/// Whether an action was sent after the warm-up.
fn at_or_after(sent: Option<Instant>, warmup: Instant) -> bool {
    sent.is_some_and(|at| at >= warmup)
}

struct Server {
    process: dudo_tests::ServerProcess,
    addr: String,
}

impl Server {
    /// Starts the server keeping its records in `db` (`none`: no database).
    fn start(db: &str) -> anyhow::Result<Server> {
        Server::start_with(db, &[])
    }

    /// [`Server::start`] with more flags.
    fn start_with(db: &str, more: &[&str]) -> anyhow::Result<Server> {
        Server::start_limited(db, more, false)
    }

    /// [`Server::start_with`], with the server's default per-address limits if
    /// `default_limits` (else lifted: every table is this tool's, from one address).
    fn start_limited(db: &str, more: &[&str], default_limits: bool) -> anyhow::Result<Server> {
        let exe = std::env::current_exe()?;
        let dir = exe.parent().ok_or_else(|| anyhow::anyhow!("no directory"))?;
        let mut args = vec!["--db", db];
        let lifted = [
            "--max-tables",
            "100000",
            "--max-tables-per-ip",
            "100000",
            "--max-streams-per-ip",
            "100000",
            "--max-streams-per-connection",
            "100000",
            "--max-connections-per-ip",
            "100000",
            // Every seat is this tool's, from one address.
            "--leaves-per-minute",
            "0",
            "--calls-per-second-per-ip",
            "0",
            "--stream-opens-per-second-per-ip",
            "0",
            // Every table is this tool's, from one address: no share of its own.
            "--memory-per-address-mib",
            "0",
        ];
        if !default_limits {
            args.extend_from_slice(&lifted);
        }
        args.extend_from_slice(more);
        let server = dudo_tests::start_server(&dir.join("dudo-server"), &args)?;
        // Its later output (nothing after the banner) is not read.
        let addr = server.addr.clone();
        Ok(Server { process: server, addr })
    }

    /// The server's resident memory, from /proc.
    fn rss_kib(&self) -> u64 {
        rss_kib(self.pid())
    }

    fn pid(&self) -> u32 {
        self.process.child.id()
    }
}

/// A process's resident memory, from /proc.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Connections to spread streams over (HTTP/2 limits streams per connection).
async fn channels(addr: &str, n: usize) -> anyhow::Result<Vec<Channel>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(Channel::from_shared(format!("http://{addr}"))?.connect().await?);
    }
    Ok(out)
}

async fn play(
    tables: usize,
    seconds: u64,
    think: Duration,
    db: &str,
    rss_every: u64,
    calza_on_turn: bool,
    background: tournaments::Background,
) -> anyhow::Result<()> {
    let server = Server::start_limited(db, &background.server_flags(), background.default_limits)?;
    let bot_tables = background.bot_tables;
    if background.house_tournaments > 0 {
        let started = Instant::now();
        let (made, refused) = tournaments::flood(&server.addr, background.house_tournaments).await?;
        println!(
            "{made} house-bot tournaments made from one address in {:?}; refused: {}",
            started.elapsed(),
            if refused.is_empty() { "none".to_string() } else { refused.join(", ") }
        );
    }
    if bot_tables > 0 {
        let started = Instant::now();
        start_bot_tables(&server.addr, bot_tables).await?;
        println!("{bot_tables} bot tables (64 reader bots, 20 dice each) started in {:?}", started.elapsed());
    }
    // The server's memory every `rss_every` seconds of the measured run: it must level off
    // however many games are played.
    let sampler = (rss_every > 0).then(|| {
        let pid = server.pid();
        tokio::spawn(async move {
            let start = Instant::now() + Duration::from_secs(3);
            let mut samples = Vec::new();
            for n in 1..=seconds / rss_every {
                tokio::time::sleep_until((start + Duration::from_secs(n * rss_every)).into()).await;
                let kib = rss_kib(pid);
                eprintln!("rss after {} s: {kib} KiB", n * rss_every);
                samples.push((n * rss_every, kib));
            }
            samples
        })
    });
    let chans = channels(&server.addr, tables.div_ceil(50).max(1)).await?;
    let actions = Arc::new(AtomicU64::new(0));
    // Calls the server refused, and tables that went quiet with a game to play: a stall
    // hides in every other figure (a stalled table just stops counting), so it is counted.
    let refused = Arc::new(AtomicU64::new(0));
    // Why: the server's code for each refusal (`dudo-code`), counted.
    let refusals = Arc::new(std::sync::Mutex::new(HashMap::<String, u64>::new()));
    let stalled = Arc::new(AtomicU64::new(0));
    let latencies = Arc::new(Mutex::new(Vec::<u32>::new()));
    let calls = Arc::new(Mutex::new(Vec::<u32>::new()));
    // Tables are created and started during a warm-up that is not measured.
    let warmup = Instant::now() + Duration::from_secs(3);
    let deadline = warmup + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    let health = health_probe(&server.addr, warmup, deadline).await?;
    let attack = attacks::start(background.attack, &server.addr, deadline).await?;
    let storm = match background.standings_readers {
        0 => None,
        n => Some(tournaments::standings_storm(&server.addr, n, warmup, deadline).await?),
    };
    let cpu_at_warmup = {
        let pid = server.pid();
        tokio::spawn(async move {
            tokio::time::sleep_until(warmup.into()).await;
            dudo_tests::cpu_time(pid)
        })
    };
    for t in 0..tables {
        let ch = chans[t % chans.len()].clone();
        let (actions, latencies) = (Arc::clone(&actions), Arc::clone(&latencies));
        let (refused, stalled) = (Arc::clone(&refused), Arc::clone(&stalled));
        let refusals = Arc::clone(&refusals);
        let calls = Arc::clone(&calls);
        tasks.push(tokio::spawn(async move {
            let mut lobby = LobbyClient::new(ch.clone());
            let mut play = PlayClient::new(ch);
            let mut timed = Vec::new();
            let call = Instant::now();
            let joined = lobby
                .create_table(pb::CreateTableRequest {
                    preset: "fibbing".into(),
                    name: "load".into(),
                    seats: 3,
                    settings: if calza_on_turn {
                        vec![pb::Setting { path: "exact_call.who".into(), value: "on_turn".into() }]
                    } else {
                        Vec::new()
                    },
                    // Programs play these seats: no wait after a showdown.
                    reveal_pause_millis: Some(0),
                    ..Default::default()
                })
                .await?
                .into_inner();
            timed.push(micros(call));
            let id = joined.table.map(|t| t.id).unwrap_or_default();
            for _ in 0..2 {
                let call = Instant::now();
                lobby
                    .add_bot(authed(
                        pb::AddBotRequest { table: id.clone(), bot: "odds".into() },
                        &joined.token,
                    ))
                    .await?;
                timed.push(micros(call));
            }
            let mut updates = play
                .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: None }, &joined.token))
                .await?
                .into_inner();
            let call = Instant::now();
            lobby.start_game(authed(pb::TableRef { table: id.clone() }, &joined.token)).await?;
            timed.push(micros(call));
            let mut sent: Option<Instant> = None;
            let mut mine = Vec::new();
            let mut jitter = t as u64 + 1;
            while Instant::now() < deadline {
                // A game always has a next move: this long without an update is a stall.
                let quiet = (Instant::now() + STALL + think * 2).min(deadline);
                let update = match tokio::time::timeout_at(quiet.into(), updates.next()).await {
                    Ok(Some(update)) => update,
                    Ok(None) => break,
                    Err(_) if quiet < deadline => {
                        stalled.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                    Err(_) => break,
                };
                match update?.update {
                    Some(pb::play_update::Update::Prompt(p)) => {
                        // Asked for a call out of turn: no call, so a window never waits.
                        let window = p.call_window_unix_millis.is_some();
                        let action = (!window).then(|| simple_move(&p.legal.clone().unwrap_or_default()));
                        // A person thinks before moving (half to one and a half times `think`, so
                        // tables do not move in step): this sets the offered load.
                        if !think.is_zero() {
                            jitter =
                                jitter.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            let factor = 0.5 + (jitter >> 33) as f64 / (1u64 << 31) as f64;
                            tokio::time::sleep(think.mul_f64(factor)).await;
                        }
                        sent = Some(Instant::now());
                        let answer = play
                            .act(authed(
                                pb::ActRequest {
                                    table: id.clone(),
                                    action,
                                    pass_call: window,
                                    answers: p.last_seq,
                                    next_round: false,
                                },
                                &joined.token,
                            ))
                            .await;
                        if let Some(at) = sent {
                            timed.push(micros(at));
                        }
                        if let Err(status) = answer {
                            refused.fetch_add(1, Ordering::Relaxed);
                            let code = status
                                .metadata()
                                .get("dudo-code")
                                .and_then(|c| c.to_str().ok())
                                .map_or_else(|| format!("{:?}", status.code()), str::to_string);
                            if let Ok(mut refusals) = refusals.lock() {
                                *refusals.entry(code).or_default() += 1;
                            }
                        }
                    }
                    Some(pb::play_update::Update::Event(e)) => {
                        let Some(kind) = e.kind else { continue };
                        if is_action(&kind) && Instant::now() >= warmup {
                            actions.fetch_add(1, Ordering::Relaxed);
                            let by_me = match &kind {
                                pb::event::Kind::BidMade(b) => b.seat == 0,
                                pb::event::Kind::DudoCalled(d) => d.seat == 0,
                                pb::event::Kind::CalzaCalled(c) => c.seat == 0,
                                _ => false,
                            };
                            if by_me
                                && at_or_after(sent, warmup)
                                && let Some(at) = sent.take()
                            {
                                mine.push(u32::try_from(at.elapsed().as_micros()).unwrap_or(u32::MAX));
                            }
                        }
                        if let pb::event::Kind::GameOver(_) = kind {
                            // Another game at the same table.
                            let call = Instant::now();
                            lobby
                                .reset_table(authed(pb::TableRef { table: id.clone() }, &joined.token))
                                .await?;
                            timed.push(micros(call));
                            updates = play
                                .subscribe(authed(
                                    pb::SubscribeRequest { table: id.clone(), since: None },
                                    &joined.token,
                                ))
                                .await?
                                .into_inner();
                            lobby
                                .start_game(authed(pb::TableRef { table: id.clone() }, &joined.token))
                                .await?;
                        }
                    }
                    _ => {}
                }
            }
            latencies.lock().await.extend(mine);
            calls.lock().await.extend(timed);
            anyhow::Ok(())
        }));
    }
    let mut failed = 0;
    for t in tasks {
        if !matches!(t.await, Ok(Ok(()))) {
            failed += 1;
        }
    }
    let elapsed = (seconds as f64).max(0.001);
    let mut lat = latencies.lock().await.clone();
    lat.sort_unstable();
    let total = actions.load(Ordering::Relaxed);
    let cpu = dudo_tests::cpu_time(server.pid()).saturating_sub(cpu_at_warmup.await.unwrap_or_default());
    let mut calls = calls.lock().await.clone();
    calls.sort_unstable();
    let mut health = health.await.unwrap_or_default();
    health.sort_unstable();
    if let Some(sampler) = sampler {
        let samples = sampler.await.unwrap_or_default();
        let shown: Vec<String> =
            samples.iter().map(|(s, kib)| format!("{s} s: {} MiB", kib / 1024)).collect();
        println!("server RSS during the run: {}", shown.join(", "));
    }
    let (refused, stalled) = (refused.load(Ordering::Relaxed), stalled.load(Ordering::Relaxed));
    if refused > 0 {
        let mut why: Vec<(String, u64)> =
            refusals.lock().map(|r| r.iter().map(|(c, n)| (c.clone(), *n)).collect()).unwrap_or_default();
        why.sort_by_key(|w| std::cmp::Reverse(w.1));
        let said: Vec<String> = why.iter().map(|(code, n)| format!("{code} {n}")).collect();
        println!("refusals by code: {}", said.join(", "));
    }
    println!(
        "play: {tables} table{} ({failed} failed, {stalled} stalled, {refused} calls refused), {seconds} s after a 3 s warm-up, think {} ms: {total} actions, {:.0} actions/s; latency p50 {} µs, p99 {} µs, max {} µs ({} samples); server RSS {} KiB",
        if tables == 1 { "" } else { "s" },
        think.as_millis(),
        total as f64 / elapsed,
        percentile(&lat, 0.5),
        percentile(&lat, 0.99),
        lat.last().copied().unwrap_or(0),
        lat.len(),
        server.rss_kib()
    );
    println!(
        "server CPU: {:.0}% of a core, {:.1} µs per action",
        cpu.as_secs_f64() * 100.0 / elapsed,
        cpu.as_secs_f64() * 1e6 / total.max(1) as f64
    );
    println!(
        "health check beside it (grpc.health.v1.Health/Check, one at a time): p50 {} µs, p99 {} µs ({} calls); action latency p50 = {:.1}× the health check's",
        percentile(&health, 0.5),
        percentile(&health, 0.99),
        health.len(),
        f64::from(percentile(&lat, 0.5)) / f64::from(percentile(&health, 0.5).max(1))
    );
    println!(
        "calls (create, add bot, start, act, reset): p50 {} µs, p99 {} µs, max {} µs ({} calls)",
        percentile(&calls, 0.5),
        percentile(&calls, 0.99),
        calls.last().copied().unwrap_or(0),
        calls.len()
    );
    if let Some(attack) = attack {
        let answers = attack.await.unwrap_or_default();
        let mut said: Vec<(String, u64)> = answers.into_iter().collect();
        said.sort_by_key(|a| std::cmp::Reverse(a.1));
        let total: u64 = said.iter().map(|a| a.1).sum();
        let said: Vec<String> = said.iter().map(|(code, n)| format!("{code} {n}")).collect();
        println!(
            "attack {:?} from 127.0.0.2 through the run (and its warm-up): {total} calls, {:.0} a second; answers by code: {}",
            background.attack,
            total as f64 / (elapsed + 3.0),
            said.join(", ")
        );
    }
    if let Some(storm) = storm {
        let mut reads = storm.await.unwrap_or_default();
        reads.sort_unstable();
        println!(
            "another address's standings reads beside {} readers of this one's: p50 {} µs, p99 {} µs ({} reads)",
            background.standings_readers,
            percentile(&reads, 0.5),
            percentile(&reads, 0.99),
            reads.len()
        );
    }
    if stalled > 0 || failed > 0 {
        anyhow::bail!("{stalled} tables stalled and {failed} failed");
    }
    Ok(())
}

/// A raw tonic unary call's round trips on the same server during the measured run (one at a
/// time, on a connection of its own): the floor an action's latency is compared with.
async fn health_probe(
    addr: &str,
    warmup: Instant,
    deadline: Instant,
) -> anyhow::Result<tokio::task::JoinHandle<Vec<u32>>> {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let mut health = HealthClient::new(Channel::from_shared(format!("http://{addr}"))?.connect().await?);
    Ok(tokio::spawn(async move {
        let mut taken = Vec::new();
        tokio::time::sleep_until(warmup.into()).await;
        while Instant::now() < deadline {
            let call = Instant::now();
            if health.check(HealthCheckRequest { service: String::new() }).await.is_ok() {
                taken.push(micros(call));
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        taken
    }))
}

fn micros(since: Instant) -> u32 {
    u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX)
}

/// Starts `n` host-only tables of 64 reader bots with 20 dice each, and leaves them playing.
async fn start_bot_tables(addr: &str, n: usize) -> anyhow::Result<()> {
    let ch = Channel::from_shared(format!("http://{addr}"))?.connect().await?;
    for _ in 0..n {
        dudo_tests::start_bot_table(ch.clone(), 64, 20).await?;
    }
    Ok(())
}

/// How long a table may go without an update, beyond its think time, before it counts as
/// stalled.
const STALL: Duration = Duration::from_secs(10);

async fn idle(seats: usize, db: &str) -> anyhow::Result<()> {
    let server = Server::start(db)?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = server.rss_kib();
    let chans = channels(&server.addr, seats.div_ceil(100).max(1)).await?;
    // Two people per table, both joined and subscribed, no game started.
    let mut streams: HashMap<usize, tonic::codec::Streaming<pb::PlayUpdate>> = HashMap::new();
    let tables = seats.div_ceil(2);
    for t in 0..tables {
        let ch = chans[(2 * t) % chans.len()].clone();
        let mut lobby = LobbyClient::new(ch.clone());
        let host = lobby
            .create_table(pb::CreateTableRequest {
                preset: "fibbing".into(),
                name: "a".into(),
                seats: 2,
                // Programs play these seats: no wait after a showdown.
                reveal_pause_millis: Some(0),
                ..Default::default()
            })
            .await?
            .into_inner();
        let id = host.table.map(|t| t.id).unwrap_or_default();
        let guest = lobby
            .join_table(pb::JoinTableRequest { table: id.clone(), name: "b".into(), ..Default::default() })
            .await?
            .into_inner();
        for (i, token) in [host.token, guest.token].into_iter().enumerate() {
            let ch = chans[(2 * t + i) % chans.len()].clone();
            let s = PlayClient::new(ch)
                .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: None }, &token))
                .await?
                .into_inner();
            streams.insert(2 * t + i, s);
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = server.rss_kib();
    let n = streams.len();
    println!(
        "idle: {n} seats subscribed at {tables} tables: server RSS {before} KiB -> {after} KiB, {:.1} KiB per seat",
        (after.saturating_sub(before)) as f64 / n.max(1) as f64
    );
    // What the tables cost while nothing happens: each table with people looks every second
    // for players whose streams all closed (presence).
    let (cpu, wall) = (cpu_ticks(server.pid()), Instant::now());
    tokio::time::sleep(Duration::from_secs(10)).await;
    let used = cpu_ticks(server.pid()).saturating_sub(cpu) as f64 / ticks_per_second();
    println!(
        "idle: the server used {:.1}% of one core over {:.0} s with {tables} tables waiting ({:.1} µs a table a second)",
        100.0 * used / wall.elapsed().as_secs_f64(),
        wall.elapsed().as_secs_f64(),
        1e6 * used / wall.elapsed().as_secs_f64() / tables.max(1) as f64
    );
    Ok(())
}

/// A process's user and system CPU time so far, in clock ticks (from /proc).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name may hold spaces: the fields after it follow the last ')'.
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    fields.get(11).and_then(|u| u.parse::<u64>().ok()).unwrap_or(0)
        + fields.get(12).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0)
}

/// Clock ticks a second (`getconf CLK_TCK`; 100 on Linux unless built otherwise).
fn ticks_per_second() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// A load tool for dudo-server, on loopback: it starts the real server binary (built next to
/// it) with its limits raised, and drives it as many clients at once.
#[derive(clap::Parser)]
#[command(name = "dudo-load")]
struct Cli {
    #[command(subcommand)]
    load: Load,
}

#[derive(clap::Subcommand)]
enum Load {
    /// Tables of a person (this tool) and two odds bots, played for a while: actions a second
    /// and the latency from an action to its event on the person's stream.
    ///
    /// Example: dudo-load play --tables 100 --seconds 10 --think-ms 0
    Play {
        /// Tables played at once.
        #[arg(long, default_value_t = 1000)]
        tables: usize,
        /// How long to play, after a 3 s warm-up that is not measured.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        /// The person's pause before each move and each call-window answer, in milliseconds.
        #[arg(long = "think-ms", default_value_t = 0)]
        think_ms: u64,
        /// Where the server keeps its records: none, a SQLite file, postgres://...
        #[arg(long, default_value = "none")]
        db: String,
        /// Print the server's resident memory every this many seconds (0: at the end only).
        #[arg(long = "rss-every", default_value_t = 0)]
        rss_every: u64,
        /// Play a rule set without call windows (Calza on one's own turn).
        #[arg(long = "calza-on-turn")]
        calza_on_turn: bool,
        /// First start this many host-only tables of 64 reader bots with 20 dice each (bots
        /// that would eat the CPU), kept playing through the run.
        #[arg(long = "bot-tables", default_value_t = 0)]
        bot_tables: usize,
        /// First have this many accounts from this address each make a tournament of 64 house
        /// bots (needs --db), kept playing through the run.
        #[arg(long = "house-tournaments", default_value_t = 0)]
        house_tournaments: usize,
        /// Keep this many callers from this address asking for a large tournament's
        /// standings (needs --db), and time another address's (127.0.0.2) reads beside them.
        #[arg(long = "standings-readers", default_value_t = 0)]
        standings_readers: usize,
        /// A hostile client from 127.0.0.2 through the run (see attacks.rs): acts, subscribes
        /// or leaves.
        #[arg(long, value_enum, default_value_t = attacks::Attack::None)]
        attack: attacks::Attack,
        /// Start the server with its default per-address limits, as deployed (the tables
        /// then must fit in one address's: at most 100).
        #[arg(long = "default-limits")]
        default_limits: bool,
    },
    /// The same games on several cluster nodes on one PostgreSQL database, with a node killed
    /// or drained mid-run: failover and drain times, the forwarding hop.
    ///
    /// Example: dudo-load cluster --db postgres://127.0.0.1/test --tables 100 --kill-at 10
    Cluster {
        /// The cluster's database (PostgreSQL).
        #[arg(long)]
        db: String,
        #[arg(long, default_value_t = 3)]
        nodes: usize,
        #[arg(long, default_value_t = 300)]
        tables: usize,
        #[arg(long, default_value_t = 30)]
        seconds: u64,
        #[arg(long = "think-ms", default_value_t = 100)]
        think_ms: u64,
        /// The nodes' lease, in milliseconds.
        #[arg(long = "lease-millis", default_value_t = 5000)]
        lease_millis: u64,
        /// Kill one node (SIGKILL) this many seconds in.
        #[arg(long = "kill-at")]
        kill_at: Option<u64>,
        /// Drain one node (SIGTERM) this many seconds in.
        #[arg(long = "drain-at")]
        drain_at: Option<u64>,
        /// Print every node's resident memory every this many seconds.
        #[arg(long = "rss-every", default_value_t = 0)]
        rss_every: u64,
    },
    /// Seats joined and subscribed but not playing: the server's resident memory per seat.
    ///
    /// Example: dudo-load idle --seats 10000
    Idle {
        /// Seats, two a table (at least 2).
        #[arg(long, default_value_t = 10_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..))]
        seats: usize,
        #[arg(long, default_value = "none")]
        db: String,
    },
    /// Bot accounts queued at once on a four-seat ladder pool: the time until all are seated,
    /// games a second, and the matchmaker's time.
    ///
    /// Example: dudo-load ladder --bots 1000 --seconds 30
    Ladder {
        #[arg(long, default_value_t = 1000)]
        bots: usize,
        #[arg(long, default_value_t = 30)]
        seconds: u64,
    },
    /// Accounts playing the SDK's random, odds and reader strategies on one pool: after how
    /// many games each the board sorts them in that order.
    ///
    /// Example: dudo-load ladder-sort --per-kind 4 --games 200
    LadderSort {
        #[arg(long = "per-kind", default_value_t = 4)]
        per_kind: usize,
        #[arg(long, default_value_t = 200)]
        games: usize,
        #[arg(long = "at-once", default_value_t = 4)]
        at_once: u32,
        /// Print the board as it goes.
        #[arg(long)]
        board: bool,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    use clap::Parser;
    match Cli::parse().load {
        Load::Play {
            tables,
            seconds,
            think_ms,
            db,
            rss_every,
            calza_on_turn,
            bot_tables,
            house_tournaments,
            standings_readers,
            attack,
            default_limits,
        } => {
            let think = Duration::from_millis(think_ms);
            let background = tournaments::Background {
                bot_tables,
                house_tournaments,
                standings_readers,
                attack,
                default_limits,
            };
            play(tables, seconds, think, &db, rss_every, calza_on_turn, background).await
        }
        Load::Cluster {
            db,
            nodes,
            tables,
            seconds,
            think_ms,
            lease_millis,
            kill_at,
            drain_at,
            rss_every,
        } => {
            cluster::run(cluster::Options {
                nodes,
                tables,
                seconds,
                think: Duration::from_millis(think_ms),
                db,
                lease_millis,
                kill_at,
                drain_at,
                rss_every,
            })
            .await
        }
        Load::Idle { seats, db } => idle(seats, &db).await,
        Load::Ladder { bots, seconds } => ladder::queue(bots, seconds).await,
        Load::LadderSort { per_kind, games, at_once, board } => {
            ladder::sort(per_kind, games, at_once, board).await
        }
    }
}
