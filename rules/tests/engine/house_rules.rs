//! The house rules (push and re-roll, pass, Exact once a game, the first one-die round):
//! the `house` preset.

use dudo_rules::event::Showdown;
use dudo_rules::{Bid, EventKind};

use crate::common::{ok, refused};

fn house(start: &str, rounds: &str) -> String {
    format!(
        r#"{{"rules": "house", "players": ["Ann", "Ben", "Cat", "Dan"], "start_dice": {{{start}}}, "rounds": [{rounds}]}}"#
    )
}

const DICE: &str =
    r#""dice": {"Ann": [2,2,3,4,6], "Ben": [5,5,2,3,4], "Cat": [2,3,4,6,6], "Dan": [2,2,3,3,4]}"#;

#[test]
fn push_shows_dice_to_all_rerolls_the_rest_and_raises() {
    let (game, events) = ok(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two threes", {{"call": "Ben: push 5 5 then four fives", "reroll": [1, 6, 6]}}]}}"#
        ),
    ));
    assert!(events.iter().any(|e| e.kind == EventKind::DicePushed { seat: 1, pushed: vec![5, 5] }));
    assert_eq!(game.view(2).players[1].pushed, vec![5, 5]);
    assert_eq!(game.view(1).my_dice, vec![Some(1), Some(6), Some(6)]);
    assert_eq!(game.current_bid(), Some((1, Bid::new(4, 5))));
}

#[test]
fn pushed_dice_are_never_rerolled_and_count_in_a_challenge() {
    let (game, events) = ok(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two threes", {{"call": "Ben: push 5 5 then four fives", "reroll": [1, 6, 5]}},
                "Cat: five fives", "Dan: six fives", "Ann: seven fives", {{"call": "Ben: push 5 then eight fives", "reroll": [5, 5]}},
                "Cat: dudo"]}}, {{"actions": []}}"#
        ),
    ));
    // Ben ends with 5 5 5 pushed and 5 5 under the cup: the one from his first re-roll was
    // re-rolled by the second push, the pushed fives never were. Five fives, not eight.
    assert!(events.iter().any(|e| e.kind == EventKind::DicePushed { seat: 1, pushed: vec![5] }));
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnBid { actual: 5, .. }, loser: 1, .. }
    )));
    assert_eq!(game.dice_count(1), 4);
}

#[test]
fn push_refusals_name_the_rule() {
    let r = |calls: &str| {
        refused(&house(
            r#""Ben": 2"#,
            &format!(
                r#"{{"dice": {{"Ann": [2,2,3,4,6], "Ben": [5,5], "Cat": [2,3,4,6,6], "Dan": [2,2,3,3,4]}}, "actions": [{calls}]}}"#
            ),
        ))
    };
    assert!(r(r#""Ann: two threes", "Ben: push 5 5 then three fives""#).contains("stay under the cup"));
    assert!(r(r#""Ann: two threes", "Ben: push 6 then three sixes""#).contains("no such die"));
    assert!(r(r#""Ann: two threes", "Ben: push 5 then two twos""#).contains("does not raise"));
    let opening = refused(&house("", &format!(r#"{{{DICE}, "actions": ["Ann: push 2 then two twos"]}}"#)));
    assert!(opening.contains("open the round"), "{opening}");
}

#[test]
fn pass_is_a_claim_that_all_your_dice_match() {
    let dice = |ben: &str| {
        format!(r#""dice": {{"Ann": [2,2,3,4,6], "Ben": {ben}, "Cat": [2,3,4,6,6], "Dan": [2,2,3,3,4]}}"#)
    };
    // True pass: the challenger loses and starts.
    let (game, events) = ok(&house(
        "",
        &format!(
            r#"{{{}, "actions": ["Ann: two fours", "Ben: pass", "Cat: dudo"]}}, {{"actions": []}}"#,
            dice("[3,3,3,3,3]")
        ),
    ));
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnPass { pass_was_true: true }, loser: 2, .. }
    )));
    assert_eq!(game.turn(), Some(2));
    // A false pass: ones are not wild for a pass ("Passes must be natural").
    let (game, _) = ok(&house(
        "",
        &format!(
            r#"{{{}, "actions": ["Ann: two fours", "Ben: pass", "Cat: dudo"]}}, {{"actions": []}}"#,
            dice("[1,3,3,3,3]")
        ),
    ));
    assert_eq!(game.dice_count(1), 4);
}

#[test]
fn after_a_pass_the_claim_before_it_may_be_challenged_but_not_after_two() {
    // "When the last action was a pass, the preceding bid or pass can also be challenged."
    ok(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: pass", "Cat: dudo Ann"]}}, {{"actions": []}}"#
        ),
    ));
    // "If the last two actions were passes, the preceding bid or pass cannot be challenged."
    let e = refused(&house(
        "",
        &format!(r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: pass", "Cat: pass", "Dan: dudo Ann"]}}"#),
    ));
    assert!(e.contains("challenged"), "{e}");
    ok(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: pass", "Cat: pass", "Dan: dudo Ben"]}}, {{"actions": []}}"#
        ),
    ));
}

#[test]
fn pass_once_per_set_of_dice_again_after_a_reroll_and_with_two_dice_or_more() {
    let e = refused(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: pass", "Cat: three fours", "Dan: four fours", "Ann: five fours", "Ben: pass"]}}"#
        ),
    ));
    assert!(e.contains("already"), "{e}");
    ok(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: pass", "Cat: three fours", "Dan: four fours", "Ann: five fours", {{"call": "Ben: push 5 then six fours", "reroll": [4, 4, 4, 4]}}, "Cat: seven fours", "Dan: eight fours", "Ann: nine fours", "Ben: pass"]}}"#
        ),
    ));
    let e = refused(&house(
        r#""Ben": 1"#,
        r#"{"dice": {"Ann": [2,2,3,4,6], "Ben": [5], "Cat": [2,3,4,6,6], "Dan": [2,2,3,3,4]}, "actions": ["Ann: two fours", "Ben: pass"]}"#,
    ));
    assert!(e.contains("too few"), "{e}");
}

