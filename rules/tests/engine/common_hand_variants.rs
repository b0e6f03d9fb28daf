//! The encyclopedia article's common-hand variants: wilds, bidding systems, push and pass,
//! dice lost or given, snyd and stairs, out-of-turn challenges, spot on, drinks and wagers;
//! and OpenSpiel's one-round game.

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

fn four(rules: &str, dice: &str, actions: &str) -> String {
    format!(
        r#"{{"rules": {rules}, "players": ["Ann", "Ben", "Cat", "Dan"], "roll_off": [{{"Ann": 6, "Ben": 1, "Cat": 1, "Dan": 1}}],
        "rounds": [{{"dice": {dice}, "actions": [{actions}]}}]}}"#
    )
}

const FOUR_DICE: &str = r#"{"Ann": [1,4,2,3,5], "Ben": [2,2,3,3,6], "Cat": [4,5,5,6,6], "Dan": [2,3,3,5,6]}"#;

#[test]
fn the_loser_loses_the_difference() {
    // "a player bids five 4s ... only two 4s and one 1; hence, the loss will be two dice."
    let (game, _) = ok(&four(r#""variable""#, FOUR_DICE, r#""Ann: five fours", "Ben: dudo""#));
    assert_eq!(game.dice_count(0), 3);
    // A true bid costs the challenger the difference, at least one die.
    let (game, _) = ok(&four(r#""variable""#, FOUR_DICE, r#""Ann: three fours", "Ben: dudo""#));
    assert_eq!(game.dice_count(1), 4);
}

#[test]
fn the_loser_gives_a_die_to_the_winner() {
    // "Player 1 would have four dice and Player 2 would have six dice."
    let (game, events) = ok(&four(
        r#"{"preset": "wikipedia-classic", "dudo_penalty": "give_to_winner"}"#,
        FOUR_DICE,
        r#""Ann: five fours", "Ben: dudo""#,
    ));
    assert_eq!((game.dice_count(0), game.dice_count(1)), (4, 6));
    assert!(events.iter().any(|e| e.kind == EventKind::DiceGiven { from: 0, to: 1, count: 1 }));
}

#[test]
fn snyd_everyone_but_the_loser_discards_and_the_last_with_dice_loses() {
    // Ann's 1 2 3 4 5 is a stair: five ones, so five fours and Cat's make six. Ben loses
    // the challenge and is the only one who keeps all his dice.
    let (game, _) = ok(&four(r#""snyd""#, FOUR_DICE, r#""Ann: five fours", "Ben: dudo""#));
    assert_eq!((0..4).map(|s| game.dice_count(s)).collect::<Vec<_>>(), vec![4, 5, 4, 4]);
    let (game, _) = ok(
        r#"{"rules": {"preset": "snyd", "dice": {"start": 1, "max": 1}}, "players": ["Ann", "Ben", "Cat"],
        "roll_off": [{"Ann": 6, "Ben": 1, "Cat": 1}],
        "rounds": [{"dice": {"Ann": [2], "Ben": [3], "Cat": [4]}, "actions": ["Ann: three fours", "Ben: dudo"]}]}"#,
    );
    // Ann lost the challenge and kept her die; the others ran out first and finish ahead.
    assert!(game.is_over());
    assert_eq!(game.standings(), vec![1, 2, 0]);
}

#[test]
fn stairs_count_as_that_many_ones() {
    // Ann holds 1 2 3 4 5: five ones, so five wild dice for any face.
    let (_, events) = ok(&four(r#""snyd""#, FOUR_DICE, r#""Ann: nine sixes", "Ben: dudo""#));
    // Sixes: Ann's stair 5, Ben 1, Cat 2, Dan 1 = 9.
    assert!(events.iter().any(|e| matches!(
        e.kind,
        EventKind::RoundSettled { showdown: Showdown::DudoOnBid { actual: 9, .. }, loser: 1, .. }
    )));
}

#[test]
fn the_classic_game_never_bids_the_wild_ones() {
    let e = refused(&four(r#""wikipedia-classic""#, FOUR_DICE, r#""Ann: two twos", "Ben: three ones""#));
    assert!(e.contains("never bid"), "{e}");
}

#[test]
fn anyone_may_challenge_out_of_turn_and_a_failed_one_costs_double() {
    let rules =
        r#"{"preset": "wikipedia-classic", "challenges": {"who": "anyone", "failed_out_of_turn": "double"}}"#;
    // Cat, not due to answer Ann, challenges a true bid and loses two dice.
    let (game, _) = ok(&four(rules, FOUR_DICE, r#""Ann: three fours", "Cat: dudo""#));
    assert_eq!(game.dice_count(2), 3);
    // In turn, a failed challenge costs one.
    let (game, _) = ok(&four(rules, FOUR_DICE, r#""Ann: three fours", "Ben: dudo""#));
    assert_eq!(game.dice_count(1), 4);
    // The bidder may not challenge herself.
    let e = refused(&four(rules, FOUR_DICE, r#""Ann: three fours", "Ann: dudo""#));
    assert!(e.contains("challenged"), "{e}");
}

#[test]
fn simultaneous_challengers_are_asked_closest_to_the_bidder_first() {
    let rules = r#"{"preset": "wikipedia-classic", "challenges": {"who": "anyone"}}"#;
    let (game, _) = ok(&four(rules, FOUR_DICE, r#""Ann: three fours", "Ben: four fours""#));
    // Ben bid; Cat is due. Out of turn, Dan then Ann: Dan sits closer to Ben in play order.
    assert_eq!(game.seats_to_ask().collect::<Vec<_>>(), vec![2, 3, 0]);
}

#[test]
fn spot_on_makes_everyone_else_lose_a_die() {
    let rules = r#"{"preset": "wikipedia-classic", "exact_call": {"who": "on_turn", "min_players": 2, "reward": "others_lose_dice"}}"#;
    // Fours and ones: Ann 1 4, Cat 4 = three.
    let (game, _) = ok(&four(rules, FOUR_DICE, r#""Ann: three fours", "Ben: spot on""#));
    assert_eq!((0..4).map(|s| game.dice_count(s)).collect::<Vec<_>>(), vec![4, 5, 4, 4]);
}

#[test]
fn drinks_follow_the_article() {
    let rules = r#"{"preset": "wikipedia-classic", "challenges": {"who": "anyone"},
        "drinks": {"tally": "on", "per_lost_round": 1, "per_die_lost": 1, "by_difference": "on"}}"#;
    // Cat's failed out-of-turn challenge: (1 for the round + 0 difference) x 2, plus 1 per die.
    let (game, events) = ok(&four(rules, FOUR_DICE, r#""Ann: three fours", "Cat: dudo""#));
    assert_eq!(game.view(0).players[2].drinks, 3);
    assert!(events.iter().any(|e| matches!(e.kind, EventKind::Drank { seat: 2, drinks: 2, .. })));
    // Spot on: right, everyone else drinks; wrong, the caller drinks double.
    let spot = r#"{"preset": "wikipedia-classic", "exact_call": {"who": "on_turn", "min_players": 2}, "drinks": {"tally": "on"}}"#;
    let (game, _) = ok(&four(spot, FOUR_DICE, r#""Ann: three fours", "Ben: spot on""#));
    let drinks: Vec<u32> = game.view(0).players.iter().map(|p| p.drinks).collect();
    assert_eq!(drinks, vec![1, 0, 1, 1]);
    let (game, _) = ok(&four(spot, FOUR_DICE, r#""Ann: two fours", "Ben: spot on""#));
    assert_eq!(game.view(0).players[1].drinks, 2);
}

#[test]
fn wagers_winner_takes_all_and_round_by_round() {
    let pot = r#"{"preset": "wikipedia-classic", "dice": {"start": 1, "max": 1}, "wager": {"mode": "winner_takes_all", "stake": 5}}"#;
    let (game, _) = ok(&format!(
        r#"{{"rules": {pot}, "players": ["Ann", "Ben", "Cat"], "roll_off": [{{"Ann": 6, "Ben": 1, "Cat": 1}}],
        "rounds": [{{"dice": {{"Ann": [2], "Ben": [3], "Cat": [4]}}, "actions": ["Ann: three fours", "Ben: dudo"]}},
                   {{"dice": {{"Ben": [3], "Cat": [4]}}, "actions": ["Ben: two fours", "Cat: dudo"]}}]}}"#
    ));
    let money: Vec<i64> = game.view(0).players.iter().map(|p| p.money).collect();
    assert_eq!(money, vec![-5, -5, 10]);
    let each = r#"{"preset": "wikipedia-classic", "dudo_penalty": "no_dice", "game_end": {"rounds": 2}, "wager": {"mode": "loser_pays_winner_each_round", "stake": 3}}"#;
    let (game, _) = ok(&format!(
        r#"{{"rules": {each}, "players": ["Ann", "Ben", "Cat"], "roll_off": [{{"Ann": 6, "Ben": 1, "Cat": 1}}],
        "rounds": [{{"dice": {{"Ann": [2,2,2,2,2], "Ben": [3,3,3,3,3], "Cat": [4,4,4,4,4]}}, "actions": ["Ann: nine fours", "Ben: dudo"]}},
                   {{"dice": {{"Ann": [2,2,2,2,2], "Ben": [3,3,3,3,3], "Cat": [4,4,4,4,4]}}, "actions": ["Ann: three twos", "Ben: dudo"]}}]}}"#
    ));
    // Round one: Ann's bid fails, she pays Ben. Round two (Ann starts again, she lost): it
    // holds, Ben pays her. Nobody lost a die; ranked by money, then seat.
    assert!(game.is_over());
    assert_eq!(game.view(0).players.iter().map(|p| p.money).collect::<Vec<_>>(), vec![0, 0, 0]);
    assert_eq!(game.dice_count(0), 5);
}
