//! Perudo as the Fibbing Dice manual plays it (Dudo, Calza, Palifico, the host's settings):
//! the `fibbing` preset.

use dudo_rules::event::Showdown;
use dudo_rules::{Action, Bid, EventKind, Game, Viewer, seed_from_u64};

use crate::common::{kinds, ok, refused};

const THREE: &str = r#""players": ["Ann", "Ben", "Cat"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}]"#;

#[test]
fn roll_off_rerolls_only_the_tied() {
    // "If there is a draw, keep rolling until there is a winner."
    let (game, events) = ok(r#"{"rules": "fibbing", "players": ["Ann", "Ben", "Cat"],
        "roll_off": [{"Ann": 6, "Ben": 6, "Cat": 3}, {"Ann": 2, "Ben": 5}],
        "rounds": []}"#);
    let k = kinds(&events);
    assert_eq!(k[1], &EventKind::RollOff { rolls: vec![(0, 6), (1, 6), (2, 3)] });
    assert_eq!(k[2], &EventKind::RollOff { rolls: vec![(0, 2), (1, 5)] });
    assert_eq!(k[3], &EventKind::StarterChosen { seat: 1 });
    assert_eq!(game.turn(), Some(1));
}

#[test]
fn no_opening_on_ones_in_a_normal_round() {
    let e =
        refused(&format!(r#"{{"rules": "fibbing", {THREE}, "rounds": [{{"actions": ["Ann: two ones"]}}]}}"#));
    assert!(e.contains("opening bid"), "{e}");
}

#[test]
fn dudo_loser_loses_the_dice_the_host_set_and_starts() {
    // "Dice lost on dudo" is a host setting; the loser starts the next round.
    let (game, events) = ok(&format!(
        r#"{{"rules": {{"preset": "fibbing", "dice_lost_on_dudo": 2}}, {THREE},
        "rounds": [{{"dice": {{"Ann": [2,2,3,4,5], "Ben": [1,6,6,6,6], "Cat": [3,3,4,4,5]}},
                    "actions": ["Ann: three twos", "Ben: dudo"]}}]}}"#
    ));
    // Twos: Ann 2, Ben's one is wild: three, so the bid stands and Ben loses two dice.
    assert!(kinds(&events).contains(&&EventKind::RoundSettled {
        showdown: Showdown::DudoOnBid { bid: Bid::new(3, 2), actual: 3 },
        winner: 0,
        loser: 1
    }));
    assert_eq!(game.dice_count(1), 3);
    assert_eq!(game.turn(), Some(1));
}

#[test]
fn an_eliminated_loser_passes_the_start_to_the_next_player() {
    let (game, _) = ok(r#"{"rules": {"preset": "fibbing", "dice": {"start": 1, "max": 1}},
        "players": ["Ann", "Ben", "Cat"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [{"dice": {"Ann": [3], "Ben": [4], "Cat": [5]}, "actions": ["Ann: three threes", "Ben: dudo"]}]}"#);
    // Ann lost her only die; the player after her starts.
    assert!(!game.is_active(0));
    assert_eq!(game.turn(), Some(1));
}

#[test]
fn calza_is_refused_to_the_bidder_and_the_next_player() {
    let base = |who: &str| {
        format!(
            r#"{{"rules": "fibbing", {THREE}, "rounds": [{{"actions": ["Ann: two threes", "{who}: calza"]}}]}}"#
        )
    };
    assert!(refused(&base("Ann")).contains("made the bid"));
    assert!(refused(&base("Ben")).contains("due to answer"));
    // Cat is neither: allowed.
    let run = crate::common::run(&base("Cat"));
    assert!(run.error.is_none(), "{:?}", run.error);
}

#[test]
fn calza_right_wins_a_die_up_to_the_maximum_and_the_caller_starts() {
    let (game, events) = ok(&format!(
        r#"{{"rules": "fibbing", {THREE},
        "rounds": [
          {{"dice": {{"Ann": [2,3,4,5,6], "Ben": [2,3,4,5,6], "Cat": [2,3,4,5,6]}}, "actions": ["Ann: three twos", "Ben: dudo"]}},
          {{"dice": {{"Ann": [2,2,4,5,6], "Ben": [1,3,4,5], "Cat": [2,3,4,5,6]}}, "actions": ["Ben: four twos", "Ann: calza"]}}
        ]}}"#
    ));
    // Round 1: three twos were there, Ben lost a die. Round 2: Ann 2+2, Ben's one, Cat's 2:
    // exactly four. Ann is at the maximum, so she wins nothing, but she starts.
    assert!(kinds(&events).contains(&&EventKind::DiceWon { seat: 0, count: 0, now: 5 }));
    assert_eq!(game.turn(), Some(0));
    assert_eq!(game.dice_count(1), 4);
}

