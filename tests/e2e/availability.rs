//! What no client may take from the others: the CPU (tables of bots), connections (silent
//! ones, the descriptor limit), the memory budget (calls that free it always get in), and the
//! table limit under concurrent creation. Each attack is made on a real `dudo-server`
//! process, with its default settings unless the test says otherwise.

use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_tests::{bearer, binary, cpu_time, start_server};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

async fn connect(addr: &str) -> Channel {
    Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap()
}

/// The p-th fraction of `times` (sorted here).
fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort_unstable();
    times
        .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}

/// A person's game while two host-only tables of 64 reader bots with 20 dice each play: the
/// person creates a table, adds a bot, starts and plays until two rounds are settled, and no
/// call of theirs waits behind the bots. (Before the bots were held to a share of the CPU,
/// such tables made every other call wait for tens of seconds.) The bound here is loose for a
/// debug build beside other tests; BENCHMARKS.md has the release figure.
#[tokio::test]
async fn tables_of_bots_do_not_slow_a_persons_game() {
    let server = start_server(&binary("dudo-server"), &[]).unwrap();
    let pid = server.child.id();
    let attacker = connect(&server.addr).await;
    let mut bot_tables = Vec::new();
    for _ in 0..2 {
        bot_tables.push(dudo_tests::start_bot_table(attacker.clone(), 64, 20).await.unwrap());
    }
    // The bot tables are well into their games, past the burst a share allows at first.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // Two tables at 5% of a core each. Held to slices alone, with no share, their bots would
    // take both cores.
    let (cpu_before, wall) = (cpu_time(pid), Instant::now());
    tokio::time::sleep(Duration::from_secs(2)).await;
    let cpu = cpu_time(pid).saturating_sub(cpu_before).as_secs_f64() / wall.elapsed().as_secs_f64();
    eprintln!("two tables of 64 reader bots: the server used {:.0}% of a core", cpu * 100.0);
    assert!(cpu < 0.3, "the server used {:.0}% of a core: the bots are not held to their share", cpu * 100.0);

    let ch = connect(&server.addr).await;
    let (mut lobby, mut play) = (LobbyClient::new(ch.clone()), PlayClient::new(ch.clone()));
    let mut calls = Vec::new();
    let request = pb::CreateTableRequest {
        preset: "fibbing".into(),
        name: "Ana".into(),
        seats: 2,
        ..Default::default()
    };
    let at = Instant::now();
    let joined = lobby.create_table(request).await.unwrap().into_inner();
    calls.push(at.elapsed());
    let (table, token) = (joined.table.unwrap().id, joined.token);
    let at = Instant::now();
    lobby
        .add_bot(bearer(pb::AddBotRequest { table: table.clone(), bot: "odds".into() }, &token))
        .await
        .unwrap();
    calls.push(at.elapsed());
    let mut updates = play
        .subscribe(bearer(pb::SubscribeRequest { table: table.clone(), since: None }, &token))
        .await
        .unwrap()
        .into_inner();
    let at = Instant::now();
    lobby.start_game(bearer(pb::TableRef { table: table.clone() }, &token)).await.unwrap();
    calls.push(at.elapsed());
    let mut settled = 0;
    while settled < 2 {
        let update = tokio::time::timeout(Duration::from_secs(10), updates.next())
            .await
            .expect("the person's stream went quiet")
            .unwrap()
            .unwrap();
        match update.update {
            Some(pb::play_update::Update::Prompt(p)) => {
                let window = p.call_window_unix_millis.is_some();
                let action =
                    (!window).then(|| crate::server::simple_move(&p.legal.clone().unwrap_or_default()));
                let request = pb::ActRequest {
                    table: table.clone(),
                    action,
                    pass_call: window,
                    answers: p.last_seq,
                    next_round: false,
                };
                let at = Instant::now();
                play.act(bearer(request, &token)).await.unwrap();
                calls.push(at.elapsed());
            }
            Some(pb::play_update::Update::Event(pb::Event {
                kind: Some(pb::event::Kind::RoundSettled(_) | pb::event::Kind::GameOver(_)),
                ..
            })) => settled += 1,
            _ => {}
        }
        let at = Instant::now();
        lobby.list_tables(pb::ListTablesRequest::default()).await.unwrap();
        calls.push(at.elapsed());
    }
    let n = calls.len();
    let (p50, p99) = (percentile(&mut calls, 0.5), percentile(&mut calls, 0.99));
    eprintln!("a person's {n} calls beside two tables of 64 reader bots: p50 {p50:?}, p99 {p99:?}");
    assert!(p99 < Duration::from_millis(250), "p99 {p99:?} over {n} calls: bots are holding the server");

    // The bot tables were slowed, not stopped.
    let mut watch = play
        .watch(pb::WatchRequest { table: bot_tables[0].clone(), since: None })
        .await
        .unwrap()
        .into_inner();
    let mut events = 0;
    let until = Instant::now() + Duration::from_secs(30);
    while events < 3 && Instant::now() < until {
        if let Ok(Some(Ok(pb::PlayUpdate { update: Some(pb::play_update::Update::Event(_)), .. }))) =
            tokio::time::timeout_at(until.into(), watch.next()).await
        {
            events += 1;
        }
    }
    assert!(events >= 3, "a bot table stopped playing");
}

