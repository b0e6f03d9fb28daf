//! The browser table, in a real browser: `tests/browser/game.mjs` drives Debian's chromium
//! with playwright-core against a real `dudo-server`. Without chromium or Node the test says
//! so and skips, unless `DUDO_REQUIRE_BROWSER=1` (CI) makes that a failure.

use dudo_tests::{binary, root, skipped, start_server};

/// Two people in two browsers and a bot play a whole game from the page the server serves;
/// a third browser watches; one person's network drops mid-game and comes back with nothing
/// lost or repeated; every reveal's per-cup counts add up to its total. With
/// `DUDO_SCREENSHOTS=DIR` it leaves a table, a reveal and a results table there (the
/// pictures in docs/playing.md).
#[test]
fn two_people_a_bot_and_a_spectator_play_a_game_in_browsers() {
    let node = match dudo_tests::browser() {
        Ok(node) => node,
        Err(why) => {
            assert!(
                std::env::var("DUDO_REQUIRE_BROWSER").is_err(),
                "a browser is required (DUDO_REQUIRE_BROWSER): {why}"
            );
            skipped("two_people_a_bot_and_a_spectator_play_a_game_in_browsers", &why);
            return;
        }
    };
    let server = start_server(&binary("dudo-server"), &["--db", "none"]).unwrap();
    let mut command = std::process::Command::new(node);
    command.current_dir(root().join("tests/browser")).arg("game.mjs").arg(&server.addr);
    if let Ok(dir) = std::env::var("DUDO_SCREENSHOTS") {
        command.arg(dir);
    }
    let out = command.output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{said}");
    assert!(out.status.success(), "{said}");
    assert!(said.contains("a whole game"), "{said}");
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
        .join_table(pb::JoinTableRequest { table: table.link.clone(), name: "Ben".into() })
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
