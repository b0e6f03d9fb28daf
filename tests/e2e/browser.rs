//! The browser pages, in a real browser: the scripts in `tests/browser/` (`game.mjs` a
//! common-hand game, `night.mjs` a game night nobody can freeze, `hands.mjs` the hand games
//! and the points game, `pages.mjs` the ladder and replays, `together.mjs` a table people share, `table.mjs` the table as a game, `rated.mjs` a person's rated game) drive Debian's chromium with
//! playwright-core against a real `dudo-server`. Without chromium or Node the tests say so
//! and skip, unless `DUDO_REQUIRE_BROWSER=1` (CI) makes that a failure.

use dudo_tests::{binary, root, skipped, start_server};

/// The node to run the browser scripts with; none: no browser here, said and skipped
/// (unless `DUDO_REQUIRE_BROWSER=1`, as in CI, makes that a failure).
fn browser_or_skip(test: &str) -> Option<String> {
    match dudo_tests::browser() {
        Ok(node) => Some(node),
        Err(why) => {
            assert!(
                std::env::var("DUDO_REQUIRE_BROWSER").is_err(),
                "a browser is required (DUDO_REQUIRE_BROWSER): {why}"
            );
            skipped(test, &why);
            None
        }
    }
}

/// Runs `tests/browser/SCRIPT ARGS…` to its end; its output, and whether it passed.
fn run_script(node: &str, script: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(node)
        .current_dir(root().join("tests/browser"))
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{said}");
    assert!(out.status.success(), "{said}");
    said
}

/// Two people in two browsers and a bot play a whole game from the page the server serves;
/// a third browser watches; one person's network drops mid-game and comes back with nothing
/// lost or repeated; the other reloads the page and is back at the seat with the story;
/// every reveal's per-cup counts add up to its total. With `DUDO_SCREENSHOTS=DIR` it leaves
/// a table, a reveal and a results table there (the pictures in docs/playing.md; `hands.mjs`
/// and `pages.mjs` leave hand.png and rating.png).
#[test]
fn two_people_a_bot_and_a_spectator_play_a_game_in_browsers() {
    let Some(node) = browser_or_skip("two_people_a_bot_and_a_spectator_play_a_game_in_browsers") else {
        return;
    };
    let server = start_server(&binary("dudo-server"), &["--db", "none"]).unwrap();
    let shots = std::env::var("DUDO_SCREENSHOTS").ok();
    let mut args = vec![server.addr.as_str()];
    args.extend(shots.as_deref());
    let said = run_script(&node, "game.mjs", &args);
    assert!(said.contains("a whole game"), "{said}");
}

/// A table people share, a desktop and a phone: talk and reactions, the reveal held for both
/// until both say next, the host's pause, a seat opened on another device from its own link,
/// a latecomer's story so far, and Play again (`together.mjs`). With `DUDO_SCREENSHOTS=DIR`
/// it leaves the reveal at both sizes, the pause on the phone and the game's end there.
#[test]
fn a_table_people_share_on_a_desktop_and_a_phone() {
    let Some(node) = browser_or_skip("a_table_people_share_on_a_desktop_and_a_phone") else {
        return;
    };
    let server =
        start_server(&binary("dudo-server"), &["--db", "none", "--default-reveal-pause-ms", "8000"]).unwrap();
    let shots = std::env::var("DUDO_SCREENSHOTS").ok();
    let mut args = vec![server.addr.as_str()];
    args.extend(shots.as_deref());
    let said = run_script(&node, "together.mjs", &args);
    assert!(said.contains("a table shared"), "{said}");
}

/// The table as a game (`table.mjs`): a whole game on a phone's screen with every reveal in
/// view as it happens, the tab's title on your turn, the rules in words and readable; sound
/// off until chosen, then every cue played through Web Audio; no motion for a browser that
/// asks for less; the front page's worked example replayed to its end. With
/// `DUDO_SCREENSHOTS=DIR` it leaves the table at a desktop's and a phone's size there (the
/// pictures in docs/playing.md).
#[test]
fn the_table_looks_moves_and_sounds_like_a_game() {
    let Some(node) = browser_or_skip("the_table_looks_moves_and_sounds_like_a_game") else { return };
    let server =
        start_server(&binary("dudo-server"), &["--db", "none", "--default-reveal-pause-ms", "2500"]).unwrap();
    let shots = std::env::var("DUDO_SCREENSHOTS").ok();
    let mut args = vec![server.addr.as_str()];
    args.extend(shots.as_deref());
    let said = run_script(&node, "table.mjs", &args);
    assert!(said.contains("the table as a game: done"), "{said}");
}

