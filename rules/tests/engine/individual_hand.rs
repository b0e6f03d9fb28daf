//! The encyclopedia article's individual-hand games: Liar Dice with poker dice, Stanford,
//! Mexican.

use dudo_rules::hand::{Hand, HandGame};
use dudo_rules::{EventKind, Game, Viewer, presets, seed_from_u64};

use crate::common::{ok, refused};

fn claims(events: &[dudo_rules::Event], game: HandGame) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Claimed { claim, .. } => Some(claim.text(game)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_four_player_example_hand() {
    // 9=1 T=2 J=3 Q=4 K=5 A=6.
    let (game, events) = ok(r#"{"rules": "poker-dice", "players": ["a", "b", "c", "d"],
        "roll_off": [{"a": 6, "b": 1, "c": 1, "d": 1}],
        "rounds": [{"actions": [
            {"call": "a: roll all", "reroll": [2, 2, 6, 4, 1]},
            "a: a pair",
            {"call": "b: roll 3 4 5", "reroll": [5, 5, 3]},
            "b: two pairs",
            {"call": "c: roll 5", "reroll": [1]},
            "c: better",
            {"call": "d: roll 1 2 5", "reroll": [5, 6, 3]},
            "d: two pairs, jacks on top",
            "a: three queens",
            "b: dudo"
        ]}]}"#);
    let g = HandGame::PokerDice;
    // "a pair" meaning 99QJT; "two pairs" TT99J; "better" TT99Q; "jacks on top" JJ99T.
    assert_eq!(claims(&events, g), vec!["99QJT", "TT99J", "TT99Q", "JJ99T", "QQQT9"]);
    // "[b] challenges and loses a life as the dice are three kings".
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::ChallengeSettled { hand, winner: 0, loser: 1, .. } if hand.text(g) == "KKKAJ")));
    assert_eq!(game.dice_count(1), 2);
    // "[b] thus misses a turn and [c] starts the next hand."
    assert!(events.iter().any(|e| e.kind == EventKind::HandStarted { hand: 2, starter: 2 }));
    assert_eq!(game.turn(), Some(2));
}

#[test]
fn the_number_rolled_is_public_and_the_dice_are_not() {
    let (game, events) = ok(r#"{"rules": "poker-dice", "players": ["a", "b", "c"],
        "roll_off": [{"a": 6, "b": 1, "c": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [2, 2, 6, 4, 1]}, "a: a pair",
                                {"call": "b: roll 3 4 5", "reroll": [5, 5, 3]}]}]}"#);
    for e in &events {
        if let EventKind::HandSeen { seat, .. } = e.kind {
            for other in 0..3 {
                assert_eq!(e.audience.admits(Viewer::Seat(other), false), other == seat, "{e:?}");
            }
            assert!(!e.audience.admits(Viewer::Spectator, false));
        }
    }
    assert!(events.iter().any(|e| e.kind == EventKind::HandRolled { seat: 1, count: 3 }));
    // b holds and sees; a passed the dice but b re-rolled three: a no longer knows them; c never did.
    let seen = |seat| game.view(seat).hand.unwrap().dice;
    assert!(seen(1).iter().all(Option::is_some));
    assert!(seen(0).iter().all(Option::is_none));
    assert!(seen(2).iter().all(Option::is_none));
    assert!(game.spectator_view().hand.unwrap().dice.iter().all(Option::is_none));
}

#[test]
fn an_undercall_is_treated_as_better() {
    let (_, events) = ok(r#"{"rules": "poker-dice", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [2, 2, 6, 4, 1]}, "a: three queens", "b: a pair"]}]}"#);
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::Claimed { spoken, claim, .. } if spoken.text(HandGame::PokerDice) == "99QJT" && claim.text(HandGame::PokerDice) == "QQQJ9")));
    let e = refused(
        r#"{"rules": {"preset": "poker-dice", "hand": {"undercall": "refused"}}, "players": ["a", "b"],
        "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [2, 2, 6, 4, 1]}, "a: three queens", "b: a pair"]}]}"#,
    );
    assert!(e.contains("does not beat"), "{e}");
}

