//! One game, as a training loop sees it: who acts, what each seat gets at the end, and a
//! game whose cups are given (so a caller can make every roll a chance node of its own).

use std::collections::VecDeque;
use std::sync::Arc;

use dudo_rules::dice::{DiceSource, Seed};
use dudo_rules::event::Event;
use dudo_rules::view::StartError;
use dudo_rules::{Action, EventKind, Game, RuleError, RuleSet, Seat};

/// The seat that acts next: the seat whose turn it is or, where nobody's turn it is but
/// someone must answer (the dog's life), the first such seat. `None` once the game is over.
pub fn to_act(game: &Game) -> Option<Seat> {
    if game.is_over() {
        return None;
    }
    game.turn().or_else(|| game.seats_to_ask().next())
}

/// What each seat gets from a finished game, zero-sum: +1 to the winner and an equal share of
/// -1 to every other seat (±1 at two seats, as OpenSpiel's `liars_dice` pays). All zero
/// before the end.
pub fn returns_into(game: &Game, out: &mut [f64]) {
    out.iter_mut().for_each(|r| *r = 0.0);
    if !game.is_over() || out.is_empty() {
        return;
    }
    let others = (out.len() - 1).max(1) as f64;
    let winner = game.standings().first().copied();
    for (seat, r) in out.iter_mut().enumerate() {
        *r = if Some(seat) == winner { 1.0 } else { -1.0 / others };
    }
}

/// What [`advance`] did.
#[derive(Debug, PartialEq)]
pub enum Advanced {
    /// The action was played; these are its events.
    Played(Vec<Event>),
    /// The action ends a round and another begins: it was not played, and these are the dice
    /// each seat rolls next (none for a seat out of the game), for [`apply_dealt`].
    NeedsCups(Vec<u16>),
}

/// Plays `action` for `seat`, unless it ends a round and another begins: then the game is
/// left as it was and the caller learns how many dice each seat rolls next, so that it can
/// choose them (OpenSpiel's chance nodes).
pub fn advance(game: &mut Game, seat: Seat, action: &Action) -> Result<Advanced, RuleError> {
    let mut next = game.clone();
    let round = next.round();
    let events = next.apply(seat, action)?;
    if next.round() != round && !next.is_over() {
        let cups =
            (0..next.seats()).map(|s| if next.is_active(s) { next.dice_count(s) } else { 0 }).collect();
        return Ok(Advanced::NeedsCups(cups));
    }
    *game = next;
    Ok(Advanced::Played(events))
}

/// The cups each seat rolls next if `seat` plays `action` now: `Some` when the action ends a
/// round and another begins, `None` when it does not, or is refused. The game is untouched.
pub fn cups_after(game: &Game, seat: Seat, action: &Action) -> Option<Vec<u16>> {
    match advance(&mut game.clone(), seat, action) {
        Ok(Advanced::NeedsCups(cups)) => Some(cups),
        _ => None,
    }
}

/// The cups given for a deal, checked against what it rolls: one cup a seat, each of the
/// seat's dice (`need`), each face on the die. Faces come as Python gives them, any integer.
pub fn checked_cups(rules: &RuleSet, need: &[u16], cups: &[Vec<i64>]) -> Result<Vec<Vec<u8>>, String> {
    if rules.family.hand_game().is_some() {
        return Err("cups: the individual-hand games deal no cups (their rolls come from the seed)".into());
    }
    if cups.len() != need.len() {
        return Err(format!(
            "cups: {} given for {} seats (one a seat, [] for a seat out)",
            cups.len(),
            need.len()
        ));
    }
    let faces = i64::from(rules.dice.faces);
    need.iter()
        .zip(cups)
        .enumerate()
        .map(|(seat, (&n, cup))| {
            if cup.len() != usize::from(n) {
                let dice = |k: usize| if k == 1 { "1 die".to_string() } else { format!("{k} dice") };
                return Err(format!(
                    "cups[{seat}]: {} given, the seat rolls {}",
                    dice(cup.len()),
                    dice(usize::from(n))
                ));
            }
            cup.iter()
                .map(|&f| {
                    u8::try_from(f)
                        .ok()
                        .filter(|_| (1..=faces).contains(&f))
                        .ok_or_else(|| format!("cups[{seat}]: {f} is not a face (1 to {faces})"))
                })
                .collect()
        })
        .collect()
}

