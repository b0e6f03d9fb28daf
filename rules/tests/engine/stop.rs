//! `Game::stop`: the table ends a game now (a length limit). A game in play of every preset
//! ends with one `GameOver` whose standings list every seat once, agreeing with the places
//! of those already out;
//! stopping a game that is over does nothing.

use std::sync::Arc;

use dudo_rules::{Action, EventKind, Game, RuleError, bots, presets, seed_from_u64};

use crate::legal_agrees::bot_move;

/// A game of `preset` after the built-in bots have made up to `moves` moves, or stopped
/// earlier where `enough` says so.
fn played_until(preset: &str, seats: usize, seed: u64, moves: usize, enough: impl Fn(&Game) -> bool) -> Game {
    let rules = Arc::new(presets::by_name(preset).unwrap());
    let bot = bots::NAMES[(seed as usize) % bots::NAMES.len()];
    let mut table: Vec<Box<dyn bots::Bot>> =
        (0..seats).filter_map(|s| bots::by_name(bot, seed * 10 + s as u64)).collect();
    let (mut game, _) = Game::start(rules, seats, seed_from_u64(seed)).unwrap();
    for _ in 0..moves {
        if enough(&game) {
            break;
        }
        let Some((seat, action)) = bot_move(&game, &mut table) else { break };
        game.apply(seat, &action).unwrap_or_else(|e| panic!("{preset}: {bot} bot's {action:?}: {e}"));
    }
    game
}

fn played(preset: &str, seats: usize, seed: u64, moves: usize) -> Game {
    played_until(preset, seats, seed, moves, |_| false)
}

/// Games of `preset` to stop: at the start, after a few moves (if not over by then), and (where anyone can be out
/// before the end) the first state found with a seat out and the game still on.
fn games_to_stop(preset: &str) -> Vec<(String, Game)> {
    let rules = presets::by_name(preset).unwrap();
    let (min, max) = (usize::from(rules.players.min), usize::from(rules.players.max));
    let seats = min.max(4).min(max);
    let mut out = vec![(format!("{preset}, {min} seats, at the start"), played(preset, min, 1, 0))];
    let few = played(preset, seats, 2, 5);
    if !few.is_over() {
        out.push((format!("{preset}, {seats} seats, after 5 moves"), few));
    }
    let seat_out = |g: &Game| (0..seats).any(|s| !g.is_active(s));
    for seed in 0..12u64 {
        let game = played_until(preset, seats, seed, 400, seat_out);
        if !game.is_over() && seat_out(&game) {
            out.push((format!("{preset}, {seats} seats, seed {seed}, a seat out"), game));
            break;
        }
    }
    out
}

#[test]
fn stopping_a_game_in_play_ranks_every_seat_once() {
    let mut with_a_seat_out = Vec::new();
    for preset in presets::NAMES {
        for (what, mut game) in games_to_stop(preset) {
            assert!(!game.is_over(), "{what}: over before it was stopped");
            let seats = game.seats();
            let still_in: Vec<usize> = (0..seats).filter(|&s| game.is_active(s)).collect();
            if still_in.len() < seats {
                with_a_seat_out.push(*preset);
            }
            let places_before: Vec<Option<usize>> =
                game.spectator_view().players.iter().map(|p| p.place).collect();
            let events = game.stop();
            let over: Vec<&EventKind> =
                events.iter().map(|e| &e.kind).filter(|k| matches!(k, EventKind::GameOver { .. })).collect();
            let [EventKind::GameOver { standings, points, money, drinks }] = over[..] else {
                panic!("{what}: one game_over, not {events:?}");
            };
            let mut sorted = standings.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..seats).collect::<Vec<_>>(), "{what}: {standings:?}");
            assert_eq!((points.len(), money.len(), drinks.len()), (seats, seats, seats), "{what}");
            // Places already taken stand (snyd's first out finished first), and every place
            // is the seat's rank in the standings.
            let view = game.spectator_view();
            for (i, &s) in standings.iter().enumerate() {
                if let Some(place) = places_before[s] {
                    assert_eq!(place, i + 1, "{what}: seat {s} was out in place {place}: {standings:?}");
                }
                assert_eq!(view.players[s].place, Some(i + 1), "{what}: seat {s} in {standings:?}");
            }
            assert!(game.is_over() && game.turn().is_none(), "{what}");
            assert_eq!(&game.standings(), standings, "{what}");
            assert_eq!(&view.standings, standings, "{what}");
            assert!((0..seats).all(|s| game.legal(s).is_empty()), "{what}: something is still legal");
            assert_eq!(game.apply(still_in[0], &Action::Dudo { target: None }), Err(RuleError::GameOver));
            // Stopping again does nothing.
            let before = game.clone();
            assert!(game.stop().is_empty(), "{what}: a second stop said something");
            assert!(game == before, "{what}: a second stop changed the game");
        }
    }
    // Snyd, where those out have finished ahead, is among the games stopped with a seat out.
    assert!(with_a_seat_out.contains(&"snyd"), "{with_a_seat_out:?}");
}

#[test]
fn stopping_a_finished_game_does_nothing() {
    for preset in presets::NAMES {
        let rules = presets::by_name(preset).unwrap();
        let seats = usize::from(rules.players.min.max(3).min(rules.players.max));
        let mut game = played(preset, seats, 5, 20_000);
        assert!(game.is_over(), "{preset}: the bots did not finish the game");
        let before = game.clone();
        assert!(game.stop().is_empty(), "{preset}: stopping a finished game said something");
        assert!(game == before, "{preset}: stopping a finished game changed it");
    }
}
