//! Seed 002's common-hand knobs that this engine already plays (the rest have their own issue).

use dudo_rules::event::Showdown;
use dudo_rules::{Bid, EventKind};

use crate::common::{ok, refused};

fn game(rules: &str, actions: &str) -> String {
    format!(
        r#"{{"rules": {rules}, "players": ["Ann", "Ben", "Cat"], "roll_off": [{{"Ann": 6, "Ben": 1, "Cat": 1}}],
        "rounds": [{{"dice": {{"Ann": [1,2,3,4,5], "Ben": [1,6,6,6,2], "Cat": [2,3,4,5,6]}}, "actions": [{actions}]}}]}}"#
    )
}

#[test]
fn seven_fours_counts_wild_aces() {
    // "if a bid of seven fours is challenged, the bid is successful if there are seven or
    // more fours, or ... enough wild aces". Here: two fours and two aces make four.
    let (_, events) = ok(&game(r#""fibbing""#, r#""Ann: four fours", "Ben: dudo""#));
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnBid { actual: 4, .. }, loser: 1, .. }
    )));
    // Without wilds only the two fours count.
    let (_, events) = ok(&game(r#"{"wilds": "none"}"#, r#""Ann: four fours", "Ben: dudo""#));
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnBid { actual: 2, .. }, loser: 0, .. }
    )));
}

#[test]
fn six_is_wild_instead_of_one() {
    let (_, events) = ok(&game(r#"{"wilds": "highest_face"}"#, r#""Ann: five fours", "Ben: dudo""#));
    // Fours: Ann 4, Cat 4; sixes: Ben 6 6 6, Cat 6.
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnBid { actual: 6, .. }, .. }
    )));
}

#[test]
fn ones_wild_unless_the_round_opens_on_ones() {
    let rules = r#"{"wilds": "ones_unless_opened_on_ones", "opening_on_wilds": "allowed"}"#;
    let (_, events) = ok(&game(rules, r#""Ann: two ones", "Ben: three twos", "Cat: dudo""#));
    assert!(events.iter().any(|e| e.kind == EventKind::WildsOff));
    // Twos, natural: Ann 2, Ben 2, Cat 2 = three; the ones do not count.
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnBid { actual: 3, .. }, loser: 2, .. }
    )));
}

#[test]
fn bidding_systems_are_enforced_at_the_table() {
    let e = refused(&game(
        r#"{"bidding": "more_of_same_face_or_higher_face"}"#,
        r#""Ann: three fours", "Ben: five twos""#,
    ));
    assert!(e.contains("higher face"), "{e}");
    ok(&game(r#"{"bidding": "more_of_same_face_or_higher_face"}"#, r#""Ann: three fours", "Ben: one five""#));
    let e = refused(&game(
        r#"{"bidding": "above_highest_number", "wilds": "none"}"#,
        r#""Ann: four fives", "Ben: five fours""#,
    ));
    assert!(e.contains("higher number"), "{e}");
    ok(&game(
        r#"{"bidding": "higher_product", "wilds": "none"}"#,
        r#""Ann: three threes", "Ben: two fives""#,
    ));
    let e = refused(&game(r#"{"bidding": "neither_falls"}"#, r#""Ann: three fours", "Ben: four twos""#));
    assert!(e.contains("lowering neither"), "{e}");
}

#[test]
fn the_article_conversion_counts_the_last_natural_bid() {
    let rules = r#"{"wild_bids": "halve_and_double_or_last_plus_one"}"#;
    // "four 5s" -> "two 1s" -> five of any face.
    ok(&game(rules, r#""Ann: four fives", "Ben: two ones", "Cat: five twos""#));
    // Seven fives -> four ones -> needs eight (double), not nine (double plus one).
    ok(&game(rules, r#""Ann: seven fives", "Ben: four ones", "Cat: eight twos""#));
    let e = refused(&game(rules, r#""Ann: seven fives", "Ben: four ones", "Cat: seven twos""#));
    assert!(e.contains("double"), "{e}");
}

#[test]
fn push_of_matching_dice_once_per_round() {
    let rules = r#"{"push": {"dice": "matching_bid_face", "limit": "once_per_round"}}"#;
    ok(&game(rules, r#""Ann: two sixes", {"call": "Ben: push 6 6 then four sixes", "reroll": [3, 3, 3]}"#));
    let e = refused(&game(
        rules,
        r#""Ann: two sixes", {"call": "Ben: push 6 6 then four fives", "reroll": [3, 3, 3]}"#,
    ));
    assert!(e.contains("face of the new bid"), "{e}");
    let e = refused(&game(
        rules,
        r#""Ann: two fours", {"call": "Ben: push 6 then three sixes", "reroll": [3, 3, 3, 3]}, {"call": "Cat: push 6 then four sixes", "reroll": [1, 1, 1, 1]}"#,
    ));
    assert!(e.contains("already pushed"), "{e}");
}

#[test]
fn pass_with_no_two_alike_and_any_consecutive_pass_challengeable() {
    let rules = r#"{"pass": {"claim": "all_different", "limit": "once_per_round", "challenge": "any_consecutive_pass", "min_dice": 1}}"#;
    // Cat's dice are all different: her pass is true, and Ann loses the challenge.
    let (_, events) = ok(&game(rules, r#""Ann: two fours", "Ben: three fours", "Cat: pass", "Ann: dudo""#));
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnPass { pass_was_true: true }, loser: 0, .. }
    )));
    // After two passes in a row, either may be challenged, but not the bid before them.
    ok(&game(rules, r#""Ann: two fours", "Ben: pass", "Cat: pass", "Ann: dudo Ben""#));
    let e = refused(&game(rules, r#""Ann: two fours", "Ben: three fours", "Cat: pass", "Ann: dudo Ben""#));
    assert!(e.contains("challenged"), "{e}");
}

#[test]
fn openspiel_is_one_round_between_two_players() {
    let script = |calls: &str| {
        format!(
            r#"{{"rules": "openspiel", "players": ["P0", "P1"],
            "rounds": [{{"dice": {{"P0": [1,2,3,4,5], "P1": [6,6,6,2,2]}}, "actions": [{calls}]}}]}}"#
        )
    };
    // Sixes are wild but bid like any face: nothing converts.
    let e = refused(&script(r#""P0: two sixes", "P1: two ones""#));
    assert!(e.contains("does not raise"), "{e}");
    // Twos and wild sixes: P0 has one, P1 five. The bid stands; P0 loses; the game is over.
    let (game, events) = ok(&script(r#""P0: two sixes", "P1: three twos", "P0: dudo""#));
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled {
            showdown: Showdown::DudoOnBid { bid: Bid { quantity: 3, face: 2 }, actual: 6 },
            loser: 0,
            ..
        }
    )));
    assert!(game.is_over());
    assert_eq!(game.standings(), vec![1, 0]);
}

#[test]
fn west_coast_opens_on_ones_even_with_the_default_opening_rule() {
    let (_, events) = ok(&game(r#"{"wilds": "ones_unless_opened_on_ones"}"#, r#""Ann: two ones""#));
    assert!(events.iter().any(|e| e.kind == EventKind::WildsOff));
}

#[test]
fn a_matching_push_must_bid_more_than_it_shows() {
    let rules = r#"{"push": {"dice": "matching_bid_face", "limit": "once_per_round"}}"#;
    let e = refused(&game(
        rules,
        r#""Ann: one five", {"call": "Ben: push 6 6 then two sixes", "reroll": [3, 3, 3]}"#,
    ));
    assert!(e.contains("more than the dice shown"), "{e}");
}
