//! Perudo as the Perudo blog post plays it (opening on ones, the winner starts, Jonti,
//! Palifico that locks the face): the `perudo-jonti` preset.

use dudo_rules::EventKind;

use crate::common::{ok, refused};

#[test]
fn the_first_seat_starts_and_may_open_on_ones() {
    let (game, _) = ok(r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: three ones"]}]}"#);
    assert_eq!(game.current_bid().map(|b| b.1.face), Some(1));
}

#[test]
fn ones_halve_and_double_plus_one() {
    // "If Player 1 had said an odd number (like 7) then Player 2 would have had to say a
    // minimum of four 1's"; "three 1's ... a minimum of seven of any other number".
    let e = refused(
        r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: seven fours", "Ben: three ones"]}]}"#,
    );
    assert!(e.contains("half"), "{e}");
    ok(r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: seven fours", "Ben: four ones", "Cat: nine twos"]}]}"#);
    let e = refused(
        r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: three ones", "Ben: six fives"]}]}"#,
    );
    assert!(e.contains("double"), "{e}");
}

#[test]
fn the_winner_starts_the_next_round() {
    let (game, _) = ok(r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"dice": {"Ann": [2,3,4,5,6], "Ben": [2,3,4,5,6], "Cat": [2,3,4,5,6]},
                    "actions": ["Ann: five sixes", "Ben: dudo"]}]}"#);
    assert_eq!(game.dice_count(0), 4);
    assert_eq!(game.turn(), Some(1));
}

#[test]
fn jonti_only_on_your_turn_and_never_above_five_dice() {
    let e = refused(
        r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: two threes", "Cat: jonti"]}]}"#,
    );
    assert!(e.contains("turn"), "{e}");
    // Right, at five dice: no die gained; the winner (the caller) starts.
    let (game, events) = ok(r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben"],
        "rounds": [{"dice": {"Ann": [2,2,4,5,6], "Ben": [1,3,4,5,6]}, "actions": ["Ann: three twos", "Ben: jonti"]}]}"#);
    assert!(events.iter().any(|e| e.kind == EventKind::DiceWon { seat: 1, count: 0, now: 5 }));
    assert_eq!(game.turn(), Some(1));
    // Wrong: the caller loses a die and the bidder, who won, starts.
    let (game, _) = ok(r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben"],
        "rounds": [{"dice": {"Ann": [2,2,2,5,6], "Ben": [1,3,4,5,6]}, "actions": ["Ann: three twos", "Ben: jonti"]}]}"#);
    assert_eq!(game.dice_count(1), 4);
    assert_eq!(game.turn(), Some(0));
}

#[test]
fn palifico_every_time_one_die_opens_and_nobody_changes_the_face() {
    let script = |r2: &str| {
        format!(
            r#"{{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"], "start_dice": {{"Cat": 2}},
            "rounds": [
              {{"dice": {{"Ann": [4,4,2,2,2], "Ben": [2,2,2,2,2], "Cat": [3,4]}}, "actions": ["Ann: two fours", "Ben: three fours", "Cat: dudo"]}},
              {{"actions": [{r2}]}}
            ]}}"#
        )
    };
    // Ben won round one and would start, but Cat, down to one die, opens the Palifico round.
    let (game, events) = ok(&script(""));
    assert!(events.iter().any(|e| matches!(&e.kind, EventKind::RoundStarted { round: 2, starter: 2, palifico, wild: None, .. } if palifico == &vec![2])));
    assert_eq!(game.turn(), Some(2));
    let e = refused(&script(r#""Cat: two threes", "Ann: three fours""#));
    assert!(e.contains("locked"), "{e}");
}

#[test]
fn palifico_again_after_winning_a_die_back_and_losing_it() {
    // The blog post's Palifico comes on reaching one die, every time (unlike the house rules').
    let (_, events) = ok(
        r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"], "start_dice": {"Cat": 2},
        "rounds": [
          {"dice": {"Ann": [4,4,2,2,2], "Ben": [2,2,2,2,2], "Cat": [3,4]}, "actions": ["Ann: two fours", "Ben: three fours", "Cat: dudo"]},
          {"dice": {"Ann": [3,3,2,2,2], "Ben": [4,4,2,2,2], "Cat": [3]}, "actions": ["Cat: one three", "Ann: two threes", "Ben: three threes", "Cat: jonti"]},
          {"dice": {"Ann": [2,2,2,2,2], "Ben": [4,4,2,2,2], "Cat": [3,4]}, "actions": ["Cat: two threes", "Ann: dudo"]},
          {"actions": []}
        ]}"#,
    );
    let palifico_rounds: Vec<u32> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RoundStarted { round, palifico, .. } if !palifico.is_empty() => Some(*round),
            _ => None,
        })
        .collect();
    assert_eq!(palifico_rounds, vec![2, 4]);
}

#[test]
fn a_raise_must_be_more_dice() {
    // "he must go 1 or more higher in number, but he DOES NOT have to use the same die digit"
    let e = refused(
        r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: six fours", "Ben: six fives"]}]}"#,
    );
    assert!(e.contains("more dice"), "{e}");
    ok(r#"{"rules": "perudo-jonti", "players": ["Ann", "Ben", "Cat"],
        "rounds": [{"actions": ["Ann: six fours", "Ben: seven twos"]}]}"#);
}
