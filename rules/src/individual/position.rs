//! An individual-hand game set up from one seat's view, the cup's hidden dice filled in by a
//! guess: how the expert plays its guesses forward (`Game::from_view`), as
//! `game/position.rs` does for the common-hand games.

use std::sync::Arc;

use super::{HandPlayer, IndividualHand, Step};
use crate::dice::DiceSource;
use crate::event::SeatSet;
use crate::game::{Phase, View};
use crate::hand::HandGame;
use crate::ruleset::RuleSet;

impl IndividualHand {
    /// The game `view`'s seat cannot tell from the one it is in, `cup` the dice under the cup
    /// (the view's own where it sees them) and later rolls from `dice`. `None` for a
    /// spectator's or a finished game's view, the dog's life being decided (whose hand follows
    /// is not in a view), or a cup that disagrees with what the view sees.
    pub(crate) fn from_view(
        rules: Arc<RuleSet>,
        view: &View,
        cup: &[u8],
        dice: DiceSource,
    ) -> Option<IndividualHand> {
        let me = view.seat?;
        let hand = view.hand.as_ref()?;
        let game = rules.family.hand_game()?;
        if view.phase != Phase::Bidding
            || hand.dogs_life_pending.is_some()
            || cup.len() != game.dice()
            || hand.dice.len() != cup.len()
            || hand.shown.len() != cup.len()
            || hand
                .dice
                .iter()
                .zip(cup)
                .any(|(seen, &d)| !(1..=6).contains(&d) || seen.is_some_and(|s| s != d))
        {
            return None;
        }
        let step = match (hand.accepted, hand.five_aces_tries) {
            (false, _) => Step::Receiving,
            (true, Some(tries)) => Step::FiveAces(tries),
            (true, None) => Step::Holding,
        };
        // Who knows the dice: this seat if it sees them all; the holder once it has rolled
        // or looked at a cup it was handed; and, until they are rolled again, whoever passed them.
        let mut known_to = SeatSet::default();
        if hand.dice.iter().all(Option::is_some) {
            known_to.insert(me);
        }
        if hand.rolls_this_turn > 0 || (hand.accepted && hand.claim.is_some()) {
            known_to.insert(hand.holder);
        }
        if let Some((claimer, _)) = &hand.claim
            && hand.rolls_this_turn == 0
        {
            known_to.insert(*claimer);
        }
        let mut out_order: Vec<_> =
            (0..view.players.len()).filter(|&s| view.players[s].place.is_some()).collect();
        out_order.sort_by_key(|&s| std::cmp::Reverse(view.players[s].place));
        let players = view
            .players
            .iter()
            .map(|p| HandPlayer { lives: p.lives, drinks: p.drinks, place: p.place, left: p.left })
            .collect();
        Some(IndividualHand {
            game,
            dice,
            players,
            hand_no: view.round,
            moves: view.moves,
            starter: view.starter,
            holder: hand.holder,
            step,
            cup: cup.to_vec(),
            shown: hand.shown.clone(),
            known_to,
            claim: hand.claim.clone(),
            rolls: hand.rolls_this_turn,
            // A new hand must be rolled before it is claimed; Mexican's every turn.
            must_roll: hand.claim.is_none() || matches!(game, HandGame::Mexican | HandGame::MexicanTwoDice),
            dogs_life_taken: hand.dogs_life_taken,
            out_order,
            over: false,
            final_standings: Vec::new(),
            rules,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots;
    use crate::game::{Discard, Game};
    use crate::presets;

    /// At every decision of readers' games of each individual-hand preset, the position set
    /// up from the mover's view and the true cup is one the mover cannot tell from the game:
    /// the same view and moves allowed, now and after the move it makes.
    #[test]
    fn a_position_from_the_movers_view_and_the_true_cup_plays_as_the_game() {
        let mut checked = 0;
        for preset in presets::NAMES {
            let rules = Arc::new(presets::by_name(preset).unwrap_or_else(|| panic!("{preset}")));
            if rules.family.hand_game().is_none() {
                continue;
            }
            for seats in [2usize, 4] {
                for g in 0..4u64 {
                    let (mut game, _) =
                        Game::start(Arc::clone(&rules), seats, crate::seed_from_u64(g)).unwrap();
                    let mut table: Vec<Box<dyn bots::Bot>> =
                        (0..seats).filter_map(|s| bots::by_name("reader", g * 10 + s as u64)).collect();
                    for moves in 0..300 {
                        let Some(turn) = game.turn() else { break };
                        let Game::IndividualHand(real) = &game else { unreachable!() };
                        let (view, legal) = (game.view(turn), game.legal(turn));
                        let action = table[turn].act(&rules, &view, &legal);
                        if view.hand.as_ref().is_some_and(|h| h.dogs_life_pending.is_none()) {
                            let made = IndividualHand::from_view(
                                Arc::clone(&rules),
                                &view,
                                &real.cup,
                                real.dice.clone(),
                            )
                            .unwrap_or_else(|| panic!("{preset}: a position from seat {turn}'s view"));
                            let mut made = Game::IndividualHand(made);
                            let at = format!("{preset}, {seats} seats, game {g}, move {moves}");
                            assert_eq!(made.view(turn), view, "{at}");
                            assert_eq!(made.legal(turn), legal, "{at}");
                            let mut next = game.clone();
                            next.apply_into(turn, &action, &mut Discard).unwrap();
                            made.apply_into(turn, &action, &mut Discard).unwrap();
                            assert_eq!(made.view(turn), next.view(turn), "{at}, after {action:?}");
                            checked += 1;
                        }
                        game.apply(turn, &action).unwrap();
                    }
                }
            }
        }
        assert!(checked > 1_000, "only {checked} positions");
    }

    #[test]
    fn a_cup_that_disagrees_with_what_the_view_sees_is_refused() {
        let rules = Arc::new(presets::poker_dice());
        let (game, _) = Game::start(Arc::clone(&rules), 2, crate::seed_from_u64(1)).unwrap();
        let Game::IndividualHand(real) = &game else { unreachable!() };
        let turn = game.turn().unwrap();
        let view = game.view(turn);
        let dice = || DiceSource::fast(crate::seed_from_u64(2));
        assert!(IndividualHand::from_view(Arc::clone(&rules), &view, &real.cup, dice()).is_some());
        assert!(IndividualHand::from_view(Arc::clone(&rules), &view, &[1, 2, 3], dice()).is_none());
        assert!(IndividualHand::from_view(Arc::clone(&rules), &view, &[7; 5], dice()).is_none());
        assert!(IndividualHand::from_view(rules, &game.spectator_view(), &real.cup, dice()).is_none());
    }
}
