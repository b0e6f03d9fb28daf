//! The gRPC server, started for real on port 0 and played with raw tonic clients.

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_tests::bearer as authed;
use tokio::sync::oneshot;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

/// A server on a free port, stopped when the returned sender is dropped or fired.
async fn server() -> (String, oneshot::Sender<()>) {
    server_with(dudo_server::node::Limits::default()).await
}

/// `server()` with limits of the test's choosing.
async fn server_with(mut limits: dudo_server::node::Limits) -> (String, oneshot::Sender<()>) {
    // Programs play its tables: after a showdown they go on at once.
    limits.default_clock.reveal_pause_millis = 0;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(dudo_server::run_with(listener, limits, async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// A fibbing table for `seats`, created by `name`, with dice from `seed` when given.
fn fibbing(name: &str, seats: u32, seed: Option<u64>) -> pb::CreateTableRequest {
    pb::CreateTableRequest { preset: "fibbing".into(), name: name.into(), seats, seed, ..Default::default() }
}

/// A plain two-seat fibbing table, for the tests about limits.
fn two_seats() -> pb::CreateTableRequest {
    fibbing("A", 2, None)
}

/// Fills `count` seats of `table` with the server's odds bots, as its host.
async fn add_bots(lobby: &mut LobbyClient<Channel>, table: &str, host_token: &str, count: u32) {
    for _ in 0..count {
        lobby
            .add_bot(authed(pb::AddBotRequest { table: table.into(), bot: "odds".into() }, host_token))
            .await
            .unwrap();
    }
}

/// Opens the seat's stream, then starts the game (so the stream sees it from its start).
async fn subscribe_and_start(
    play: &mut PlayClient<Channel>,
    lobby: &mut LobbyClient<Channel>,
    table: &str,
    token: &str,
) -> tonic::Streaming<pb::PlayUpdate> {
    let request = pb::SubscribeRequest { table: table.into(), since: None };
    let updates = play.subscribe(authed(request, token)).await.unwrap().into_inner();
    lobby.start_game(authed(pb::TableRef { table: table.into() }, token)).await.unwrap();
    updates
}

async fn channel(addr: &str) -> Channel {
    for _ in 0..50 {
        if let Ok(c) = Channel::from_shared(addr.to_string()).unwrap().connect().await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("server did not come up at {addr}");
}

/// Whether `attempt` succeeds within `tries` tries 20 ms apart: for what a server gives
/// back a moment after a stream, call or connection ends.
async fn eventually<F: std::future::Future<Output = bool>>(
    tries: usize,
    mut attempt: impl FnMut() -> F,
) -> bool {
    for _ in 0..tries {
        if attempt().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// SHA-256 of "dudo-v1" ‖ round ‖ seat ‖ dice ‖ salt, as docs/protocol.md gives it.
fn recompute(round: u32, s: &pb::SeatSalt) -> String {
    use sha2::{Digest, Sha256};
    let salt: Vec<u8> =
        (0..s.salt.len()).step_by(2).map(|i| u8::from_str_radix(&s.salt[i..i + 2], 16).unwrap()).collect();
    let mut h = Sha256::new();
    h.update(b"dudo-v1");
    h.update(round.to_be_bytes());
    h.update(s.seat.to_be_bytes());
    h.update(s.dice.iter().map(|&d| d as u8).collect::<Vec<u8>>());
    h.update(salt);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks a `dice_salts` event against the round's commitments, as any client can, and says
/// how many commitments it opened. Common hand opens every roll of the round; individual hand
/// only the last look under the cup, the cup that was lifted.
fn check_salts(
    commitments: &[(u32, Vec<pb::SeatHash>)],
    salts: &pb::DiceSalts,
    individual: bool,
    what: &str,
) -> usize {
    let committed: Vec<&pb::SeatHash> =
        commitments.iter().filter(|c| c.0 == salts.round).flat_map(|c| c.1.iter()).collect();
    let opened = if individual {
        assert_eq!(salts.salts.len(), 1, "{what}: one cup is opened");
        &committed[committed.len().saturating_sub(1)..]
    } else {
        &committed[..]
    };
    assert_eq!(opened.len(), salts.salts.len(), "{what}");
    for (c, s) in opened.iter().zip(&salts.salts) {
        assert_eq!(c.seat, s.seat, "{what}");
        assert_eq!(c.hash, recompute(salts.round, s), "{what}");
    }
    opened.len()
}

/// What a simple client does when asked to move: challenge if it may, else the least bid,
/// else the first claim or roll on offer.
pub(crate) fn simple_move(legal: &pb::Legal) -> pb::Action {
    use pb::action::Action as A;
    let action = if !legal.dudo.is_empty() {
        A::Dudo(pb::Dudo { target: None })
    } else if let Some(r) = legal.bids.first() {
        A::Bid(pb::Bid { quantity: r.min_quantity, face: r.face })
    } else if let Some(h) = &legal.claim_from {
        A::Claim(h.clone())
    } else if legal.roll.is_some() {
        A::Roll(pb::Roll { dice: vec![0, 1, 2, 3, 4], show: vec![] })
    } else if legal.dogs_life {
        A::DogsLife(pb::DogsLifeChoice { bark: true })
    } else if legal.calza {
        // Asked in a call window with only the exact call to make.
        A::Calza(pb::Empty {})
    } else {
        A::Accept(pb::Empty {})
    };
    pb::Action { action: Some(action) }
}

#[tokio::test]
async fn a_person_and_two_bots_play_a_whole_game_over_the_stream() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let joined = lobby
        .create_table(pb::CreateTableRequest {
            settings: vec![pb::Setting { path: "losers_see_dice".into(), value: "hidden".into() }],
            ..fibbing("Roger", 3, Some(7))
        })
        .await
        .unwrap()
        .into_inner();
    let table = joined.table.unwrap();
    assert_eq!(joined.seat, 0);
    assert!(table.link.ends_with(&table.join_code));
    // By join code: a host may name the table either way.
    add_bots(&mut lobby, &table.join_code, &joined.token, 2).await;
    let mut play = PlayClient::new(ch.clone());
    let (tx, rx) = tokio::sync::mpsc::channel::<pb::PlayRequest>(16);
    tx.send(pb::PlayRequest {
        request: Some(pb::play_request::Request::Hello(pb::Hello { table: table.id.clone(), since: None })),
        answers: None,
    })
    .await
    .unwrap();
    let mut updates = play
        .play(authed(tokio_stream::wrappers::ReceiverStream::new(rx), &joined.token))
        .await
        .unwrap()
        .into_inner();
    // A second hello is a client bug: said so on the stream, and the stream goes on.
    tx.send(pb::PlayRequest {
        request: Some(pb::play_request::Request::Hello(pb::Hello { table: table.id.clone(), since: None })),
        answers: None,
    })
    .await
    .unwrap();
    let mut hello_refused = false;
    lobby.start_game(authed(pb::TableRef { table: table.id.clone() }, &joined.token)).await.unwrap();
    let mut last_seq = None;
    let mut out = false;
    let mut over = false;
    let mut prompts = 0;
    let mut commitments: Vec<(u32, Vec<pb::SeatHash>)> = Vec::new();
    let mut verified = 0;
    while let Some(update) = tokio::time::timeout(Duration::from_secs(10), updates.next()).await.unwrap() {
        match update.unwrap().update.unwrap() {
            pb::play_update::Update::Snapshot(_)
            | pb::play_update::Update::Table(_)
            | pb::play_update::Update::Turn(_)
            | pb::play_update::Update::Reseated(_)
            | pb::play_update::Update::Line(_)
            | pb::play_update::Update::Story(_)
            | pb::play_update::Update::ClockWarning(_) => {}
            pb::play_update::Update::Event(e) => {
                // Sequence numbers only rise; a seat sees its own dice and no one else's.
                assert!(last_seq.is_none_or(|s| e.seq > s), "{:?} after {:?}", e.seq, last_seq);
                last_seq = Some(e.seq);
                match e.kind.unwrap() {
                    pb::event::Kind::DiceRolled(d) => {
                        assert!(d.seat == 0, "seat 0 was sent seat {}'s dice", d.seat)
                    }
                    pb::event::Kind::DiceCommitted(c) => commitments.push((c.round, c.commitments)),
                    pb::event::Kind::DiceSalts(salts) => {
                        verified += check_salts(&commitments, &salts, false, "fibbing")
                    }
                    pb::event::Kind::Eliminated(p) if p.seat == 0 => out = true,
                    pb::event::Kind::GameOver(g) => {
                        assert_eq!(g.standings.len(), 3);
                        over = true;
                        break;
                    }
                    _ => {}
                }
            }
            pb::play_update::Update::Prompt(p) => {
                assert!(!out);
                prompts += 1;
                tx.send(pb::PlayRequest {
                    request: Some(pb::play_request::Request::Action(simple_move(&p.legal.unwrap()))),
                    answers: None,
                })
                .await
                .unwrap();
            }
            pb::play_update::Update::Rejected(r) if !hello_refused && r.code == "bad_request" => {
                hello_refused = true
            }
            pb::play_update::Update::Rejected(r) => panic!("refused: {}", r.reason),
        }
    }
    assert!(over, "the game did not end");
    assert!(hello_refused, "the second hello was not refused");
    assert!(prompts > 0);
    assert!(verified > 0, "no commitment was checked");
    let info = lobby.get_table(pb::TableRef { table: table.id }).await.unwrap().into_inner();
    assert_eq!(info.state, pb::TableState::Over as i32);
}

#[tokio::test]
async fn resume_spectate_and_refuse_what_is_not_allowed() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(fibbing("Ann", 3, None)).await.unwrap().into_inner();
    let id = host.table.unwrap().id;
    let guest = lobby
        .join_table(pb::JoinTableRequest { table: id.clone(), name: "Ben".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(guest.seat, 1);
    // Only the host adds bots and starts; unknown tokens are unauthenticated.
    let denied = lobby
        .add_bot(authed(pb::AddBotRequest { table: id.clone(), bot: "odds".into() }, &guest.token))
        .await;
    assert_eq!(denied.unwrap_err().code(), tonic::Code::PermissionDenied);
    let unknown = lobby.start_game(authed(pb::TableRef { table: id.clone() }, "nope")).await;
    assert_eq!(unknown.unwrap_err().code(), tonic::Code::Unauthenticated);
    lobby
        .add_bot(authed(pb::AddBotRequest { table: id.clone(), bot: "random".into() }, &host.token))
        .await
        .unwrap();
    let full = lobby
        .join_table(pb::JoinTableRequest { table: id.clone(), name: "Cat".into(), ..Default::default() })
        .await;
    assert_eq!(full.unwrap_err().code(), tonic::Code::ResourceExhausted);
    lobby.start_game(authed(pb::TableRef { table: id.clone() }, &host.token)).await.unwrap();
    let mut play = PlayClient::new(ch.clone());
    // An out-of-turn or illegal action is refused and changes nothing.
    let bad = pb::Action { action: Some(pb::action::Action::Bid(pb::Bid { quantity: 99, face: 3 })) };
    let refused = play
        .act(authed(
            pb::ActRequest {
                table: id.clone(),
                action: Some(bad),
                pass_call: false,
                answers: None,
                next_round: false,
            },
            &host.token,
        ))
        .await;
    assert_eq!(refused.unwrap_err().code(), tonic::Code::FailedPrecondition);
    // A spectator sees no dice rolled; a seat resuming after seq 3 gets what came after only.
    let mut watch =
        play.watch(pb::WatchRequest { table: id.clone(), since: Some(0) }).await.unwrap().into_inner();
    let mut seen = 0;
    while let Ok(Some(u)) = tokio::time::timeout(Duration::from_millis(300), watch.next()).await {
        if let Some(pb::play_update::Update::Event(e)) = u.unwrap().update {
            assert!(e.seq > 0);
            assert!(!matches!(e.kind, Some(pb::event::Kind::DiceRolled(_))), "a spectator saw dice");
            seen += 1;
        }
    }
    assert!(seen > 0);
    let mut resumed = play
        .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: Some(3) }, &guest.token))
        .await
        .unwrap()
        .into_inner();
    if let Ok(Some(Ok(first))) = tokio::time::timeout(Duration::from_millis(500), resumed.next()).await
        && let Some(pb::play_update::Update::Event(e)) = first.update
    {
        assert!(e.seq > 3);
    }
}

#[tokio::test]
async fn the_binary_serves_health_and_stops_within_a_second_on_sigterm() {
    let mut server = dudo_tests::start_server(&dudo_tests::binary("dudo-server"), &[]).unwrap();
    let addr = server.addr.clone();
    let ch = channel(&format!("http://{addr}")).await;
    // Standard gRPC health answers for the dudo services.
    let health = tonic_health::pb::health_client::HealthClient::new(ch.clone())
        .check(tonic_health::pb::HealthCheckRequest { service: "dudo.v1.Play".into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);
    // A table with an open stream, so shutdown has something to close.
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(fibbing("Ann", 2, None)).await.unwrap().into_inner();
    let id = host.table.unwrap().id;
    let mut stream = PlayClient::new(ch.clone())
        .subscribe(authed(pb::SubscribeRequest { table: id, since: None }, &host.token))
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(stream.next().await, Some(Ok(_))));
    // Health polled on the open channel, as a balancer would, every 20 ms through the stop.
    let polled = tokio::spawn(async move {
        use tonic_health::pb::health_check_response::ServingStatus;
        let mut health = tonic_health::pb::health_client::HealthClient::new(ch);
        let mut seen = Vec::new();
        for _ in 0..100 {
            let mut said = Vec::new();
            for service in ["", "dudo.v1.Play"] {
                let asked = tonic_health::pb::HealthCheckRequest { service: service.into() };
                match health.check(asked).await {
                    Ok(r) => said.push(ServingStatus::try_from(r.into_inner().status).ok()),
                    Err(_) => return seen,
                }
            }
            seen.push(said);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        seen
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = std::time::Instant::now();
    std::process::Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    // The stream is told, then closed (the story so far may come first: the table's news).
    let ended = tokio::time::timeout(Duration::from_secs(2), async {
        loop {
            match stream.next().await {
                Some(Ok(pb::PlayUpdate { update: Some(pb::play_update::Update::Story(_)) })) => continue,
                other => return other,
            }
        }
    })
    .await
    .unwrap();
    assert!(matches!(ended, Some(Err(_)) | None));
    // Told to stop, it said NOT_SERVING for the server and its services before it went.
    let seen = polled.await.unwrap();
    let not_serving = Some(tonic_health::pb::health_check_response::ServingStatus::NotServing);
    assert!(
        seen.iter().any(|said| said.iter().all(|s| *s == not_serving)),
        "health through the stop: {seen:?}"
    );
    let status = tokio::task::spawn_blocking(move || server.child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
}

/// The README's two server commands run side by side: the second refuses, naming the way out.
#[tokio::test]
async fn a_second_server_on_one_database_names_the_way_out() {
    let dir = std::env::temp_dir().join(format!("dudo-two-servers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("dudo.db").display().to_string();
    let exe = dudo_tests::binary("dudo-server");
    let _first = dudo_tests::start_server(&exe, &["--db", &db]).unwrap();
    let second = std::process::Command::new(&exe)
        .args(["--db", &db, "--listen", "127.0.0.1:0"])
        // As many developers' shells have it: the refusal is still one line, not a backtrace.
        .env("RUST_BACKTRACE", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = tokio::time::timeout(
        Duration::from_secs(20),
        tokio::task::spawn_blocking(move || second.wait_with_output()),
    )
    .await
    .expect("the second server did not stop")
    .unwrap()
    .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && !said.to_lowercase().contains("backtrace"), "{said}");
    assert!(
        said.contains("in use by another dudo") && said.contains("--db PATH") && said.contains("--db none"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_python_grpcio_client_plays_a_whole_game() {
    // The project's own script makes the Python environment (grpcio, grpcio-tools).
    let root = dudo_tests::root();
    let env = std::process::Command::new("bash").arg(root.join("scripts/python-env.sh")).output();
    let python = match env {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => {
            let why = format!("no Python environment ({})", String::from_utf8_lossy(&out.stderr).trim());
            dudo_tests::skipped("server::a_python_grpcio_client_plays_a_whole_game", &why);
            return;
        }
        Err(e) => {
            dudo_tests::skipped(
                "server::a_python_grpcio_client_plays_a_whole_game",
                &format!("cannot run bash: {e}"),
            );
            return;
        }
    };
    // A server that keeps records, so the client can find its game afterwards.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let target = listener.local_addr().unwrap().to_string();
    let store = dudo_server::Store::open(":memory:").await.unwrap();
    let setup = dudo_server::Setup { store: Some(store), ..Default::default() };
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    let script = root.join("tests/python/play_game.py");
    let proto = root.join("proto");
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python).arg(script).arg(target).arg(proto).output()
    })
    .await
    .unwrap()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("python client: game over"), "{stdout}");
    assert!(stdout.contains("python client: replay of"), "{stdout}");
}

#[tokio::test]
async fn grpc_web_over_http1_reaches_the_lobby() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (addr, _stop) = server().await;
    let _ = channel(&addr).await;
    let mut tcp = tokio::net::TcpStream::connect(addr.trim_start_matches("http://")).await.unwrap();
    // An empty ListTablesRequest in one gRPC-Web data frame: flag 0, length 0.
    let request = "POST /dudo.v1.Lobby/ListTables HTTP/1.1\r\nHost: localhost\r\n\
        content-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\nconnection: close\r\ncontent-length: 5\r\n\r\n";
    tcp.write_all(request.as_bytes()).await.unwrap();
    tcp.write_all(&[0, 0, 0, 0, 0]).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), tcp.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("grpc-status:0"), "{text}");
}

/// A gRPC-Web request left half-sent is answered, when its time is up, in gRPC-Web: a
/// browser reads the status as it reads any other.
#[tokio::test]
async fn a_half_sent_grpc_web_request_is_answered_in_grpc_web() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limits = dudo_server::node::Limits { request_time: Duration::from_millis(500), ..Default::default() };
    let (addr, _stop) = server_with(limits).await;
    let mut tcp = tokio::net::TcpStream::connect(addr.trim_start_matches("http://")).await.unwrap();
    // Five bytes promised, two sent.
    let request = "POST /dudo.v1.Lobby/ListTables HTTP/1.1\r\nHost: localhost\r\n\
        content-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\nconnection: close\r\ncontent-length: 5\r\n\r\n";
    tcp.write_all(request.as_bytes()).await.unwrap();
    tcp.write_all(&[0, 0]).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response).to_lowercase();
    assert!(text.contains("content-type: application/grpc-web"), "{text}");
    assert!(text.contains("grpc-status: 4") || text.contains("grpc-status:4"), "{text}");
}

#[tokio::test]
async fn the_turn_clock_plays_the_default_action_for_a_silent_seat() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let joined = lobby
        .create_table(pb::CreateTableRequest { move_millis: Some(100), ..fibbing("Sleepy", 3, Some(5)) })
        .await
        .unwrap()
        .into_inner();
    let id = joined.table.unwrap().id;
    add_bots(&mut lobby, &id, &joined.token, 2).await;
    let mut updates = PlayClient::new(ch.clone())
        .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: None }, &joined.token))
        .await
        .unwrap()
        .into_inner();
    lobby.start_game(authed(pb::TableRef { table: id.clone() }, &joined.token)).await.unwrap();
    // The person never answers; the clock answers for them until the game ends.
    let (mut timeouts, mut deadlines) = (0, 0);
    loop {
        let update =
            tokio::time::timeout(Duration::from_secs(20), updates.next()).await.unwrap().unwrap().unwrap();
        match update.update.unwrap() {
            pb::play_update::Update::Prompt(p) => deadlines += usize::from(p.deadline_unix_millis.is_some()),
            pb::play_update::Update::Event(e) => match e.kind.unwrap() {
                pb::event::Kind::TurnTimedOut(t) => {
                    assert_eq!(t.seat, 0);
                    timeouts += 1;
                }
                pb::event::Kind::GameOver(_) => break,
                _ => {}
            },
            _ => {}
        }
    }
    assert!(timeouts > 0 && deadlines > 0, "{timeouts} timeouts, {deadlines} deadlines");
}

