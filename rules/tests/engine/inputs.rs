//! Whatever a person or a client types, parsing never panics: calls, claims, rule settings
//! and scripts either read or say why not.

use dudo_rules::hand::{HandGame, parse_claim};
use dudo_rules::{parse_call, presets, script};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn calls_and_claims_never_panic(text in ".{0,40}", words in proptest::collection::vec("[a-z0-9']{1,8}", 0..6)) {
        let joined = words.join(" ");
        for input in [text.as_str(), joined.as_str()] {
            let _ = parse_call(input);
            for game in [HandGame::PokerDice, HandGame::Stanford, HandGame::Mexican, HandGame::MexicanTwoDice] {
                let previous = game.all_hands().into_iter().last();
                let _ = parse_claim(game, input, None);
                let _ = parse_claim(game, input, previous.as_ref());
                let _ = dudo_rules::action::parse_hand_call(game, input, previous.as_ref());
            }
        }
    }

    #[test]
    fn rule_settings_never_panic(path in "[a-z_.]{0,30}", value in ".{0,20}") {
        if let Ok(rules) = presets::with_setting(presets::fibbing(), &path, &value) {
            // Whatever was accepted is a valid, playable rule set.
            prop_assert!(rules.validate().is_ok());
        }
    }

    #[test]
    fn scripts_never_panic(text in ".{0,200}") {
        if let Ok(s) = script::parse(&text) {
            let _ = script::run(&s);
        }
    }
}

#[test]
fn hostile_scripts_are_refused_with_a_reason() {
    for bad in [
        r#"{"rules": "fibbing", "players": [], "rounds": []}"#,
        r#"{"rules": "fibbing", "players": ["a"], "rounds": []}"#,
        r#"{"rules": "nope", "players": ["a", "b"], "rounds": []}"#,
        r#"{"rules": {"preset": "fibbing", "dice": {"faces": 200}}, "players": ["a", "b"], "rounds": []}"#,
        r#"{"rules": "fibbing", "players": ["a", "b"], "start_dice": {"a": 0}, "rounds": []}"#,
        r#"{"rules": "fibbing", "players": ["a", "b"], "roll_off": [{"a": 9, "b": 1}], "rounds": []}"#,
        r#"{"rules": "poker-dice", "players": ["a", "b"], "rounds": [{"actions": [{"call": "a: roll all", "reroll": [9, 9, 9, 9, 9]}]}]}"#,
        r#"{"rules": "poker-dice", "players": ["a", "b"], "rounds": [{"actions": ["a: roll 7"]}]}"#,
        r#"{"rules": "fibbing", "players": ["a", "b"], "rounds": [{"actions": ["nobody: dudo"]}]}"#,
        // Two seats one name (case and spaces aside), or none: a call could not pick its seat.
        r#"{"rules": "fibbing", "players": ["a", "A", " a "], "rounds": []}"#,
        r#"{"rules": "fibbing", "players": ["", " "], "rounds": []}"#,
    ] {
        let run = script::run(&script::parse(bad).unwrap());
        let e = run.error.unwrap_or_else(|| panic!("accepted: {bad}"));
        assert!(!e.message.is_empty());
    }
}

/// Scripts that are not scripts are refused by what the part at fault should be.
#[test]
fn a_script_of_the_wrong_shape_names_what_it_should_be() {
    let bad = r#"{"rules": "fibbing", "players": ["a", "b"], "rounds": [{"actions": [5]}]}"#;
    let e = script::parse(bad).unwrap_err();
    assert!(e.to_string().contains("a call is a string"), "{e}");
    let bad = r#"{"rules": [1], "players": ["a", "b"], "rounds": []}"#;
    let e = script::parse(bad).unwrap_err();
    assert!(e.to_string().contains("a preset's name or an object of fields, not a list"), "{e}");
}

/// A rule set's name is shown as it is (lobbies, the browser's header): characters that move
/// a terminal's cursor, reorder a line or hide themselves are refused, naming the field.
#[test]
fn a_rule_set_name_cannot_disguise_itself() {
    for name in
        ["fibbing \u{202e} stees 2/0 \u{202c}", "a\u{1b}[2Jb", "two\nlines", "nul\u{0}", "zero\u{200b}width"]
    {
        let mut rules = presets::by_name("fibbing").unwrap();
        rules.name = name.to_string();
        let refused = rules.validate().unwrap_err().to_string();
        assert!(refused.contains("name") && refused.contains("U+"), "{name:?}: {refused}");
    }
    let mut rules = presets::by_name("fibbing").unwrap();
    rules.name = "Friday's fibbing – ünïcode ok".into();
    rules.validate().unwrap();
}
