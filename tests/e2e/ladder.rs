//! The ladder on a real server: two bot accounts (the Rust SDK's built-in strategies, each
//! playing over its own Play streams) and the server's built-in bots play a pool until the
//! board has them all; a player that never moves is benched.

use std::time::Duration;

use dudo_client::Client;
use dudo_proto::v1 as pb;
use dudo_proto::v1::ladder_client::LadderClient;
use dudo_server::accounts::{AccountSettings, Registration};
use dudo_server::ladder::{Players, Pool};
use dudo_tests::bearer;
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
        call_window_millis: 1_000,
        bench_after_timeouts: 2,
        bench_minutes: 1,
        seed: None,
        players: Default::default(),
        bot_think_millis: 0,
    }
}

const ADMIN: &str = "ladder-admin-token";
const SEEDED: u64 = 21;

async fn server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let setup = dudo_server::Setup {
        store: Some(dudo_server::Store::open(":memory:").await.unwrap()),
        accounts: AccountSettings::new(Registration::Open, Some(ADMIN)),
        ladder: Some(vec![
            pool("trio", 3, 5_000, 1),
            // Calza by the others: every claim opens a call window for the other seats.
            Pool { max_games: 1, ..pool("quad", 4, 10_000, 0) },
            // Network seats and the server's own odds bots, side by side at once.
            Pool { max_games: 4, ..pool("odds-4", 4, 10_000, 0) },
            pool("stall", 2, 200, 0),
            // Dealt from a seed, anyone may challenge: the game `dudo simulate` plays.
            Pool {
                settings: [("challenges.who".to_string(), "anyone".to_string())].into(),
                seed: Some(SEEDED),
                max_games: 1,
                ..pool("seeded", 4, 30_000, 0)
            },
            // Who may enter, by account kind.
            Pool { players: Players::People, ..pool("people", 2, 30_000, 1) },
            Pool { players: Players::Bots, ..pool("bots", 2, 5_000, 1) },
            // Two bots to fill one seat: a lone entrant meets both.
            Pool { bots: vec!["random".into(), "odds".into()], ..pool("pair", 2, 5_000, 0) },
        ]),
        ..dudo_server::Setup::default()
    };
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    addr
}

async fn ladder_client(addr: &str) -> LadderClient<tonic::transport::Channel> {
    LadderClient::new(
        tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap(),
    )
}

/// A new bot account named `name`, as a client that acts for it.
async fn bot_account(addr: &str, name: &str) -> Client {
    let guest = Client::connect(addr).await.unwrap();
    let token = guest.register(name, true, "test").await.unwrap().token.unwrap().token;
    guest.with_account(Some(token))
}

/// A bot account that plays `games` games in `pool` with the SDK's one call, each with the
/// SDK's built-in `strategy`; returns its places.
async fn ladder_bot(addr: String, name: &str, strategy: &'static str, pool: &str, games: usize) -> Vec<u32> {
    let client = bot_account(&addr, name).await;
    let run = dudo_bot::ladder(&client, pool, 1, games, |seed| dudo_bot::builtin(strategy, seed).unwrap());
    tokio::time::timeout(Duration::from_secs(120), run).await.expect("the ladder went quiet").unwrap().places
}

/// A bot that panics as it is first asked.
struct Panics;

impl dudo_bot::Bot for Panics {
    fn act(&mut self, _turn: &dudo_bot::Turn) -> dudo_bot::Action {
        panic!("a bot author's bug")
    }
}

/// A bot that panics ends its game for `ladder` (with no place), which returns rather than
/// wait for a game nobody will report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_bot_that_panics_does_not_hang_the_sdks_ladder_call() {
    let addr = server().await;
    let client = bot_account(&addr, "Crashy").await;
    let run = dudo_bot::ladder(&client, "bots", 1, 1, |_| Panics);
    let run = tokio::time::timeout(Duration::from_secs(60), run).await.expect("ladder() returns").unwrap();
    assert_eq!(run.places, [0], "the game counts, with no place");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_accounts_and_built_in_bots_play_a_pool_until_the_board_has_them() {
    let addr = server().await;
    let (a, b) = tokio::join!(
        ladder_bot(addr.clone(), "Reada", "reader", "trio", 3),
        ladder_bot(addr.clone(), "Randy", "random", "trio", 3),
    );
    assert!(a.iter().chain(&b).all(|&p| (1..=3).contains(&p)), "{a:?} {b:?}");
    let mut ladder = ladder_client(&addr).await;
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
    // Three games tell nobody apart (sigmas near 7, mus a few apart): one place, shared.
    assert!(board.iter().all(|e| e.place == 1), "too soon to tell apart: {board:?}");
    let reada = board.iter().find(|e| e.name == "Reada").unwrap();
    assert_eq!(reada.kind, pb::AccountKind::Bot as i32);
    assert!(reada.provisional && (reada.score - (reada.mu - 3.0 * reada.sigma)).abs() < 1e-9);
    let history = pb::RatingHistoryRequest { pool: "trio".into(), name: "reada".into(), limit: 0 };
    let points = ladder.rating_history(history).await.unwrap().into_inner().points;
    assert_eq!(points.len() as u64, reada.games);
    let pools = ladder.list_pools(pb::ListPoolsRequest {}).await.unwrap().into_inner().pools;
    assert_eq!(
        pools.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["trio", "quad", "odds-4", "stall", "seeded", "people", "bots", "pair"]
    );
    assert_eq!(
        pools.iter().map(|p| p.players.as_str()).collect::<Vec<_>>()[4..],
        ["anyone", "people", "bots", "anyone"]
    );
    // What a bot author needs to know of a pool is listed with it.
    let quad = &pools[1];
    assert_eq!((quad.move_millis, quad.call_window_millis, quad.bench_after_timeouts), (10_000, 1_000, 2));
}