#[tokio::test]
async fn host_commands_and_leaving() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(fibbing("Ann", 3, Some(3))).await.unwrap().into_inner();
    let id = host.table.unwrap().id;
    let guest = lobby
        .join_table(pb::JoinTableRequest { table: id.clone(), name: "Ben".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let settings = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(p, v)| pb::Setting { path: p.to_string(), value: v.to_string() })
            .collect::<Vec<_>>()
    };
    let denied = lobby
        .change_settings(authed(
            pb::ChangeSettingsRequest { table: id.clone(), settings: settings(&[("dice.faces", "8")]) },
            &guest.token,
        ))
        .await;
    assert_eq!(denied.unwrap_err().code(), tonic::Code::PermissionDenied);
    let bad = lobby
        .change_settings(authed(
            pb::ChangeSettingsRequest { table: id.clone(), settings: settings(&[("dice.faces", "80")]) },
            &host.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    assert!(bad.message().contains("dice.faces"), "{}", bad.message());
    let info = lobby
        .change_settings(authed(
            pb::ChangeSettingsRequest {
                table: id.clone(),
                settings: settings(&[("first_starter", "first_seat"), ("dice.faces", "8")]),
            },
            &host.token,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(info.rules.unwrap().dice.unwrap().faces, 8);
    add_bots(&mut lobby, &id, &host.token, 1).await;
    lobby.start_game(authed(pb::TableRef { table: id.clone() }, &host.token)).await.unwrap();
    // The host opens; before the first call of the round, the guest may leave, for good.
    lobby.leave(authed(pb::TableRef { table: id.clone() }, &guest.token)).await.unwrap();
    let mut play = PlayClient::new(ch.clone());
    let gone = play
        .act(authed(
            pb::ActRequest {
                table: id.clone(),
                action: Some(pb::Action { action: Some(pb::action::Action::Calza(pb::Empty {})) }),
                pass_call: false,
                answers: None,
                next_round: false,
            },
            &guest.token,
        ))
        .await;
    assert_eq!(gone.unwrap_err().code(), tonic::Code::Unauthenticated);
    // After a bid, a removed player plays the round out by default and goes at its end.
    let bid = pb::Action { action: Some(pb::action::Action::Bid(pb::Bid { quantity: 1, face: 2 })) };
    play.act(authed(
        pb::ActRequest {
            table: id.clone(),
            action: Some(bid),
            pass_call: false,
            answers: None,
            next_round: false,
        },
        &host.token,
    ))
    .await
    .unwrap();
    let mid = lobby
        .remove_player(authed(pb::RemovePlayerRequest { table: id.clone(), seat: 2 }, &host.token))
        .await
        .unwrap()
        .into_inner();
    let removed = &mid.players[2];
    assert!(removed.leaving || removed.left, "{removed:?}");
    let again = lobby
        .remove_player(authed(pb::RemovePlayerRequest { table: id.clone(), seat: 2 }, &host.token))
        .await
        .unwrap_err();
    assert_eq!(again.code(), tonic::Code::FailedPrecondition);
    // Reset takes the table back to waiting.
    let info = lobby.reset_table(authed(pb::TableRef { table: id }, &host.token)).await.unwrap().into_inner();
    assert_eq!(info.state, pb::TableState::Waiting as i32);
}

/// The status a stream ends with, its updates until then read and let go.
async fn end_of(stream: &mut tonic::Streaming<pb::PlayUpdate>) -> tonic::Status {
    loop {
        match stream.next().await {
            Some(Ok(_)) => {}
            Some(Err(status)) => return status,
            None => panic!("the stream ended without a status"),
        }
    }
}

#[tokio::test]
async fn limits_are_enforced_with_clear_errors() {
    let (addr, _stop) = server_with(dudo_server::node::Limits {
        max_tables: 2,
        max_streams_per_ip: 1,
        actions_per_second: 1,
        max_message_bytes: 1024,
        ..Default::default()
    })
    .await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(two_seats()).await.unwrap().into_inner();
    lobby.create_table(two_seats()).await.unwrap();
    let third = lobby.create_table(two_seats()).await.unwrap_err();
    assert_eq!(third.code(), tonic::Code::ResourceExhausted);
    assert!(third.message().contains("tables"), "{}", third.message());
    // One stream per address.
    let id = host.table.unwrap().id;
    let mut play = PlayClient::new(ch.clone());
    let mut first =
        play.watch(pb::WatchRequest { table: id.clone(), since: None }).await.unwrap().into_inner();
    let second = play.watch(pb::WatchRequest { table: id.clone(), since: None }).await.unwrap_err();
    assert_eq!(second.code(), tonic::Code::ResourceExhausted);
    // A token that holds no seat makes no room, on either kind of seat stream.
    let subscribe = |token: &str| authed(pb::SubscribeRequest { table: id.clone(), since: None }, token);
    let bogus = play.subscribe(subscribe("nobodys-token")).await.unwrap_err();
    assert_eq!(bogus.code(), tonic::Code::ResourceExhausted, "{bogus:?}");
    let hello = pb::PlayRequest {
        request: Some(pb::play_request::Request::Hello(pb::Hello { table: id.clone(), since: None })),
        answers: None,
    };
    let bogus = play.play(authed(tokio_stream::iter([hello]), "nobodys-token")).await.unwrap_err();
    assert_eq!(bogus.code(), tonic::Code::ResourceExhausted, "{bogus:?}");
    // A seat's stream is not refused: the watcher's ends in its favour, and says so.
    let ended_with = |status: tonic::Status| {
        status.metadata().get("dudo-code").and_then(|v| v.to_str().ok()).map(str::to_string)
    };
    let mut seat = play.subscribe(subscribe(&host.token)).await.expect("a seat's stream").into_inner();
    assert_eq!(ended_with(end_of(&mut first).await).as_deref(), Some("displaced"));
    // The seat's next stream (a reconnect while the last looks open) takes its last one's
    // place: only a seat's newest stream is kept.
    let _again = play.subscribe(subscribe(&host.token)).await.expect("the seat's newer stream").into_inner();
    assert_eq!(ended_with(end_of(&mut seat).await).as_deref(), Some("displaced"));
    // Messages over the size limit are refused by the transport.
    let huge = pb::Setting { path: "x".repeat(4096), value: String::new() };
    let big = lobby
        .change_settings(authed(
            pb::ChangeSettingsRequest { table: id.clone(), settings: vec![huge] },
            &host.token,
        ))
        .await
        .unwrap_err();
    assert_eq!(big.code(), tonic::Code::OutOfRange);
    // A seat calling faster than its rate is told to slow down.
    add_bots(&mut lobby, &id, &host.token, 1).await;
    lobby.start_game(authed(pb::TableRef { table: id.clone() }, &host.token)).await.unwrap();
    let calza = pb::Action { action: Some(pb::action::Action::Calza(pb::Empty {})) };
    let mut codes = Vec::new();
    for _ in 0..4 {
        let r = play
            .act(authed(
                pb::ActRequest {
                    table: id.clone(),
                    action: Some(calza.clone()),
                    pass_call: false,
                    answers: None,
                    next_round: false,
                },
                &host.token,
            ))
            .await;
        codes.push(r.unwrap_err().code());
    }
    assert!(codes.contains(&tonic::Code::ResourceExhausted), "{codes:?}");
}

#[tokio::test]
async fn streams_are_capped_per_connection() {
    let (addr, _stop) =
        server_with(dudo_server::node::Limits { max_streams_per_connection: 1, ..Default::default() }).await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let id = lobby.create_table(two_seats()).await.unwrap().into_inner().table.unwrap().id;
    let watch = || pb::WatchRequest { table: id.clone(), since: None };
    let mut play = PlayClient::new(ch.clone());
    let first = play.watch(watch()).await.unwrap().into_inner();
    let second = play.watch(watch()).await.unwrap_err();
    assert_eq!(second.code(), tonic::Code::ResourceExhausted);
    assert!(second.message().contains("per connection"), "{}", second.message());
    // Another connection from the same address has its own allowance.
    let mut other = PlayClient::new(channel(&addr).await);
    let _third = other.watch(watch()).await.unwrap().into_inner();
    // A stream that ends gives its place back.
    drop(first);
    let again = eventually(50, || {
        let mut play = play.clone();
        async move { play.watch(watch()).await.is_ok() }
    });
    assert!(again.await, "the ended stream's place was not given back");
}

#[tokio::test]
async fn an_idle_table_closes_and_frees_its_place_but_a_watched_one_stays() {
    let (addr, _stop) = server_with(dudo_server::node::Limits {
        max_tables: 1,
        idle_table: Duration::from_millis(300),
        ..Default::default()
    })
    .await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let first = lobby.create_table(two_seats()).await.unwrap().into_inner();
    let id = first.table.unwrap().id;
    let full = lobby.create_table(two_seats()).await.unwrap_err();
    assert_eq!(full.code(), tonic::Code::ResourceExhausted);
    // A stream open on the table keeps it, however long nobody calls.
    let mut play = PlayClient::new(ch.clone());
    let updates = play
        .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: None }, &first.token))
        .await
        .unwrap()
        .into_inner();
    tokio::time::sleep(Duration::from_millis(900)).await;
    lobby.get_table(pb::TableRef { table: id.clone() }).await.unwrap();
    // Once nobody watches and nobody calls, it closes and its place is free again.
    drop(updates);
    tokio::time::sleep(Duration::from_millis(900)).await;
    let gone = lobby.get_table(pb::TableRef { table: id }).await.unwrap_err();
    assert_eq!(gone.code(), tonic::Code::NotFound, "{gone:?}");
    lobby.create_table(two_seats()).await.unwrap();
}