/// A channel to the server at `addr` whose connections come from `from` (a loopback address
/// of its own: another client, as far as the server can tell).
async fn connect_from(addr: &str, from: &str) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .local_address(Some(from.parse().unwrap()))
        .connect()
        .await
        .unwrap()
}

async fn healthy(ch: Channel) -> Result<(), tonic::Status> {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    HealthClient::new(ch).check(HealthCheckRequest { service: String::new() }).await.map(|_| ())
}

/// Opens a TCP connection from `from` and sends `opening`, then nothing more.
async fn silent(addr: &str, from: &str, opening: &[u8]) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut stream = socket.connect(addr.parse().unwrap()).await.unwrap();
    if !opening.is_empty() {
        stream.write_all(opening).await.unwrap();
    }
    stream
}

/// Whether the server closed `stream` within `within`.
async fn closed_within(stream: &mut tokio::net::TcpStream, within: Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buf = [0u8; 64];
    let deadline = Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline.into(), stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return true,
            // The server's own preface (to an HTTP/2 opening): keep reading.
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

/// Connections that never finish their opening (nothing, one byte of HTTP/1.1, HTTP/2's
/// preface without a frame) take their address's slots from the moment they are accepted,
/// so an address cannot hold more than its share of descriptors, and are closed within a
/// few seconds; other addresses play on meanwhile. At the cap, a new connection of the
/// address takes the oldest one's place, which is closed at once.
#[tokio::test]
async fn connections_that_never_finish_their_opening_are_closed_and_held_to_their_address() {
    let server = start_server(&binary("dudo-server"), &["--max-connections-per-ip", "6"]).unwrap();
    let addr = server.addr.clone();
    let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let mut held = Vec::new();
    for opening in [&b""[..], b"G", b"POST / HTTP/1.1\r\nhost: x\r\n", preface, &preface[..10], b"P"] {
        held.push(silent(&addr, "127.0.0.1", opening).await);
    }
    // The address's six slots are taken: a seventh connection is served in the oldest's
    // place, and that one is closed at once, the other five left to their time.
    tokio::time::sleep(Duration::from_millis(200)).await;
    healthy(connect(&addr).await).await.expect("a seventh connection takes the oldest's place");
    assert!(closed_within(&mut held[0], Duration::from_millis(500)).await, "the oldest was kept");
    assert!(!closed_within(&mut held[1], Duration::from_millis(100)).await, "the second was closed");
    let _ = held.remove(0);
    // Another address is not held up.
    healthy(connect_from(&addr, "127.0.0.2").await).await.unwrap();
    let started = Instant::now();
    for (n, stream) in held.iter_mut().enumerate() {
        assert!(closed_within(stream, Duration::from_secs(8)).await, "silent connection {n} was kept");
    }
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(7), "closed after {waited:?}");
    // Their slots were given back.
    let ch = connect(&addr).await;
    healthy(ch).await.unwrap();
}

