//! The points game: Guess, Watch and Doubt for points.

use dudo_rules::EventKind;

use crate::common::{ok, refused};

fn script(target: u32, rounds: &str) -> String {
    format!(
        r#"{{"rules": {{"preset": "points", "game_end": {{"points": {target}}}}}, "players": ["Ann", "Ben", "Cat", "Dan"],
        "roll_off": [{{"Ann": 6, "Ben": 1, "Cat": 1, "Dan": 1}}], "rounds": [{rounds}]}}"#
    )
}

const DICE: &str = r#""dice": {"Ann": [1,4,4], "Ben": [2,3,5], "Cat": [5,5,6], "Dan": [2,3,4]}"#;

fn scores(events: &[dudo_rules::Event]) -> Vec<(usize, i64, bool)> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Scored { seat, points, discarded, .. } => Some((seat, points, discarded)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_doubted_guess_scores_for_the_guesser_and_against_the_doubter() {
    // Three fives are there: Cat earns 3 x 5, Dan loses the higher of 3 and 5.
    let (game, events) = ok(&script(
        75,
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: three fours", "Cat: three fives", "Dan: doubt"]}}"#
        ),
    ));
    assert_eq!(scores(&events), vec![(2, 15, false), (3, -5, false)]);
    // The next round starts with the next player in order.
    assert_eq!(game.turn(), Some(1));
    // A wrong guess costs the guesser quantity times face; the doubter earns the higher number.
    let (_, events) = ok(&script(
        75,
        &format!(r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: four fours", "Cat: doubt"]}}"#),
    ));
    assert_eq!(scores(&events), vec![(1, -16, false), (2, 4, false)]);
}

#[test]
fn watchers_keep_their_last_guess_for_reduced_points() {
    // "If your guess was 3 dice showing 4 -> you earn 4 points instead of 12."
    let (_, events) = ok(&script(
        75,
        &format!(
            r#"{{{DICE}, "actions": ["Ann: three fours", "Ben: three fives", "Cat: four fives", "Dan: four sixes",
                "Ann: watch", "Ben: watch", "Cat: watch"]}}"#
        ),
    ));
    // Dan is the one guess left: four sixes, and there is one six: -24. Ann's three fours
    // (Ann 4 4, Dan 4) earn 4; Ben's three fives (three) earn 5; Cat's four fives are wrong
    // and cost the reduced 5.
    let mut got = scores(&events);
    got.sort_unstable();
    assert_eq!(got, vec![(0, 4, false), (1, 5, false), (2, -5, false), (3, -24, false)]);
}

#[test]
fn watch_needs_a_guess_first_and_the_first_player_can_only_guess() {
    let e = refused(&script(75, r#"{"actions": ["Ann: watch"]}"#));
    assert!(e.contains("after making a guess"), "{e}");
    let e = refused(&script(75, r#"{"actions": ["Ann: doubt"]}"#));
    assert!(e.contains("no bid yet"), "{e}");
    let e = refused(&script(75, r#"{"actions": ["Ann: two fours", "Ben: watch"]}"#));
    assert!(e.contains("after making a guess"), "{e}");
}

#[test]
fn points_that_would_pass_the_target_are_discarded_and_the_target_wins() {
    // Target 10: Cat's 15 would pass it and is discarded.
    let (game, events) = ok(&script(
        10,
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: three fours", "Cat: three fives", "Dan: doubt"]}}"#
        ),
    ));
    assert_eq!(scores(&events)[0], (2, 15, true));
    assert_eq!(game.view(0).players[2].score, 0);
    assert!(!game.is_over());
    // Target 15: Cat reaches it exactly and wins.
    let (game, _) = ok(&script(
        15,
        &format!(
            r#"{{{DICE}, "actions": ["Ann: two fours", "Ben: three fours", "Cat: three fives", "Dan: doubt"]}}"#
        ),
    ));
    assert!(game.is_over());
    assert_eq!(game.standings()[0], 2);
}

#[test]
fn guesses_may_not_lower_the_quantity_or_the_number() {
    let e = refused(&script(75, r#"{"actions": ["Ann: three fours", "Ben: four threes"]}"#));
    assert!(e.contains("lowering neither"), "{e}");
    let e = refused(&script(75, r#"{"actions": ["Ann: thirteen fours"]}"#));
    assert!(e.contains("12"), "{e}");
}
