//! Accounts over the wire: registration (open and admin-only), API tokens (forged, revoked),
//! names that differ only in case or lookalike letters, a suspended account, a seat taken as
//! an account, and a rated table that seats accounts only.

use dudo_proto::v1 as pb;
use dudo_proto::v1::accounts_client::AccountsClient;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_server::accounts::{AccountSettings, Registration};
use dudo_tests::bearer;
use tonic::Request;
use tonic::transport::Channel;

const ADMIN: &str = "the-admin-secret";

/// A server keeping its records in memory, with an admin token.
async fn server(registration: Registration) -> Channel {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let setup = dudo_server::Setup {
        store: Some(dudo_server::Store::open(":memory:").await.unwrap()),
        ranked: true,
        accounts: AccountSettings::new(registration, Some(ADMIN)),
        ..dudo_server::Setup::default()
    };
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    for _ in 0..50 {
        if let Ok(c) = Channel::from_shared(addr.clone()).unwrap().connect().await {
            return c;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("no server at {addr}");
}

fn code(status: &tonic::Status) -> &str {
    status.metadata().get("dudo-code").and_then(|v| v.to_str().ok()).unwrap_or("")
}

fn register(name: &str, kind: pb::AccountKind) -> pb::RegisterRequest {
    pb::RegisterRequest { name: name.into(), kind: kind as i32, token_label: "test".into() }
}

#[tokio::test]
async fn accounts_tokens_lookalike_names_suspension_and_rated_seats() {
    let ch = server(Registration::Open).await;
    let mut accounts = AccountsClient::new(ch.clone());
    let mut lobby = LobbyClient::new(ch);
    let robo = accounts.register(register("Robo", pb::AccountKind::Bot)).await.unwrap().into_inner();
    let token = robo.token.unwrap().token;
    assert!(token.starts_with("dudo_") && token.len() == 5 + 64, "{token}");
    let me = accounts.who_am_i(bearer(pb::WhoAmIRequest {}, &token)).await.unwrap().into_inner();
    assert_eq!((me.name.as_str(), me.kind), ("Robo", pb::AccountKind::Bot as i32));

    // One name, however it is written: case, full-width letters, Cyrillic and Greek o's.
    for same in ["ROBO", "Ｒｏｂｏ", "R\u{043E}b\u{043E}", "Rob\u{03BF}"] {
        let refused = accounts.register(register(same, pb::AccountKind::Person)).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::AlreadyExists, "{same}");
        assert_eq!(code(&refused), "name_taken", "{same}");
    }
    let bad = accounts.register(register("Ro\u{1b}[31mbo", pb::AccountKind::Person)).await.unwrap_err();
    assert_eq!(code(&bad), "bad_name");
    // The built-in bots' names are theirs: "odds bot" is rated as the server's odds bot.
    for bots in ["odds bot", "ODDS BOT", "Carmen (odds bot)", "bot"] {
        let refused = accounts.register(register(bots, pb::AccountKind::Bot)).await.unwrap_err();
        assert_eq!(code(&refused), "bad_name", "{bots}");
    }
    accounts.register(register("Abbot", pb::AccountKind::Person)).await.unwrap();
    // From the hostile try: names that passed for others. Beside an account "Alice", a blank
    // Braille cell or an object replacement character is refused outright, and a dotless i
    // under a combining dot or a no-break space is Alice's name.
    accounts.register(register("Alice", pb::AccountKind::Person)).await.unwrap();
    for (posing, why) in [
        ("Alice\u{2800}", "bad_name"),
        ("Alice\u{FFFC}", "bad_name"),
        ("Al\u{0131}\u{0307}ce", "name_taken"),
        ("Al\u{00A0}ice", "name_taken"),
        ("oddsbot", "bad_name"),
        ("odds_bot", "bad_name"),
        ("odds bot.", "bad_name"),
        ("Robo [bot]", "bad_name"),
        ("Rеаder-Bot", "bad_name"),
        // From the second hostile try: a built-in bot's name anywhere, punctuation lookalikes.
        ("odds bot 25", "bad_name"),
        ("Alba (odds bot) 2", "bad_name"),
        ("random bot #2", "bad_name"),
        ("[bot] Robo", "bad_name"),
        ("Alice\u{0F0B}", "name_taken"),
    ] {
        let refused = accounts.register(register(posing, pb::AccountKind::Person)).await.unwrap_err();
        assert_eq!(code(&refused), why, "{posing:?}");
    }
    // A failed registration does not count against the address's registrations an hour.
    for n in 0..25 {
        let refused = accounts.register(register("Alice", pb::AccountKind::Person)).await.unwrap_err();
        assert_eq!(code(&refused), "name_taken", "attempt {n}");
    }
    accounts.register(register("Bob", pb::AccountKind::Person)).await.unwrap();
    let guest = pb::CreateTableRequest { name: "Bob\u{2800}".into(), ..Default::default() };
    assert_eq!(code(&lobby.create_table(guest).await.unwrap_err()), "bad_name");
    let guest = pb::CreateTableRequest { name: "Bob\u{0701}".into(), ..Default::default() };
    assert_eq!(code(&lobby.create_table(guest).await.unwrap_err()), "name_taken");
    // Nor a guest's: a guest named "Odds Bot" would play into the odds bot's ratings.
    let guest = pb::CreateTableRequest { name: "Odds Bot".into(), ..Default::default() };
    assert_eq!(code(&lobby.create_table(guest).await.unwrap_err()), "bad_name");

    // A seat taken with the token is the account's, shown as a bot account.
    let create = pb::CreateTableRequest { preset: "fibbing".into(), seats: 3, ..Default::default() };
    let joined = lobby.create_table(bearer(create, &token)).await.unwrap().into_inner();
    let table = joined.table.unwrap();
    assert_eq!(table.players[0].name, "Robo");
    assert_eq!(table.players[0].account, pb::AccountKind::Bot as i32);
    // One seat an account at a table; a guest may not take the account's name.
    let again = pb::JoinTableRequest { table: table.id.clone(), name: String::new(), ..Default::default() };
    let twice = lobby.join_table(bearer(again, &token)).await.unwrap_err();
    assert_eq!(code(&twice), "already_seated");
    let guest = pb::JoinTableRequest { table: table.id.clone(), name: "robo".into(), ..Default::default() };
    let posing = lobby.join_table(guest).await.unwrap_err();
    assert_eq!(code(&posing), "name_taken");
    let other = pb::JoinTableRequest { table: table.id.clone(), name: "Ana".into(), ..Default::default() };
    let ana = lobby.join_table(other).await.unwrap().into_inner();
    assert_eq!(ana.table.unwrap().players[1].account, pb::AccountKind::None as i32);

    // Forged and revoked tokens are refused; a second token works until revoked.
    let forged = format!("dudo_{}", "0".repeat(64));
    let refused = accounts.who_am_i(bearer(pb::WhoAmIRequest {}, &forged)).await.unwrap_err();
    assert_eq!((refused.code(), code(&refused)), (tonic::Code::Unauthenticated, "bad_token"));
    let create = pb::CreateTableRequest { preset: "fibbing".into(), ..Default::default() };
    let refused = lobby.create_table(bearer(create, &forged)).await.unwrap_err();
    assert_eq!(code(&refused), "bad_token", "a forged token never falls back to a guest seat");
    let second =
        accounts.new_token(bearer(pb::NewTokenRequest { label: "laptop".into() }, &token)).await.unwrap();
    let second = second.into_inner();
    let listed = accounts.list_tokens(bearer(pb::ListTokensRequest::default(), &token)).await.unwrap();
    assert_eq!(listed.into_inner().tokens.len(), 2);
    let revoke = pb::RevokeTokenRequest { id: second.info.unwrap().id, account: String::new() };
    accounts.revoke_token(bearer(revoke, &token)).await.unwrap();
    let refused = accounts.who_am_i(bearer(pb::WhoAmIRequest {}, &second.token)).await.unwrap_err();
    assert_eq!(code(&refused), "bad_token");
    // The last active token is not the owner's to revoke: nobody could sign in again.
    let listed = accounts.list_tokens(bearer(pb::ListTokensRequest::default(), &token)).await.unwrap();
    let last = listed.into_inner().tokens.into_iter().find(|t| t.revoked_unix_millis.is_none()).unwrap();
    let revoke = pb::RevokeTokenRequest { id: last.id, account: String::new() };
    let refused = accounts.revoke_token(bearer(revoke, &token)).await.unwrap_err();
    assert_eq!((refused.code(), code(&refused)), (tonic::Code::FailedPrecondition, "last_token"));

    // Only the admin suspends; a suspended account's tokens are refused until it is lifted.
    let suspend = |suspended| pb::SuspendAccountRequest { name: "robo".into(), suspended };
    let refused = accounts.suspend_account(bearer(suspend(true), &token)).await.unwrap_err();
    assert_eq!(code(&refused), "not_admin");
    accounts.suspend_account(bearer(suspend(true), ADMIN)).await.unwrap();
    let refused = accounts.who_am_i(bearer(pb::WhoAmIRequest {}, &token)).await.unwrap_err();
    assert_eq!((refused.code(), code(&refused)), (tonic::Code::PermissionDenied, "suspended"));
    accounts.suspend_account(bearer(suspend(false), ADMIN)).await.unwrap();
    accounts.who_am_i(bearer(pb::WhoAmIRequest {}, &token)).await.unwrap();
    // The admin lists and revokes another account's tokens.
    let theirs = pb::ListTokensRequest { account: "ROBO".into() };
    assert_eq!(accounts.list_tokens(bearer(theirs, ADMIN)).await.unwrap().into_inner().tokens.len(), 2);

    // A rated table seats accounts (and built-in bots) only.
    let ranked = pb::CreateTableRequest {
        preset: "fibbing".into(),
        seats: 3,
        rating_pool: "ranked".into(),
        ..Default::default()
    };
    let refused = lobby.create_table(Request::new(ranked.clone())).await.unwrap_err();
    assert_eq!(code(&refused), "account_required");
    // A seed would let the creator deal the same dice at a table of its own and read them.
    let seeded = pb::CreateTableRequest { seed: Some(7), ..ranked.clone() };
    let refused = lobby.create_table(bearer(seeded, &token)).await.unwrap_err();
    assert!(code(&refused) == "bad_request" && refused.message().starts_with("seed:"), "{refused:?}");
    let rated = lobby.create_table(bearer(ranked, &token)).await.unwrap().into_inner();
    let rated_id = rated.table.unwrap().id;
    let guest = pb::JoinTableRequest { table: rated_id.clone(), name: "Ben".into(), ..Default::default() };
    assert_eq!(code(&lobby.join_table(guest).await.unwrap_err()), "account_required");
    let bot = pb::AddBotRequest { table: rated_id, bot: "odds".into() };
    lobby.add_bot(bearer(bot, &rated.token)).await.unwrap();
}

#[tokio::test]
async fn where_only_the_admin_registers_nobody_else_can() {
    let ch = server(Registration::Admin).await;
    let mut accounts = AccountsClient::new(ch);
    let refused = accounts.register(register("Ana", pb::AccountKind::Person)).await.unwrap_err();
    assert_eq!((refused.code(), code(&refused)), (tonic::Code::PermissionDenied, "registration_closed"));
    let refused =
        accounts.register(bearer(register("Ana", pb::AccountKind::Person), "wrong")).await.unwrap_err();
    assert_eq!(code(&refused), "registration_closed");
    let made = accounts.register(bearer(register("Ana", pb::AccountKind::Person), ADMIN)).await.unwrap();
    assert_eq!(made.into_inner().account.unwrap().name, "Ana");
}

/// `dudo account` against the real server binary: register keeps the token (0600), `show`
/// says who this machine plays as, `create` then seats the account, tokens are listed and
/// revoked, and the admin suspends.
#[test]
fn the_account_commands_of_the_terminal_client() {
    let home = std::env::temp_dir().join(format!("dudo-accounts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let db = home.join("server.db");
    let db = db.to_str().unwrap();
    let mut server =
        dudo_tests::start_server(&dudo_tests::binary("dudo-server"), &["--db", db, "--admin-token", ADMIN])
            .unwrap();
    let addr = server.addr.clone();
    let dudo = |args: &[&str]| {
        let out = std::process::Command::new(dudo_tests::binary("dudo"))
            .args(args)
            .args(["--server", &addr])
            .env("DUDO_HOME", &home)
            .env_remove("DUDO_API_TOKEN")
            .env_remove("DUDO_ADMIN_TOKEN")
            .output()
            .unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    };
    let (ok, out) = dudo(&["account", "register", "Robo", "--bot"]);
    assert!(ok && out.contains("Registered Robo (bot)"), "{out}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home.join("accounts.json")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the token file is the user's alone");
    }
    let (ok, out) = dudo(&["account", "show"]);
    assert!(ok && out.contains("Robo (bot)"), "{out}");
    let (ok, out) = dudo(&["account", "register", "ROBO"]);
    assert!(!ok && out.contains("is taken"), "{out}");
    // A bot account's keeper hosting a game sits as a guest, unless it names the account.
    let (ok, out) = dudo(&["create", "--detach", "--seats", "2"]);
    assert!(ok && out.contains("As a guest"), "{out}");
    let (ok, out) = dudo(&["create", "--detach", "--seats", "2", "--name", "Robo"]);
    assert!(ok, "{out}");
    let code = out.lines().find_map(|l| l.strip_prefix("Join code: ")).unwrap().trim().to_string();
    let (ok, out) = dudo(&["list"]);
    assert!(ok && out.contains(&code) && out.contains("Robo"), "the table is the account's: {out}");
    let (ok, out) = dudo(&["account", "token", "new", "--label", "laptop"]);
    assert!(ok && out.contains("dudo_"), "{out}");
    let (ok, out) = dudo(&["account", "token", "list"]);
    assert!(ok && out.contains("laptop") && out.matches("active").count() == 2, "{out}");
    let id =
        out.lines().find(|l| l.contains("laptop")).unwrap().split_whitespace().next().unwrap().to_string();
    let (ok, out) = dudo(&["account", "token", "revoke", &id]);
    assert!(ok && out.contains("revoked"), "{out}");
    let (ok, out) = dudo(&["account", "suspend", "robo"]);
    assert!(!ok && out.contains("--admin-token"), "{out}");
    let (ok, out) = dudo(&["account", "suspend", "robo", "--admin-token", ADMIN]);
    assert!(ok && out.contains("suspended"), "{out}");
    let (ok, out) = dudo(&["account", "show"]);
    assert!(!ok && out.contains("suspended"), "{out}");
    let _ = server.child.kill();
    let _ = server.child.wait();
    let _ = std::fs::remove_dir_all(&home);
}

/// Every failed call carries a code (docs/protocol.md, "Refusal codes"), the ones the gRPC
/// library refuses before a service sees them included; a rate limit says how long to wait;
/// the bearer scheme is read in any case; a field too long is refused by name, not looked up.
#[tokio::test]
async fn every_refusal_has_a_code_and_a_rate_limit_its_wait() {
    use dudo_proto::v1::history_client::HistoryClient;
    use dudo_proto::v1::ladder_client::LadderClient;
    let ch = server(Registration::Open).await;
    let mut accounts = AccountsClient::new(ch.clone());
    let mut history = HistoryClient::new(ch.clone());
    let mut ladder = LadderClient::new(ch);
    let wait = |s: &tonic::Status| {
        s.metadata()
            .get("dudo-retry-after-ms")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
    };

    // An unknown kind is refused, not taken as a person.
    let odd = pb::RegisterRequest { name: "Odd".into(), kind: 7, token_label: String::new() };
    let refused = accounts.register(odd).await.unwrap_err();
    assert_eq!((refused.code(), code(&refused)), (tonic::Code::InvalidArgument, "bad_request"));
    assert!(refused.message().starts_with("kind:"), "{}", refused.message());

    let first = accounts.register(register("Ana", pb::AccountKind::Person)).await.unwrap().into_inner();
    let token = first.token.unwrap().token;
    let mut lower = Request::new(pb::WhoAmIRequest {});
    lower.metadata_mut().insert("authorization", format!("bearer {token}").parse().unwrap());
    assert_eq!(accounts.who_am_i(lower).await.unwrap().into_inner().name, "Ana");

    // The address's hour: 20 registrations, then `rate_limited` with the wait to its end.
    for n in 1..20 {
        accounts.register(register(&format!("Player{n}"), pb::AccountKind::Person)).await.unwrap();
    }
    let refused = accounts.register(register("Late", pb::AccountKind::Person)).await.unwrap_err();
    assert_eq!((refused.code(), code(&refused)), (tonic::Code::ResourceExhausted, "rate_limited"));
    let millis = wait(&refused).expect("a rate limit says how long to wait");
    assert!((3_500_000..=3_600_000).contains(&millis), "{millis}");

    // Admin calls without a token: no token, not "not the admin".
    let suspend = pb::SuspendAccountRequest { name: "Ana".into(), suspended: true };
    assert_eq!(code(&accounts.suspend_account(suspend).await.unwrap_err()), "no_token");

    // Refused by the services with a field named: each with `bad_request`.
    let replay = pb::WatchReplayRequest { game: "x".into(), speed: -1.0 };
    let refused = history.watch_replay(replay).await.unwrap_err();
    assert_eq!(code(&refused), "bad_request", "{refused:?}");
    let games = pb::ListGamesRequest { since_unix_millis: Some(u64::MAX), ..Default::default() };
    assert_eq!(code(&history.list_games(games).await.unwrap_err()), "bad_request");
    let long = "p".repeat(10_000);
    let board = pb::LeaderboardRequest { pool: long.clone(), limit: 0 };
    let refused = ladder.leaderboard(board).await.unwrap_err();
    assert_eq!(code(&refused), "bad_request");
    assert!(refused.message().starts_with("pool: 10000 characters"), "{}", refused.message());
    let ratings = pb::ListRatingsRequest { pool: long };
    assert_eq!(code(&history.list_ratings(ratings).await.unwrap_err()), "bad_request");

    // A request over the message limit (16 KiB) is refused by the gRPC library before any
    // service reads it: it still carries a code, made from its gRPC code.
    let huge = pb::RegisterRequest { name: "x".repeat(20_000), kind: 1, token_label: String::new() };
    let refused = accounts.register(huge).await.unwrap_err();
    assert_eq!(code(&refused), format!("{:?}", refused.code()).to_lowercase(), "{refused:?}");
}