/// Connections that made their call (or only opened) and then say nothing more are closed
/// once nothing has been owed to them for `--idle-connection-seconds`, giving back their
/// address's slots: an HTTP/1.1 keep-alive after one gRPC-Web call, an HTTP/2 connection that
/// only sent its preface and settings, and one whose call's answer cannot be sent because it
/// grants no flow-control window. A stream open for longer than that keeps its connection,
/// and a tonic channel whose connection was closed calls again as if nothing happened.
#[tokio::test]
async fn idle_connections_are_closed_but_open_streams_and_channels_carry_on() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let flags = ["--max-connections-per-ip", "4", "--idle-connection-seconds", "2"];
    let server = start_server(&binary("dudo-server"), &flags).unwrap();
    let addr = server.addr.clone();
    // A channel with a stream open on it, from an address of its own.
    let watcher = connect_from(&addr, "127.0.0.3").await;
    let mut lobby = LobbyClient::new(watcher.clone());
    let created = lobby.create_table(pb::CreateTableRequest::default()).await.unwrap().into_inner();
    let table = created.table.unwrap().id;
    let mut play = PlayClient::new(watcher.clone());
    let watch = pb::WatchRequest { table: table.clone(), since: None };
    let mut stream = play.watch(watch).await.unwrap().into_inner();
    // And a channel that makes one call, then waits.
    let later = connect(&addr).await;
    healthy(later.clone()).await.unwrap();

    // One gRPC-Web health check over HTTP/1.1, kept alive.
    let mut http1 = silent(&addr, "127.0.0.1", b"").await;
    let call = b"POST /grpc.health.v1.Health/Check HTTP/1.1\r\nhost: x\r\ncontent-type: application/grpc-web+proto\r\ncontent-length: 5\r\n\r\n\0\0\0\0\0";
    http1.write_all(call).await.unwrap();
    let mut answer = [0u8; 512];
    let n = http1.read(&mut answer).await.unwrap();
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer[..n]));
    // HTTP/2's preface and an empty SETTINGS frame, and no call.
    let mut http2 = silent(&addr, "127.0.0.1", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0").await;
    // A health check on HTTP/2 with an initial window of 0: its answer can never be sent.
    let mut stalled = silent(&addr, "127.0.0.1", &zero_window_call()).await;
    // The address's four slots are taken (the channel, the three above).
    let started = Instant::now();
    assert!(closed_within(&mut http1, Duration::from_secs(5)).await, "the idle HTTP/1.1 connection was kept");
    assert!(closed_within(&mut http2, Duration::from_secs(5)).await, "the idle HTTP/2 connection was kept");
    assert!(
        closed_within(&mut stalled, Duration::from_secs(5)).await,
        "the stalled call kept its connection"
    );
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1_500), "closed after {waited:?}, before its idle time");
    // Slots given back: a new connection from the address is served, and the channel whose
    // connection was closed calls again.
    healthy(connect(&addr).await).await.unwrap();
    healthy(later).await.unwrap();
    // The watched table's stream, open all along, still hears it.
    let host = bearer(pb::TableRef { table }, &created.token);
    lobby.close_table(host).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(update) = stream.next().await {
            if let Err(status) = update {
                return Some(status);
            }
        }
        None
    })
    .await
    .expect("the open stream heard nothing of its table's close")
    .expect("the open stream ended without a status");
    assert_eq!(ended.code(), tonic::Code::NotFound, "the stream's connection was closed: {ended:?}");
}

/// A client that asks for a lot and reads none of it (the page's script a hundred times on
/// one connection, a small receive buffer) is cut off after the idle time, and its slot is
/// given back. (On this build the idle close on the read side already ends it; the hostile
/// try saw such connections held on another, and a write stuck for the idle time now ends a
/// connection too.)
#[tokio::test]
async fn a_client_that_reads_nothing_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let flags = ["--max-connections-per-ip", "1", "--idle-connection-seconds", "2"];
    let server = start_server(&binary("dudo-server"), &flags).unwrap();
    let addr = server.addr.clone();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(2048).unwrap();
    let mut greedy = socket.connect(addr.parse().unwrap()).await.unwrap();
    let ask = format!("GET /assets/app.js HTTP/1.1\r\nhost: {addr}\r\n\r\n").repeat(100);
    greedy.write_all(ask.as_bytes()).await.unwrap();
    // Stuck for the idle time, it is cut off: what the buffers held, then its end, long
    // before the hundred answers (26 MB) it asked for.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (mut read, mut buf) = (0usize, vec![0u8; 64 * 1024]);
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while read < 10_000_000 {
            match greedy.read(&mut buf).await {
                Ok(0) | Err(_) => return true,
                Ok(n) => read += n,
            }
        }
        false
    })
    .await;
    assert_eq!(ended, Ok(true), "the reader of nothing was not cut off ({read} bytes read)");
    // Its address's only slot is free.
    healthy(connect(&addr).await).await.expect("the reader of nothing still held its address's slot");
}