/// An entry for a number of games in all is seated at no more than that, however many it
/// plays at once, and its stream ends (OK) once they have all ended: a client leaves the
/// queue without closing a stream a seat may be on its way down (a seat nobody plays would
/// time out and bench the account).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_for_games_in_all_is_dealt_that_many_then_ends() {
    let addr = server().await;
    let client = bot_account(&addr, "Counted").await;
    let mut entered = client.enter("odds-4", 2, 3).await.unwrap();
    let (mut seated, mut ended) = (0, 0);
    loop {
        let next = tokio::time::timeout(Duration::from_secs(60), entered.message()).await;
        let Some(update) = next.expect("the entry went quiet").unwrap() else { break };
        match update.update {
            Some(pb::ladder_update::Update::Seated(s)) => {
                seated += 1;
                let (client, key) = (client.clone(), dudo_client::SeatKey::saved(s.table, s.seat, s.token));
                tokio::spawn(async move {
                    let mut bot = dudo_bot::builtin("odds", seated).unwrap();
                    dudo_bot::play(&mut bot, &client, &key).await.unwrap();
                });
            }
            Some(pb::ladder_update::Update::Ended(_)) => ended += 1,
            _ => {}
        }
    }
    assert_eq!((seated, ended), (3, 3), "three games dealt and ended, then the stream's end");
}

/// A lone entrant in a two-seat pool filled by two bots meets both, not only the first listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pools_bots_all_fill_seats() {
    let addr = server().await;
    let places = ladder_bot(addr.clone(), "Loner", "odds", "pair", 16).await;
    assert_eq!(places.len(), 16);
    let mut ladder = ladder_client(&addr).await;
    let board = ladder
        .leaderboard(pb::LeaderboardRequest { pool: "pair".into(), limit: 0 })
        .await
        .unwrap()
        .into_inner()
        .entries;
    // 16 games, each bot by lot: both are met but once in 30,000 runs.
    for bot in ["random bot", "odds bot"] {
        assert!(board.iter().any(|e| e.name == bot), "{bot} never played: {board:?}");
    }
}