/// Per-seat queues of the given cups, for a [`DiceSource`] script.
fn queues(seats: usize, cups: &[Vec<u8>]) -> Vec<VecDeque<Vec<u8>>> {
    let mut q = vec![VecDeque::new(); seats];
    for (seat, cup) in cups.iter().enumerate().take(seats) {
        if !cup.is_empty() {
            q[seat].push_back(cup.clone());
        }
    }
    q
}

/// A game whose first round's cups are `cups` (one per seat, in seat order), every other
/// roll from `seed` as a table would roll it. Where the rules choose the first starter by a
/// roll-off, its throws are the ones the seed makes.
pub fn start_dealt(
    rules: Arc<RuleSet>,
    seats: usize,
    seed: Seed,
    cups: &[Vec<u8>],
) -> Result<(Game, Vec<Event>), StartError> {
    let mut script = queues(seats, cups);
    // The roll-off throws come before the cups: take them from the game the seed deals.
    let (_, events) = Game::start(rules.clone(), seats, seed)?;
    let mut throws: Vec<VecDeque<Vec<u8>>> = vec![VecDeque::new(); seats];
    for e in &events {
        if let EventKind::RollOff { rolls } = &e.kind {
            for &(s, face) in rolls {
                if let Some(q) = throws.get_mut(s) {
                    q.push_back(vec![face]);
                }
            }
        }
    }
    for (seat, mut before) in throws.into_iter().enumerate() {
        before.extend(script[seat].drain(..));
        script[seat] = before;
    }
    Game::start_with(rules, seats, DiceSource::with_script(seed, script), None)
}

/// Plays `action` for `seat`, the next round's cups (if it ends one) being `cups`.
pub fn apply_dealt(
    game: &mut Game,
    seat: Seat,
    action: &Action,
    cups: &[Vec<u8>],
) -> Result<Vec<Event>, RuleError> {
    let script = queues(game.seats(), cups);
    game.dice_source_mut().set_script(script);
    let result = game.apply(seat, action);
    game.dice_source_mut().set_script(Vec::new());
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use dudo_rules::{Bid, presets, seed_from_u64};

    #[test]
    fn a_dealt_game_rolls_the_given_cups_and_the_seeds_roll_off() {
        let rules = Arc::new(presets::by_name("perudo-jonti").expect("a preset"));
        let cups = vec![vec![1, 2, 3, 4, 5], vec![6, 6, 6, 6, 6], vec![2, 2, 2, 2, 2]];
        let (game, _) = start_dealt(rules.clone(), 3, seed_from_u64(5), &cups).expect("starts");
        for (seat, cup) in cups.iter().enumerate() {
            let mine: Vec<u8> = game.view(seat).my_dice.iter().flatten().copied().collect();
            assert_eq!(&mine, cup);
        }
        let (plain, _) = Game::start(rules, 3, seed_from_u64(5)).expect("starts");
        assert_eq!(plain.turn(), game.turn(), "the seed's roll-off chose the starter");
    }

    #[test]
    fn a_round_that_ends_asks_for_the_next_cups() {
        let rules = Arc::new(presets::openspiel());
        let (mut game, _) =
            start_dealt(rules, 2, seed_from_u64(1), &[vec![1; 5], vec![2; 5]]).expect("starts");
        let seat = to_act(&game).expect("a seat");
        let bid = Action::Bid(Bid::new(3, 2));
        assert_eq!(cups_after(&game, seat, &bid), None);
        game.apply(seat, &bid).expect("a bid");
        let dudo = Action::Dudo { target: None };
        // One round decides the openspiel game: no next cups.
        assert_eq!(cups_after(&game, 1 - seat, &dudo), None);
        apply_dealt(&mut game, 1 - seat, &dudo, &[]).expect("a challenge");
        assert!(game.is_over());
        let mut r = [0.0; 2];
        returns_into(&game, &mut r);
        assert_eq!(r.iter().sum::<f64>(), 0.0);
        assert_eq!(r[game.standings()[0]], 1.0);
    }
}
