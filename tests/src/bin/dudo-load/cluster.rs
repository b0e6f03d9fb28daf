//! `dudo-load cluster`: `--nodes N` (3) `dudo-server --cluster` processes on one PostgreSQL
//! database (`--db postgres://…`; the tool makes a schema of its own there and drops it
//! after), behind a TCP balancer as clients meet a cluster. `--tables N` tables, each a
//! person (this tool, connected through the balancer, resuming its stream by sequence number
//! whenever it breaks) and two odds bots, play for `--seconds S` after a warm-up. Reported:
//! - actions a second, calls refused, streams broken, tables stalled (10 s without an
//!   update), and each node's memory (`--rss-every S` samples it through the run);
//! - the forwarding hop: `GetTable` straight to a table's owner and to another node, p50/p99;
//! - with `--kill-at S`: the last node is killed (`kill -9`) S seconds in; for each of its
//!   tables, the time from the kill to the first event its person sees after it (p50/p99);
//! - with `--drain-at S`: the second node is told to stop (SIGTERM) S seconds in; for each
//!   of its tables, the gap between the last event before and the first after (the stall).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_tests::bearer as authed;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use super::{Server, is_action, rss_kib, simple_move};

const KEY: &str = "dudo-load-cluster-key";

pub struct Options {
    pub nodes: usize,
    pub tables: usize,
    pub seconds: u64,
    pub think: Duration,
    pub db: String,
    pub lease_millis: u64,
    pub kill_at: Option<u64>,
    pub drain_at: Option<u64>,
    pub rss_every: u64,
}

/// Counts shared by every table's task.
#[derive(Default)]
struct Tally {
    actions: AtomicU64,
    refused: AtomicU64,
    broken: AtomicU64,
    stalled: AtomicU64,
}

