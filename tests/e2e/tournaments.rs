//! Tournaments on a real server: accounts enter with their bots (the SDK's strategies through
//! `dudo tournament enter`, the Python example through its own Enter stream), the schedule
//! plays out, the standings tell the bots apart, and the export verifies without the server;
//! a server killed mid-tournament carries on to the standings an uninterrupted run gives.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dudo_client::Client;
use dudo_proto::v1 as pb;
use dudo_server::accounts::{AccountSettings, Registration};
use dudo_tests::{binary, python, root, start_server};

const ADMIN: &str = "tournament-admin-token";

/// A directory of the test's own, gone with it.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("dudo-tour-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Entrants' processes, killed with the test.
struct Entrants(Vec<Child>);

impl Drop for Entrants {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn now_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A tournament of `deals` deals of Perudo (Jonti's rules) at tables of three, starting in
/// `starts_in`.
fn perudo(name: &str, deals: u32, starts_in: Duration) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        name: name.into(),
        preset: "perudo-jonti".into(),
        seats: 3,
        format: pb::TournamentFormat::RoundRobin as i32,
        deals,
        move_millis: 5_000,
        starts_unix_millis: now_millis() + starts_in.as_millis() as u64,
        ..Default::default()
    }
}

/// Waits for the tournament to end; it as it ended.
async fn ended(client: &Client, id: &str, within: Duration) -> pb::Tournament {
    let deadline = Instant::now() + within;
    loop {
        let t = client.tournament(id).await.unwrap();
        let state = pb::TournamentState::try_from(t.state).unwrap();
        if matches!(state, pb::TournamentState::Finished | pb::TournamentState::Cancelled) {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "tournament {id} is {state:?} after {within:?}: {} of {} games",
            t.finished,
            t.games
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Every game's entrants from first place to last, by number.
async fn finishes(client: &Client, id: &str) -> Vec<(u32, Vec<u32>)> {
    let games = client.tournament_games(id, None, 2_000).await.unwrap();
    games.into_iter().map(|g| (g.number, g.finish)).collect()
}

/// `dudo ARGS` with its own `HOME`, talking to `server`: whether it succeeded, and all it said.
pub(crate) fn dudo(home: &Path, server: &str, args: &[&str]) -> (bool, String) {
    let out = Command::new(binary("dudo"))
        .args(args)
        .env("HOME", home)
        .env("DUDO_SERVER", server)
        .env_remove("DUDO_API_TOKEN")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Six accounts (the SDK's three strategies twice, one of them the Python example when
/// there is Python) enter a duplicate round robin of 3 seats on Perudo over 20 deals: it
/// finishes; the reader is ahead of the random bot with 95% confidence; a game's record
/// stays closed while the tournament runs; the export verifies against the server's records,
/// and a one-byte change to a move fails naming that game and move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_entrants_play_a_duplicate_round_robin_whose_export_verifies() {
    let test = "tournaments::six_entrants_play_a_duplicate_round_robin_whose_export_verifies";
    let scratch = Scratch::new("six");
    let db = scratch.0.join("dudo.db").display().to_string();
    let server = start_server(&binary("dudo-server"), &["--db", &db, "--admin-token", ADMIN]).unwrap();
    let client = Client::connect(&server.addr).await.unwrap();
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let t = admin.create_tournament(perudo("six", 20, Duration::from_secs(15))).await.unwrap();
    let python = python();
    if let Err(why) = &python {
        dudo_tests::skipped(test, &format!("{why}: a second reader plays instead of the Python example"));
    }
    let lineup = ["random-1", "odds-1", "reader-1", "random-2", "odds-2", "py"];
    let mut entrants = Entrants(Vec::new());
    for name in lineup {
        let registered = client.register(name, true, "test").await.unwrap();
        let token = registered.token.unwrap().token;
        let mut command = match (name, &python) {
            ("py", Ok(python)) => {
                let mut c = Command::new(python);
                c.arg(root().join("bot-sdk/examples/python/tournament.py")).args([&server.addr, &t.id]);
                c
            }
            _ => {
                let strategy = match name.split('-').next().unwrap() {
                    "py" => "reader",
                    s => s,
                };
                let mut c = Command::new(binary("dudo"));
                c.args(["tournament", "enter", &t.id, "--builtin", strategy, "--server", &server.addr]);
                c
            }
        };
        let child = command
            .env("HOME", &scratch.0)
            .env("DUDO_API_TOKEN", &token)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        entrants.0.push(child);
    }
    // Every entrant is in before the start.
    let deadline = Instant::now() + Duration::from_secs(14);
    while client.tournament(&t.id).await.unwrap().entered < 6 {
        assert!(Instant::now() < deadline, "the six did not enter before the start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // While it runs, a finished game's record stays closed: its deal's other rotations deal
    // the same dice.
    let closed = loop {
        let games = client.tournament_games(&t.id, None, 2_000).await.unwrap();
        if let Some(g) = games.iter().find(|g| !g.finish.is_empty()) {
            break client.replay(&g.game).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let refused = closed.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refused.contains("still on"), "{refused}");
    let t = ended(&client, &t.id, Duration::from_secs(900)).await;
    assert_eq!(t.state, pb::TournamentState::Finished as i32, "{}", t.why);
    assert_eq!((t.finished, t.games), (1200, 1200), "20 line-ups of 3, 3 rotations, 20 deals");
    let standings = client.tournament_standings(&t.id).await.unwrap();
    let number = |name: &str| t.entrants.iter().find(|e| e.name == name).unwrap().number;
    let (reader, random) = (number("reader-1"), number("random-1"));
    let pair = standings.pairs.iter().find(|p| p.better == reader && p.worse == random);
    assert!(pair.is_some_and(|p| p.ahead), "reader-1 is not ahead of random-1: {standings:?}");
    let py = standings.entrants.iter().find(|e| e.name == "py").unwrap();
    assert_eq!(py.games, 600, "in 10 line-ups of 20, 3 rotations, 20 deals");
    // The export, checked against the server's records.
    let file = scratch.0.join("six.json").display().to_string();
    let (ok, text) = dudo(&scratch.0, &server.addr, &["tournament", "export", &t.id, &file]);
    assert!(ok, "{text}");
    let (ok, text) =
        dudo(&scratch.0, &server.addr, &["tournament", "verify", &file, "--server", &server.addr]);
    assert!(ok && text.contains("verified: 1200 games") && text.contains("opens the commitment"), "{text}");
    assert!(text.contains("every game is the record it came from"), "{text}");
    // One byte: the first bid one higher, in the first game from 7 on whose first bid is of
    // one digit below 9.
    let export = std::fs::read_to_string(&file).unwrap();
    let (number, at) = (7..1200)
        .find_map(|n| {
            let game = export.find(&format!("\"number\":{n},"))?;
            let moves = game + export[game..].find("\"moves\":")?;
            let at = moves + export[moves..].find("\"quantity\":")? + "\"quantity\":".len();
            let (digit, next) = (export.as_bytes()[at], export.as_bytes()[at + 1]);
            (digit.is_ascii_digit() && digit < b'9' && !next.is_ascii_digit()).then_some((n, at))
        })
        .unwrap();
    let digit = export.as_bytes()[at];
    let mut tampered = export.into_bytes();
    tampered[at] = digit + 1;
    let changed = scratch.0.join("changed.json").display().to_string();
    std::fs::write(&changed, tampered).unwrap();
    let (ok, text) = dudo(&scratch.0, &server.addr, &["tournament", "verify", &changed]);
    assert!(!ok && text.contains(&format!("NOT verified: game {number}, move ")), "{text}");
}

/// A server killed (-9) in the middle of a tournament carries it on when it comes back: the
/// games whose end was stored count, the ones cut off are played again from their first
/// move, and every game's finish, and so the standings, are those of an uninterrupted run
/// with the same seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_tournament_finishes_it_as_if_nothing_happened() {
    let server = dudo_tests::Restartable::new("tour-restart");
    let mut running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    let addr = running.addr.clone();
    let admin = Client::connect(&addr).await.unwrap().with_account(Some(ADMIN.into()));
    let request = || pb::CreateTournamentRequest {
        house_bots: ["random", "odds", "reader", "random"].map(String::from).to_vec(),
        seed: Some(77),
        // One game at a time: there is nearly always one in play to cut off (at four, a
        // loaded machine's polls could miss every moment one was).
        tables: 1,
        ..perudo("restart", 6, Duration::from_millis(500))
    };
    let killed = admin.create_tournament(request()).await.unwrap();
    assert!(killed.seeded);
    // Killed once a sixth of its 72 games have ended, with one in play (made, and not
    // ended). A game of the server's bots lasts tens of milliseconds, so in some runs those
    // few end before the kill lands: what always holds is that the finishes are the
    // uninterrupted run's.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let games = admin.tournament_games(&killed.id, None, 2_000).await.unwrap();
        let finished = games.iter().filter(|g| !g.finish.is_empty()).count();
        let in_play: Vec<(u32, String)> = games
            .into_iter()
            .filter(|g| !g.game.is_empty() && g.finish.is_empty())
            .map(|g| (g.number, g.game))
            .collect();
        if finished >= 12 && !in_play.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "{finished} of 72 games");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    running.child.kill().unwrap();
    running.child.wait().unwrap();
    drop(running);
    let _running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    let admin = Client::connect(&addr).await.unwrap().with_account(Some(ADMIN.into()));
    let t = ended(&admin, &killed.id, Duration::from_secs(600)).await;
    assert_eq!((t.state, t.finished), (pb::TournamentState::Finished as i32, 72), "{}", t.why);
    // The same tournament again, on the same server, without a kill.
    let again = admin.create_tournament(request()).await.unwrap();
    ended(&admin, &again.id, Duration::from_secs(600)).await;
    let (a, b) = (finishes(&admin, &killed.id).await, finishes(&admin, &again.id).await);
    assert_eq!(a.len(), 72);
    assert_eq!(a, b, "every game finished as in the uninterrupted run");
    let (a, b) = (
        admin.tournament_standings(&killed.id).await.unwrap(),
        admin.tournament_standings(&again.id).await.unwrap(),
    );
    assert_eq!(a, b);
    // One table a game: as many records as games, whatever the kill cut off.
    let records = admin.games(pb::ListGamesRequest { limit: 1_000, ..Default::default() }).await.unwrap();
    assert_eq!(records.len(), 144, "72 games a tournament, each recorded once");
}

async fn in_process() -> (String, Client) {
    in_process_with(ADMIN, dudo_server::tournament::Settings::default()).await
}

/// A server in this process with records in memory, open registration, `admin` its admin
/// token and `tournaments` its settings.
pub(crate) async fn in_process_with(
    admin: &str,
    tournaments: dudo_server::tournament::Settings,
) -> (String, Client) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let setup = dudo_server::Setup {
        store: Some(dudo_server::Store::open(":memory:").await.unwrap()),
        accounts: AccountSettings::new(Registration::Open, Some(admin)),
        tournaments,
        ..dudo_server::Setup::default()
    };
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    let client = Client::connect(&addr).await.unwrap();
    (addr, client)
}

fn code(e: &dudo_client::ClientError) -> String {
    e.to_string()
}

/// What an organiser or entrant may not do is refused with the field or rule at fault, and
/// changes nothing: organising where only the admin may, choosing the seed, impossible
/// settings, entering after the start or a tournament that does not exist; a tournament too
/// few enter is cancelled, saying why.
#[tokio::test]
async fn bad_tournaments_and_late_entries_are_refused_by_name() {
    let (_addr, client) = in_process().await;
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let alice = client.register("alice", true, "t").await.unwrap().token.unwrap().token;
    let alice = client.clone().with_account(Some(alice));
    let e = alice.create_tournament(perudo("mine", 2, Duration::from_secs(60))).await.unwrap_err();
    assert!(code(&e).contains("only the server's admin"), "{e}");
    let refused = |request: pb::CreateTournamentRequest, field: &'static str| {
        let admin = admin.clone();
        async move {
            let e = admin.create_tournament(request).await.unwrap_err();
            assert!(e.to_string().starts_with(&format!("{field}:")), "{field}: {e}");
        }
    };
    refused(pb::CreateTournamentRequest { seats: 13, ..perudo("t", 2, Duration::ZERO) }, "seats").await;
    refused(pb::CreateTournamentRequest { deals: 0, ..perudo("t", 2, Duration::ZERO) }, "deals").await;
    refused(pb::CreateTournamentRequest { name: String::new(), ..perudo("t", 2, Duration::ZERO) }, "name")
        .await;
    refused(pb::CreateTournamentRequest { name: "x".repeat(65), ..perudo("t", 2, Duration::ZERO) }, "name")
        .await;
    refused(
        pb::CreateTournamentRequest { preset: "nope".into(), ..perudo("t", 2, Duration::ZERO) },
        "preset",
    )
    .await;
    refused(
        pb::CreateTournamentRequest { house_bots: vec!["god".into()], ..perudo("t", 2, Duration::ZERO) },
        "house_bots",
    )
    .await;
    refused(
        pb::CreateTournamentRequest {
            format: pb::TournamentFormat::Swiss as i32,
            rounds: 0,
            ..perudo("t", 2, Duration::ZERO)
        },
        "rounds",
    )
    .await;
    refused(
        pb::CreateTournamentRequest { max_entrants: 100_000, ..perudo("t", 2, Duration::ZERO) },
        "max_entrants",
    )
    .await;
    refused(pb::CreateTournamentRequest { move_millis: 10, ..perudo("t", 2, Duration::ZERO) }, "move_millis")
        .await;
    refused(
        pb::CreateTournamentRequest { starts_unix_millis: 1, ..perudo("t", 2, Duration::ZERO) },
        "starts_unix_millis",
    )
    .await;
    assert!(client.tournaments(0).await.unwrap().is_empty(), "nothing was made");
    let e = client.tournament("nosuch").await.unwrap_err();
    assert!(e.to_string().contains("no tournament"), "{e}");
    let e = alice.enter_tournament("nosuch").await.unwrap_err();
    assert!(e.to_string().contains("no tournament"), "{e}");
    // Too few: alice alone, at tables of three.
    let lonely = admin.create_tournament(perudo("lonely", 2, Duration::from_millis(300))).await.unwrap();
    let _entered = alice.enter_tournament(&lonely.id).await.unwrap();
    let t = ended(&client, &lonely.id, Duration::from_secs(30)).await;
    assert_eq!(t.state, pb::TournamentState::Cancelled as i32);
    assert!(t.why.contains("too few entrants: 1 entered"), "{}", t.why);
    // Entry closes at the start.
    let house = ["random", "odds", "reader"].map(String::from).to_vec();
    let started = admin
        .create_tournament(pb::CreateTournamentRequest {
            house_bots: house,
            ..perudo("house", 1, Duration::ZERO)
        })
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while client.tournament(&started.id).await.unwrap().state == pb::TournamentState::Entry as i32 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let e = alice.enter_tournament(&started.id).await.unwrap_err();
    assert!(e.to_string().contains("entry closed") || e.to_string().contains("has ended"), "{e}");
    // A seed is the admin's to choose; only the organiser or the admin cancels.
    let e = alice
        .create_tournament(pb::CreateTournamentRequest {
            seed: Some(1),
            ..perudo("s", 1, Duration::from_secs(60))
        })
        .await
        .unwrap_err();
    assert!(e.to_string().contains("admin"), "{e}");
    let later = admin.create_tournament(perudo("later", 1, Duration::from_secs(600))).await.unwrap();
    let e = alice.cancel_tournament(&later.id).await.unwrap_err();
    assert!(e.to_string().contains("organiser"), "{e}");
    let cancelled = admin.cancel_tournament(&later.id).await.unwrap();
    assert_eq!(cancelled.state, pb::TournamentState::Cancelled as i32);
    assert!(cancelled.seed.is_some(), "the seed is shown once it has ended");
}

/// A person's account plays one game at a time, however many tables the tournament runs at
/// once: its next seat comes only after its last game ended. (Nobody plays the person's
/// seats here: the clock does, as for a person away from the table.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_is_seated_at_one_game_at_a_time() {
    let (_addr, client) = in_process().await;
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let person = client.register("pat", false, "t").await.unwrap().token.unwrap().token;
    let person = client.clone().with_account(Some(person));
    let t = admin
        .create_tournament(pb::CreateTournamentRequest {
            house_bots: vec!["random".into(), "odds".into(), "reader".into()],
            seats: 2,
            tables: 8,
            move_millis: 100,
            settings: vec![pb::Setting { path: "dice.start".into(), value: "2".into() }],
            ..perudo("in person", 1, Duration::from_millis(500))
        })
        .await
        .unwrap();
    let mut updates = person.enter_tournament(&t.id).await.unwrap();
    let (mut seated, mut at_table, mut most) = (0, 0i32, 0i32);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let u = tokio::time::timeout(left, updates.message()).await.expect("the tournament ends").unwrap();
        match u.and_then(|u| u.update) {
            Some(pb::tournament_update::Update::Seated(_)) => {
                seated += 1;
                at_table += 1;
                most = most.max(at_table);
            }
            Some(pb::tournament_update::Update::Ended(_)) => at_table -= 1,
            Some(pb::tournament_update::Update::Over(o)) => {
                assert_eq!(o.tournament.unwrap().state, pb::TournamentState::Finished as i32);
                break;
            }
            _ => {}
        }
    }
    // Four entrants at tables of two: three line-ups with the person, each in two rotations.
    assert_eq!(seated, 6);
    assert_eq!(most, 1, "a person is never at two games at once");
}