/// HTTP/2's preface, SETTINGS with an initial stream window of 0, and a whole
/// `grpc.health.v1.Health/Check` call on stream 1 (its headers in HPACK literals).
fn zero_window_call() -> Vec<u8> {
    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = u32::try_from(payload.len()).unwrap().to_be_bytes();
        let mut f = vec![len[1], len[2], len[3], kind, flags];
        f.extend_from_slice(&stream.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }
    fn literal(name_index: u8, name: &str, value: &str) -> Vec<u8> {
        let mut h = vec![name_index];
        if name_index == 0 {
            h.push(u8::try_from(name.len()).unwrap());
            h.extend_from_slice(name.as_bytes());
        }
        h.push(u8::try_from(value.len()).unwrap());
        h.extend_from_slice(value.as_bytes());
        h
    }
    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    // SETTINGS_INITIAL_WINDOW_SIZE (4) = 0.
    out.extend(frame(0x4, 0, 0, &[0, 4, 0, 0, 0, 0]));
    // :method POST and :scheme http from the static table, then :path, :authority,
    // content-type and te as literals.
    let mut headers = vec![0x83, 0x86];
    headers.extend(literal(4, "", "/grpc.health.v1.Health/Check"));
    headers.extend(literal(1, "", "x"));
    headers.extend(literal(0, "content-type", "application/grpc"));
    headers.extend(literal(0, "te", "trailers"));
    out.extend(frame(0x1, 0x4, 1, &headers));
    out.extend(frame(0x0, 0x1, 1, &[0, 0, 0, 0, 0]));
    out
}