#[test]
fn calza_wrong_loses_a_die() {
    let (game, _) = ok(&format!(
        r#"{{"rules": {{"preset": "fibbing", "exact_call": {{"dice_lost": 2}}}}, {THREE},
        "rounds": [{{"dice": {{"Ann": [2,2,2,5,6], "Ben": [1,3,4,5,6], "Cat": [2,3,4,5,6]}},
                    "actions": ["Ann: three twos", "Cat: calza"]}}]}}"#
    ));
    assert_eq!(game.dice_count(2), 3);
    assert_eq!(game.turn(), Some(2));
}

#[test]
fn no_calza_with_two_players_or_in_palifico() {
    let two = refused(
        r#"{"rules": "fibbing", "players": ["Ann", "Ben"], "roll_off": [{"Ann": 6, "Ben": 2}],
        "rounds": [{"actions": ["Ann: two threes", "Ann: calza"]}]}"#,
    );
    assert!(two.contains("too few players"), "{two}");
    let palifico = refused(
        r#"{"rules": "fibbing", "players": ["Ann", "Ben", "Cat"], "start_dice": {"Ann": 2},
        "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [
          {"dice": {"Ann": [3,4], "Ben": [2,2,2,2,2], "Cat": [2,2,2,2,2]}, "actions": ["Ann: one six", "Ben: dudo"]},
          {"actions": ["Ann: one two", "Ben: two twos", "Ann: calza"]}
        ]}"#,
    );
    assert!(palifico.contains("Palifico"), "{palifico}");
}

#[test]
fn palifico_the_first_time_only_and_not_with_two_players() {
    let (game, events) = ok(
        r#"{"rules": "fibbing", "players": ["Ann", "Ben", "Cat"], "start_dice": {"Ann": 2},
        "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [
          {"dice": {"Ann": [3,4], "Ben": [2,2,2,2,2], "Cat": [2,2,2,2,2]}, "actions": ["Ann: one six", "Ben: dudo"]},
          {"dice": {"Ann": [1], "Ben": [2,2,2,2,2], "Cat": [2,2,2,2,2]}, "actions": ["Ann: one one", "Ben: dudo"]},
          {"dice": {"Ann": [3], "Ben": [2,2,2,2], "Cat": [2,2,2,2,2]}, "actions": ["Ben: one three", "Cat: dudo"]}
        ]}"#,
    );
    let rounds: Vec<(u32, Vec<usize>, Option<u8>)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RoundStarted { round, palifico, wild, .. } => Some((*round, palifico.clone(), *wild)),
            _ => None,
        })
        .collect();
    // Round 2 is Ann's Palifico: no wilds, opened on ones. Round 3 is normal again.
    assert_eq!(rounds[1], (2, vec![0], None));
    assert_eq!(rounds[2], (3, vec![], Some(1)));
    // In round 3 Ben's one three was true thanks to Ann's three; Cat lost.
    assert_eq!(game.dice_count(2), 4);
    // Two players with one die each: no Palifico (the manual's example, round ten).
    let (_, events) =
        ok(r#"{"rules": "fibbing", "players": ["Ann", "Ben"], "start_dice": {"Ann": 2, "Ben": 2},
        "roll_off": [{"Ann": 6, "Ben": 2}],
        "rounds": [{"dice": {"Ann": [3,4], "Ben": [2,2]}, "actions": ["Ann: four sixes", "Ben: dudo"]},
                   {"actions": []}]}"#);
    assert!(events.iter().any(
        |e| matches!(&e.kind, EventKind::RoundStarted { round: 2, palifico, .. } if palifico.is_empty())
    ));
}