#[test]
fn exact_once_per_game_and_a_die_back_only_if_lost() {
    let (game, events) = ok(&house(
        "",
        &format!(r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: exact"]}}, {{"actions": []}}"#),
    ));
    // Fours and ones: Ann 4, Ben 4, Cat 4, Dan 4 = four, not two: Ben loses a die.
    assert_eq!(game.dice_count(1), 4);
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::Calza { actual: 4, .. }, .. }
    )));
    let e = refused(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: exact"]}}, {{"actions": ["Ben: one two", "Cat: two twos", "Dan: three twos", "Ann: four twos", "Ben: exact"]}}"#
        ),
    ));
    assert!(e.contains("one per game"), "{e}");
    // Right, and at full dice: nothing to win back.
    let (_, events) = ok(&house(
        "",
        &format!(r#"{{{DICE}, "actions": ["Ann: four fours", "Ben: exact"]}}, {{"actions": []}}"#),
    ));
    assert!(events.iter().any(|e| e.kind == EventKind::DiceWon { seat: 1, count: 0, now: 5 }));
}

#[test]
fn special_rules_ones_plain_and_lowest_only_one_die_players_change_face() {
    // Ann drops to one die; Ben has held one die from the start (a handicap).
    let game = |r2: &str| {
        house(
            r#""Ann": 2, "Ben": 1"#,
            &format!(
                r#"{{"dice": {{"Ann": [2,3], "Ben": [2], "Cat": [3,3,3,3,3], "Dan": [3,3,3,3,3]}}, "actions": ["Ann: two sixes", "Ben: dudo"]}},
                {{"dice": {{"Ann": [1], "Ben": [2], "Cat": [3,3,3,3,3], "Dan": [3,3,3,3,3]}}, "actions": [{r2}]}}"#
            ),
        )
    };
    // "one one" is the lowest bid, "two ones" follows "one six".
    ok(&game(r#""Ann: one one""#));
    ok(&game(r#""Ann: one six", "Ben: two ones""#));
    // Cat holds five dice: she keeps the face; Ann and Ben, on one die, may change it.
    let e = refused(&game(r#""Ann: one three", "Ben: two threes", "Cat: three fours""#));
    assert!(e.contains("locked"), "{e}");
    ok(&game(
        r#""Ann: one three", "Ben: two threes", "Cat: three threes", "Dan: four threes", "Ann: four fours""#,
    ));
    // Ones are not wild: two twos is only Ben's two, so Ben loses his last die.
    let (g, _) = ok(&game(r#""Ann: one two", "Ben: two twos", "Cat: dudo""#));
    assert!(!g.is_active(1));
}

#[test]
fn special_rules_only_the_first_time_a_player_has_one_die() {
    // Ann drops to one die, wins one back with her exact, and drops again: a normal round.
    let (_, events) = ok(&house(
        r#""Ann": 2"#,
        r#"{"dice": {"Ann": [2,3], "Ben": [2,2,3,3,3], "Cat": [2,2,3,3,3], "Dan": [3,3,3,3,3]}, "actions": ["Ann: two sixes", "Ben: dudo"]},
           {"dice": {"Ann": [1], "Ben": [2,2,3,3,3], "Cat": [2,2,3,3,3], "Dan": [3,3,3,3,3]}, "actions": ["Ann: one two", "Ben: two twos", "Cat: three twos", "Dan: four twos", "Ann: exact"]},
           {"dice": {"Ann": [4,5], "Ben": [2,2,3,3,3], "Cat": [2,2,3,3,3], "Dan": [3,3,3,3,3]}, "actions": ["Ann: one six", "Ben: dudo"]},
           {"actions": []}"#,
    ));
    let special: Vec<bool> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RoundStarted { palifico, .. } => Some(!palifico.is_empty()),
            _ => None,
        })
        .collect();
    assert_eq!(special, vec![false, true, false, false]);
}

#[test]
fn nobody_calls_exact_on_their_own_bid() {
    let e = refused(&house(
        "",
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: pass", "Cat: pass", "Dan: pass", "Ann: exact"]}}"#
        ),
    ));
    assert!(e.contains("made the bid"), "{e}");
}
