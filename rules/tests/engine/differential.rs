//! A differential test against an independent model of OpenSpiel's `liars_dice` (the
//! `openspiel` preset): for random dice and random play, the two agree on the legal actions
//! at every step and on the winner.

use std::collections::{BTreeSet, VecDeque};

use dudo_rules::dice::DiceSource;
use dudo_rules::{Action, Bid, Game, presets, seed_from_u64};
use proptest::prelude::*;

/// OpenSpiel's liars_dice, written from its description: bids are numbered
/// `(quantity - 1) * 6 + (face - 1)`, a bid must have a higher number, "liar" needs a bid,
/// sixes are wild, and the liar call settles the only round.
struct Model {
    dice: [Vec<u8>; 2],
    last_bid: Option<usize>,
    to_move: usize,
}

impl Model {
    fn total(&self) -> usize {
        self.dice[0].len() + self.dice[1].len()
    }
    fn legal(&self) -> BTreeSet<(u16, u8)> {
        let first = self.last_bid.map_or(0, |b| b + 1);
        (first..self.total() * 6).map(|i| ((i / 6 + 1) as u16, (i % 6 + 1) as u8)).collect()
    }
    fn can_call_liar(&self) -> bool {
        self.last_bid.is_some()
    }
    fn bid(&mut self, q: u16, f: u8) {
        self.last_bid = Some((usize::from(q) - 1) * 6 + usize::from(f) - 1);
        self.to_move = 1 - self.to_move;
    }
    /// The winner when `to_move` calls liar.
    fn liar(&self) -> usize {
        let b = self.last_bid.unwrap_or(0);
        let (q, f) = (b / 6 + 1, (b % 6 + 1) as u8);
        let count = self.dice.iter().flatten().filter(|&&d| d == f || d == 6).count();
        let bidder = 1 - self.to_move;
        if count >= q { bidder } else { self.to_move }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn engine_and_model_agree(
        d0 in proptest::collection::vec(1u8..=6, 1..=5),
        d1_len in 1usize..=5,
        d1_seed in any::<u64>(),
        choices in proptest::collection::vec(any::<u32>(), 1..40),
    ) {
        let d1: Vec<u8> = (0..d1_len).map(|i| ((d1_seed >> (i * 8)) % 6 + 1) as u8).collect();
        let mut rules = presets::openspiel();
        rules.dice.max = 5;
        let script = vec![VecDeque::from([d0.clone()]), VecDeque::from([d1.clone()])];
        let start = Some(vec![d0.len() as u16, d1.len() as u16]);
        let (mut game, _) = Game::start_with(rules, 2, DiceSource::with_script(seed_from_u64(0), script), start).unwrap();
        let mut model = Model { dice: [d0, d1], last_bid: None, to_move: 0 };
        for c in choices {
            prop_assert_eq!(game.turn(), Some(model.to_move));
            let legal = game.legal(model.to_move);
            let engine_bids: BTreeSet<(u16, u8)> = legal
                .actions()
                .iter()
                .filter_map(|a| match a { Action::Bid(b) => Some((b.quantity, b.face)), _ => None })
                .collect();
            prop_assert_eq!(&engine_bids, &model.legal());
            prop_assert_eq!(!legal.dudo.is_empty(), model.can_call_liar());
            let n = engine_bids.len() + usize::from(model.can_call_liar());
            let pick = c as usize % n;
            if pick < engine_bids.len() {
                let (q, f) = *engine_bids.iter().nth(pick).unwrap();
                game.apply(model.to_move, &Action::Bid(Bid::new(q, f))).unwrap();
                model.bid(q, f);
            } else {
                let winner = model.liar();
                game.apply(model.to_move, &Action::Dudo { target: None }).unwrap();
                prop_assert!(game.is_over());
                prop_assert_eq!(game.standings()[0], winner);
                return Ok(());
            }
        }
    }
}
