//! The renderer's own tests: what a line says, and that a server's strings cannot fake one.
use super::join_hint;
use dudo_client::dudo_proto::v1::TableInfo;

#[test]
fn others_join_by_the_public_link_when_the_server_has_one() {
    let info = |link: &str| TableInfo { join_code: "ABCDEF".into(), link: link.into(), ..Default::default() };
    assert_eq!(
        join_hint(&info("https://dudo.example.org/t/ABCDEF"), "10.0.0.7:50051"),
        "dudo join https://dudo.example.org/t/ABCDEF"
    );
    assert_eq!(
        join_hint(&info("http://localhost:50051/t/ABCDEF"), "127.0.0.1:50051"),
        "dudo join ABCDEF --server 127.0.0.1:50051"
    );
    assert_eq!(
        join_hint(&info("http://127.0.0.1:50051/t/ABCDEF"), "127.0.0.1:50051"),
        "dudo join ABCDEF --server 127.0.0.1:50051"
    );
}

use super::*;

#[test]
fn dice_draw_as_glyphs_or_digits() {
    let fancy = Style { glyphs: true, colour: false };
    let plain = Style::default();
    assert_eq!(fancy.dice(&[Some(1), Some(6), None], 6, None), "⚀1 ⚅6 ▣");
    assert_eq!(plain.dice(&[Some(1), Some(6), None], 6, None), "1 6 ?");
    assert_eq!(fancy.die(Some(8), 8), "[8]");
    let colour = Style { glyphs: false, colour: true };
    assert_eq!(colour.dice(&[Some(1), Some(5)], 6, Some(1)), "\x1b[33m1\x1b[0m 5");
    assert_eq!(
        colour.counted_dice(&[1, 2, 5], 6, 5, &[true, false, true]),
        "\x1b[33m1\x1b[0m 2 \x1b[32m5\x1b[0m"
    );
}

/// The reveal shows the server's counts: a stair counted whole, nothing counted again
/// here from the rules (ones are not wild in this round, as the event says).
#[test]
fn a_reveal_shows_the_counts_it_carries() {
    let names = vec!["Ann".to_string(), "Ben".to_string(), "Cai".to_string()];
    let counted =
        Counted { face: 1, marks: vec![vec![true, true, true], vec![], vec![true, false]], total: 4 };
    let dice = vec![vec![1, 2, 3], vec![], vec![1, 6]];
    let lines = reveal_lines(&dice, Some(&counted), &names, 6, Style::default());
    assert_eq!(lines, ["Cups up:", "  Ann  1 2 3  3 counted", "  Cai  1 6  1 counted"]);
    let lines = reveal_lines(&dice, None, &names, 6, Style::default());
    assert_eq!(lines, ["Cups up:", "  Ann  1 2 3", "  Cai  1 6"]);
}