#[tokio::test]
async fn a_seat_that_reconnects_mid_round_misses_nothing_and_sees_nothing_twice() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(fibbing("Ann", 4, Some(21))).await.unwrap().into_inner();
    let id = host.table.unwrap().id;
    add_bots(&mut lobby, &id, &host.token, 3).await;
    let mut play = PlayClient::new(ch.clone());
    let mut first = subscribe_and_start(&mut play, &mut lobby, &id, &host.token).await;
    // Answer a few prompts, then drop the connection mid-round.
    let mut last = 0;
    let mut answered = 0;
    while answered < 3 {
        match tokio::time::timeout(Duration::from_secs(5), first.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap()
            .update
            .unwrap()
        {
            pb::play_update::Update::Event(e) => last = e.seq,
            pb::play_update::Update::Prompt(p) => {
                let action = simple_move(&p.legal.unwrap());
                play.act(authed(
                    pb::ActRequest {
                        table: id.clone(),
                        action: Some(action),
                        pass_call: false,
                        answers: None,
                        next_round: false,
                    },
                    &host.token,
                ))
                .await
                .unwrap();
                answered += 1;
            }
            _ => {}
        }
    }
    drop(first);
    // Resume after the last event seen, and compare with a full replay of the seat's log.
    let collect = |mut s: tonic::codec::Streaming<pb::PlayUpdate>| async move {
        let mut seqs = Vec::new();
        while let Ok(Some(Ok(u))) = tokio::time::timeout(Duration::from_millis(300), s.next()).await {
            if let Some(pb::play_update::Update::Event(e)) = u.update {
                seqs.push(e.seq);
            }
        }
        seqs
    };
    let resumed = play
        .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: Some(last) }, &host.token))
        .await
        .unwrap()
        .into_inner();
    let resumed = collect(resumed).await;
    let full = play
        .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: Some(0) }, &host.token))
        .await
        .unwrap()
        .into_inner();
    let full = collect(full).await;
    assert!(!resumed.is_empty());
    assert!(resumed.iter().all(|&s| s > last), "an event came twice");
    let expected: Vec<u64> = full.into_iter().filter(|&s| s > last).collect();
    assert_eq!(resumed, expected, "an event was lost");
}