/// A bot killed mid-game enters again for one game: the seat it still holds is said again and
/// is that one game (as `dudo ladder --games 1` counts it), so no new game is dealt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_said_again_after_a_restart_counts_against_the_games_asked_for() {
    let addr = server().await;
    let client = bot_account(&addr, "Phoenix").await;
    let mut first = client.enter("odds-4", 1, 0).await.unwrap();
    let table = loop {
        let next = tokio::time::timeout(Duration::from_secs(60), first.message()).await;
        match next.expect("no seat").unwrap().and_then(|u| u.update) {
            Some(pb::ladder_update::Update::Seated(s)) => break s.table,
            _ => continue,
        }
    };
    // The bot dies with its stream: its game goes on under the clock.
    drop(first);
    let mut again = loop {
        match client.enter("odds-4", 1, 1).await {
            Ok(entered) => break entered,
            // The server may not yet have seen the first stream close.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let (mut seated, mut ended) = (Vec::new(), 0);
    loop {
        let next = tokio::time::timeout(Duration::from_secs(90), again.message()).await;
        let Some(update) = next.expect("the entry went quiet").unwrap() else { break };
        match update.update {
            Some(pb::ladder_update::Update::Seated(s)) => {
                seated.push(s.table.clone());
                let (client, key) = (client.clone(), dudo_client::SeatKey::saved(s.table, s.seat, s.token));
                tokio::spawn(async move {
                    let mut bot = dudo_bot::builtin("odds", 1).unwrap();
                    let _ = dudo_bot::play(&mut bot, &client, &key).await;
                });
            }
            Some(pb::ladder_update::Update::Ended(_)) => ended += 1,
            _ => {}
        }
    }
    assert_eq!((seated, ended), (vec![table], 1), "the game said again, played to its end, and no other");
}

#[tokio::test]
async fn a_player_that_never_moves_is_benched_and_entering_is_checked() {
    let addr = server().await;
    let guest = Client::connect(&addr).await.unwrap();
    let token = guest.register("Sleepy", true, "test").await.unwrap().token.unwrap().token;
    let mut ladder = ladder_client(&addr).await;
    let code = |s: &tonic::Status| {
        s.metadata().get("dudo-code").and_then(|v| v.to_str().ok()).unwrap_or("").to_string()
    };
    let refused = ladder
        .enter(Request::new(pb::EnterRequest { pool: "stall".into(), at_once: 1, games: 0 }))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    let refused = ladder
        .enter(bearer(pb::EnterRequest { pool: "nope".into(), at_once: 1, games: 0 }, &token))
        .await
        .unwrap_err();
    assert_eq!(code(&refused), "no_such_pool");
    let refused = ladder
        .enter(bearer(pb::EnterRequest { pool: "stall".into(), at_once: 9, games: 0 }, &token))
        .await
        .unwrap_err();
    assert_eq!(code(&refused), "bad_request");
    // A people's pool refuses a bot account, a bots' pool a person's, by a code.
    let refused = ladder
        .enter(bearer(pb::EnterRequest { pool: "people".into(), at_once: 1, games: 0 }, &token))
        .await
        .unwrap_err();
    assert_eq!((refused.code(), code(&refused).as_str()), (tonic::Code::FailedPrecondition, "wrong_pool"));
    assert!(refused.message().contains("is for people"), "{refused:?}");
    let person = guest.register("Pat", false, "test").await.unwrap().token.unwrap().token;
    let refused = ladder
        .enter(bearer(pb::EnterRequest { pool: "bots".into(), at_once: 1, games: 0 }, &person))
        .await
        .unwrap_err();
    assert_eq!(code(&refused), "wrong_pool");
    let mut updates = ladder
        .enter(bearer(pb::EnterRequest { pool: "stall".into(), at_once: 1, games: 0 }, &token))
        .await
        .unwrap()
        .into_inner();
    let twice = ladder
        .enter(bearer(pb::EnterRequest { pool: "stall".into(), at_once: 1, games: 0 }, &token))
        .await
        .unwrap_err();
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
    // Entering again (a bot restarted) says the bench is still on; the games it was seated
    // at still count against what it asked for.
    drop(updates);
    let mut again = None;
    for _ in 0..50 {
        match ladder
            .enter(bearer(pb::EnterRequest { pool: "stall".into(), at_once: 1, games: 0 }, &token))
            .await
        {
            Ok(stream) => {
                again = Some(stream.into_inner());
                break;
            }
            // The old stream's end may not have reached the matchmaker yet.
            Err(e) if code(&e) == "already_entered" => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) => panic!("{e:?}"),
        }
    }
    let mut again = again.expect("could not enter again");
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), again.next()).await;
        if let pb::ladder_update::Update::Benched(b) =
            next.expect("no bench said").unwrap().unwrap().update.unwrap()
        {
            assert!(b.why.contains("still"), "{b:?}");
            break;
        }
    }
}

/// How a test seat on the ladder answers call windows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Windows {
    /// At once, with `pass_call`.
    Answers,
    /// Never.
    Ignores,
    /// With `pass_call`, just before its time is up.
    AtTheLastMoment,
}