#[test]
fn server_strings_cannot_fake_lines_or_colour_the_terminal() {
    assert_eq!(safe("Ana"), "Ana");
    assert!(matches!(safe("Zoë Ñoño ⚄"), Cow::Borrowed(_)));
    assert_eq!(safe("Ana\nBen wins the game!"), "Ana\\u{a}Ben wins the game!");
    assert_eq!(safe("\x1b[2J\x1b[31mred"), "\\u{1b}[2J\\u{1b}[31mred");
    assert_eq!(safe("evil\u{202e}txt.exe"), "evil\\u{202e}txt.exe");
    assert_eq!(safe("a\rb\u{7f}\u{85}\u{2066}"), "a\\u{d}b\\u{7f}\\u{85}\\u{2066}");
    // The one-line summary of a table (`dudo list`) shows a hostile host's name escaped.
    let table = dudo_client::dudo_proto::v1::TableInfo {
        join_code: "ABCDEF".into(),
        players: vec![dudo_client::dudo_proto::v1::SeatInfo {
            name: "Eve\r\nXYZ  fibbing  9/9 seats".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let line = crate::net::table_line(&table);
    assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
    assert!(line.contains("host Eve\\u{d}\\u{a}XYZ"), "{line}");
}

#[test]
fn pass_says_what_it_claims_in_the_hint_and_at_tab() {
    let house = dudo_rules::presets::by_name("house").unwrap();
    let legal = Legal { pass: true, dudo: vec![1], ..Legal::default() };
    let hint = hint(&legal, &house, Style::default());
    assert!(
        hint.contains("pass (not a skip: claims all your dice show the same face (wilds do not help))"),
        "{hint}"
    );
    let words = completions(&legal, &house);
    let pass = words.iter().find(|w| w.text == "pass").unwrap();
    assert_eq!(
        pass.note.as_deref(),
        Some("not a skip: claims all your dice show the same face (wilds do not help)")
    );
    let mut encyclopedia = house.clone();
    encyclopedia.pass.claim = PassClaim::AllDifferent;
    assert!(pass_claim(&encyclopedia).unwrap().contains("no two of your dice"));
    assert_eq!(pass_claim(&dudo_rules::presets::fibbing()), None);
}

#[test]
fn the_status_numbers_each_seat_and_keeps_its_columns_in_line() {
    let players = vec!["Ann".to_string(), "Ben".to_string(), "Cai".to_string()];
    let view = View {
        seat: Some(1),
        turn: Some(0),
        starter: 0,
        players: vec![PlayerView { dice: 3, ..PlayerView::default() }; 3],
        ..View::default()
    };
    let lines = status(&view, &dudo_rules::presets::fibbing(), &players, 0, Style::default());
    let rows = &lines[1..4];
    assert!(rows[0].starts_with("  > 0 Ann") && rows[1].starts_with("    1 Ben (you)"), "{rows:?}");
    // The host and starter marks take no more room than the column gives them.
    let at: Vec<Option<usize>> = rows.iter().map(|r| r.find("3 dice")).collect();
    assert!(at.iter().all(|a| a.is_some() && *a == at[0]), "{rows:#?}");
}

#[test]
fn the_servers_words_are_shown_made_safe() {
    let names = vec!["Ann".to_string(), "Ben (you)".to_string()];
    let event = TableEvent::Game(dudo_rules::Event {
        audience: dudo_rules::Audience::Everyone,
        kind: EventKind::CalzaCalled { seat: 0 },
    });
    let fibbing = dudo_rules::presets::fibbing();
    let said = "Ann calls Calza on Ben's bid of 4 threes";
    assert_eq!(event_lines(&event, said, &names, &fibbing, Some(1), Some(1), Style::default()), [said]);
    // A hostile server's words cannot move the cursor or colour the terminal.
    let lines = event_lines(&event, "Ann\x1b[2Jcalls", &names, &fibbing, Some(1), None, Style::default());
    assert_eq!(lines, ["Ann\\u{1b}[2Jcalls"]);
    // A server older than the words: the engine says it.
    assert_eq!(
        event_lines(&event, "", &names, &fibbing, Some(1), None, Style::default()),
        ["Ann calls Calza"]
    );
}

#[test]
fn a_players_own_leave_is_said_once() {
    let names = vec!["Ann".to_string(), "Gus".to_string()];
    let fibbing = dudo_rules::presets::fibbing();
    let lines = |why, at_round_end| {
        let event = TableEvent::SeatLeaving { seat: 1, why, at_round_end };
        event_lines(&event, &event.describe(&names, None), &names, &fibbing, Some(0), None, Style::default())
    };
    // Now: the engine's SeatLeft that follows says it, with the place.
    assert!(lines(LeaveWhy::Left, false).is_empty());
    assert_eq!(
        lines(LeaveWhy::Left, true),
        ["Gus leaves the game at the end of this round; until then their moves are played for them"]
    );
    // Taken out by the host or the table: why is said.
    assert_eq!(lines(LeaveWhy::Removed, false), ["The host removes Gus from the game"]);
}