#[tokio::test]
async fn prometheus_metrics_on_their_own_port() {
    use std::io::BufRead;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let free = dudo_tests::fixed_address();
    let mut server =
        dudo_tests::start_server(&dudo_tests::binary("dudo-server"), &["--metrics-listen", &free]).unwrap();
    let addr = server.addr.clone();
    // After the records line, a line says the metrics endpoint is up.
    let mut lines = String::new();
    for _ in 0..2 {
        server.stdout.read_line(&mut lines).unwrap();
    }
    assert!(lines.contains("keeps no records") && lines.contains("metrics on"), "{lines}");
    let ch = channel(&format!("http://{addr}")).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(fibbing("Ann", 2, Some(1))).await.unwrap().into_inner();
    let id = host.table.unwrap().id;
    add_bots(&mut lobby, &id, &host.token, 1).await;
    lobby.start_game(authed(pb::TableRef { table: id.clone() }, &host.token)).await.unwrap();
    let mut play = PlayClient::new(ch.clone());
    // One refused call (out of range), then moves until one is accepted.
    let bad = pb::Action { action: Some(pb::action::Action::Bid(pb::Bid { quantity: 99, face: 2 })) };
    let _ = play
        .act(authed(
            pb::ActRequest {
                table: id.clone(),
                action: Some(bad),
                pass_call: false,
                answers: None,
                next_round: false,
            },
            &host.token,
        ))
        .await;
    let mut updates = play
        .subscribe(authed(pb::SubscribeRequest { table: id.clone(), since: None }, &host.token))
        .await
        .unwrap()
        .into_inner();
    loop {
        let u = tokio::time::timeout(Duration::from_secs(5), updates.next()).await.unwrap().unwrap().unwrap();
        if let Some(pb::play_update::Update::Prompt(p)) = u.update {
            let action = simple_move(&p.legal.unwrap());
            play.act(authed(
                pb::ActRequest {
                    table: id.clone(),
                    action: Some(action),
                    pass_call: false,
                    answers: None,
                    next_round: false,
                },
                &host.token,
            ))
            .await
            .unwrap();
            break;
        }
    }
    let mut tcp = tokio::net::TcpStream::connect(free).await.unwrap();
    tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut body = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), tcp.read_to_string(&mut body)).await;
    for name in [
        "dudo_tables",
        "dudo_seats",
        "dudo_streams",
        "dudo_actions_total",
        "dudo_action_seconds",
        "dudo_rejections_total",
        "dudo_memory_held_bytes",
        "dudo_memory_budget_bytes",
    ] {
        assert!(body.contains(name), "{name} missing from:\n{body}");
    }
    assert!(body.contains("reason=\"quantity_out_of_range\""), "{body}");
    // Everything exported is in docs/deploy.md's table of metrics.
    let undocumented: Vec<String> = crate::docs::exported_metrics(&body)
        .difference(&crate::docs::documented_metrics())
        .cloned()
        .collect();
    assert!(undocumented.is_empty(), "exported but not in deploy.md's Metrics: {undocumented:?}");
    let _ = server.child.kill();
    let _ = server.child.wait();
}