/// A game night nobody can freeze: tables made from the page get the server's game-night
/// clock; Enter and Space in a call window make no call; a player who closes the tab
/// mid-round is shown away and the game goes on to its end with no host action; the host
/// removes a player after a round's first bid and the seat plays the round out first.
#[test]
fn a_game_night_in_browsers_that_nobody_can_freeze() {
    let Some(node) = browser_or_skip("a_game_night_in_browsers_that_nobody_can_freeze") else { return };
    // A short game-night clock, so a player who walks away costs the test seconds.
    let flags = ["--db", "none", "--default-move-ms", "1500", "--default-bank-ms", "0"];
    let server = start_server(&binary("dudo-server"), &flags).unwrap();
    let said = run_script(&node, "night.mjs", &[server.addr.as_str()]);
    assert!(said.contains("a game night nobody could freeze"), "{said}");
}

/// Every individual-hand game and the points game, played whole from the page against a bot
/// (taking the cup, re-rolling, claiming, lifting; guessing, watching, doubting), watched by
/// a spectator who is never told what is under the cup, then replayed round by round.
#[test]
fn the_hand_games_and_the_points_game_play_and_replay_in_a_browser() {
    let Some(node) = browser_or_skip("the_hand_games_and_the_points_game_play_and_replay_in_a_browser")
    else {
        return;
    };
    let server = start_server(&binary("dudo-server"), &["--db", ":memory:"]).unwrap();
    let presets = ["poker-dice", "stanford", "mexican", "mexican-two-dice", "points-quick"];
    let mut args = vec![server.addr.as_str()];
    args.extend(presets);
    let said = run_script(&node, "hands.mjs", &args);
    for preset in presets {
        assert!(said.contains(&format!("{preset}: a whole game against a bot")), "{said}");
    }
}

