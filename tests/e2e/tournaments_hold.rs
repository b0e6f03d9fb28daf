//! Tournaments that hold: a restart carries each cut-off game on at its one table (no second
//! table, no record opened, tokens still good), and an entrant that stalls call windows is
//! benched, its later games forfeit, so it cannot make the tournament drag.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dudo_client::{Client, Update};
use dudo_proto::v1 as pb;
use tokio_stream::StreamExt;

const ADMIN: &str = "tournament-hold-admin";

fn now_millis() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// The Fibbing Dice rules (calza by anyone but the bidder and the next seat: claims ask a
/// call window) at tables of three.
pub(crate) fn fibbing(name: &str, deals: u32, starts_in: Duration) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        name: name.into(),
        preset: "fibbing".into(),
        seats: 3,
        format: pb::TournamentFormat::RoundRobin as i32,
        deals,
        starts_unix_millis: now_millis() + starts_in.as_millis() as u64,
        ..Default::default()
    }
}

/// A seat a tournament told its entrant of: its game's number, table, seat and token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Told {
    number: u32,
    table: String,
    seat: u32,
    token: String,
}

/// Enters `id` as `client`'s account and reads the seats it is told of until it has `games`,
/// entering again when the stream breaks (a server restarting, a cluster's node dying), as
/// `dudo tournament enter` does.
pub(crate) async fn seats_told(
    client: &Client,
    id: &str,
    games: usize,
) -> (Vec<Told>, tonic::Streaming<pb::TournamentUpdate>) {
    let mut told: Vec<Told> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    'enter: loop {
        assert!(Instant::now() < deadline, "seated at {games} games in time: {told:?}");
        let Ok(mut updates) = client.enter_tournament(id).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        while told.len() < games {
            let next = tokio::time::timeout_at(deadline.into(), updates.next()).await;
            let update = match next.expect("seated in time") {
                Some(Ok(update)) => update,
                Some(Err(_)) => continue 'enter,
                None => panic!("the stream ended after {told:?}"),
            };
            if let Some(pb::tournament_update::Update::Seated(s)) = update.update
                && !told.iter().any(|t| t.number == s.number)
            {
                told.push(Told { number: s.number, table: s.table, seat: s.seat, token: s.token });
            }
        }
        told.sort_by_key(|t| t.number);
        return (told, updates);
    }
}

/// Each game of a tournament made so far, by number: its id.
async fn game_ids(client: &Client, id: &str) -> HashMap<u32, String> {
    client.tournament_games(id, None, 100).await.unwrap().into_iter().map(|g| (g.number, g.game)).collect()
}

/// Plays a seat to the end of its game with the SDK's odds bot.
pub(crate) async fn play_out(addr: String, told: Told) {
    let client = Client::connect(&addr).await.unwrap();
    // A table changing hands (a cluster's node died) answers again in a moment.
    let deadline = Instant::now() + Duration::from_secs(30);
    let key = loop {
        match client.seat(&told.table, told.seat, told.token.clone()).await {
            Ok(key) => break key,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("{told:?}: {e}"),
        }
    };
    let mut bot = dudo_bot::builtin("odds", u64::from(told.number)).unwrap();
    dudo_bot::play(&mut bot, &client, &key).await.unwrap();
}

