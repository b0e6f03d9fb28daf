//! A position set up from one seat's view, the dice it cannot see filled in: a game that
//! seat cannot tell from the one it is in. The expert bot plays its guesses at the hidden
//! dice forward from here (`bots::expert`), so what it foresees is the engine's own play.
//!
//! What a view does not hold is worked out from the round's claims (who passed, who pushed,
//! the last bid not on the wild face) or is the rule set's: each seat's starting dice, which
//! only a handicapped table changes, and which only caps what an exact call wins back.

use std::sync::Arc;

use super::{ClaimKind, CommonHand, Phase, Player, View};
use crate::dice::DiceSource;
use crate::event::SeatSet;
use crate::ruleset::{DudoPenalty, RuleSet};

impl CommonHand {
    /// The game `view` is of, with `cups[seat]` the true dice under each cup (for the
    /// viewer's own: what it was shown, its hidden dice filled in) and later rolls from
    /// `dice`. `None` for a spectator's view, a finished game's, or cups that do not hold
    /// each seat's dice.
    pub(crate) fn from_view(
        rules: Arc<RuleSet>,
        view: &View,
        cups: &[Vec<u8>],
        dice: DiceSource,
    ) -> Option<CommonHand> {
        let me = view.seat?;
        if view.phase != Phase::Bidding || cups.len() != view.players.len() || view.hand.is_some() {
            return None;
        }
        let mut players = Vec::with_capacity(view.players.len());
        for (seat, (pv, cup)) in view.players.iter().zip(cups).enumerate() {
            let under =
                if pv.place.is_none() { usize::from(pv.dice).checked_sub(pv.pushed.len())? } else { 0 };
            if cup.len() != under || cup.iter().any(|&d| d == 0 || d > rules.dice.faces) {
                return None;
            }
            let sight = if seat == me {
                if view.my_dice.len() != under {
                    return None;
                }
                view.my_dice.clone()
            } else {
                cup.iter().map(|&d| Some(d)).collect()
            };
            // A pass after the seat's last push is a pass on these dice.
            let mut last_pass_or_push = None;
            for claim in view.claims.iter().filter(|c| c.seat == seat) {
                match claim.kind {
                    ClaimKind::Pass => last_pass_or_push = Some(true),
                    ClaimKind::PushBid(_) => last_pass_or_push = Some(false),
                    ClaimKind::Bid(_) => {}
                }
            }
            let mine =
                |kind: fn(&ClaimKind) -> bool| view.claims.iter().any(|c| c.seat == seat && kind(&c.kind));
            players.push(Player {
                dice_count: pv.dice,
                cup: cup.clone(),
                sight,
                pushed: pv.pushed.clone(),
                place: pv.place,
                left: pv.left,
                had_palifico: pv.had_palifico,
                // Set when a round settles and read as the next begins: never mid-round.
                just_reached_one_die: false,
                exact_used: pv.exact_used,
                passed_this_roll: last_pass_or_push == Some(true),
                passed_this_round: mine(|k| matches!(k, ClaimKind::Pass)),
                pushed_this_round: mine(|k| matches!(k, ClaimKind::PushBid(_))),
                score: pv.score,
                money: pv.money,
                drinks: pv.drinks,
                watching: pv.watching,
                last_guess: pv.last_guess,
            });
        }
        // The order seats went out in: the worst place first, or in Snyd (where running out
        // of dice is finishing) the best.
        let mut out_order: Vec<usize> = (0..players.len()).filter(|&s| players[s].place.is_some()).collect();
        out_order.sort_by_key(|&s| {
            let place = players[s].place.unwrap_or(0);
            if rules.dudo_penalty == DudoPenalty::Snyd { place as i64 } else { -(place as i64) }
        });
        let last_natural_quantity = view
            .claims
            .iter()
            .filter_map(|c| c.kind.bid())
            .rfind(|b| view.wild != Some(b.face))
            .map_or(0, |b| b.quantity);
        let mut palifico = SeatSet::default();
        view.palifico.iter().for_each(|&s| palifico.insert(s));
        let start = u16::from(rules.dice.start);
        let mut game = CommonHand {
            initial_dice: vec![start; players.len()],
            players,
            rules,
            dice,
            phase: view.phase,
            round: view.round,
            starter: view.starter,
            turn: view.turn?,
            claims: view.claims.clone(),
            current: view.current_bid,
            wild: view.wild,
            palifico,
            pushes_this_round: view.claims.iter().filter(|c| matches!(c.kind, ClaimKind::PushBid(_))).count()
                as u32,
            last_natural_quantity,
            out_order,
            final_standings: Vec::new(),
            last_result: view.last_result.clone(),
            spare_result: None,
            dice_in_play: 0,
            moves: view.moves,
        };
        game.dice_in_play = game.count_dice_in_play();
        Some(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots;
    use crate::game::{Discard, Game};
    use crate::presets;

    /// At every moment of bots' games in every common-hand preset, the game set up from a
    /// seat's view and the true cups is the game itself (its dice source and handicaps
    /// aside), and plays on to the same end.
    #[test]
    fn a_position_from_a_view_and_the_true_cups_is_the_game_itself() {
        let mut checked = 0;
        for preset in presets::NAMES {
            let rules = Arc::new(presets::by_name(preset).unwrap_or_else(|| panic!("{preset}")));
            if rules.family != crate::ruleset::Family::CommonHand {
                continue;
            }
            for seats in [2usize, 4] {
                let seats = seats.clamp(usize::from(rules.players.min), usize::from(rules.players.max));
                for g in 0..4u64 {
                    let (mut game, _) =
                        Game::start(Arc::clone(&rules), seats, crate::seed_from_u64(g)).unwrap();
                    let mut table: Vec<Box<dyn bots::Bot>> =
                        (0..seats).filter_map(|s| bots::by_name("reader", g * 10 + s as u64)).collect();
                    let mut moves = 0;
                    while !game.is_over() && moves < 400 {
                        let Game::CommonHand(real) = &game else { unreachable!() };
                        let cups: Vec<Vec<u8>> = real.players.iter().map(|p| p.cup.clone()).collect();
                        for seat in (0..seats).filter(|&s| real.players[s].active()) {
                            let view = game.view(seat);
                            let made =
                                CommonHand::from_view(Arc::clone(&rules), &view, &cups, real.dice.clone())
                                    .unwrap_or_else(|| {
                                        panic!("{preset}: a position from seat {seat}'s view")
                                    });
                            let made = CommonHand { initial_dice: real.initial_dice.clone(), ..made };
                            let made = CommonHand { spare_result: real.spare_result.clone(), ..made };
                            assert_eq!(&made, real, "{preset}, game {g}, move {moves}, seat {seat}");
                            checked += 1;
                        }
                        let turn = game.turn().unwrap_or(0);
                        let action = table[turn].act(game.rules(), &game.view(turn), &game.legal(turn));
                        game.apply_into(turn, &action, &mut Discard).unwrap();
                        moves += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked} positions checked");
    }

    #[test]
    fn cups_that_do_not_hold_the_seats_dice_are_refused() {
        let rules = Arc::new(presets::by_name("perudo-jonti").unwrap());
        let (game, _) = Game::start(Arc::clone(&rules), 3, crate::seed_from_u64(1)).unwrap();
        let view = game.view(0);
        let five = vec![1u8; 5];
        let dice = || DiceSource::fast(crate::seed_from_u64(2));
        let ok = vec![five.clone(), five.clone(), five.clone()];
        assert!(CommonHand::from_view(Arc::clone(&rules), &view, &ok, dice()).is_some());
        let short = vec![five.clone(), vec![1; 4], five.clone()];
        assert!(CommonHand::from_view(Arc::clone(&rules), &view, &short, dice()).is_none());
        let bad_face = vec![five.clone(), vec![7; 5], five.clone()];
        assert!(CommonHand::from_view(Arc::clone(&rules), &view, &bad_face, dice()).is_none());
        assert!(CommonHand::from_view(rules, &game.spectator_view(), &ok, dice()).is_none());
    }
}