/// A bot account plays three ladder games with the terminal client; the browser finds it on
/// the pool's board, draws its rating after each game, lists the games and replays one with
/// every cup shown, all by keyboard on a phone's screen.
#[test]
fn the_ladder_and_a_replay_in_a_browser() {
    let Some(node) = browser_or_skip("the_ladder_and_a_replay_in_a_browser") else { return };
    let home = std::env::temp_dir().join(format!("dudo-browser-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let pools = dudo_tests::duel_pool(&home).unwrap();
    let server =
        start_server(&binary("dudo-server"), &["--db", ":memory:", "--ladder", pools.to_str().unwrap()])
            .unwrap();
    let dudo = |args: &[&str]| {
        let out = std::process::Command::new(binary("dudo"))
            .args(args)
            .args(["--server", &server.addr])
            .env("DUDO_HOME", &home)
            .env_remove("DUDO_API_TOKEN")
            .output()
            .unwrap();
        let said =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{said}");
    };
    dudo(&["account", "register", "Robo", "--bot"]);
    dudo(&["ladder", "duel", "--builtin", "odds", "--games", "3"]);
    let said = run_script(&node, "pages.mjs", &[&server.addr, "duel", "Robo", "3"]);
    assert!(said.contains("replay:"), "{said}");
    let _ = std::fs::remove_dir_all(&home);
}

/// A person registers on the ladder page, presses "Play rated" in a people's pool, is seated
/// with the pool's built-in bot after its wait, plays the game to its end at the table page,
/// and is then on the pool's board as a person, with a rating history.
#[test]
fn a_person_plays_a_rated_game_from_the_page() {
    let Some(node) = browser_or_skip("a_person_plays_a_rated_game_from_the_page") else { return };
    let home = std::env::temp_dir().join(format!("dudo-browser-rated-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let pools = home.join("pools.toml");
    std::fs::write(
        &pools,
        "[[pool]]\nname = \"evening\"\npreset = \"fibbing\"\nseats = 2\nmove_millis = 20000\nbots = [\"odds\"]\nfill_after_seconds = 1\nplayers = \"people\"\nsettings = { \"dice.start\" = \"2\" }\n",
    )
    .unwrap();
    let server =
        start_server(&binary("dudo-server"), &["--db", ":memory:", "--ladder", pools.to_str().unwrap()])
            .unwrap();
    let said = run_script(&node, "rated.mjs", &[&server.addr, "evening", "Pia"]);
    assert!(said.contains("a person played a rated game from the page"), "{said}");
    let _ = std::fs::remove_dir_all(&home);
}

/// One HTTP/1.1 request on a connection of its own: the status line and headers, and the body.
async fn http(addr: &str, request: &str) -> (String, Vec<u8>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read_to_end(&mut read)).await;
    let split = read.windows(4).position(|w| w == b"\r\n\r\n").map_or(read.len(), |p| p + 4);
    (String::from_utf8_lossy(&read[..split]).to_lowercase(), read[split..].to_vec())
}

/// The server serves the page at `/` and at every table's link, its script gzipped to
/// browsers that take it; tables' links are that page's address and any call naming a table
/// takes them; pages from an allowed origin may call (CORS), others may not.
#[tokio::test]
async fn the_page_its_links_and_who_may_call_from_a_browser() {
    use dudo_proto::v1 as pb;
    let flags = ["--db", "none", "--allowed-origin", "http://friends.test"];
    let server = start_server(&binary("dudo-server"), &flags).unwrap();
    let addr = server.addr.clone();
    let close = "connection: close\r\n\r\n";
    let (head, page) = http(&addr, &format!("GET / HTTP/1.1\r\nhost: {addr}\r\n{close}")).await;
    assert!(head.starts_with("http/1.1 200") && head.contains("text/html"), "{head}");
    assert!(String::from_utf8_lossy(&page).contains("/assets/app.js"));
    // No other site frames the page (its storage holds seat tokens).
    assert!(head.contains("x-frame-options: deny") && head.contains("frame-ancestors 'none'"), "{head}");
    let (head, _) = http(&addr, &format!("GET /t/ABCDEF HTTP/1.1\r\nhost: {addr}\r\n{close}")).await;
    assert!(head.starts_with("http/1.1 200") && head.contains("text/html"), "{head}");
    let (head, _) = http(&addr, &format!("GET /favicon.ico HTTP/1.1\r\nhost: {addr}\r\n{close}")).await;
    assert!(head.starts_with("http/1.1 404"), "{head}");
    let gzip = format!("GET /assets/app.js HTTP/1.1\r\nhost: {addr}\r\naccept-encoding: gzip, br\r\n{close}");
    let (head, script) = http(&addr, &gzip).await;
    assert!(head.contains("content-encoding: gzip") && script.starts_with(&[0x1f, 0x8b]), "{head}");

    let mut lobby =
        dudo_proto::v1::lobby_client::LobbyClient::connect(format!("http://{addr}")).await.unwrap();
    let made = lobby.create_table(pb::CreateTableRequest::default()).await.unwrap().into_inner();
    let table = made.table.unwrap();
    assert_eq!(table.link, format!("http://{addr}/t/{}", table.join_code));
    let joined = lobby
        .join_table(pb::JoinTableRequest {
            table: table.link.clone(),
            name: "Ben".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(joined.seat, 1);
    let presets = lobby.list_presets(pb::ListPresetsRequest {}).await.unwrap().into_inner().presets;
    assert!(presets.iter().any(|p| p.name == "fibbing" && p.rules.is_some()), "{presets:?}");

    let preflight = |origin: &str| {
        format!(
            "OPTIONS /dudo.v1.Lobby/ListTables HTTP/1.1\r\nhost: {addr}\r\norigin: {origin}\r\naccess-control-request-method: POST\r\naccess-control-request-headers: content-type,x-grpc-web\r\n{close}"
        )
    };
    let (head, _) = http(&addr, &preflight("http://friends.test")).await;
    assert!(head.contains("access-control-allow-origin: http://friends.test"), "{head}");
    let (head, _) = http(&addr, &preflight("http://strangers.test")).await;
    assert!(!head.contains("access-control-allow-origin"), "{head}");
}