/// A fresh schema on `db` for this run, whose URL the nodes take; dropped with the value.
async fn schema(db: &str) -> anyhow::Result<dudo_store::scratch::Scratch> {
    let name = format!("dudo_load_cluster_{}", std::process::id());
    Ok(dudo_tests::fresh_schema(db, &name).await?)
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    anyhow::ensure!(o.db.starts_with("postgres"), "cluster: --db postgres://… (a cluster needs PostgreSQL)");
    let scratch = schema(&o.db).await?;
    let url = scratch.url().to_string();
    let lease = o.lease_millis.to_string();
    let mut nodes = Vec::new();
    for i in 0..o.nodes {
        let id = format!("load-{i}");
        let args = ["--cluster", "--cluster-key", KEY, "--node-id", &id, "--lease-millis", &lease];
        nodes.push(Some(Server::start_with(&url, &args)?));
    }
    let addrs: Vec<String> = nodes.iter().flatten().map(|n| n.addr.clone()).collect();
    let pids: Vec<u32> = nodes.iter().flatten().map(Server::pid).collect();
    let front = dudo_tests::balancer(addrs.clone()).await?;
    let store = dudo_store::Store::open_as(&url, dudo_store::Access::Reader).await?;
    // Connections through the balancer, so spread over the nodes in turn.
    let mut chans = Vec::new();
    for _ in 0..(o.tables.div_ceil(50)).max(o.nodes) {
        chans.push(Channel::from_shared(format!("http://{front}"))?.connect().await?);
    }
    let tally = Arc::new(Tally::default());
    let start = Instant::now();
    let warmup = start + Duration::from_secs(3);
    let deadline = warmup + Duration::from_secs(o.seconds);
    let mut tasks = Vec::new();
    for t in 0..o.tables {
        let ch = chans[t % chans.len()].clone();
        let tally = Arc::clone(&tally);
        tasks.push(tokio::spawn(play_table(t, ch, o.think, warmup, deadline, tally)));
    }
    // Each node's memory through the run.
    let sampler = {
        let pids = pids.clone();
        let every = o.rss_every;
        tokio::spawn(async move {
            let mut lines = Vec::new();
            if every == 0 {
                return lines;
            }
            let mut at = warmup;
            while at + Duration::from_secs(every) <= deadline {
                at += Duration::from_secs(every);
                tokio::time::sleep_until(at.into()).await;
                let mib: Vec<String> = pids.iter().map(|&p| format!("{}", rss_kib(p) / 1024)).collect();
                lines.push(format!("{} s: {} MiB", (at - warmup).as_secs(), mib.join("/")));
            }
            lines
        })
    };
    // The forwarding hop, measured under the load: the same call to the owner and to another node.
    tokio::time::sleep_until(warmup.into()).await;
    let (direct, forwarded) = hop(&store, &addrs, o.tables.min(200)).await?;
    // Disruptions.
    let mut killed = None;
    let mut drained = None;
    let mut plan: Vec<(u64, &str)> = Vec::new();
    if let Some(at) = o.kill_at {
        plan.push((at, "kill"));
    }
    if let Some(at) = o.drain_at {
        plan.push((at, "drain"));
    }
    plan.sort();
    for (at, what) in plan {
        tokio::time::sleep_until((warmup + Duration::from_secs(at)).into()).await;
        let victim = if what == "kill" { o.nodes - 1 } else { 1 };
        let Some(node) = nodes[victim].as_mut() else { continue };
        let held = owned_by(&store, &format!("load-{victim}")).await?;
        let signal = if what == "kill" { "-KILL" } else { "-TERM" };
        let when = Instant::now();
        std::process::Command::new("kill").args([signal, &node.pid().to_string()]).status()?;
        if what == "kill" {
            killed = Some((when, held));
        } else {
            drained = Some((when, held));
        }
        let _ = tokio::task::spawn_blocking({
            let mut process = nodes[victim].take();
            move || process.as_mut().map(|p| p.process.child.wait())
        })
        .await;
    }
    let mut tables_events: Vec<(String, Vec<Instant>)> = Vec::new();
    let mut failed = 0;
    for t in tasks {
        match t.await {
            Ok(Ok(events)) => tables_events.push(events),
            Ok(Err(e)) => {
                failed += 1;
                if failed <= 3 {
                    eprintln!("a table failed: {e:#}");
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("a table's task failed: {e}");
            }
        }
    }
    let rss = sampler.await.unwrap_or_default();
    let total = tally.actions.load(Ordering::Relaxed);
    println!(
        "cluster: {} nodes, {} tables ({failed} failed, {} stalled), {} s after a 3 s warm-up, think {} ms: {total} actions, {:.0} actions/s; {} calls refused or cut off, {} streams broken and resumed",
        o.nodes,
        o.tables,
        tally.stalled.load(Ordering::Relaxed),
        o.seconds,
        o.think.as_millis(),
        total as f64 / o.seconds.max(1) as f64,
        tally.refused.load(Ordering::Relaxed),
        tally.broken.load(Ordering::Relaxed),
    );
    if !rss.is_empty() {
        println!("node RSS (each node): {}", rss.join(", "));
    }
    println!(
        "forwarding hop (GetTable under load, {} calls each): to the owner p50 {} µs, p99 {} µs; through another node p50 {} µs, p99 {} µs",
        direct.len(),
        crate::percentile(&direct, 0.5),
        crate::percentile(&direct, 0.99),
        crate::percentile(&forwarded, 0.5),
        crate::percentile(&forwarded, 0.99)
    );
    let gaps = |at: Instant, held: &[String]| -> Vec<u64> {
        let mut gaps: Vec<u64> = tables_events
            .iter()
            .filter(|(id, _)| held.contains(id))
            .filter_map(|(_, events)| {
                let after = events.iter().find(|&&e| e > at)?;
                Some(after.duration_since(at).as_millis() as u64)
            })
            .collect();
        gaps.sort_unstable();
        gaps
    };
    if let Some((at, held)) = &killed {
        let g = gaps(*at, held);
        println!(
            "failover after kill -9 (lease {} ms): {} tables, first event after the kill: p50 {} ms, p99 {} ms, max {} ms",
            o.lease_millis,
            g.len(),
            crate::percentile(&g, 0.5),
            crate::percentile(&g, 0.99),
            g.last().copied().unwrap_or(0)
        );
    }
    if let Some((at, held)) = &drained {
        // The stall: from the last event before the drain to the first after it.
        let mut stalls: Vec<u64> = tables_events
            .iter()
            .filter(|(id, _)| held.contains(id))
            .filter_map(|(_, events)| {
                let before = events.iter().rev().find(|&&e| e <= *at)?;
                let after = events.iter().find(|&&e| e > *at)?;
                Some(after.duration_since(*before).as_millis() as u64)
            })
            .collect();
        stalls.sort_unstable();
        println!(
            "drain (SIGTERM): {} tables, stall from the last event before to the first after: p50 {} ms, p99 {} ms, longest {} ms",
            stalls.len(),
            crate::percentile(&stalls, 0.5),
            crate::percentile(&stalls, 0.99),
            stalls.last().copied().unwrap_or(0)
        );
    }
    // The usual gap between a table's events, for comparison.
    let mut usual: Vec<u64> = tables_events
        .iter()
        .flat_map(|(_, e)| e.windows(2).map(|w| w[1].duration_since(w[0]).as_millis() as u64))
        .collect();
    usual.sort_unstable();
    println!(
        "gaps between a table's events: p50 {} ms, p99 {} ms",
        crate::percentile(&usual, 0.5),
        crate::percentile(&usual, 0.99)
    );
    drop(nodes);
    drop(scratch);
    let stalled = tally.stalled.load(Ordering::Relaxed);
    if failed > 0 || stalled > 0 {
        anyhow::bail!("{failed} tables failed and {stalled} stalled");
    }
    Ok(())
}

/// The tables `node` holds now.
async fn owned_by(store: &dudo_store::Store, node: &str) -> anyhow::Result<Vec<String>> {
    let mut held = Vec::new();
    for table in store.open_tables().await? {
        if store.owner_of(&table.id).await?.and_then(|o| o.node).is_some_and(|n| n.id == node) {
            held.push(table.id);
        }
    }
    Ok(held)
}

/// `GetTable` for up to `most` tables, straight to each one's owner and through another
/// node: each call's time in microseconds, sorted.
async fn hop(
    store: &dudo_store::Store,
    addrs: &[String],
    most: usize,
) -> anyhow::Result<(Vec<u64>, Vec<u64>)> {
    let mut lobbies = Vec::new();
    for addr in addrs {
        lobbies.push(LobbyClient::new(Channel::from_shared(format!("http://{addr}"))?.connect().await?));
    }
    let (mut direct, mut forwarded) = (Vec::new(), Vec::new());
    for table in store.open_tables().await?.into_iter().take(most) {
        let Some(owner) = store.owner_of(&table.id).await?.and_then(|o| o.node) else { continue };
        let Some(at) = owner.id.strip_prefix("load-").and_then(|i| i.parse::<usize>().ok()) else { continue };
        for (i, lobby) in lobbies.iter_mut().enumerate() {
            let call = Instant::now();
            if lobby.get_table(pb::TableRef { table: table.id.clone() }).await.is_ok() {
                let took = call.elapsed().as_micros() as u64;
                if i == at { direct.push(took) } else { forwarded.push(took) }
            }
        }
    }
    direct.sort_unstable();
    forwarded.sort_unstable();
    Ok((direct, forwarded))
}

/// One table: made through the balancer, a person and two odds bots, games one after another
/// until the deadline. Its stream is opened again (resuming after the last event seen) each
/// time it breaks. Returns the table's id and when each event arrived.
async fn play_table(
    t: usize,
    ch: Channel,
    think: Duration,
    warmup: Instant,
    deadline: Instant,
    tally: Arc<Tally>,
) -> anyhow::Result<(String, Vec<Instant>)> {
    let mut lobby = LobbyClient::new(ch.clone());
    let mut play = PlayClient::new(ch);
    let joined = lobby
        .create_table(pb::CreateTableRequest {
            preset: "fibbing".into(),
            name: "load".into(),
            seats: 3,
            // Programs play these seats: no wait after a showdown.
            reveal_pause_millis: Some(0),
            ..Default::default()
        })
        .await?
        .into_inner();
    let id = joined.table.map(|t| t.id).unwrap_or_default();
    let token = joined.token;
    for _ in 0..2 {
        lobby.add_bot(authed(pb::AddBotRequest { table: id.clone(), bot: "odds".into() }, &token)).await?;
    }
    let subscribe = |since: Option<u64>| pb::SubscribeRequest { table: id.clone(), since };
    let mut updates = play.subscribe(authed(subscribe(None), &token)).await?.into_inner();
    lobby.start_game(authed(pb::TableRef { table: id.clone() }, &token)).await?;
    let mut since: Option<u64> = None;
    let mut arrivals = Vec::new();
    let mut jitter = t as u64 + 1;
    while Instant::now() < deadline {
        let quiet = (Instant::now() + Duration::from_secs(10) + think * 2).min(deadline);
        let update = match tokio::time::timeout_at(quiet.into(), updates.next()).await {
            Ok(Some(Ok(update))) => update,
            Ok(Some(Err(_)) | None) => {
                // Broken (its node died or drained): opened again through the balancer.
                tally.broken.fetch_add(1, Ordering::Relaxed);
                loop {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    if Instant::now() >= deadline {
                        return Ok((id, arrivals));
                    }
                    if let Ok(s) = play.subscribe(authed(subscribe(since), &token)).await {
                        updates = s.into_inner();
                        break;
                    }
                }
                continue;
            }
            Err(_) if quiet < deadline => {
                tally.stalled.fetch_add(1, Ordering::Relaxed);
                break;
            }
            Err(_) => break,
        };
        match update.update {
            Some(pb::play_update::Update::Snapshot(s)) => since = s.last_seq.or(since),
            Some(pb::play_update::Update::Prompt(p)) => {
                let window = p.call_window_unix_millis.is_some();
                let action = (!window).then(|| simple_move(&p.legal.clone().unwrap_or_default()));
                if !think.is_zero() {
                    jitter = jitter.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let factor = 0.5 + (jitter >> 33) as f64 / (1u64 << 31) as f64;
                    tokio::time::sleep(think.mul_f64(factor)).await;
                }
                let act = pb::ActRequest {
                    table: id.clone(),
                    action,
                    pass_call: window,
                    answers: p.last_seq,
                    next_round: false,
                };
                if play.act(authed(act, &token)).await.is_err() {
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                }
            }
            Some(pb::play_update::Update::Event(e)) => {
                since = Some(e.seq);
                arrivals.push(Instant::now());
                let Some(kind) = e.kind else { continue };
                if is_action(&kind) && Instant::now() >= warmup {
                    tally.actions.fetch_add(1, Ordering::Relaxed);
                }
                if let pb::event::Kind::GameOver(_) = kind {
                    // Another game at the same table; a node may be going as this is asked.
                    let table = || authed(pb::TableRef { table: id.clone() }, &token);
                    let (lobby_, play_) = (lobby.clone(), play.clone());
                    again(deadline, || {
                        let (mut lobby, request) = (lobby_.clone(), table());
                        // Reset already (its answer lost on the way): the table waits.
                        async move { lobby.reset_table(request).await.map(drop).or_else(done_if_refused) }
                    })
                    .await?;
                    updates = again(deadline, || {
                        let (mut play, request) = (play_.clone(), authed(subscribe(None), &token));
                        async move { play.subscribe(request).await.map(tonic::Response::into_inner) }
                    })
                    .await?;
                    since = None;
                    again(deadline, || {
                        let (mut lobby, request) = (lobby_.clone(), table());
                        async move { lobby.start_game(request).await.map(drop).or_else(done_if_refused) }
                    })
                    .await?;
                }
            }
            _ => {}
        }
    }
    Ok((id, arrivals))
}

/// A call tried again (every 50 ms) while it fails for want of a node, until `deadline`.
async fn again<T, F, Fut>(deadline: Instant, mut call: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    loop {
        match call().await {
            Ok(v) => return Ok(v),
            // No node (it died or drained), or the connection to it broke: as the client
            // library does, try again.
            Err(e)
                if matches!(
                    e.code(),
                    tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled
                ) && Instant::now() < deadline =>
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// A reset or start the table refuses as already done (its first answer was lost).
fn done_if_refused(e: tonic::Status) -> Result<(), tonic::Status> {
    match e.code() {
        tonic::Code::FailedPrecondition => Ok(()),
        _ => Err(e),
    }
}
