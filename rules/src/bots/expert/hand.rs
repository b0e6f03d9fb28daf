//! The expert in poker dice and Stanford: the same search, over the dice under the cup it has
//! not seen and the rolls still to come (in Mexican it plays the reader's move).
//!
//! Handed a cup with a claim, it guesses what is under it: dice drawn evenly, a guess whose
//! hand falls short of the claim kept only [`BLUFF_KEPT`] of the time (a claimer is likelier
//! to hold what it claims than a fresh roll is). Holding the cup, it knows the dice and weighs
//! its rolls and claims against the rolls to come. Either way each move is played out by
//! readers to the end of the hand and scored by where that leaves the expert.

use rand::Rng;

use super::{ExpertBot, MOVES_WEIGHED};
use crate::action::Action;
use crate::bots::{DecisionRng, hand_call_possible, hand_odds_move};
use crate::dice::{DiceSource, seed_from_u64};
use crate::game::{Game, Legal, View};
use crate::hand::{Hand, HandGame};
use crate::ruleset::RuleSet;

/// How often a guess at a handed cup that does not hold the claim is kept: the rest are drawn
/// again. 1 would take every claim for a fresh roll's, 0 for the truth.
const BLUFF_KEPT: f64 = 0.5;
/// Draws a guess may take to find a cup it keeps, before it keeps the last.
const GUESS_TRIES: usize = 64;

impl ExpertBot {
    pub(super) fn hand_move(
        &mut self,
        game: HandGame,
        rules: &RuleSet,
        view: &View,
        legal: &Legal,
    ) -> Action {
        let usual = hand_odds_move(game, view, legal);
        // Mexican plays for drinks over rounds whose forfeits the server's dice decide: there
        // the search lost to the reader (46.5% ± 2.4% of 800 two-player games), so it does not.
        let mexican = matches!(game, HandGame::Mexican | HandGame::MexicanTwoDice);
        let Some(hand) = view.hand.as_ref().filter(|_| !legal.dogs_life && !mexican) else { return usual };
        let moves = weighed(game, view, legal, usual.clone());
        let claim = hand.claim.as_ref().filter(|_| !hand.accepted).map(|(_, c)| game.value(&c.dice));
        let seen = hand.dice.clone();
        let mut cup = Vec::with_capacity(seen.len());
        self.search(rules, view, moves, usual, |rng, shared| {
            guess(rng, game, &seen, claim, &mut cup);
            let seed: u64 = rng.random();
            Some((Game::from_hand_view(shared, view, &cup, DiceSource::fast(seed_from_u64(seed)))?, seed))
        })
    }
}

/// One guess at the cup: the dice `seen` as they are, the others drawn; a cup short of the
/// `claim` it was handed with is kept [`BLUFF_KEPT`] of the time.
fn guess(rng: &mut DecisionRng, game: HandGame, seen: &[Option<u8>], claim: Option<u64>, cup: &mut Vec<u8>) {
    for _ in 0..GUESS_TRIES {
        cup.clear();
        cup.extend(seen.iter().map(|d| d.unwrap_or_else(|| rng.random_range(1..=6))));
        let short = claim.is_some_and(|c| game.value(cup) < c);
        if !short || rng.random::<f64>() < BLUFF_KEPT {
            return;
        }
    }
}

/// The moves weighed: the reader's, the challenge and taking the cup, a few ways to roll
/// (all, keeping the most of a kind, keeping the two biggest groups), and the claims of the
/// truth, the least allowed and the two hands above it.
fn weighed(game: HandGame, view: &View, legal: &Legal, usual: Action) -> Vec<Action> {
    let mut moves = vec![usual];
    let mut add = |action: Action| {
        if moves.len() < MOVES_WEIGHED && !moves.contains(&action) && hand_call_possible(view, legal, &action)
        {
            moves.push(action);
        }
    };
    if !legal.dudo.is_empty() {
        add(Action::Dudo { target: None });
    }
    if legal.accept {
        add(Action::Accept);
    }
    let Some(hand) = &view.hand else { return moves };
    let n = game.dice();
    if let Some(roll) = legal.roll {
        add(Action::Roll { dice: (0..n).collect(), show: Vec::new() });
        let known: Option<Vec<u8>> = hand.dice.iter().copied().collect();
        if let (false, Some(dice)) = (roll.all, known) {
            let mut counts = [0u8; 7];
            dice.iter().for_each(|&d| counts[usize::from(d)] += 1);
            let mut faces: Vec<u8> = (1..=6).filter(|&f| counts[usize::from(f)] > 0).collect();
            faces.sort_by_key(|&f| std::cmp::Reverse((counts[usize::from(f)], f)));
            for keep in [&faces[..faces.len().min(1)], &faces[..faces.len().min(2)]] {
                let reroll: Vec<usize> = (0..n).filter(|&i| !keep.contains(&dice[i])).collect();
                if !reroll.is_empty() {
                    add(Action::Roll { dice: reroll, show: Vec::new() });
                }
            }
        }
    }
    if let Some(floor) = &legal.claim_from {
        if legal.claim_held
            && let Some(dice) = hand.dice.iter().copied().collect::<Option<Vec<u8>>>()
        {
            add(Action::Claim(Hand::new(dice)));
        }
        let ceiling = legal.claim_to.as_ref().map(|to| game.value(&to.dice));
        let from = game.value(&floor.dice);
        for (value, claim) in game.ordered().iter().filter(|(v, _)| *v >= from).take(3) {
            if ceiling.is_none_or(|c| *value <= c) {
                add(Action::Claim(claim.clone()));
            }
        }
    }
    moves
}