#[test]
fn palifico_locks_the_face_but_ex_palifico_players_may_raise_it() {
    // The manual's example, round five: Roger (palifico) opens one five, Bob two fives, Alice (ex-Palifico) two
    // sixes; a normal player may not change the face.
    let script = |calls: &str| {
        format!(
            r#"{{"rules": "fibbing", "players": ["Bob", "Alice", "Roger"], "start_dice": {{"Alice": 1, "Roger": 2}},
            "roll_off": [{{"Roger": 6, "Bob": 2, "Alice": 1}}],
            "rounds": [
              {{"dice": {{"Bob": [2,5,6,6,3], "Alice": [6], "Roger": [4,5]}}, "actions": ["Roger: one two", "Bob: one three", "Alice: one four", "Roger: five fives", "Bob: dudo"]}},
              {{"dice": {{"Bob": [2,5,6,6,3], "Alice": [6], "Roger": [5]}}, "actions": [{calls}]}}
            ]}}"#
        )
    };
    // Alice had one die from the start, so she never dropped to one: not ex-Palifico.
    let e = refused(&script(r#""Roger: one five", "Bob: two fives", "Alice: two sixes""#));
    assert!(e.contains("locked"), "{e}");
    let e = refused(&script(r#""Roger: one five", "Bob: one six""#));
    assert!(e.contains("locked"), "{e}");
    // With Alice ex-Palifico (as in the manual's game), the whole of round five plays.
    let (_, events) = ok(&std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/scripts/fibbing-example.json"
    ))
    .unwrap());
    assert!(events.iter().any(|e| e.kind == EventKind::BidMade { seat: 1, bid: Bid::new(2, 6) }));
}

#[test]
fn ex_palifico_may_not_lower_the_quantity() {
    let e = refused(
        r#"{"rules": "fibbing", "players": ["Bob", "Alice", "Roger"], "start_dice": {"Alice": 2, "Roger": 2},
        "roll_off": [{"Alice": 6, "Bob": 2, "Roger": 1}],
        "rounds": [
          {"dice": {"Bob": [2,2,2,2,2], "Alice": [3,4], "Roger": [3,4]}, "actions": ["Alice: six fives", "Roger: dudo"]},
          {"dice": {"Bob": [2,2,2,2,2], "Alice": [4], "Roger": [3,4]}, "actions": ["Alice: one four", "Roger: dudo"]},
          {"dice": {"Bob": [2,2,2,2,2], "Alice": [4], "Roger": [3]}, "actions": ["Roger: two threes", "Bob: three threes", "Alice: two fours"]}
        ]}"#,
    );
    assert!(e.contains("ex-Palifico"), "{e}");
}