/// One ladder game in `pool` as an account that moves on its turns after `think` and
/// answers call windows as `windows` says: the game's time from being seated to its end, the
/// lapses the table announced for this seat, the windows it was asked in, and those of them
/// that gave it the pool's whole window (a second).
async fn one_ladder_game(addr: &str, name: &str, pool: &str, windows: Windows, think: Duration) -> OneGame {
    use dudo_proto::v1::play_client::PlayClient;
    let guest = Client::connect(addr).await.unwrap();
    let token = guest.register(name, true, "test").await.unwrap().token.unwrap().token;
    let mut updates = ladder_client(addr)
        .await
        .enter(bearer(pb::EnterRequest { pool: pool.into(), at_once: 1, games: 0 }, &token))
        .await
        .unwrap()
        .into_inner();
    let seated = loop {
        let next = tokio::time::timeout(Duration::from_secs(30), updates.next()).await.expect("never seated");
        if let Some(pb::ladder_update::Update::Seated(s)) = next.unwrap().unwrap().update {
            break s;
        }
    };
    let started = std::time::Instant::now();
    let channel =
        tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await.unwrap();
    let mut play = PlayClient::new(channel);
    let subscribe = pb::SubscribeRequest { table: seated.table.clone(), since: None };
    let mut stream = play.subscribe(bearer(subscribe, &seated.token)).await.unwrap().into_inner();
    let (mut lapses, mut asked, mut whole) = (0, 0, 0);
    let (mut late, mut cut_short) = (Vec::new(), 0);
    loop {
        let update =
            tokio::time::timeout(Duration::from_secs(60), stream.next()).await.expect("the game stalled");
        match update.unwrap().unwrap().update {
            Some(pb::play_update::Update::Prompt(p)) => {
                let window = p.call_window_unix_millis;
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64);
                let left = window.map(|closes| closes.saturating_sub(now));
                asked += usize::from(window.is_some());
                whole += usize::from(left.is_some_and(|ms| ms > 900));
                match (left, windows) {
                    (Some(_), Windows::Ignores) => continue,
                    (Some(left), Windows::AtTheLastMoment) => {
                        tokio::time::sleep(Duration::from_millis(left.saturating_sub(3))).await;
                    }
                    // (A zero sleep still waits for the timer's next millisecond.)
                    (None, _) if !think.is_zero() => tokio::time::sleep(think).await,
                    _ => {}
                }
                let action = window
                    .is_none()
                    .then(|| crate::server::simple_move(&p.legal.clone().unwrap_or_default()));
                let act = pb::ActRequest {
                    table: seated.table.clone(),
                    action,
                    pass_call: window.is_some(),
                    answers: p.last_seq,
                    next_round: false,
                };
                if let Err(refusal) = play.act(bearer(act, &seated.token)).await {
                    let code = refusal.metadata().get("dudo-code").and_then(|v| v.to_str().ok());
                    // (A pass the window no longer needed, a call before it having won and the
                    // game moved on to another claim, is stale: no harm to the seat.)
                    if window.is_some() && code == Some("call_window_closed") {
                        let what = if window.is_some() { "a window's pass" } else { "a move" };
                        late.push(format!("{what}: {}", code.unwrap_or_default()));
                    }
                }
            }
            Some(pb::play_update::Update::Event(pb::Event { kind: Some(kind), .. })) => match kind {
                pb::event::Kind::CallWindowLapsed(l) => {
                    lapses += l.seats.iter().filter(|&&s| s == seated.seat).count();
                    cut_short += l.cut_short.iter().filter(|&&s| s == seated.seat).count();
                }
                pb::event::Kind::GameOver(_) => break,
                _ => {}
            },
            _ => {}
        }
    }
    OneGame { took: started.elapsed(), lapses, asked, whole, late, cut_short }
}

/// What one seat's ladder game came to (see [`one_ladder_game`]).
struct OneGame {
    took: Duration,
    /// Windows it let lapse, as the table announced them.
    lapses: usize,
    /// Windows it was asked in, and of those the whole window.
    asked: usize,
    whole: usize,
    /// Its answers in windows refused as too late (`call_window_closed`).
    late: Vec<String>,
    /// Windows it was cut short in, as the table announced them.
    cut_short: usize,
}

/// A seat that moves at once but never answers call windows, or answers each at the last
/// moment, is waited on for no longer than the rest of the game took (after 25 ms): its
/// game takes at most about twice as long as an honest seat's, not a second per claim.
/// Those shortened windows are not lapses; a seat given the whole window (one whose own
/// moves are slow) that lets it lapse is announced, not asked again that game, and the
/// lapse counts towards its bench like a time-out.
#[tokio::test]
async fn a_seat_that_stalls_call_windows_at_most_doubles_its_games() {
    let addr = server().await;
    // Games differ in length with their dice: five of each, compared in total, and taken in
    // turns (honest, silent, late, honest, ...) so that the machine's load falls on all three
    // alike (one after the other, a busy spell during the honest games' failed a CI run).
    let seats =
        [("Frank", Windows::Answers), ("Grief", Windows::Ignores), ("Tardy", Windows::AtTheLastMoment)];
    let mut played = vec![Duration::ZERO; seats.len()];
    for game in 0..5 {
        for ((who, windows), total) in seats.iter().zip(played.iter_mut()) {
            let name = format!("{who}{game}");
            let OneGame { took, lapses: lapsed, asked, .. } =
                one_ladder_game(&addr, &name, "quad", *windows, Duration::ZERO).await;
            assert_eq!(lapsed, 0, "{windows:?}: a shortened window was held against the seat");
            assert!(asked > 0, "{windows:?}: never asked to call");
            *total += took;
        }
    }
    let [honest, silent, late] = played[..] else { unreachable!() };
    eprintln!(
        "five ladder games: {honest:?} honest, {silent:?} never answering windows, {late:?} answering late"
    );
    // Twice, with this test's own round trips as slack (20 ms a game).
    let most = honest * 2 + Duration::from_millis(100);
    assert!(silent <= most && late <= most, "{silent:?} and {late:?} against {honest:?}");

    // A seat whose moves take 600 ms is given whole windows; one it lets lapse is announced
    // and it is not asked again that game. (Its dice may leave it no whole window: a few
    // games at most.)
    let slow = Duration::from_millis(600);
    for game in 0..4 {
        let name = format!("Slowpoke{game}");
        let OneGame { lapses: lapsed, asked, whole, .. } =
            one_ladder_game(&addr, &name, "quad", Windows::Ignores, slow).await;
        assert_eq!(lapsed, whole.min(1), "{whole} whole windows of {asked}: the lapse was not announced");
        assert!(whole <= 1, "asked again with the whole window after a lapse");
        if whole == 1 {
            return;
        }
    }
    panic!("a seat whose moves take 600 ms was never given a whole window");
}