/// A server killed (-9) while every game of a tournament is in play, waiting on its
/// entrants, brings each game back at its one table: the tournament names the same table for
/// it, the entrants are told the same seats and tokens when they come back, no record of it
/// opens while the tournament runs, and once played out the tournament counts each game once
/// (as many records as games).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_carries_each_cut_off_game_on_at_its_one_table() {
    let server = dudo_tests::Restartable::new("tour-hold-restart");
    let running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    let addr = running.addr.clone();
    let client = Client::connect(&addr).await.unwrap();
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let mut accounts = Vec::new();
    for name in ["hold-ana", "hold-ben"] {
        let token = client.register(name, true, "test").await.unwrap().token.unwrap().token;
        accounts.push(client.clone().with_account(Some(token)));
    }
    // A long clock: nothing moves for the entrants while the server is down and back.
    let t = admin
        .create_tournament(pb::CreateTournamentRequest {
            house_bots: vec!["odds".into()],
            seed: Some(9),
            move_millis: 120_000,
            call_window_millis: 100,
            ..fibbing("restart", 1, Duration::from_secs(2))
        })
        .await
        .unwrap();
    let ((ana, _ana_stream), (ben, _ben_stream)) =
        tokio::join!(seats_told(&accounts[0], &t.id, 3), seats_told(&accounts[1], &t.id, 3));
    let tables_before = game_ids(&admin, &t.id).await;
    assert_eq!(tables_before.len(), 3, "every game is in play: {tables_before:?}");
    let mut running = running;
    running.child.kill().unwrap();
    running.child.wait().unwrap();
    drop(running);

    let _running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    let client = Client::connect(&addr).await.unwrap();
    let admin = client.clone().with_account(Some(ADMIN.into()));
    // Back: each account is told the same seats, with the same tokens.
    let ((ana_again, _a), (ben_again, _b)) =
        tokio::join!(seats_told(&accounts[0], &t.id, 3), seats_told(&accounts[1], &t.id, 3));
    assert_eq!(ana, ana_again);
    assert_eq!(ben, ben_again);
    // One table a game: the tournament still names the tables it made.
    let tables_after = game_ids(&admin, &t.id).await;
    assert_eq!(tables_before, tables_after);
    // A tournament's tables are not listed, after a restart either.
    let listed = client.list(500).await.unwrap();
    assert!(listed.iter().all(|s| !ana.iter().any(|a| a.table == s.id)), "{listed:?}");
    // Nor watched: a spectator would see a reveal another game of its deal still hides.
    let mut play = dudo_proto::v1::play_client::PlayClient::connect(format!("http://{addr}")).await.unwrap();
    let watched = play.watch(pb::WatchRequest { table: ana[0].table.clone(), since: None }).await;
    assert_eq!(watched.err().map(|e| e.code()), Some(tonic::Code::NotFound));
    // Nobody reads a game of it while it runs.
    for game in tables_after.values() {
        let refused = client.replay(game).await.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(refused.contains("still on"), "{game}: {refused}");
    }
    // The games played out with the tokens the entrants held from before the restart.
    let plays: Vec<_> =
        ana.into_iter().chain(ben).map(|told| tokio::spawn(play_out(addr.clone(), told))).collect();
    for play in plays {
        play.await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let ended = loop {
        let now = admin.tournament(&t.id).await.unwrap();
        if now.state == pb::TournamentState::Finished as i32 {
            break now;
        }
        assert!(Instant::now() < deadline, "not finished: {now:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!((ended.finished, ended.games), (3, 3));
    // Each game has one record, now open.
    let records = client.games(pb::ListGamesRequest { limit: 100, ..Default::default() }).await.unwrap();
    assert_eq!(records.len(), 3, "one record a game: {records:?}");
    for game in tables_after.values() {
        client.replay(game).await.unwrap();
    }
    // Its export verifies against the server, and an export whose seed proof was edited
    // (`seeded` deleted, the name changed) verifies alone but not against the server.
    let home = std::env::temp_dir().join(format!("dudo-hold-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let file = home.join("export.json");
    let dudo = |args: &[&str]| crate::tournaments::dudo(&home, &addr, args);
    let (ok, text) = dudo(&["tournament", "export", &t.id, file.to_str().unwrap(), "--server", &addr]);
    assert!(ok, "{text}");
    let (ok, text) = dudo(&["tournament", "verify", file.to_str().unwrap(), "--server", &addr]);
    assert!(ok && text.contains("admin chose this seed"), "{text}");
    let export = std::fs::read_to_string(&file).unwrap();
    assert!(export.contains(&format!("\"tournament\":\"{}\"", t.id)), "the proof names its tournament");
    let tampered =
        export.replace(",\"seeded\":true", "").replace("\"name\": \"restart\"", "\"name\": \"Cup\"");
    assert_ne!(tampered, export);
    std::fs::write(&file, tampered).unwrap();
    let (ok, text) = dudo(&["tournament", "verify", file.to_str().unwrap()]);
    assert!(ok, "alone, the edited file holds together: {text}");
    let (ok, text) = dudo(&["tournament", "verify", file.to_str().unwrap(), "--server", &addr]);
    assert!(!ok && text.contains("seeded") && text.contains("name"), "{text}");
    // Nor without its seed proof: the server says whose games they are.
    let unproved: String =
        export.lines().filter(|l| !l.starts_with("\"seed_proof\"")).map(|l| format!("{l}\n")).collect();
    assert_ne!(unproved, export);
    std::fs::write(&file, unproved).unwrap();
    let (ok, text) = dudo(&["tournament", "verify", file.to_str().unwrap(), "--server", &addr]);
    assert!(!ok && text.contains(&format!("tournament {}'s", t.id)), "{text}");
    let _ = std::fs::remove_dir_all(&home);
}

/// How a stalling entrant answers call windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stall {
    /// Never.
    Never,
    /// 150 ms before each window closes.
    AtTheLastMoment,
}

/// Plays a seat's turns (the first legal action) and answers call windows as `stall` says.
async fn stall_as(addr: String, told: Told, stall: Stall) {
    let client = Client::connect(&addr).await.unwrap();
    let Ok(key) = client.seat(&told.table, told.seat, told.token.clone()).await else { return };
    let mut session = client.play(&key, None);
    let mut last_seq = None;
    while let Some(update) = session.next().await {
        match update {
            Ok(Update::Event { seq, event, .. }) => {
                last_seq = Some(seq);
                if matches!(event.game(), Some(dudo_rules::EventKind::GameOver { .. })) {
                    return;
                }
            }
            Ok(Update::Prompt(p)) if p.last_seq.is_some_and(|l| last_seq.is_some_and(|s| l < s)) => {}
            Ok(Update::Prompt(p)) => match p.call_window {
                None => {
                    if let Some(action) = p.legal.actions().into_iter().next() {
                        let _ = session.answer(&p, action).await;
                    }
                }
                Some(_) if stall == Stall::Never => {}
                Some(closes) => {
                    let left = closes.duration_since(std::time::SystemTime::now()).unwrap_or_default();
                    tokio::time::sleep(left.saturating_sub(Duration::from_millis(150))).await;
                    let _ = session.pass_call(&p).await;
                }
            },
            Ok(_) => {}
            Err(_) => return,
        }
    }
}

/// A tournament of house bots and one entrant (`name`, a bot's account or a person's), made
/// from `request` (its deals, bench, tables), played to its end with the entrant answering
/// call windows as `stall` says (none: honestly): the tournament as it ended, and how long
/// each of its games took, from their records.
async fn stalled_tournament(
    (addr, client, admin): (&str, &Client, &Client),
    name: &str,
    bot: bool,
    request: pb::CreateTournamentRequest,
    stall: Option<Stall>,
) -> (pb::Tournament, Vec<u64>) {
    let token = client.register(name, bot, "test").await.unwrap().token.unwrap().token;
    let entrant = client.clone().with_account(Some(token));
    let request = pb::CreateTournamentRequest {
        house_bots: vec!["odds".into(), "odds".into()],
        seed: Some(5),
        move_millis: 3_000,
        call_window_millis: 1_000,
        ..request
    };
    let t = admin.create_tournament(request).await.unwrap();
    let mut updates = entrant.enter_tournament(&t.id).await.unwrap();
    let (mut playing, mut seen) = (Vec::new(), std::collections::HashSet::new());
    let ended = loop {
        let next = tokio::time::timeout(Duration::from_secs(180), updates.next()).await;
        let update = next.expect("the tournament goes on").expect("open").unwrap();
        match update.update {
            Some(pb::tournament_update::Update::Seated(s)) if seen.insert(s.number) => {
                let told = Told { number: s.number, table: s.table, seat: s.seat, token: s.token };
                playing.push(match stall {
                    Some(stall) => tokio::spawn(stall_as(addr.to_string(), told, stall)),
                    None => tokio::spawn(play_out(addr.to_string(), told)),
                });
            }
            Some(pb::tournament_update::Update::Over(o)) => break o.tournament.unwrap(),
            _ => {}
        }
    };
    assert_eq!(ended.state, pb::TournamentState::Finished as i32, "{}", ended.why);
    let games = admin.tournament_games(&t.id, None, 100).await.unwrap();
    let ids: std::collections::HashSet<String> = games.into_iter().map(|g| g.game).collect();
    let records = client.games(pb::ListGamesRequest { limit: 500, ..Default::default() }).await.unwrap();
    let lasted = records
        .iter()
        .filter(|r| ids.contains(&r.id))
        .map(|r| r.finished_unix_millis.saturating_sub(r.started_unix_millis))
        .collect();
    for p in playing {
        let _ = p.await;
    }
    (ended, lasted)
}

fn mean(millis: &[u64]) -> f64 {
    millis.iter().sum::<u64>() as f64 / millis.len().max(1) as f64
}

/// An entrant that stalls call windows without ever being benched for it (registered as a
/// person, whose lapses are not faults, and never answering; or answering each window 150 ms
/// before it closes, never a lapse) makes the tournament's games at most about twice as long
/// as an honest entrant's: a tournament's tables ask every network seat for what is left of
/// the table's patience, alike for every seat. Before, each game waited a whole window on
/// the first (games 5.5 times longer) and every claim waited most of one on the second
/// (12.6 times).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entrants_stalling_call_windows_unbenched_make_games_at_most_twice_as_long() {
    let (addr, client) =
        crate::tournaments::in_process_with(ADMIN, dudo_server::tournament::Settings::default()).await;
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let at = (addr.as_str(), &client, &admin);
    // The three tournaments at once, so that whatever else the machine is doing weighs on
    // each alike.
    let of =
        |name: &str| pb::CreateTournamentRequest { tables: 1, ..fibbing(name, 4, Duration::from_secs(1)) };
    let (honest, never, late) = tokio::join!(
        stalled_tournament(at, "even-hon", true, of("even-hon"), None),
        stalled_tournament(at, "even-per", false, of("even-per"), Some(Stall::Never)),
        stalled_tournament(at, "even-late", true, of("even-late"), Some(Stall::AtTheLastMoment)),
    );
    for (_, lasted) in [&honest, &never, &late] {
        assert_eq!(lasted.len(), 12);
    }
    let (honest, never, late) = (mean(&honest.1), mean(&never.1), mean(&late.1));
    eprintln!(
        "12 tournament games: {honest:.0} ms a game with an honest entrant, {never:.0} ms with a person never answering windows, {late:.0} ms with a bot answering each 150 ms before it closes"
    );
    for (what, took) in [("never answering", never), ("answering late", late)] {
        assert!(took <= 2.0 * honest + 60.0, "{what}: {took:.0} ms a game against {honest:.0}");
    }
}

/// An entrant's bot that never answers call windows makes its games take at most twice as
/// long as the same games of an honest entrant, one game at a time (benched after the
/// tournament's faults if it lets a whole window lapse: its later games are then forfeit,
/// its default moves recorded as time-outs); an honest entrant is never benched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entrant_that_stalls_call_windows_is_benched_and_drags_nothing() {
    let (addr, client) =
        crate::tournaments::in_process_with(ADMIN, dudo_server::tournament::Settings::default()).await;
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let at = (addr.as_str(), &client, &admin);
    // One game at a time: the games in play when an entrant first lets a window lapse
    // each wait one window; a field of quick bots at many tables pays that once a table.
    // The two tournaments at once, so that whatever else the machine is doing weighs on
    // each alike (one after the other, a busy minute made the honest one look quick).
    let of = |name: &str| pb::CreateTournamentRequest {
        bench_after: 1,
        tables: 1,
        ..fibbing(name, 8, Duration::from_secs(1))
    };
    let (honest, stalled) = tokio::join!(
        stalled_tournament(at, "stall-hon", true, of("stall-hon"), None),
        stalled_tournament(at, "stall-sam", true, of("stall-sam"), Some(Stall::Never)),
    );
    let mut mean_millis = Vec::new();
    for (name, (ended, lasted)) in [("stall-hon", &honest), ("stall-sam", &stalled)] {
        assert_eq!(lasted.len(), 24);
        mean_millis.push(mean(lasted));
        // A staller is benched once it lets a whole window lapse; in games this quick the
        // table's patience gives it less (cut short, which is no fault), and it is never
        // benched, but drags the games no more for it.
        let me = ended.entrants.iter().find(|e| e.name == name).unwrap();
        if name == "stall-hon" {
            assert_eq!(me.benched, "", "an honest entrant is not benched");
        }
    }
    let (honest, staller) = (mean_millis[0], mean_millis[1]);
    eprintln!(
        "24 games: {honest:.0} ms a game with an honest entrant, {staller:.0} ms with one that stalls call windows"
    );
    assert!(staller <= 2.0 * honest + 50.0, "{staller:.0} ms a game against {honest:.0}");
}

/// A crowd of made-and-cancelled tournaments buries nothing: an account, and an address, make
/// at most `per_hour` an hour (refused `too_many_tournaments`); `List` leaves out those
/// cancelled before a game, filters by state, organiser and name, and pages with a cursor it
/// gave (another is refused naming `after`).
#[tokio::test]
async fn tournament_lists_page_and_filter_and_creation_is_limited_an_hour() {
    let settings = dudo_server::tournament::Settings {
        organisers: dudo_server::tournament::spec::Organisers::Anyone,
        per_hour: 3,
        ..Default::default()
    };
    let (addr, client) = crate::tournaments::in_process_with(ADMIN, settings).await;
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let token = client.register("lister", false, "test").await.unwrap().token.unwrap().token;
    let org = client.clone().with_account(Some(token));
    let later = Duration::from_secs(600);
    let a = org.create_tournament(fibbing("Friday cup", 1, later)).await.unwrap();
    let b = org.create_tournament(fibbing("churn", 1, later)).await.unwrap();
    org.cancel_tournament(&b.id).await.unwrap();
    let c = org.create_tournament(fibbing("Saturday cup", 1, later)).await.unwrap();
    // Three an hour: the fourth is refused, and so is another account's from the address.
    org.cancel_tournament(&c.id).await.unwrap();
    let refused = org.create_tournament(fibbing("one more", 1, later)).await.unwrap_err().to_string();
    assert!(refused.contains("an hour"), "{refused}");
    let token = client.register("lister-2", false, "test").await.unwrap().token.unwrap().token;
    let other = client.clone().with_account(Some(token.clone()));
    let refused =
        other.create_tournament(fibbing("from the same address", 1, later)).await.unwrap_err().to_string();
    assert!(refused.contains("an hour"), "{refused}");
    // The address's refusal says, as a rate limit does, how long until its hour ends.
    let mut raw = dudo_proto::v1::tournaments_client::TournamentsClient::connect(format!("http://{addr}"))
        .await
        .unwrap();
    let request = dudo_tests::bearer(fibbing("and again", 1, later), &token);
    let refused = raw.create(request).await.unwrap_err();
    let meta = |key: &str| refused.metadata().get(key).and_then(|v| v.to_str().ok()).map(str::to_string);
    assert_eq!(meta("dudo-code").as_deref(), Some("too_many_tournaments"), "{refused:?}");
    let wait: u64 = meta("dudo-retry-after-ms").and_then(|v| v.parse().ok()).expect("a wait");
    assert!((3_500_000..=3_600_000).contains(&wait), "{wait}");
    // The admin is not counted.
    let d = admin.create_tournament(fibbing("Admin's cup", 1, later)).await.unwrap();
    let page = |request: pb::ListTournamentsRequest| {
        let client = client.clone();
        async move { client.tournaments_page(request).await }
    };
    let ids =
        |p: &pb::ListTournamentsResponse| p.tournaments.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
    // Newest first, without those cancelled before a game.
    let all = page(pb::ListTournamentsRequest::default()).await.unwrap();
    assert_eq!(ids(&all), vec![d.id.clone(), a.id.clone()]);
    let cancelled = page(pb::ListTournamentsRequest {
        states: vec![pb::TournamentState::Cancelled as i32],
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(ids(&cancelled), vec![c.id.clone(), b.id.clone()]);
    let named = page(pb::ListTournamentsRequest { name: "CUP".into(), ..Default::default() }).await.unwrap();
    assert_eq!(ids(&named), vec![d.id.clone(), a.id.clone()]);
    let by =
        page(pb::ListTournamentsRequest { organiser: "admin".into(), ..Default::default() }).await.unwrap();
    assert_eq!(ids(&by), vec![d.id.clone()]);
    let by =
        page(pb::ListTournamentsRequest { organiser: "LISTER".into(), ..Default::default() }).await.unwrap();
    assert_eq!(ids(&by), vec![a.id.clone()]);
    // A page at a time.
    let first = page(pb::ListTournamentsRequest { limit: 1, ..Default::default() }).await.unwrap();
    assert_eq!(ids(&first), vec![d.id.clone()]);
    assert!(!first.next.is_empty());
    let second =
        page(pb::ListTournamentsRequest { limit: 1, after: first.next.clone(), ..Default::default() })
            .await
            .unwrap();
    assert_eq!(ids(&second), vec![a.id.clone()]);
    assert!(second.next.is_empty(), "the last page says there is no next: {second:?}");
    let refused = page(pb::ListTournamentsRequest { after: "nonsense".into(), ..Default::default() })
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("after"), "{refused}");
}

/// A server killed (-9) again and again while a tournament of quick house bots makes and
/// plays its games (some tables half made, some games ended but their tables not yet
/// closed) still plays each game at one table: once it has finished, there are exactly as
/// many records as games, and none appears after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_while_tables_are_made_leave_one_record_a_game() {
    let server = dudo_tests::Restartable::new("tour-hold-kills");
    let mut running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    let addr = running.addr.clone();
    let admin = Client::connect(&addr).await.unwrap().with_account(Some(ADMIN.into()));
    let t = admin
        .create_tournament(pb::CreateTournamentRequest {
            house_bots: ["random", "odds", "reader", "random"].map(String::from).to_vec(),
            tables: 8,
            ..fibbing("kills", 8, Duration::from_millis(300))
        })
        .await
        .unwrap();
    let games = 4 * 3 * 8;
    for kill in 0..4u64 {
        tokio::time::sleep(Duration::from_millis(400 + 150 * kill)).await;
        running.child.kill().unwrap();
        running.child.wait().unwrap();
        drop(running);
        running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    }
    let admin = Client::connect(&addr).await.unwrap().with_account(Some(ADMIN.into()));
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let now = admin.tournament(&t.id).await.unwrap();
        if now.state == pb::TournamentState::Finished as i32 {
            assert_eq!(now.finished, games);
            break;
        }
        assert!(Instant::now() < deadline, "not finished: {} of {games}", now.finished);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let count = || async {
        admin.games(pb::ListGamesRequest { limit: 1_000, ..Default::default() }).await.unwrap().len() as u64
    };
    assert_eq!(count().await, games, "one record a game");
    // Nothing left behind plays on: a restart brings no table of it back.
    running.child.kill().unwrap();
    running.child.wait().unwrap();
    drop(running);
    let _running = server.start_with(&["--admin-token", ADMIN]).unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(count().await, games, "no record after the end");
}
