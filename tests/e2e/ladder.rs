//! The ladder on a real server: two bot accounts (the Rust SDK's built-in strategies, each
//! playing over its own Play streams) and the server's built-in bots play a pool until the
//! board has them all; a player that never moves is benched.

use std::time::Duration;

use dudo_client::{Client, SeatKey};
use dudo_proto::v1 as pb;
use dudo_proto::v1::ladder_client::LadderClient;
use dudo_server::accounts::{AccountSettings, Registration};
use dudo_server::ladder::Pool;
use tokio_stream::StreamExt;
use tonic::Request;

fn pool(name: &str, seats: u32, move_millis: u32, fill_after_seconds: u32) -> Pool {
    Pool {
        name: name.into(),
        preset: "fibbing".into(),
        settings: Default::default(),
        seats,
        move_millis,
        time_bank_millis: 0,
        max_games: 2,
        bots: vec!["odds".into()],
        fill_after_seconds,
        bench_after_timeouts: 2,
        bench_minutes: 1,
    }
}

async fn server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let setup = dudo_server::Setup {
        store: Some(dudo_server::Store::open(":memory:").await.unwrap()),
        accounts: AccountSettings::new(Registration::Open, None),
        ladder: Some(vec![pool("trio", 3, 5_000, 1), pool("stall", 2, 200, 0)]),
        ..dudo_server::Setup::default()
    };
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    addr
}

fn bearer<T>(message: T, token: &str) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

/// A bot account that enters `pool` and plays every game it is seated at with the SDK's
/// built-in `strategy`, until `games` have ended; returns its places.
async fn ladder_bot(addr: String, name: &str, strategy: &'static str, pool: &str, games: usize) -> Vec<u32> {
    let guest = Client::connect(&addr).await.unwrap();
    let token = guest.register(name, true, "test").await.unwrap().token.unwrap().token;
    let client = guest.with_account(Some(token.clone()));
    let mut ladder = LadderClient::new(
        tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap(),
    );
    let enter = pb::EnterRequest { pool: pool.into(), games: 1 };
    let mut updates = ladder.enter(bearer(enter, &token)).await.unwrap().into_inner();
    let mut places = Vec::new();
    let mut seed = 1;
    while places.len() < games {
        let next = tokio::time::timeout(Duration::from_secs(60), updates.next()).await;
        let update = next.expect("the ladder went quiet").expect("the stream ended").unwrap();
        match update.update.unwrap() {
            pb::ladder_update::Update::Seated(s) => {
                seed += 1;
                let (client, key) = (client.clone(), SeatKey::saved(s.table, s.seat, s.token));
                tokio::spawn(async move {
                    let mut bot = dudo_bot::builtin(strategy, seed).unwrap();
                    let _ = dudo_bot::play(&mut bot, &client, &key).await;
                });
            }
            pb::ladder_update::Update::Ended(e) => places.push(e.place),
            _ => {}
        }
    }
    places
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_accounts_and_built_in_bots_play_a_pool_until_the_board_has_them() {
    let addr = server().await;
    let (a, b) = tokio::join!(
        ladder_bot(addr.clone(), "Reada", "reader", "trio", 3),
        ladder_bot(addr.clone(), "Randy", "random", "trio", 3),
    );
    assert!(a.iter().chain(&b).all(|&p| (1..=3).contains(&p)), "{a:?} {b:?}");
    let mut ladder = LadderClient::new(
        tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap(),
    );
    // The last game's record may still be on its way to the store.
    let mut board = Vec::new();
    for _ in 0..50 {
        let request = pb::LeaderboardRequest { pool: "trio".into(), limit: 0 };
        board = ladder.leaderboard(request).await.unwrap().into_inner().entries;
        if board.iter().filter(|e| e.games >= 3).count() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let names: Vec<&str> = board.iter().map(|e| e.name.as_str()).collect();
    for name in ["Reada", "Randy", "odds bot"] {
        assert!(names.contains(&name), "{name} is not on the board: {board:?}");
    }
    assert!(board.windows(2).all(|w| w[0].score >= w[1].score), "best first: {board:?}");
    let reada = board.iter().find(|e| e.name == "Reada").unwrap();
    assert_eq!(reada.kind, pb::AccountKind::Bot as i32);
    assert!(reada.provisional && (reada.score - (reada.mu - 3.0 * reada.sigma)).abs() < 1e-9);
    let history = pb::RatingHistoryRequest { pool: "trio".into(), name: "reada".into(), limit: 0 };
    let points = ladder.rating_history(history).await.unwrap().into_inner().points;
    assert_eq!(points.len() as u64, reada.games);
    let pools = ladder.list_pools(pb::ListPoolsRequest {}).await.unwrap().into_inner().pools;
    assert_eq!(pools.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["trio", "stall"]);
}

#[tokio::test]
async fn a_player_that_never_moves_is_benched_and_entering_is_checked() {
    let addr = server().await;
    let guest = Client::connect(&addr).await.unwrap();
    let token = guest.register("Sleepy", true, "test").await.unwrap().token.unwrap().token;
    let mut ladder = LadderClient::new(
        tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap(),
    );
    let code = |s: &tonic::Status| {
        s.metadata().get("dudo-code").and_then(|v| v.to_str().ok()).unwrap_or("").to_string()
    };
    let refused =
        ladder.enter(Request::new(pb::EnterRequest { pool: "stall".into(), games: 1 })).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    let refused =
        ladder.enter(bearer(pb::EnterRequest { pool: "nope".into(), games: 1 }, &token)).await.unwrap_err();
    assert_eq!(code(&refused), "no_such_pool");
    let refused =
        ladder.enter(bearer(pb::EnterRequest { pool: "stall".into(), games: 9 }, &token)).await.unwrap_err();
    assert_eq!(code(&refused), "bad_request");
    let mut updates = ladder
        .enter(bearer(pb::EnterRequest { pool: "stall".into(), games: 1 }, &token))
        .await
        .unwrap()
        .into_inner();
    let twice =
        ladder.enter(bearer(pb::EnterRequest { pool: "stall".into(), games: 1 }, &token)).await.unwrap_err();
    assert_eq!(code(&twice), "already_entered");
    let mut seated = false;
    loop {
        let next = tokio::time::timeout(Duration::from_secs(30), updates.next()).await;
        match next.expect("no bench came").unwrap().unwrap().update.unwrap() {
            // Seated, and never plays: the clock plays for it until it is benched.
            pb::ladder_update::Update::Seated(_) => seated = true,
            pb::ladder_update::Update::Benched(b) => {
                assert!(seated);
                assert!(b.until_unix_millis > 0 && b.why.contains("time-outs"), "{b:?}");
                break;
            }
            _ => {}
        }
    }
}