#[tokio::test]
async fn every_preset_plays_to_the_end_over_the_wire_without_leaking_dice() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    for preset in dudo_rules::presets::NAMES {
        let rules = dudo_rules::presets::by_name(preset).unwrap();
        let seats = (rules.players.min as u32).max(3).min(rules.players.max as u32);
        let mut lobby = LobbyClient::new(ch.clone());
        let joined = lobby
            .create_table(pb::CreateTableRequest {
                preset: preset.to_string(),
                name: "Tester".into(),
                seats,
                seed: Some(13),
                // Short games: the points games to a small target.
                settings: if preset.starts_with("points") {
                    vec![pb::Setting { path: "game_end".into(), value: r#"{"points": 12}"#.into() }]
                } else {
                    vec![pb::Setting { path: "losers_see_dice".into(), value: "hidden".into() }]
                },
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("{preset}: {e}"))
            .into_inner();
        let id = joined.table.unwrap().id;
        add_bots(&mut lobby, &id, &joined.token, seats - 1).await;
        let mut play = PlayClient::new(ch.clone());
        let mut updates = subscribe_and_start(&mut play, &mut lobby, &id, &joined.token).await;
        let mut out = false;
        let individual = rules.family != dudo_rules::ruleset::Family::CommonHand;
        let mut commitments: Vec<(u32, Vec<pb::SeatHash>)> = Vec::new();
        let mut verified = 0;
        loop {
            let update = tokio::time::timeout(Duration::from_secs(20), updates.next())
                .await
                .unwrap_or_else(|_| panic!("{preset}: stalled"))
                .unwrap()
                .unwrap();
            match update.update.unwrap() {
                pb::play_update::Update::Prompt(p) => {
                    let legal = p.legal.unwrap();
                    let dice = p.view.and_then(|v| v.hand).map_or(5, |h| h.dice.len() as u32);
                    let action = match (&legal.roll, &legal.claim_from) {
                        // A roll that must come first is of every die the hand has.
                        (Some(_), None) if legal.dudo.is_empty() => pb::Action {
                            action: Some(pb::action::Action::Roll(pb::Roll {
                                dice: (0..dice).collect(),
                                show: vec![],
                            })),
                        },
                        _ => simple_move(&legal),
                    };
                    play.act(authed(
                        pb::ActRequest {
                            table: id.clone(),
                            action: Some(action),
                            pass_call: false,
                            answers: None,
                            next_round: false,
                        },
                        &joined.token,
                    ))
                    .await
                    .unwrap_or_else(|e| panic!("{preset}: {e}"));
                }
                pb::play_update::Update::Event(e) => match e.kind.unwrap() {
                    pb::event::Kind::DiceRolled(d) => {
                        assert!(d.seat == 0 || out, "{preset}: seat {}'s dice", d.seat)
                    }
                    pb::event::Kind::HandSeen(h) => assert_eq!(h.seat, 0, "{preset}: another's hand"),
                    pb::event::Kind::DiceCommitted(c) => commitments.push((c.round, c.commitments)),
                    pb::event::Kind::DiceSalts(salts) => {
                        verified += check_salts(&commitments, &salts, individual, preset)
                    }
                    pb::event::Kind::Eliminated(p) if p.seat == 0 => out = true,
                    pb::event::Kind::GameOver(_) => break,
                    _ => {}
                },
                _ => {}
            }
        }
        assert!(verified > 0, "{preset}: no commitment was checked");
    }
}

/// A seat that answers every prompt at once, at a table of built-in bots, is never stalled
/// by the rate limit (which is for calls the table was not waiting for): 100 games, each
/// played to the end, back to back.
#[tokio::test]
async fn a_seat_answering_every_prompt_at_once_plays_a_hundred_games() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let mut play = PlayClient::new(ch);
    let joined = lobby.create_table(fibbing("Quick", 3, Some(5))).await.unwrap().into_inner();
    let id = joined.table.unwrap().id;
    add_bots(&mut lobby, &id, &joined.token, 2).await;
    let mut refused = 0;
    for game in 0..100 {
        let mut updates = subscribe_and_start(&mut play, &mut lobby, &id, &joined.token).await;
        loop {
            let next = tokio::time::timeout(Duration::from_secs(10), updates.next()).await;
            let update = next.unwrap_or_else(|_| panic!("game {game} stalled")).unwrap().unwrap();
            match update.update.unwrap() {
                pb::play_update::Update::Prompt(p) => {
                    let action = simple_move(&p.legal.unwrap());
                    let sent = play
                        .act(authed(
                            pb::ActRequest {
                                table: id.clone(),
                                action: Some(action),
                                pass_call: false,
                                answers: None,
                                next_round: false,
                            },
                            &joined.token,
                        ))
                        .await;
                    if sent.is_err() {
                        refused += 1;
                    }
                }
                pb::play_update::Update::Event(pb::Event {
                    kind: Some(pb::event::Kind::GameOver(_)),
                    ..
                }) => break,
                _ => {}
            }
        }
        lobby.reset_table(authed(pb::TableRef { table: id.clone() }, &joined.token)).await.unwrap();
    }
    assert_eq!(refused, 0, "no move answering a prompt was refused");
}

/// A play stream whose client sends bytes that are not a message hears why, and the stream
/// ends with a status: it never goes deaf while its downward half stays open.
#[tokio::test]
async fn an_undecodable_message_on_a_play_stream_ends_it_with_invalid_argument() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let joined = lobby.create_table(two_seats()).await.unwrap().into_inner();
    let id = joined.table.unwrap().id;
    // A raw gRPC client: the hello, then a frame whose bytes are not a PlayRequest.
    let mut grpc = tonic::client::Grpc::new(ch);
    grpc.ready().await.unwrap();
    let hello = pb::PlayRequest {
        request: Some(pb::play_request::Request::Hello(pb::Hello { table: id, since: None })),
        answers: None,
    };
    let frames = tokio_stream::iter(vec![
        prost::Message::encode_to_vec(&hello),
        vec![0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], // a length that runs past the end
    ]);
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/dudo.v1.Play/Play");
    let mut request = tonic::Request::new(frames);
    request.metadata_mut().insert("authorization", format!("Bearer {}", joined.token).parse().unwrap());
    let response = grpc.streaming(request, path, RawCodec).await.unwrap();
    let mut updates = response.into_inner();
    let ended = loop {
        match tokio::time::timeout(Duration::from_secs(5), updates.message())
            .await
            .expect("the stream went quiet")
        {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    assert_eq!(ended.code(), tonic::Code::InvalidArgument, "{ended:?}");
    // A unary call whose message does not decode: the client's error, not the server's.
    let mut grpc = tonic::client::Grpc::new(channel(&addr).await);
    grpc.ready().await.unwrap();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/dudo.v1.Lobby/CreateTable");
    let garbage = tonic::Request::new(vec![0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    let refused = grpc.unary(garbage, path, RawCodec).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
}

/// Bytes in, bytes out: a client that sends what it likes.
#[derive(Clone, Copy)]
struct RawCodec;

struct RawEncoder;
struct RawDecoder;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawEncoder;
    type Decoder = RawDecoder;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

impl tonic::codec::Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), tonic::Status> {
        bytes::BufMut::put_slice(dst, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawDecoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        use bytes::Buf;
        let mut out = vec![0; src.remaining()];
        src.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

/// `ListTables` pages its summaries: every waiting table once, a bounded page at a time, and
/// no rule sets in the list.
#[tokio::test]
async fn list_tables_pages_through_summaries() {
    let limits = dudo_server::node::Limits { max_tables_per_ip: 1_000, ..Default::default() };
    let (addr, _stop) = server_with(limits).await;
    let mut lobby = LobbyClient::new(channel(&addr).await);
    let mut made = Vec::new();
    for i in 0..120 {
        let name = format!("Host {i}");
        let joined = lobby.create_table(fibbing(&name, 2, None)).await.unwrap().into_inner();
        made.push(joined.table.unwrap().id);
    }
    let mut seen = Vec::new();
    let mut page_token = String::new();
    let mut pages = 0;
    loop {
        let page =
            lobby.list_tables(pb::ListTablesRequest { page_size: 0, page_token }).await.unwrap().into_inner();
        assert!(page.tables.len() <= 50, "{} tables on a page", page.tables.len());
        pages += 1;
        seen.extend(page.tables.iter().map(|t| {
            assert_eq!(t.rules, "fibbing");
            assert_eq!((t.taken, t.seats), (1, 2));
            t.id.clone()
        }));
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    assert_eq!(pages, 3);
    made.sort();
    assert_eq!(seen, made, "every table once, in id order");
    let long =
        lobby.list_tables(pb::ListTablesRequest { page_size: 0, page_token: "x".repeat(70_000) }).await;
    assert!(long.is_err(), "a page token longer than any id is refused");
}

/// What a hostile client sets is bounded and refused with the field named: names that could
/// fake a game line, strings longer than the server keeps (never echoed whole, so the real
/// error fits in its header), clocks and pauses too short to be a game, rules that could not
/// end in practice.
#[tokio::test]
async fn hostile_strings_names_and_paces_are_refused_with_the_field_named() {
    let (addr, _stop) = server().await;
    let mut lobby = LobbyClient::new(channel(&addr).await);
    let refused = |e: tonic::Status, field: &str| {
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
        assert!(e.message().starts_with(field), "{field}: {}", e.message());
        assert!(e.message().len() < 300, "the input is echoed: {} bytes", e.message().len());
        // A code for programs beside the text, whichever layer refused it.
        assert!(e.metadata().get("dudo-code").is_some(), "{field} has no code");
    };
    for name in ["\u{1b}[31mRed", "Ana\nBob wins", "\u{202e}naB", "Ana\u{200b}", "x".repeat(33).as_str()] {
        let e = lobby.create_table(fibbing(name, 2, None)).await.unwrap_err();
        refused(e.clone(), "name:");
        assert_eq!(e.metadata().get("dudo-code").and_then(|v| v.to_str().ok()), Some("bad_name"));
    }
    // Trimmed and normalised, a name is fine.
    let host = lobby.create_table(fibbing("  Ana\u{301}  ", 2, None)).await.unwrap().into_inner();
    let info = host.table.unwrap();
    assert_eq!(info.players[0].name, "An\u{e1}");
    // Under the message size limit (16 KiB), over every field's.
    let huge = "y".repeat(10_000);
    let mut rules = dudo_rules::presets::fibbing();
    rules.name = huge.clone();
    let wire = dudo_proto::convert::rules_to_wire(&rules);
    let e = lobby
        .create_table(pb::CreateTableRequest { rules: Some(wire), ..fibbing("A", 2, None) })
        .await
        .unwrap_err();
    refused(e, "rules.name:");
    let e =
        lobby.create_table(pb::CreateTableRequest { preset: huge.clone(), ..fibbing("A", 2, None) }).await;
    refused(e.unwrap_err(), "preset:");
    // One bound for a field, whichever way it comes: the rule set's name as a setting too.
    let setting = pb::Setting { path: "name".into(), value: "n".repeat(100) };
    let e =
        lobby.create_table(pb::CreateTableRequest { settings: vec![setting], ..fibbing("A", 2, None) }).await;
    refused(e.unwrap_err(), "rule set field `name`: 100 characters; at most 64");
    let setting = pb::Setting { path: "dice.faces".into(), value: huge.clone() };
    let e =
        lobby.create_table(pb::CreateTableRequest { settings: vec![setting], ..fibbing("A", 2, None) }).await;
    refused(e.unwrap_err(), "settings.value:");
    let bot = pb::AddBotRequest { table: info.id.clone(), bot: huge.clone() };
    refused(lobby.add_bot(authed(bot, &host.token)).await.unwrap_err(), "bot:");
    let e = lobby.get_table(pb::TableRef { table: huge.clone() }).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound);
    assert!(e.message().len() < 300, "{} bytes", e.message().len());
    // Paces too short to be a game.
    let e =
        lobby.create_table(pb::CreateTableRequest { move_millis: Some(1), ..fibbing("A", 2, None) }).await;
    refused(e.unwrap_err(), "move_millis:");
    let e = lobby.create_table(pb::CreateTableRequest { bot_think_millis: 1, ..fibbing("A", 2, None) }).await;
    refused(e.unwrap_err(), "bot_think_millis:");
    // Rules that could not end in practice, or a chance past 100 in any family.
    for (path, value) in [("game_end", r#"{"rounds": 4000000000}"#), ("hand.catch_percent", "200")] {
        let setting = pb::Setting { path: path.into(), value: value.into() };
        let e = lobby
            .create_table(pb::CreateTableRequest { settings: vec![setting], ..fibbing("A", 2, None) })
            .await;
        let e = e.unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{path}: {e:?}");
        assert!(e.message().contains(path), "{path}: {}", e.message());
    }
}

/// Streams that never read cannot make the server hold more than its memory budget, however
/// many there are: past it, a resume is refused (`server_busy` or `too_far_behind`), and what
/// they held is given back when they go.
#[tokio::test]
async fn streams_that_never_read_stay_within_the_memory_budget() {
    // 256 KiB for what the streams are sent, beside what the connections and calls hold.
    let call = dudo_server::call_gate::call_bytes(dudo_server::node::Limits::default().max_message_bytes);
    let budget = 256 * 1024 + 3 * dudo_server::CONNECTION_BYTES + 4 * call;
    let limits = dudo_server::node::Limits { memory_budget: budget, ..Default::default() };
    let (addr, _stop) = server_with(limits).await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let mut play = PlayClient::new(ch);
    let joined = lobby.create_table(fibbing("Host", 4, Some(9))).await.unwrap().into_inner();
    let id = joined.table.unwrap().id;
    add_bots(&mut lobby, &id, &joined.token, 3).await;
    let mut updates = subscribe_and_start(&mut play, &mut lobby, &id, &joined.token).await;
    loop {
        let update =
            tokio::time::timeout(Duration::from_secs(10), updates.next()).await.unwrap().unwrap().unwrap();
        match update.update.unwrap() {
            pb::play_update::Update::Prompt(p) => {
                let action = Some(simple_move(&p.legal.unwrap()));
                play.act(authed(
                    pb::ActRequest {
                        table: id.clone(),
                        action,
                        pass_call: false,
                        answers: None,
                        next_round: false,
                    },
                    &joined.token,
                ))
                .await
                .unwrap();
            }
            pb::play_update::Update::Event(pb::Event {
                kind: Some(pb::event::Kind::GameOver(_)), ..
            }) => break,
            _ => {}
        }
    }
    drop(updates);
    // One connection whose windows are small and never read: past them, what the server
    // sends waits in its own queues, which is what the budget counts.
    let stingy = tonic::transport::Endpoint::from_shared(addr.clone())
        .unwrap()
        .initial_connection_window_size(65_535)
        .initial_stream_window_size(65_535)
        .connect()
        .await
        .unwrap();
    let mut watcher = PlayClient::new(stingy);
    let resume = || pb::WatchRequest { table: id.clone(), since: Some(0) };
    let mut held = Vec::new();
    let mut refusal = None;
    for _ in 0..150 {
        match watcher.watch(resume()).await {
            Ok(stream) => held.push(stream),
            Err(status) => {
                refusal = Some(status);
                break;
            }
        }
    }
    let refusal = refusal.expect("150 resumes that never read all fitted a 256 KiB budget");
    assert_eq!(refusal.code(), tonic::Code::ResourceExhausted, "{refusal:?}");
    let code = refusal.metadata().get("dudo-code").and_then(|v| v.to_str().ok()).unwrap_or_default();
    assert!(matches!(code, "server_busy" | "too_far_behind"), "code {code}: {}", refusal.message());
    assert!(!held.is_empty(), "not one resume fitted");
    // They go; what they held comes back, and a resume fits again.
    drop(held);
    drop(watcher);
    let fresh = PlayClient::new(channel(&addr).await);
    let fitted = eventually(100, || {
        let (mut fresh, resume) = (fresh.clone(), resume());
        async move { fresh.watch(resume).await.is_ok() }
    });
    assert!(fitted.await, "the budget was not given back");
}

/// One address may hold a bounded number of connections: past it, a new one takes the
/// place of the oldest carrying no seat's stream (which is closed), and is refused only when
/// every one carries a seat's; one that closes, or whose seat's stream ends, gives its place.
#[tokio::test]
async fn connections_are_capped_per_address() {
    let (addr, _stop) =
        server_with(dudo_server::node::Limits { max_connections_per_ip: 2, ..Default::default() }).await;
    let list = || pb::ListTablesRequest { page_size: 1, page_token: String::new() };
    let served = |addr: String| async move {
        match Channel::from_shared(addr).unwrap().connect().await {
            Ok(ch) => LobbyClient::new(ch).list_tables(list()).await.is_ok(),
            Err(_) => false,
        }
    };
    // Each of two connections carries its own seat's stream.
    let seated = |ch: Channel| async move {
        let made = LobbyClient::new(ch.clone())
            .create_table(pb::CreateTableRequest { name: "Ana".into(), seats: 2, ..Default::default() })
            .await
            .unwrap()
            .into_inner();
        let subscribe = pb::SubscribeRequest { table: made.table.unwrap().id, since: None };
        let mut stream =
            PlayClient::new(ch).subscribe(authed(subscribe, &made.token)).await.unwrap().into_inner();
        assert!(stream.next().await.is_some());
        stream
    };
    let (first, second) = (channel(&addr).await, channel(&addr).await);
    let first_seat = seated(first.clone()).await;
    let _second_seat = seated(second.clone()).await;
    assert!(!served(addr.clone()).await, "a third connection from one address was served");
    // The first seat's stream ends: its connection makes room for the next.
    drop(first_seat);
    let served = eventually(100, || served(addr.clone()));
    assert!(served.await, "a connection without a seat's stream kept its place");
    drop((first, second));
}

/// Every call in flight holds its buffered request's worth of the memory budget, from any
/// address, until its answer is dropped: half-sent requests cannot take the server past its
/// budget, and what a finished call held is given back.
#[tokio::test]
async fn calls_in_flight_hold_the_memory_budget() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let call = dudo_server::call_gate::call_bytes(dudo_server::node::Limits::default().max_message_bytes);
    let limits = dudo_server::node::Limits {
        memory_budget: dudo_server::CONNECTION_BYTES + 3 * call + 1000,
        memory_per_address: 0,
        ..Default::default()
    };
    let (addr, _stop) = server_with(limits).await;
    let mut health = HealthClient::new(channel(&addr).await);
    let watch = || HealthCheckRequest { service: String::new() };
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(health.watch(watch()).await.unwrap().into_inner());
    }
    let refused = health.watch(watch()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
    assert_eq!(refused.metadata().get("dudo-code").and_then(|c| c.to_str().ok()), Some("server_busy"));
    open.pop();
    let served = eventually(50, || {
        let mut health = health.clone();
        async move { health.watch(watch()).await.is_ok() }
    });
    assert!(served.await, "a closed call's memory was not given back");
}

/// A connection that says nothing is closed within 5 s, having held nothing of the budget:
/// silent connections from many addresses cannot lock others out.
#[tokio::test]
async fn a_silent_connection_is_closed() {
    use tokio::io::AsyncReadExt;
    let (addr, _stop) = server().await;
    let mut silent = tokio::net::TcpStream::connect(addr.trim_start_matches("http://")).await.unwrap();
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(15), silent.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "the silent connection was kept: {read:?}");
}

/// A creator may host without a seat: its token runs the host's calls, every seat is left
/// for players and bots, and a table of bots plays to the end with nobody waited for.
#[tokio::test]
async fn a_host_only_creator_hosts_a_table_of_bots() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let request = pb::CreateTableRequest { host_only: true, ..fibbing("", 2, Some(8)) };
    let joined = lobby.create_table(request).await.unwrap().into_inner();
    assert!(!joined.seated);
    let table = joined.table.unwrap();
    assert!(table.players.is_empty() && table.host == u32::MAX, "{table:?}");
    add_bots(&mut lobby, &table.id, &joined.token, 2).await;
    let mut watch = PlayClient::new(ch.clone())
        .watch(pb::WatchRequest { table: table.id.clone(), since: None })
        .await
        .unwrap()
        .into_inner();
    lobby.start_game(authed(pb::TableRef { table: table.id.clone() }, &joined.token)).await.unwrap();
    loop {
        let u = tokio::time::timeout(Duration::from_secs(10), watch.next()).await.unwrap().unwrap().unwrap();
        if let Some(pb::play_update::Update::Event(pb::Event {
            kind: Some(pb::event::Kind::GameOver(_)),
            ..
        })) = u.update
        {
            break;
        }
    }
    // The host's token is no seat's.
    let subscribe = pb::SubscribeRequest { table: table.id.clone(), since: None };
    let refused = PlayClient::new(ch).subscribe(authed(subscribe, &joined.token)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
}

/// A seat's snapshot says the seat's number, before the start too: after the host frees a
/// seat before it, a player learns its new number from the stream it reopens.
#[tokio::test]
async fn a_snapshot_tells_a_seat_its_number_after_the_seats_move_down() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let mut lobby = LobbyClient::new(ch.clone());
    let host = lobby.create_table(fibbing("Hana", 3, None)).await.unwrap().into_inner();
    let table = host.table.unwrap().id;
    let join =
        |name: &str| pb::JoinTableRequest { table: table.clone(), name: name.into(), ..Default::default() };
    let _ana = lobby.join_table(join("Ana")).await.unwrap().into_inner();
    let ben = lobby.join_table(join("Ben")).await.unwrap().into_inner();
    assert_eq!(ben.seat, 2);
    let mut play = PlayClient::new(ch.clone());
    let subscribe = || authed(pb::SubscribeRequest { table: table.clone(), since: None }, &ben.token);
    let mut first = play.subscribe(subscribe()).await.unwrap().into_inner();
    match first.next().await.unwrap().unwrap().update {
        Some(pb::play_update::Update::Snapshot(s)) => assert_eq!(s.seat, Some(2)),
        other => panic!("{other:?}"),
    }
    let remove = pb::RemovePlayerRequest { table: table.clone(), seat: 1 };
    lobby.remove_player(authed(remove, &host.token)).await.unwrap();
    // Ben's stream ends (his number moved); reopened, its snapshot says seat 1.
    while let Some(Ok(_)) = first.next().await {}
    let mut again = play.subscribe(subscribe()).await.unwrap().into_inner();
    match again.next().await.unwrap().unwrap().update {
        Some(pb::play_update::Update::Snapshot(s)) => assert_eq!(s.seat, Some(1)),
        other => panic!("{other:?}"),
    }
}

/// New connections from one address past its rate (a burst of two seconds' worth) are
/// closed as they are accepted, before anything of them is read (a TLS handshake replayed
/// by the thousand would otherwise take the server's CPU); a moment later the address
/// connects again, and other addresses are never held up.
#[tokio::test]
async fn connections_opened_too_fast_from_one_address_are_closed_unread() {
    use tokio::io::AsyncReadExt;
    let limits = dudo_server::node::Limits { connections_per_second_per_ip: 10, ..Default::default() };
    let (addr, _stop) = server_with(limits).await;
    let target = addr.trim_start_matches("http://").to_string();
    let mut opened = Vec::new();
    for _ in 0..60 {
        opened.push(tokio::net::TcpStream::connect(&target).await.unwrap());
    }
    // Those past the burst are closed at once; the others wait for their opening (5 s).
    let mut closed_at_once = 0;
    for s in &mut opened {
        let mut byte = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) = tokio::time::timeout(Duration::from_millis(300), s.read(&mut byte)).await
        {
            closed_at_once += 1;
        }
    }
    assert!(
        (35..=45).contains(&closed_at_once),
        "past a burst of 20, closed at once: {closed_at_once} of 60"
    );
    drop(opened);
    // A second later the address may connect again, and is served.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let ch = channel(&addr).await;
    LobbyClient::new(ch).list_presets(pb::ListPresetsRequest {}).await.unwrap();
}

/// Every refusal carries its `dudo-code`, not only the tables' own: an unknown table (to
/// `GetTable`, `JoinTable` and `Play`) and a `Play` stream with no token.
#[tokio::test]
async fn refusals_before_any_table_carry_their_code_too() {
    let (addr, _stop) = server().await;
    let ch = channel(&addr).await;
    let (mut lobby, mut play) = (LobbyClient::new(ch.clone()), PlayClient::new(ch.clone()));
    let code =
        |s: &tonic::Status| s.metadata().get("dudo-code").and_then(|c| c.to_str().ok()).map(str::to_string);
    let missing = lobby.get_table(pb::TableRef { table: "ZZZZZZ".into() }).await.unwrap_err();
    assert_eq!((missing.code(), code(&missing).as_deref()), (tonic::Code::NotFound, Some("no_such_table")));
    let missing = lobby
        .join_table(pb::JoinTableRequest { table: "ZZZZZZ".into(), name: "Ana".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(code(&missing).as_deref(), Some("no_such_table"));
    let hello = |table: &str| pb::PlayRequest {
        request: Some(pb::play_request::Request::Hello(pb::Hello { table: table.into(), since: None })),
        answers: None,
    };
    let refused = match play.play(tokio_stream::iter(vec![hello("ZZZZZZ")])).await {
        Ok(mut stream) => stream.get_mut().message().await.unwrap_err(),
        Err(status) => status,
    };
    assert_eq!(code(&refused).as_deref(), Some("no_token"), "no token: {refused:?}");
    let mut request = tonic::Request::new(tokio_stream::iter(vec![hello("ZZZZZZ")]));
    request.metadata_mut().insert("authorization", "Bearer not-a-seat".parse().unwrap());
    let refused = match play.play(request).await {
        Ok(mut stream) => stream.get_mut().message().await.unwrap_err(),
        Err(status) => status,
    };
    assert_eq!(code(&refused).as_deref(), Some("no_such_table"), "{refused:?}");
}

/// How to play, from the server: each preset's in ListPresets, any rule set's by
/// DescribeRules (the table's, after a host's change), and a rule set that does not convert
/// refused by its field.
#[tokio::test]
async fn the_rules_are_told_in_players_words() {
    let (addr, _stop) = server().await;
    let mut lobby = LobbyClient::new(channel(&addr).await);
    let presets = lobby.list_presets(pb::ListPresetsRequest {}).await.unwrap().into_inner().presets;
    let fibbing = presets.iter().find(|p| p.name == "fibbing").unwrap();
    assert_eq!(fibbing.title, "Perudo as the Fibbing Dice table plays it");
    assert!(fibbing.how_to_play.iter().any(|n| n.topic == "Wilds" && n.text.starts_with("Ones are wild")));
    let mut rules = fibbing.rules.clone().unwrap();
    rules.dice.as_mut().unwrap().start = 3;
    let notes = lobby.describe_rules(rules.clone()).await.unwrap().into_inner().notes;
    let aim = notes.iter().find(|n| n.topic == "The aim").unwrap();
    assert!(aim.text.contains("3 dice"), "{aim:?}");
    rules.family = 99;
    let refused = lobby.describe_rules(rules).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().contains("family"), "{}", refused.message());
}