/// One strategy rates the same however it connects: two accounts playing the SDK's odds bot
/// over the network sit at tables filled with the server's built-in odds bot, and after 60
/// games each their ratings and mean places agree with the built-in bot's within the
/// uncertainty the ratings give (docs/ladder.md says how many games an order needs).
#[tokio::test]
async fn a_strategy_rates_the_same_over_the_network_and_built_in() {
    let addr = server().await;
    const GAMES: usize = 60;
    let runs: Vec<_> = ["Netodds", "Wireodds"]
        .into_iter()
        .map(|name| {
            let addr = addr.clone();
            tokio::spawn(async move {
                let client = bot_account(&addr, name).await;
                let run = dudo_bot::ladder(&client, "odds-4", 4, GAMES, |seed| {
                    dudo_bot::builtin("odds", seed).unwrap()
                });
                tokio::time::timeout(Duration::from_secs(300), run)
                    .await
                    .expect("the ladder went quiet")
                    .unwrap()
                    .places
            })
        })
        .collect();
    let mut places = Vec::new();
    for run in runs {
        places.push(run.await.unwrap());
    }
    let mut ladder = ladder_client(&addr).await;
    let board = ladder
        .leaderboard(pb::LeaderboardRequest { pool: "odds-4".into(), limit: 0 })
        .await
        .unwrap()
        .into_inner()
        .entries;
    let built_in =
        board.iter().find(|e| e.kind == pb::AccountKind::None as i32).expect("the built-in bot's rating");
    for (name, places) in ["Netodds", "Wireodds"].iter().zip(&places) {
        let e = board.iter().find(|e| e.name == *name).unwrap();
        let mean_place = places.iter().sum::<u32>() as f64 / places.len() as f64;
        eprintln!(
            "{name}: mu {:.1} sigma {:.1} over {} games, mean place {mean_place:.2}; built-in {}: mu {:.1} sigma {:.1} over {} games",
            e.mu, e.sigma, e.games, built_in.name, built_in.mu, built_in.sigma, built_in.games
        );
        let within = 3.0 * (e.sigma.powi(2) + built_in.sigma.powi(2)).sqrt();
        assert!(
            (e.mu - built_in.mu).abs() <= within,
            "{name} rates {:.1} against the built-in bot's {:.1}",
            e.mu,
            built_in.mu
        );
        // Four seats of one strategy: 2.5 on average (a place's spread is about 1.1).
        assert!(
            (mean_place - 2.5).abs() < 0.6,
            "{name}'s mean place {mean_place:.2} over {} games",
            places.len()
        );
    }
}

/// An account suspended (or a token revoked) while its Enter stream is open takes no more
/// seats: the stream ends with the refusal when the matchmaker would seat it.
#[tokio::test]
async fn a_suspension_reaches_an_open_enter_stream() {
    let addr = server().await;
    let guest = Client::connect(&addr).await.unwrap();
    let token = guest.register("Dozy", true, "test").await.unwrap().token.unwrap().token;
    let mut ladder = ladder_client(&addr).await;
    // trio fills with bots after a second: suspended before that, it is never seated.
    let mut updates = ladder
        .enter(bearer(pb::EnterRequest { pool: "trio".into(), at_once: 1, games: 0 }, &token))
        .await
        .unwrap()
        .into_inner();
    guest.with_account(Some(ADMIN.to_string())).suspend("Dozy", true).await.unwrap();
    loop {
        let next =
            tokio::time::timeout(Duration::from_secs(10), updates.next()).await.expect("the stream went on");
        match next {
            Some(Ok(u)) => {
                assert!(
                    !matches!(u.update, Some(pb::ladder_update::Update::Seated(_))),
                    "a suspended account was seated"
                )
            }
            Some(Err(e)) => {
                assert_eq!(e.code(), tonic::Code::PermissionDenied, "{e:?}");
                break;
            }
            None => panic!("the stream ended without saying why"),
        }
    }
}