#[test]
fn the_game_ends_with_one_player_and_standings_by_elimination() {
    let (game, events) = ok(r#"{"rules": {"preset": "fibbing", "dice": {"start": 1, "max": 1}},
        "players": ["Ann", "Ben", "Cat"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [
          {"dice": {"Ann": [3], "Ben": [4], "Cat": [5]}, "actions": ["Ann: three threes", "Ben: dudo"]},
          {"dice": {"Ben": [4], "Cat": [5]}, "actions": ["Ben: two fours", "Cat: dudo"]}
        ]}"#);
    assert!(game.is_over());
    assert_eq!(game.standings(), vec![2, 1, 0]);
    assert_eq!(
        events.last().map(|e| &e.kind),
        Some(&EventKind::GameOver {
            standings: vec![2, 1, 0],
            points: vec![0, 0, 0],
            money: vec![0, 0, 0],
            drinks: vec![0, 0, 0]
        })
    );
}

#[test]
fn losers_see_dice_and_spectators_never_do() {
    let (game, events) = ok(r#"{"rules": {"preset": "fibbing", "dice": {"start": 1, "max": 1}},
        "players": ["Ann", "Ben", "Cat"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [
          {"dice": {"Ann": [3], "Ben": [4], "Cat": [5]}, "actions": ["Ann: three threes", "Ben: dudo"]},
          {"dice": {"Ben": [4], "Cat": [5]}, "actions": []}
        ]}"#);
    // Ann is out: she sees round two's dice, in her view and in the log.
    assert_eq!(game.view(0).all_dice, Some(vec![vec![], vec![4], vec![5]]));
    assert_eq!(game.view(1).all_dice, None);
    assert_eq!(game.spectator_view().my_dice, Vec::<Option<u8>>::new());
    let round_two = events.iter().skip_while(|e| !matches!(e.kind, EventKind::RoundStarted { round: 2, .. }));
    let rolls: Vec<_> = round_two.filter(|e| matches!(e.kind, EventKind::DiceRolled { .. })).collect();
    // Each roll is two events: the owner's sight, and the truth for the all-seeing.
    assert_eq!(rolls.len(), 4);
    for e in rolls {
        match e.audience {
            dudo_rules::Audience::Hidden { .. } => {
                assert!(e.audience.admits(Viewer::Seat(0), false));
                assert!(e.audience.admits(Viewer::Replay, true));
            }
            _ => assert!(!e.audience.admits(Viewer::Seat(0), false)),
        }
        assert!(!e.audience.admits(Viewer::Spectator, false));
    }
    // With the option off, Ann sees nothing.
    let (game, _) = ok(
        r#"{"rules": {"preset": "fibbing", "dice": {"start": 1, "max": 1}, "losers_see_dice": "hidden"},
        "players": ["Ann", "Ben", "Cat"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [{"dice": {"Ann": [3], "Ben": [4], "Cat": [5]}, "actions": ["Ann: three threes", "Ben: dudo"]}]}"#,
    );
    assert_eq!(game.view(0).all_dice, None);
}

#[test]
fn results_table_lists_every_bid_with_its_true_count() {
    let (_, events) = ok(&format!(
        r#"{{"rules": "fibbing", {THREE},
        "rounds": [{{"dice": {{"Ann": [2,2,3,4,5], "Ben": [1,6,6,6,6], "Cat": [3,3,4,4,5]}},
                    "actions": ["Ann: three twos", "Ben: five sixes", "Cat: dudo"]}}]}}"#
    ));
    let rows = events.iter().find_map(|e| match &e.kind {
        EventKind::ResultsTable { rows } => Some(rows.clone()),
        _ => None,
    });
    let rows = rows.expect("results table");
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].actual, rows[0].was_true), (3, true));
    assert_eq!((rows[1].actual, rows[1].was_true), (5, true));
}