/// At the open file limit the server neither spins nor floods its log: it pauses accepting,
/// and serves again once descriptors are free.
#[tokio::test]
async fn at_the_descriptor_limit_the_server_backs_off() {
    use std::io::Read;
    let log = std::env::temp_dir().join(format!("dudo-emfile-{}.log", std::process::id()));
    let exe = binary("dudo-server");
    let mut child = std::process::Command::new("bash")
        .args(["-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        .arg(&exe)
        .args(["--listen", "127.0.0.1:0", "--db", "none", "--max-connections-per-ip", "20"])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut first = [0u8; 200];
    let n = child.stdout.as_mut().unwrap().read(&mut first).unwrap();
    let banner = String::from_utf8_lossy(&first[..n]).to_string();
    let addr = banner.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    let pid = child.id();
    // Silent connections from four addresses, past the 64 descriptors the server may open.
    let mut held = Vec::new();
    for from in ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"] {
        for _ in 0..20 {
            held.push(silent(&addr, from, b"").await);
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = cpu_time(pid);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let cpu = cpu_time(pid).saturating_sub(before).as_secs_f64() / 2.0;
    assert!(cpu < 0.2, "at the descriptor limit the server used {:.0}% of a core", cpu * 100.0);
    // Once the silent connections are closed, it serves again.
    drop(held);
    let served = async {
        for _ in 0..100 {
            if let Ok(ch) = Channel::from_shared(format!("http://{addr}")).unwrap().connect().await
                && healthy(ch).await.is_ok()
            {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    };
    assert!(served.await, "the server did not serve again");
    let _ = child.kill();
    let _ = child.wait();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let warnings = text.lines().filter(|l| l.contains("cannot accept")).count();
    // One when the limit is first hit, then at most one every 10 s (a loaded machine may make
    // the attack last longer than it does here).
    assert!((1..=4).contains(&warnings), "{warnings} warnings:\n{text}");
}

/// Tables created all at once are checked and counted in one step: no more than the
/// address's limit are made.
#[tokio::test]
async fn concurrent_creations_make_no_more_tables_than_an_address_may_have() {
    let server = start_server(&binary("dudo-server"), &["--max-tables-per-ip", "10"]).unwrap();
    let ch = connect(&server.addr).await;
    let creations = (0..60).map(|n| {
        let mut lobby = LobbyClient::new(ch.clone());
        async move {
            let request = pb::CreateTableRequest {
                preset: "fibbing".into(),
                name: format!("P{n}"),
                seats: 2,
                ..Default::default()
            };
            lobby.create_table(request).await
        }
    });
    let results = futures_join_all(creations).await;
    let made = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(made, 10, "{made} tables made against a limit of 10");
    for refused in results.iter().filter_map(|r| r.as_ref().err()) {
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
        let code = refused.metadata().get("dudo-code").and_then(|v| v.to_str().ok());
        assert_eq!(code, Some("too_many_tables"), "the cap has a code of its own: {refused:?}");
    }
}

/// Runs futures at once, in order.
async fn futures_join_all<F: std::future::Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// With an address's share of the budget full, its other calls are refused `server_busy`,
/// but the calls that free memory (closing, resetting, leaving) and health checks get
/// through, on its open connections and on a new one.
#[tokio::test]
async fn a_full_share_still_lets_its_address_free_memory_and_check_health() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let server = start_server(&binary("dudo-server"), &["--memory-per-address-mib", "1"]).unwrap();
    let ch = connect(&server.addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let request = pb::CreateTableRequest {
        preset: "fibbing".into(),
        name: "Ana".into(),
        seats: 3,
        ..Default::default()
    };
    let joined = lobby.create_table(request).await.unwrap().into_inner();
    let (table, token) = (joined.table.unwrap().id, joined.token);
    let guest = lobby
        .join_table(pb::JoinTableRequest { table: table.clone(), name: "Bea".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    // Streams that stay open each hold a call's worth of the share, until it is full.
    let mut health = HealthClient::new(ch.clone());
    let mut open = Vec::new();
    let busy = loop {
        match health.watch(HealthCheckRequest { service: String::new() }).await {
            Ok(stream) => open.push(stream.into_inner()),
            Err(status) => break status,
        }
        assert!(open.len() < 100, "the share never filled");
    };
    assert_eq!(
        busy.metadata().get("dudo-code").and_then(|c| c.to_str().ok()),
        Some("server_busy"),
        "{busy:?}"
    );
    let refused = lobby.list_tables(pb::ListTablesRequest::default()).await.unwrap_err();
    assert_eq!(refused.metadata().get("dudo-code").and_then(|c| c.to_str().ok()), Some("server_busy"));
    // What frees memory, and the health check, get through.
    healthy(ch.clone()).await.unwrap();
    lobby.leave(bearer(pb::TableRef { table: table.clone() }, &guest.token)).await.unwrap();
    lobby.reset_table(bearer(pb::TableRef { table: table.clone() }, &token)).await.unwrap();
    // On a new connection too (`dudo host close` from another terminal).
    let fresh = connect(&server.addr).await;
    healthy(fresh.clone()).await.unwrap();
    LobbyClient::new(fresh).close_table(bearer(pb::TableRef { table: table.clone() }, &token)).await.unwrap();
    drop(open);
}

/// A graceful stop (SIGTERM) waits for nothing a client holds open: a ladder entrant's
/// `Enter` stream ends `UNAVAILABLE` at once and the server exits within seconds.
#[tokio::test]
async fn a_held_ladder_stream_does_not_hold_up_a_graceful_stop() {
    let mut server = start_server(&binary("dudo-server"), &["--db", ":memory:"]).unwrap();
    let guest = dudo_client::Client::connect(&server.addr).await.unwrap();
    let token = guest.register("Waits", true, "test").await.unwrap().token.unwrap().token;
    let entrant = guest.with_account(Some(token));
    // Alone in the pool, it waits to be seated for as long as the stream is open.
    let mut entered = entrant.enter("fibbing-4", 1, 0).await.unwrap();
    let first = tokio::time::timeout(Duration::from_secs(5), entered.message()).await.unwrap();
    assert!(first.is_ok(), "{first:?}");
    let asked = Instant::now();
    std::process::Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match entered.message().await {
                Ok(Some(_)) => {}
                other => return other,
            }
        }
    })
    .await
    .expect("the Enter stream was held open through the stop");
    let status = ended.expect_err("the stream ended without a status");
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
    let exited = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(asked.elapsed() < Duration::from_secs(5), "the server was still running 5 s after SIGTERM");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(exited.success(), "{exited:?}");
}

/// One address's flood of plain calls (Acts with a token nobody holds) and of stream opens
/// (Subscribes, the same) is answered `rate_limited`, with how long to wait, past its rate:
/// before the rate, such a flood got ~10,000 answers a second, and 3,400 stream opens a
/// second cost the server 35% of a core. Another address's calls go through meanwhile, and
/// health checks are never counted.
#[tokio::test]
async fn one_addresss_flood_of_calls_and_stream_opens_is_held_to_its_rate() {
    let server = start_server(
        &binary("dudo-server"),
        &["--calls-per-second-per-ip", "40", "--stream-opens-per-second-per-ip", "10"],
    )
    .unwrap();
    let addr = server.addr.clone();
    let flood = connect_from(&addr, "127.0.0.2").await;
    let code = |s: &tonic::Status| {
        s.metadata().get("dudo-code").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
    };
    let (mut answered, mut limited, mut waits) = (0, 0, Vec::new());
    let started = Instant::now();
    for _ in 0..400 {
        let act = pb::ActRequest { action: Some(pb::Action::default()), ..Default::default() };
        match PlayClient::new(flood.clone()).act(bearer(act, "nobodys-token")).await {
            Err(s) if code(&s) == "rate_limited" => {
                assert_eq!(s.code(), tonic::Code::ResourceExhausted, "{s:?}");
                let wait = s
                    .metadata()
                    .get("dudo-retry-after-ms")
                    .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
                waits.push(wait.expect("a rate refusal says how long to wait"));
                limited += 1;
            }
            // Answered: the table or token is nobody's.
            Err(_) => answered += 1,
            Ok(_) => panic!("an act with nobody's token was taken"),
        }
    }
    let secs = started.elapsed().as_secs_f64();
    // A burst of two seconds' worth, then 40 a second.
    let most = 80.0 + 40.0 * secs + 2.0;
    assert!(f64::from(answered) <= most, "{answered} calls answered in {secs:.2} s; at most {most:.0}");
    assert!(
        limited > 0 && waits.iter().all(|&w| (1..=1000).contains(&w)),
        "{limited} limited, waits {waits:?}"
    );
    // Another address plays on, and the flooding address's health checks still answer.
    let lobby = LobbyClient::new(connect_from(&addr, "127.0.0.3").await);
    let req = pb::CreateTableRequest { name: "Ana".into(), seats: 2, ..Default::default() };
    assert!(lobby.clone().create_table(req).await.is_ok(), "another address is not held up");
    healthy(flood.clone()).await.unwrap();
    // Stream opens have a rate of their own, lower than the calls'.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let opener = connect_from(&addr, "127.0.0.4").await;
    let (mut opened, mut refused) = (0, 0);
    let started = Instant::now();
    for _ in 0..60 {
        let subscribe = bearer(pb::SubscribeRequest::default(), "nobodys-token");
        match PlayClient::new(opener.clone()).subscribe(subscribe).await {
            Err(s) if code(&s) == "rate_limited" => {
                assert!(s.message().contains("stream opens"), "{s:?}");
                refused += 1;
            }
            _ => opened += 1,
        }
    }
    let most = 20.0 + 10.0 * started.elapsed().as_secs_f64() + 2.0;
    assert!(
        f64::from(opened) <= most && refused > 0,
        "{opened} stream opens went through (at most {most:.0}), {refused} refused"
    );
}

/// A shared address: someone holding every connection it may have (a household's or a
/// campus's router, a carrier's NAT), each carrying a seat of their own, must not get another
/// player there taken out. The player's stream drops, their reconnects are refused at the
/// address's cap while their clock runs out turn after turn, and when the connections are let
/// go they come back to their seat. (Before, 119 of 119 reconnects were refused and the table
/// took them out for running out of time twice in a row.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_whose_shared_address_is_full_is_not_taken_out() {
    use crate::shared_address::{
        ben_is_back, bens_game, from, holding_seats, refused_while_his_clock_runs_out,
    };
    let server = start_server(&binary("dudo-server"), &["--max-connections-per-ip", "3"]).unwrap();
    let (url, shared) = (format!("http://{}", server.addr), "127.0.0.5");
    let game = bens_game(connect(&server.addr).await, from(&url, shared).await.unwrap(), 700).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Someone else at the address takes every connection it may have, each with a seat.
    let held = holding_seats(&url, shared, 3).await;
    let mut spectator = PlayClient::new(connect(&server.addr).await)
        .watch(pb::WatchRequest { table: game.table.clone(), since: None })
        .await
        .unwrap()
        .into_inner();
    let refused = refused_while_his_clock_runs_out(&url, shared, &mut spectator).await;
    // The connections are let go: Ben is back, in the seat.
    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    ben_is_back(from(&url, shared).await.unwrap(), &game, refused).await;
}

/// A shared address's cap does not keep a player from their seat: their reconnection takes
/// the place of the address's oldest connection carrying no seat's stream (here others there
/// watching the game), and once their seat streams on it, the others opening connection
/// after connection push out only each other's. (Before, every reconnect was refused at the
/// cap while the others held it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seats_reconnection_takes_the_place_of_connections_without_a_seat() {
    use crate::shared_address::{ben_is_back, bens_game, from};
    let server = start_server(&binary("dudo-server"), &["--max-connections-per-ip", "3"]).unwrap();
    let (addr, url, shared) = (server.addr.clone(), format!("http://{}", server.addr), "127.0.0.8");
    let game = bens_game(connect(&addr).await, from(&url, shared).await.unwrap(), 700).await;
    let table = game.table.clone();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Others at the address watch the game on every connection it may have.
    let watching = || async {
        let channel = connect_from(&addr, shared).await;
        let watch = pb::WatchRequest { table: table.clone(), since: None };
        let stream = PlayClient::new(channel.clone()).watch(watch).await.unwrap().into_inner();
        (channel, stream)
    };
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(watching().await);
    }
    // Ben is back at once, in the seat.
    let mut back = ben_is_back(from(&url, shared).await.unwrap(), &game, 0).await;
    // The others open connection after connection: each pushes out the oldest watcher's,
    // never Ben's.
    for _ in 0..6 {
        held.push(watching().await);
    }
    let mut ended = 0;
    for (_, stream) in held.iter_mut().take(4) {
        let end = async { while let Ok(Some(_)) = stream.message().await {} };
        ended += usize::from(tokio::time::timeout(Duration::from_secs(5), end).await.is_ok());
    }
    assert_eq!(ended, 4, "the oldest watchers' connections made room");
    // Ben's stream goes on (the game's updates keep coming, or nothing does; it never ends).
    let until = tokio::time::Instant::now() + Duration::from_secs(2);
    loop {
        match tokio::time::timeout_at(until, back.message()).await {
            Err(_) => break,
            Ok(Ok(Some(_))) => {}
            other => panic!("Ben's stream ended: {other:?}"),
        }
    }
}

/// The page's files are served at a rate per address (each answer is up to a few hundred KB
/// for a request of a hundred bytes): past it, `429 Too Many Requests` with `Retry-After`,
/// while another address still gets the page. (GETs went past the call gate's rate: one
/// address drew 1.45 GB of `app.js` in 6 s.)
#[tokio::test]
async fn one_address_asking_for_the_page_without_end_is_held_to_a_rate() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = start_server(&binary("dudo-server"), &[]).unwrap();
    let ask = |from: &'static str, n: usize| {
        let addr = server.addr.clone();
        async move {
            let mut stream = silent(&addr, from, b"").await;
            let request = b"HEAD /assets/app.js HTTP/1.1\r\nhost: dudo\r\n\r\n".repeat(n);
            stream.write_all(&request).await.unwrap();
            let mut answers = Vec::new();
            let until = Instant::now() + Duration::from_secs(10);
            let mut buf = [0u8; 16 * 1024];
            while answers.windows(9).filter(|w| w == b"HTTP/1.1 ").count() < n && Instant::now() < until {
                match tokio::time::timeout(Duration::from_secs(2), stream.read(&mut buf)).await {
                    Ok(Ok(0)) | Err(_) => break,
                    Ok(Ok(k)) => answers.extend_from_slice(&buf[..k]),
                    Ok(Err(_)) => break,
                }
            }
            let text = String::from_utf8_lossy(&answers).to_string();
            (text.matches("HTTP/1.1 200").count(), text.matches("HTTP/1.1 429").count(), text)
        }
    };
    let (served, limited, text) = ask("127.0.0.6", 250).await;
    assert!(served <= 110 && limited >= 100, "{served} served and {limited} limited of 250");
    assert!(text.to_lowercase().contains("retry-after: "), "a refusal says when to ask again");
    let (served, _, _) = ask("127.0.0.7", 3).await;
    assert_eq!(served, 3, "another address gets the page");
}
