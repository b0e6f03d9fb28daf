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