#[test]
fn fibbing_hides_and_misshows_dice_to_their_owner_only() {
    let mut rules = dudo_rules::presets::fibbing();
    rules.fibbing.hide_percent = 100;
    let (game, events) = Game::start(rules.clone(), 3, seed_from_u64(1)).unwrap();
    assert!(game.view(0).my_dice.iter().all(|d| d.is_none()));
    // The owner's event shows question marks; the truth is kept for replays.
    let own: Vec<_> = events.iter().filter(|e| e.audience.admits(Viewer::Seat(0), false)).collect();
    assert!(own.iter().any(
        |e| matches!(&e.kind, EventKind::DiceRolled { seat: 0, dice } if dice.iter().all(Option::is_none))
    ));
    assert!(
        !own.iter().any(
            |e| matches!(&e.kind, EventKind::DiceRolled { dice, .. } if dice.iter().any(Option::is_some))
        )
    );
    // With one die each and every die misshown, each owner sees a face its die does not show.
    rules.fibbing = dudo_rules::ruleset::Fibbing { hide_percent: 0, misshow_percent: 100 };
    rules.dice = dudo_rules::ruleset::DiceRules { start: 1, max: 1, faces: 6 };
    for seed in 0..20 {
        let (game, events) = Game::start(rules.clone(), 3, seed_from_u64(seed)).unwrap();
        for seat in 0..3 {
            let truth = events.iter().find_map(|e| match (&e.kind, e.audience) {
                (EventKind::DiceRolled { seat: s, dice }, dudo_rules::Audience::Hidden { .. })
                    if *s == seat =>
                {
                    Some(dice.clone())
                }
                _ => None,
            });
            let seen = game.view(seat).my_dice;
            assert_eq!(seen.len(), 1);
            assert_ne!(seen, truth.unwrap());
        }
    }
}

#[test]
fn leaving_is_only_allowed_at_the_start_of_a_round() {
    let (mut game, _) = Game::start(dudo_rules::presets::fibbing(), 3, seed_from_u64(3)).unwrap();
    let turn = game.turn().unwrap();
    let before = game.clone();
    game.apply(turn, &Action::Bid(Bid::new(2, 3))).unwrap();
    let mid = game.clone();
    assert!(game.remove(0).is_err());
    assert_eq!(game, mid);
    let mut game = before;
    let events = game.remove(turn).unwrap();
    assert!(matches!(events[0].kind, EventKind::SeatLeft { place: 3, .. }));
    assert_ne!(game.turn(), Some(turn));
    // No rejoin: the seat is out for good.
    assert!(game.apply(turn, &Action::Bid(Bid::new(2, 3))).is_err());
}

#[test]
fn results_table_counts_the_dice_of_a_player_just_eliminated() {
    let (_, events) = ok(r#"{"rules": {"preset": "fibbing", "dice": {"start": 1, "max": 1}},
        "players": ["Ann", "Ben", "Cat"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1}],
        "rounds": [{"dice": {"Ann": [4], "Ben": [4], "Cat": [5]}, "actions": ["Ann: three fours", "Ben: dudo"]}]}"#);
    let rows = events.iter().find_map(|e| match &e.kind {
        EventKind::ResultsTable { rows } => Some(rows.clone()),
        _ => None,
    });
    // Ann is out, but her four was on the table when the bid was judged.
    assert_eq!(rows.unwrap()[0].actual, 2);
}

#[test]
fn players_out_of_the_game_may_not_call_calza() {
    let (game, _) = ok(r#"{"rules": {"preset": "fibbing", "dice": {"start": 1, "max": 1}},
        "players": ["Ann", "Ben", "Cat", "Dan"], "roll_off": [{"Ann": 6, "Ben": 2, "Cat": 1, "Dan": 1}],
        "rounds": [{"dice": {"Ann": [3], "Ben": [4], "Cat": [5], "Dan": [6]}, "actions": ["Ann: four threes", "Ben: dudo"]},
                   {"actions": ["Ben: one two"]}]}"#);
    let ask: Vec<usize> = game.seats_to_ask().collect();
    assert!(!ask.contains(&0));
    assert!(game.legal(0).is_empty());
    assert!(game.check(0, &Action::Calza).is_err());
    assert!(ask.contains(&3));
}

#[test]
fn leaving_tells_everyone_who_starts_now() {
    let (mut game, _) = Game::start(dudo_rules::presets::fibbing(), 3, seed_from_u64(3)).unwrap();
    let turn = game.turn().unwrap();
    let events = game.remove(turn).unwrap();
    let next = game.turn().unwrap();
    assert!(
        matches!(&events[0].kind, EventKind::SeatLeft { starter, wild: Some(1), .. } if *starter == next)
    );
}