/// The terminal client on the ladder, against the server binary with a pools file: a bot
/// account plays with an SDK strategy (`--builtin`), another with the Python example as its
/// `--bot` command (skipped, visibly, without Python), and `dudo leaderboard` shows them.
#[test]
fn the_ladder_commands_of_the_terminal_client() {
    let home = std::env::temp_dir().join(format!("dudo-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let pools = dudo_tests::duel_pool(&home).unwrap();
    // And a pool whose bots take their time, as one to try a resume by hand in.
    let slow = "\n[[pool]]\nname = \"slow\"\npreset = \"fibbing\"\nseats = 2\nbots = [\"odds\"]\nfill_after_seconds = 0\nbot_think_millis = 300\n";
    let duel = std::fs::read_to_string(&pools).unwrap();
    std::fs::write(&pools, duel + slow).unwrap();
    let db = home.join("server.db");
    let mut server = dudo_tests::start_server(
        &dudo_tests::binary("dudo-server"),
        &["--db", db.to_str().unwrap(), "--ladder", pools.to_str().unwrap()],
    )
    .unwrap();
    let addr = server.addr.clone();
    let dudo = |home: &std::path::Path, args: &[&str]| {
        let out = std::process::Command::new(dudo_tests::binary("dudo"))
            .args(args)
            .args(["--server", &addr])
            .env("DUDO_HOME", home)
            .env_remove("DUDO_API_TOKEN")
            .output()
            .unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    };
    let (ok, out) = dudo(&home, &["ladder"]);
    assert!(ok && out.contains("duel") && out.contains("2 seats of fibbing"), "{out}");
    // What a bot author must know of a pool: its clocks, its call window, its bench.
    assert!(out.contains("calls out of turn within 1 s") && out.contains("lapsed call windows"), "{out}");
    assert!(out.contains("filled by odds after 0 s, who think 0.3 s a move"), "{out}");
    let (ok, out) = dudo(&home, &["ladder", "duel", "--builtin", "odds"]);
    assert!(!ok && out.contains("dudo account register"), "the ladder asks for an account: {out}");
    let (ok, out) = dudo(&home, &["account", "register", "Oddity", "--bot"]);
    assert!(ok, "{out}");
    let token = out
        .lines()
        .find_map(|l| l.strip_prefix("For a bot elsewhere: DUDO_API_TOKEN="))
        .expect("the token printed")
        .to_string();
    let (ok, out) = dudo(&home, &["ladder", "duel", "--builtin", "odds", "--games", "2"]);
    assert!(ok && out.matches("finished").count() == 2, "{out}");
    // Slowed on both sides: each seat moves at least once in each of the five rounds a game of
    // two seats of five dice takes at the least, the pool's bot 0.3 s a move, ours 0.2 s.
    let began = std::time::Instant::now();
    let (ok, slowed) =
        dudo(&home, &["ladder", "slow", "--builtin", "odds", "--games", "1", "--bot-think-ms", "200"]);
    assert!(ok && slowed.matches("finished").count() == 1, "{slowed}");
    assert!(began.elapsed() >= std::time::Duration::from_millis(2_500), "{:?}: {slowed}", began.elapsed());
    // A --bot command that dies in the middle of its game is started again for its seat: the
    // first run plays a second of the game and is killed, the second plays it to the end.
    let minimal = dudo_tests::example("minimal");
    let mark = home.join("crashed-once");
    let crashing = format!(
        "if [ -e '{mark}' ]; then exec '{bot}'; fi; touch '{mark}'; '{bot}' & sleep 1; kill -9 $!; exit 9",
        mark = mark.display(),
        bot = minimal.display()
    );
    let (ok, restarted) = dudo(&home, &["ladder", "slow", "--bot", &crashing, "--games", "1"]);
    assert!(ok && restarted.matches("finished").count() == 1, "{restarted}");
    assert!(
        restarted.contains("exited with code 9 in the middle of its game; starting it again"),
        "{restarted}"
    );
    // A bot that lingers after its last game is stopped once the server says the game ended
    // (it used to wait for the bot to exit, for an hour); one that always fails is a failure.
    let began = std::time::Instant::now();
    let lingering = format!("'{}'; sleep 1000", minimal.display());
    let (ok, lingered) = dudo(&home, &["ladder", "slow", "--bot", &lingering, "--games", "1"]);
    assert!(ok && lingered.matches("finished").count() == 1, "{lingered}");
    assert!(began.elapsed() < std::time::Duration::from_secs(60), "{:?}: {lingered}", began.elapsed());
    let (ok, failing) = dudo(&home, &["ladder", "slow", "--bot", "exit 5", "--games", "1"]);
    assert!(!ok && failing.contains("failed 3 times in a row"), "{failing}");
    let (ok, refused) = dudo(&home, &["ladder", "slow", "--bot", "true", "--bot-think-ms", "200"]);
    assert!(!ok && refused.contains("--bot-think-ms"), "a command keeps its own pace: {refused}");
    // Every command that plays with a token says whose, and where it came from.
    assert!(out.contains("playing as Oddity with the token kept for"), "{out}");
    let (ok, shown) = dudo(&home, &["account", "show"]);
    assert!(
        ok && shown.contains("Oddity (bot)") && shown.contains("signed in with the token kept for"),
        "{shown}"
    );
    let elsewhere = home.join("elsewhere");
    // Another machine, with the account's token in its environment only.
    let with_token = |args: &[&str]| {
        let out = std::process::Command::new(dudo_tests::binary("dudo"))
            .args(args)
            .args(["--server", &addr])
            .env("DUDO_HOME", &elsewhere)
            .env("DUDO_API_TOKEN", &token)
            .output()
            .unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    };
    let (ok, text) = with_token(&["ladder", "duel", "--builtin", "odds", "--games", "1"]);
    assert!(ok && text.contains("playing as Oddity with DUDO_API_TOKEN"), "{text}");
    assert!(text.contains("Oddity is in duel"), "the account's name is said, not left blank: {text}");
    let (ok, text) = with_token(&["create", "--detach"]);
    assert!(ok && text.contains("token is in DUDO_API_TOKEN"), "{text}");
    // One id for a game: the one the ladder names is the one `dudo replay` takes.
    let game = out
        .lines()
        .find_map(|l| l.strip_prefix("game ").and_then(|rest| rest.split(':').next()))
        .expect("a game named")
        .to_string();
    let (ok, replayed) = dudo(&home, &["replay", &game]);
    assert!(ok && replayed.contains("Oddity"), "dudo replay {game}: {replayed}");
    // Never more games than asked for, and each seen to its end before the command returns.
    let (ok, out) = dudo(&home, &["ladder", "duel", "--builtin", "odds", "--games", "1", "--at-once", "2"]);
    assert!(
        ok && out.matches("seated for game").count() == 1 && out.matches("finished").count() == 1,
        "{out}"
    );
    let mut expected = vec!["Oddity [bot]", "odds bot"];
    match dudo_tests::python() {
        Ok(python) => {
            let other = home.join("py");
            std::fs::create_dir_all(&other).unwrap();
            let (ok, out) = dudo(&other, &["account", "register", "Pyro", "--bot"]);
            assert!(ok, "{out}");
            let bot = dudo_tests::root().join("bot-sdk/examples/python/bot.py");
            let command = format!("{python} {}", bot.display());
            let (ok, out) = dudo(&other, &["ladder", "duel", "--bot", &command, "--games", "1"]);
            assert!(ok && out.contains("finished"), "{out}");
            expected.push("Pyro [bot]");
        }
        Err(why) => {
            dudo_tests::skipped("the Python half of the_ladder_commands_of_the_terminal_client", &why)
        }
    }
    let (ok, out) = dudo(&home, &["leaderboard", "duel"]);
    for name in expected {
        assert!(ok && out.contains(name), "{name} missing: {out}");
    }
    assert!(out.contains("mu−3σ"), "the board's first number is labelled: {out}");
    let (ok, out) = dudo(&home, &["leaderboard", "duel", "--history", "oddity"]);
    // Three games with the kept token, one with DUDO_API_TOKEN.
    assert!(ok && out.lines().count() == 4, "{out}");
    let _ = server.child.kill();
    let _ = server.child.wait();
    let _ = std::fs::remove_dir_all(&home);
}

/// A ladder table dealt from a seed plays the game `dudo simulate` plays from it: the
/// server's odds bots fill three seats, a bot account plays the fourth with the SDK's odds
/// bot seeded for its seat, and every claim's call window waits for every seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_ladder_game_is_the_game_simulate_plays() {
    use dudo_rules::{bots, presets, sim};
    let addr = server().await;
    let guest = Client::connect(&addr).await.unwrap();
    let token = guest.register("Seedy", true, "test").await.unwrap().token.unwrap().token;
    let client = guest.clone().with_account(Some(token));
    let mut entered = client.enter("seeded", 1, 0).await.unwrap();
    let seated = loop {
        let update = tokio::time::timeout(Duration::from_secs(20), entered.message()).await.unwrap().unwrap();
        if let Some(pb::ladder_update::Update::Seated(s)) = update.unwrap().update {
            break s;
        }
    };
    let key = dudo_client::SeatKey::saved(seated.table.clone(), seated.seat, seated.token);
    let mut bot = dudo_bot::builtin("odds", bots::seat_seed(SEEDED, seated.seat as usize)).unwrap();
    tokio::time::timeout(Duration::from_secs(60), dudo_bot::play(&mut bot, &client, &key))
        .await
        .expect("the game stalled")
        .unwrap();
    // The whole game, from its record (written with its last move).
    let mut on_ladder = Vec::new();
    for _ in 0..50 {
        if let Some(game) = guest.games(pb::ListGamesRequest::default()).await.unwrap().first() {
            let replay = guest.replay(&game.id).await.unwrap();
            on_ladder = replay
                .events
                .iter()
                .filter_map(|e| match dudo_proto::convert::event_from_wire(e).unwrap().1 {
                    dudo_proto::TableEvent::Game(e) => crate::calls_and_result(&e.kind),
                    _ => None,
                })
                .collect();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let rules =
        std::sync::Arc::new(presets::with_setting(presets::fibbing(), "challenges.who", "anyone").unwrap());
    let mut seats: Vec<Box<dyn bots::Bot>> =
        (0..4).map(|s| bots::by_name("odds", bots::seat_seed(SEEDED, s)).unwrap()).collect();
    let mut events = Vec::new();
    sim::play_into(&rules, &mut seats, dudo_rules::seed_from_u64(SEEDED), &mut events).unwrap();
    let simulated: Vec<String> = events.iter().filter_map(|e| crate::calls_and_result(&e.kind)).collect();
    assert_eq!(simulated, on_ladder, "the seeded ladder game is not the one simulate plays");
}

/// Accounts of one address are not players to win rating from: in a pool of people, two
/// accounts registered or entering from one address are never seated at one table (each is
/// given the pool's bot after the wait), while an account from another address is seated
/// with them at once. Four such accounts once sat at one rated table and a main account won
/// every game from its puppets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peoples_pool_never_seats_two_accounts_of_one_address_together() {
    use dudo_proto::v1::accounts_client::AccountsClient;
    let addr = server().await;
    let from = |local: &'static str| {
        let addr = addr.clone();
        async move {
            tonic::transport::Channel::from_shared(format!("http://{addr}"))
                .unwrap()
                .local_address(Some(local.parse().unwrap()))
                .connect()
                .await
                .unwrap()
        }
    };
    let here = from("127.0.0.1").await;
    let register = |channel: tonic::transport::Channel, name: &'static str| async move {
        let request = pb::RegisterRequest {
            name: name.into(),
            kind: pb::AccountKind::Person as i32,
            token_label: "test".into(),
        };
        AccountsClient::new(channel).register(request).await.unwrap().into_inner().token.unwrap().token
    };
    let (main, puppet) = (register(here.clone(), "Main").await, register(here.clone(), "Puppet").await);
    let seated = |channel: tonic::transport::Channel, token: String| async move {
        let request = bearer(pb::EnterRequest { pool: "people".into(), at_once: 1, games: 1 }, &token);
        let mut updates = LadderClient::new(channel).enter(request).await.unwrap().into_inner();
        let started = std::time::Instant::now();
        loop {
            match tokio::time::timeout(Duration::from_secs(20), updates.message()).await {
                Ok(Ok(Some(pb::LadderUpdate { update: Some(pb::ladder_update::Update::Seated(s)) }))) => {
                    return (s.table, started.elapsed(), updates);
                }
                Ok(Ok(Some(_))) => {}
                other => panic!("{token}: not seated: {other:?}"),
            }
        }
    };
    let (a, b) = tokio::join!(seated(here.clone(), main), seated(here.clone(), puppet));
    assert_ne!(a.0, b.0, "two accounts of one address sat at one rated table");
    // Each waited for the pool's bot (a second), rather than being seated with the other.
    assert!(a.1 >= Duration::from_millis(900) && b.1 >= Duration::from_millis(900), "{:?} {:?}", a.1, b.1);
    drop((a, b));
    // Someone from another address, registered there, plays an account of this one at once
    // (a new one: the first two are still in their games).
    let there = from("127.0.0.2").await;
    let (local, far) = (register(here.clone(), "Local").await, register(there.clone(), "Far").await);
    let (a, b) = tokio::join!(seated(here.clone(), local), seated(there, far));
    assert_eq!(a.0, b.0, "accounts of two addresses are seated together");
    assert!(a.1 < Duration::from_millis(900), "without waiting for the bot: {:?}", a.1);
}