#[test]
fn the_starting_player_must_roll_all_five_and_one_roll_per_turn() {
    let e = refused(
        r#"{"rules": "poker-dice", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": ["a: roll 1 2"]}]}"#,
    );
    assert!(e.contains("every die"), "{e}");
    let e = refused(
        r#"{"rules": "poker-dice", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": ["a: a pair"]}]}"#,
    );
    assert!(e.contains("roll the dice before claiming"), "{e}");
    let e = refused(
        r#"{"rules": "poker-dice", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": ["a: roll all", "b: dudo"]}]}"#,
    );
    assert!(e.contains("turn"), "{e}");
}

#[test]
fn five_aces_must_be_rolled_in_three_tries() {
    let script = |tries: &str| {
        format!(
            r#"{{"rules": "poker-dice", "players": ["a", "b", "c"], "roll_off": [{{"a": 6, "b": 1, "c": 1}}],
            "rounds": [{{"actions": [{{"call": "a: roll all", "reroll": [6, 6, 6, 6, 6]}}, "a: AAAAA", {tries}]}}]}}"#
        )
    };
    // b accepts and rolls them on the second try: nobody loses a life, c starts.
    let (game, events) = ok(&script(
        r#"{"call": "b: roll all", "reroll": [6, 6, 6, 1, 2]}, {"call": "b: roll 4 5", "reroll": [6, 6]}"#,
    ));
    assert!(events.iter().any(|e| e.kind == EventKind::FiveAces { seat: 1, made: true }));
    assert_eq!((game.dice_count(0), game.dice_count(1)), (3, 3));
    assert_eq!(game.turn(), Some(2));
    // Three misses cost b a life.
    let (game, events) = ok(&script(
        r#"{"call": "b: roll all", "reroll": [1, 1, 1, 1, 1]}, {"call": "b: roll all", "reroll": [1, 1, 1, 1, 1]}, {"call": "b: roll all", "reroll": [6, 6, 6, 6, 5]}"#,
    ));
    assert!(events.iter().any(|e| e.kind == EventKind::FiveAces { seat: 1, made: false }));
    assert_eq!(game.dice_count(1), 2);
    // Nothing beats five aces: no claim, but a challenge is allowed.
    let e = refused(&script(r#""b: better""#));
    assert!(e.contains("nothing beats"), "{e}");
}

#[test]
fn the_dogs_life_for_the_first_player_out() {
    let rules = r#"{"preset": "poker-dice", "hand": {"lives": 1}}"#;
    let base = |decide: &str| {
        format!(
            r#"{{"rules": {rules}, "players": ["a", "b", "c"], "roll_off": [{{"a": 6, "b": 1, "c": 1}}],
            "rounds": [{{"actions": [{{"call": "a: roll all", "reroll": [1, 2, 3, 4, 6]}}, "a: AAAAA", "b: dudo", {decide}]}}]}}"#
        )
    };
    // a bluffed five aces and is caught: out of lives, a may bark.
    let (game, events) = ok(&base(r#""a: bark""#));
    assert!(events.iter().any(|e| e.kind == EventKind::DogsLife { seat: 0, barked: true }));
    assert_eq!(game.dice_count(0), 1);
    assert!(game.is_active(0));
    let (game, _) = ok(&base(r#""a: decline""#));
    assert!(!game.is_active(0));
    // Declined, it stays on offer: b may take it later (its view says it is not taken).
    assert!(!game.view(1).hand.unwrap().dogs_life_taken);
    let e = refused(&base(r#""b: bark""#));
    assert!(e.contains("turn") || e.contains("dog"), "{e}");
}

#[test]
fn stanford_dice_rolled_outside_the_box_are_seen_by_all() {
    let (game, events) = ok(
        r#"{"rules": "stanford", "players": ["a", "b", "c"], "roll_off": [{"a": 6, "b": 1, "c": 1}],
        "rounds": [{"actions": [{"call": "a: roll all show 1 2", "reroll": [6, 6, 6, 3, 2, 1]}, "a: three 6s"]}]}"#,
    );
    assert!(
        events.iter().any(
            |e| matches!(&e.kind, EventKind::DiceShown { seat: 0, dice } if dice == &vec![(0, 6), (1, 6)])
        )
    );
    let seen = game.view(2).hand.unwrap().dice;
    assert_eq!(&seen[..2], &[Some(6), Some(6)]);
    assert!(seen[2..].iter().all(Option::is_none));
    assert!(claims(&events, HandGame::Stanford) == vec!["666321"]);
    // Poker dice do not allow it.
    let e = refused(
        r#"{"rules": "poker-dice", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": ["a: roll all show 1"]}]}"#,
    );
    assert!(e.contains("outside the box"), "{e}");
}

#[test]
fn mexican_bluffs_cost_two_drinks_and_a_mexican_shows_its_one() {
    let drinks = |game: &Game| game.view(0).players.iter().map(|p| p.drinks).collect::<Vec<u32>>();
    // a rolls 5 4 3 and claims 654; b challenges: a bluffed, a drinks two and starts again.
    let (game, _) =
        ok(r#"{"rules": "mexican", "players": ["a", "b", "c"], "roll_off": [{"a": 6, "b": 1, "c": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [5, 4, 3]}, "a: 654", "b: dudo"]}]}"#);
    assert_eq!(drinks(&game), vec![2, 0, 0]);
    assert_eq!(game.turn(), Some(0));
    // A Mexican claim without a one under the cup is refused.
    let e = refused(
        r#"{"rules": "mexican", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [5, 4, 3]}, "a: mexican"]}]}"#,
    );
    assert!(e.contains("showing a one"), "{e}");
    // With a one, the one is shown; believed, the receiver catches the cup and drinks.
    let (game, events) = ok(r#"{"rules": "mexican", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [1, 5, 5]}, "a: mexican", "b: accept"]}]}"#);
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::DiceShown { seat: 0, dice } if dice == &vec![(0, 1)]))
    );
    assert!(events.iter().any(|e| matches!(e.kind, EventKind::CupCaught { seat: 1, .. })));
    assert!(drinks(&game)[1] >= 1);
    // Another roll costs a drink.
    let (game, _) = ok(r#"{"rules": "mexican", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [2, 1, 1]}, {"call": "a: roll all", "reroll": [6, 6, 5]}, "a: 665"]}]}"#);
    assert_eq!(drinks(&game), vec![1, 0]);
}

#[test]
fn legal_claims_leave_out_a_mexican_without_a_one() {
    use dudo_rules::Action;
    let mexican = Action::Claim(Hand::new(vec![3, 2, 1]));
    let hand = |dice: &[u8]| Hand::new(dice.to_vec());
    // No one under the cup: every claim up to 666, the hand below the Mexican, and not it.
    let (game, _) = ok(r#"{"rules": "mexican", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [5, 4, 3]}]}]}"#);
    let legal = game.legal(0);
    assert_eq!(
        (legal.claim_from.clone(), legal.claim_to.clone()),
        (Some(hand(&[2, 1, 1])), Some(hand(&[6, 6, 6])))
    );
    let actions = legal.actions();
    assert!(!actions.contains(&mexican) && actions.contains(&Action::Claim(hand(&[6, 6, 6]))));
    assert!(actions.iter().all(|a| game.check(0, a).is_ok()));
    // With a one, the Mexican is on offer.
    let (game, _) = ok(r#"{"rules": "mexican", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [1, 5, 5]}]}]}"#);
    assert_eq!(game.legal(0).claim_to, None);
    assert!(game.legal(0).actions().contains(&mexican));
    // Handed 666, only the Mexican beats it: no claim without a one, another roll instead;
    // with a one, the Mexican is the one claim.
    let script = |reroll: &str| {
        format!(
            r#"{{"rules": "mexican", "players": ["a", "b"], "roll_off": [{{"a": 6, "b": 1}}],
            "rounds": [{{"actions": [{{"call": "a: roll all", "reroll": [6, 6, 6]}}, "a: 666",
                                     {{"call": "b: roll all", "reroll": {reroll}}}]}}]}}"#
        )
    };
    let (game, _) = ok(&script("[5, 4, 3]"));
    let legal = game.legal(1);
    assert_eq!(legal.claim_from, None);
    assert_eq!(legal.roll.map(|r| r.drinks), Some(1));
    assert!(game.check(1, &mexican).is_err());
    assert_eq!(game.default_action(1), Some(Action::Roll { dice: vec![0, 1, 2], show: vec![] }));
    let (game, _) = ok(&script("[4, 1, 4]"));
    let legal = game.legal(1);
    assert_eq!((legal.claim_from, legal.claim_to), (Some(hand(&[3, 2, 1])), None));
    assert!(game.check(1, &mexican).is_ok());
}

#[test]
fn a_bluff_on_a_betty_ford_costs_ten() {
    let (game, _) =
        ok(r#"{"rules": "mexican-two-dice", "players": ["a", "b"], "roll_off": [{"a": 6, "b": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [5, 4]}, "a: 66", "b: dudo"]}]}"#);
    assert_eq!(game.view(0).players[0].drinks, 10);
}

#[test]
fn mexican_ends_after_its_rounds_fewest_drinks_first() {
    let mut rules = presets::mexican(dudo_rules::ruleset::Family::Mexican, "mexican");
    rules.game_end = dudo_rules::ruleset::GameEnd::Rounds(1);
    let (mut game, _) = Game::start(rules, 2, seed_from_u64(4)).unwrap();
    let turn = game.turn().unwrap();
    game.apply(turn, &dudo_rules::Action::Roll { dice: vec![0, 1, 2], show: vec![] }).unwrap();
    game.apply(turn, &dudo_rules::Action::Claim(Hand::new(vec![6, 6, 6]))).unwrap();
    game.apply(1 - turn, &dudo_rules::Action::Dudo { target: None }).unwrap();
    assert!(game.is_over());
    let v = game.spectator_view();
    let w = game.standings()[0];
    assert!(v.players[w].drinks <= v.players[1 - w].drinks);
}

#[test]
fn an_absent_player_passes_the_dice_unrolled_as_better() {
    // The Königswinter rule: the default action of a player who does not answer.
    let (game, _) =
        ok(r#"{"rules": "poker-dice", "players": ["a", "b", "c"], "roll_off": [{"a": 6, "b": 1, "c": 1}],
        "rounds": [{"actions": [{"call": "a: roll all", "reroll": [2, 2, 6, 4, 1]}, "a: a pair"]}]}"#);
    let better = HandGame::PokerDice.better(&Hand::new(vec![1, 1, 4, 3, 2])).unwrap();
    assert_eq!(game.default_action(1), Some(dudo_rules::Action::Claim(better)));
    // Every default action is legal, for every preset, until the game ends.
    for name in presets::NAMES {
        let rules = presets::by_name(name).unwrap();
        let seats = usize::from(rules.players.min)
            .max(if *name == "points" { 4 } else { 3 })
            .min(usize::from(rules.players.max));
        let (mut g, _) = Game::start(rules, seats, seed_from_u64(7)).unwrap();
        let mut steps = 0;
        while let Some(seat) = g.turn() {
            let action = g.default_action(seat).unwrap();
            g.apply(seat, &action).unwrap_or_else(|e| panic!("{name}: {action} refused: {e}"));
            steps += 1;
            if steps > 5_000 {
                break;
            }
        }
    }
}