/// Four ladder games dealt at once on a busy server (the test's own 16 seats and the
/// server on two cores): a seat that answers every call window the moment its prompt
/// arrives is never cut short (the table's `call_window_lapsed` names nobody). Its window is
/// timed from when its prompt was handed to its stream, and it is asked only with at least
/// `MIN_PATIENCE` (20 ms) to answer in. Before, timed from when the table wrote the prompt,
/// and asked with whatever sliver of patience was left (10 to 15 ms), such seats were cut
/// short in 4 runs of 4, and their answers refused (`call_window_closed`, `stale_prompt`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_answering_at_once_are_never_cut_short_when_games_start_together() {
    let addr = server().await;
    // Sixteen accounts: an address registers at most twenty an hour.
    for round in 0..1 {
        let games = (0..16).map(|i| {
            let addr = addr.clone();
            tokio::spawn(async move {
                one_ladder_game(&addr, &format!("Quick{round}x{i}"), "quad", Windows::Answers, Duration::ZERO)
                    .await
            })
        });
        let (mut asked, mut cut_short, mut late) = (0, 0, Vec::new());
        for game in games.collect::<Vec<_>>() {
            let game = game.await.unwrap();
            asked += game.asked;
            cut_short += game.cut_short + game.lapses;
            late.extend(game.late);
        }
        eprintln!(
            "{asked} windows asked of seats answering at once: {cut_short} cut short, answers refused {late:?}"
        );
        assert!(asked > 0, "the seats were asked in call windows");
        assert_eq!(cut_short, 0, "seats answering at once were cut short (answers refused: {late:?})");
    }
}
