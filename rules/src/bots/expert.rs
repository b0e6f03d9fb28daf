//! The expert: it plays out its guesses at the dice it cannot see.
//!
//! At each decision it weighs a few moves (the reader's own, a challenge, an exact call, the
//! likeliest bids) against [`SAMPLES`] guesses at everyone's hidden dice, each drawn from
//! what the round's bids make likely: a player who bid on a face is taken to hold more of it
//! (and of the wild face) than chance gives, as the reader reads bids, but as one consistent
//! hand per player. Each move is played in each guessed position, set up by the engine
//! itself (`Game::from_view`), and the round played out by readers at every seat; the move
//! is scored by where the round leaves the bot (its share of the dice, squared; in the points game
//! its own progress to the target; in a game of rounds its money). The same
//! guesses and playouts score every move, so the differences are the moves'.
//!
//! The move played is drawn among those whose scores it cannot tell from the best's (within
//! half a standard error of the paired difference), so its openings and raises are mixed,
//! never one fixed bid. Everything is drawn from the decision's randomness (the seat's seed
//! and the move count), so a seeded table plays the same moves everywhere, and the work is
//! bounded: at most [`SAMPLES`] guesses of at most [`MOVES_WEIGHED`] playouts of at most
//! [`PLAYOUT_MOVES`] moves, and fewer guesses, and shorter playouts, where each move of a
//! playout costs more (many seats and dice): a decision spends about [`WORK`] at most (the
//! guess that passes it is not begun), counted in moves, not time, so that it decides the
//! same on any machine; a playout is cut where [`FEWEST_SAMPLES`] guesses would pass it. Where
//! that leaves less than a move a seat (tables of dozens of players, or of many dice), it
//! plays the reader's move. Its buffers are kept from one decision to the next where the bot
//! lives on (the simulator, the SDK); the server makes one a decision.
//!
//! Poker dice and Stanford are searched the same way over the cup's dice (`expert/hand.rs`);
//! two players left with a die each, where the game is solved, play the solved strategy
//! (`solved.rs`).

use std::sync::Arc;

use rand::{Rng, SeedableRng};

mod hand;

use super::solved;
use super::{
    Beliefs, BidsRead, Bot, DecisionRng, ReaderBot, Reading, common_hand_move, decision_rng,
    reader_out_of_turn,
};
use crate::action::{Action, Seat};
use crate::bid::Bid;
use crate::dice::{DiceSource, mix, seed_from_u64};
use crate::game::{Discard, Game, Legal, Phase, View};
use crate::ruleset::{DudoPenalty, GameEnd, RuleSet};
use crate::sim::next_action;

/// Guesses at the hidden dice each decision plays its moves in.
pub const SAMPLES: usize = 64;
/// The work a decision may do, in playout moves each weighted by the seats and dice in play
/// (what a move's view, legal actions and reading cost): 64 guesses of four-player fibbing,
/// a p99 of 52 ms a decision on one core of the 2-core machine of BENCHMARKS.md. Without
/// it, eight players took 194 ms at p99 and six of ten dice 211 ms.
pub const WORK: u64 = 110_000;
/// Fewer guesses than this tell moves apart too poorly to be worth the work.
pub const FEWEST_SAMPLES: u64 = 6;
/// How much one bid on a face raises the log-odds that each of the bidder's dice shows it,
/// in the guesses. The reader's [`TILT`](super::reader::TILT) (0.9) reads bids a face at a time; as one hand per
/// player, 0.6 played best (four-player fibbing against three readers, 100 deals each: 0.25
/// won 26% of games, 0.5 35%, 0.6 38%, 0.9 34%, 1.3 19%).
const BELIEF_TILT: f64 = 0.6;
/// [`BELIEF_TILT`] where no face is wild: a bid's evidence then lies on its own face alone
/// (with a wild face, on the wild face too), and the reader's 0.9 played best (two-player
/// fibbing with `wilds=none` against the reader, 300 deals each: 0.6 won 51% of games, 0.9
/// 60%; 150 deals: 0.3 43%, 1.0 64%, 1.5 48%; four players against three readers, 100 deals:
/// 0.6 36.5%, 0.9 42.2%).
const BELIEF_TILT_NO_WILDS: f64 = 0.9;
/// The most moves weighed at a decision: the reader's, the calls, and the likeliest bids.
pub const MOVES_WEIGHED: usize = 12;
/// The most moves a playout makes before it is cut off (every move raises the bid or ends
/// the round, so a round ends long before).
const PLAYOUT_MOVES: u64 = 64;

/// The expert (see the module's notes).
pub struct ExpertBot {
    /// The seat's seed; each decision's randomness is drawn from it and the move count.
    seed: u64,
    rng: DecisionRng,
    /// The rules of the last decision, shared by the positions it set up.
    rules: Option<Arc<RuleSet>>,
    /// Who plays the playouts: a reader at every seat.
    players: Vec<Box<dyn Bot>>,
    /// The playouts' buffers.
    views: Vec<View>,
    legal: Legal,
    /// Each weighed move's score in each guessed position.
    scores: Vec<Vec<f64>>,
}

impl ExpertBot {
    pub fn new(seed: u64) -> Self {
        ExpertBot {
            seed,
            rng: DecisionRng::seed_from_u64(seed),
            rules: None,
            players: Vec::new(),
            views: Vec::new(),
            legal: Legal::default(),
            scores: Vec::new(),
        }
    }

    /// `rules`, shared: the last decision's if they are the same.
    fn shared(&mut self, rules: &RuleSet) -> Arc<RuleSet> {
        match &self.rules {
            Some(kept) if **kept == *rules => Arc::clone(kept),
            _ => Arc::clone(self.rules.insert(Arc::new(rules.clone()))),
        }
    }

    /// Plays `game` on to the end of its round, readers at every seat seeded from `seed`, in
    /// at most `most` moves: the moves it made.
    fn play_round(&mut self, game: &mut Game, seed: u64, most: u64) -> u64 {
        let seats = game.seats();
        self.views.resize_with(seats, View::default);
        while self.players.len() < seats {
            self.players.push(Box::new(ReaderBot::new(0)));
        }
        for (seat, player) in self.players.iter_mut().enumerate() {
            player.reseed(mix(seed ^ seat as u64));
        }
        let round = game.round();
        for made in 0..most {
            if game.is_over() || game.round() != round {
                return made;
            }
            let (seat, action) =
                next_action(game, &mut self.players[..seats], &mut self.views, &mut self.legal, &[]);
            if game.apply_into(seat, &action, &mut Discard).is_err() {
                return made + 1;
            }
        }
        most
    }
}

impl ExpertBot {
    /// Weighs `moves` (`usual` first, played when the search cannot be made) in guesses
    /// `position` sets up (the position and the seed of its playouts' dice), each played out
    /// to the end of the round: the move to play.
    fn search(
        &mut self,
        rules: &RuleSet,
        view: &View,
        moves: Vec<Action>,
        usual: Action,
        mut position: impl FnMut(&mut DecisionRng, Arc<RuleSet>) -> Option<(Game, u64)>,
    ) -> Action {
        let Some(me) = view.seat else { return usual };
        if moves.len() < 2 {
            return usual;
        }
        // What one playout move costs, and how long a playout may be for the fewest guesses
        // to fit the work: where that is less than a move a seat, the guesses would say little.
        let per_move = u64::from(view.total_dice()) + view.players.len() as u64;
        let in_play = view.players.iter().filter(|p| p.place.is_none()).count() as u64;
        let most = (WORK / (FEWEST_SAMPLES * moves.len() as u64 * per_move).max(1)).min(PLAYOUT_MOVES);
        if most < in_play {
            return usual;
        }
        let shared = self.shared(rules);
        let mut work = 0u64;
        let mut scores = std::mem::take(&mut self.scores);
        scores.resize_with(moves.len(), Vec::new);
        scores.iter_mut().for_each(Vec::clear);
        for sample in 0..SAMPLES as u64 {
            // Each guess costs about what the first did: stop before one would pass the work.
            if sample > 0 && work + work / sample > WORK {
                break;
            }
            let Some((start, seed)) = position(&mut self.rng, Arc::clone(&shared)) else {
                self.scores = scores;
                return usual;
            };
            for (action, scored) in moves.iter().zip(scores.iter_mut()) {
                let mut game = start.clone();
                if game.apply_into(me, action, &mut Discard).is_err() {
                    scored.push(f64::NEG_INFINITY);
                    continue;
                }
                work += (1 + self.play_round(&mut game, seed, most)) * per_move;
                game.view_into(Some(me), &mut self.views[me]);
                scored.push(standing(rules, &self.views[me], me));
            }
        }
        let chosen = choose(&mut self.rng, &scores);
        self.scores = scores;
        moves.into_iter().nth(chosen).unwrap_or(usual)
    }
}

impl Bot for ExpertBot {
    fn reseed(&mut self, seed: u64) -> bool {
        self.seed = seed;
        self.rng = DecisionRng::seed_from_u64(seed);
        true
    }

    fn name(&self) -> &'static str {
        "expert"
    }

    fn thinks(&self) -> bool {
        true
    }

    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
        self.rng = decision_rng(self.seed, view);
        if let Some(game) = legal.hand_game {
            return self.hand_move(game, rules, view, legal);
        }
        if let Some(action) = solved::solved_move(&mut self.rng, rules, view, legal) {
            return action;
        }
        let reading = Reading::of(view, rules.dice.faces);
        let usual = common_hand_move(&mut self.rng, &reading, rules, view, legal);
        let moves = weighed(&reading, view, legal, usual.clone());
        let belief = Belief::of(view, rules.dice.faces);
        let mut cups = Vec::new();
        self.search(rules, view, moves, usual, |rng, shared| {
            belief.guess(rng, view, &mut cups);
            let seed: u64 = rng.random();
            Some((Game::from_view(shared, view, &cups, DiceSource::fast(seed_from_u64(seed)))?, seed))
        })
    }

    fn interject(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
        reader_out_of_turn(rules, view, legal)
    }
}

/// The moves weighed: the reader's choice, the calls the rules allow, and the bids most
/// likely true among each face's least raise, the one after, and the most of it likely there.
fn weighed(reading: &Reading, view: &View, legal: &Legal, usual: Action) -> Vec<Action> {
    let mut moves = vec![usual];
    let add = |moves: &mut Vec<Action>, action: Action| {
        if moves.len() < MOVES_WEIGHED && !moves.contains(&action) {
            moves.push(action);
        }
    };
    if !legal.dudo.is_empty() && view.current_bid.is_some() {
        add(&mut moves, Action::Dudo { target: None });
    }
    if legal.calza {
        add(&mut moves, Action::Calza);
    }
    if legal.pass {
        add(&mut moves, Action::Pass);
    }
    if legal.watch {
        add(&mut moves, Action::Watch);
    }
    let mut bids: Vec<(Bid, f64)> = Vec::new();
    for r in &legal.bids {
        let likely = u16::try_from(reading.likely_quantity(r.face, 0.5)).unwrap_or(u16::MAX);
        for q in [r.min_quantity, r.min_quantity.saturating_add(1), likely, likely.saturating_add(1)] {
            if (r.min_quantity..=r.max_quantity).contains(&q)
                && !bids.iter().any(|(b, _)| *b == Bid::new(q, r.face))
            {
                bids.push((Bid::new(q, r.face), reading.odds(r.face, q).at_least));
            }
        }
    }
    // The likeliest first; of two as likely, the smaller claim.
    bids.sort_by(|a, b| {
        b.1.total_cmp(&a.1).then(a.0.quantity.cmp(&b.0.quantity)).then(a.0.face.cmp(&b.0.face))
    });
    for (bid, _) in bids {
        add(&mut moves, Action::Bid(bid));
    }
    moves
}

/// The move to play: drawn among those whose mean score the guesses cannot tell from the
/// best's, within half a standard error of the paired difference.
fn choose(rng: &mut DecisionRng, scores: &[Vec<f64>]) -> usize {
    let mean = |s: &Vec<f64>| s.iter().sum::<f64>() / s.len().max(1) as f64;
    let best = (0..scores.len()).max_by(|&a, &b| mean(&scores[a]).total_cmp(&mean(&scores[b]))).unwrap_or(0);
    let near: Vec<usize> = (0..scores.len())
        .filter(|&c| {
            let diffs: Vec<f64> = scores[best].iter().zip(&scores[c]).map(|(b, s)| b - s).collect();
            if diffs.iter().any(|d| !d.is_finite()) {
                return c == best;
            }
            let n = diffs.len().max(2) as f64;
            let m = diffs.iter().sum::<f64>() / n;
            let var = diffs.iter().map(|d| (d - m) * (d - m)).sum::<f64>() / (n - 1.0);
            m <= 0.5 * (var / n).sqrt()
        })
        .collect();
    near.get(rng.random_range(0..near.len().max(1))).copied().unwrap_or(best)
}

/// Where a position leaves `me`, seen from its view: higher is better. A finished game: 1
/// for first place, else 0. Otherwise its share of the dice, squared (a die of its own
/// counts for more than one of another's; in Snyd, where running out of dice is finishing,
/// the share of the few), its own progress to the points target, or its money against
/// the others'.
fn standing(rules: &RuleSet, view: &View, me: Seat) -> f64 {
    let Some(mine) = view.players.get(me) else { return 0.0 };
    if view.phase == Phase::Over {
        return f64::from(u8::from(view.standings.first() == Some(&me)));
    }
    if let Some(place) = mine.place {
        return f64::from(u8::from(place == 1));
    }
    let others = || view.players.iter().enumerate().filter(move |(s, p)| *s != me && p.place.is_none());
    let count = others().count().max(1) as f64;
    match rules.game_end {
        GameEnd::Points(target) => {
            // Its own progress only: scored against the others' too, a player far behind
            // blocked whoever neared the target, and games of experts went on for 60,000
            // moves (and against readers it won 55% of two-player games, against 93%).
            // Below zero counts: a bot indifferent to losses there never climbs back.
            mine.score.min(i64::from(target)) as f64 / f64::from(target.max(1))
        }
        GameEnd::Rounds(_) => {
            let money = mine.money as f64 - others().map(|(_, p)| p.money as f64).sum::<f64>() / count;
            let drinks =
                f64::from(mine.drinks) - others().map(|(_, p)| f64::from(p.drinks)).sum::<f64>() / count;
            money - drinks / 100.0
        }
        GameEnd::LastPlayerStanding | GameEnd::SingleRound => {
            // The individual-hand games play for lives, not dice.
            let hands = view.hand.is_some();
            let dice = |p: &crate::game::PlayerView| {
                f64::from(if hands { u16::from(p.lives) } else { p.dice }.max(1))
            };
            if rules.dudo_penalty == DudoPenalty::Snyd {
                let few = 1.0 / dice(mine);
                few / (few + others().map(|(_, p)| 1.0 / dice(p)).sum::<f64>())
            } else {
                let square = |p: &crate::game::PlayerView| dice(p) * dice(p);
                square(mine) / (square(mine) + others().map(|(_, p)| square(p)).sum::<f64>())
            }
        }
    }
}

/// What the round's bids make likely of each player's hidden dice: for each seat, the
/// chance of each face on each of its dice.
struct Belief {
    /// `cumulative[seat][face - 1]`: the chance a die of `seat` shows at most `face`.
    cumulative: Vec<Vec<f64>>,
}

impl Belief {
    fn of(view: &View, faces: u8) -> Belief {
        let bids = BidsRead::of(view, faces);
        let tilt = if view.wild.is_some() { BELIEF_TILT } else { BELIEF_TILT_NO_WILDS };
        let cumulative = (0..view.players.len())
            .map(|seat| {
                let most = (1..=faces).map(|f| bids.on(seat, f)).max().unwrap_or(0);
                let weights: Vec<f64> = (1..=faces)
                    .map(|f| {
                        // A bidder on any face is likelier to hold wilds, as much as one on that face.
                        let read = if Some(seat) == view.seat {
                            0
                        } else if view.wild == Some(f) {
                            bids.on(seat, f).max(most)
                        } else {
                            bids.on(seat, f)
                        };
                        (tilt * f64::from(read)).exp()
                    })
                    .collect();
                let total: f64 = weights.iter().sum();
                weights
                    .iter()
                    .scan(0.0, |sum, w| {
                        *sum += w / total;
                        Some(*sum)
                    })
                    .collect()
            })
            .collect();
        Belief { cumulative }
    }

    /// One guess at every cup: the viewer's dice as it sees them (its hidden ones drawn
    /// evenly), the others' drawn from what their bids make likely.
    fn guess(&self, rng: &mut DecisionRng, view: &View, cups: &mut Vec<Vec<u8>>) {
        cups.resize_with(view.players.len(), Vec::new);
        for (seat, (p, cup)) in view.players.iter().zip(cups.iter_mut()).enumerate() {
            cup.clear();
            if p.place.is_some() {
                continue;
            }
            let cumulative = &self.cumulative[seat];
            let draw = |rng: &mut DecisionRng| {
                let x: f64 = rng.random();
                cumulative.iter().position(|&c| x < c).unwrap_or(cumulative.len().saturating_sub(1)) as u8 + 1
            };
            if Some(seat) == view.seat {
                for d in &view.my_dice {
                    cup.push(d.unwrap_or_else(|| draw(rng)));
                }
            } else {
                for _ in 0..usize::from(p.dice).saturating_sub(p.pushed.len()) {
                    cup.push(draw(rng));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    /// The same view and seed, the same move, however often it is asked and whatever the
    /// bot decided before.
    #[test]
    fn the_expert_decides_the_same_for_the_same_view() {
        let rules = Arc::new(presets::by_name("perudo-jonti").unwrap());
        let (mut game, _) = Game::start(Arc::clone(&rules), 3, crate::seed_from_u64(3)).unwrap();
        let mut first = Vec::new();
        let mut bot = ExpertBot::new(7);
        for _ in 0..12 {
            let Some(turn) = game.turn() else { break };
            let action = bot.act(&rules, &game.view(turn), &game.legal(turn));
            first.push(action.clone());
            game.apply(turn, &action).unwrap();
        }
        let (mut game, _) = Game::start(Arc::clone(&rules), 3, crate::seed_from_u64(3)).unwrap();
        for want in first {
            let turn = game.turn().unwrap();
            let mut fresh = ExpertBot::new(7);
            let (view, legal) = (game.view(turn), game.legal(turn));
            assert_eq!(fresh.act(&rules, &view, &legal), want);
            assert_eq!(fresh.act(&rules, &view, &legal), want, "asked again");
            game.apply(turn, &want).unwrap();
        }
    }

    /// A guess holds each seat's hidden dice, the viewer's own as it sees them.
    #[test]
    fn a_guess_fills_every_cup_and_keeps_the_viewers_dice() {
        let rules = presets::by_name("fibbing").unwrap();
        let (game, _) = Game::start(rules.clone(), 4, crate::seed_from_u64(5)).unwrap();
        let view = game.view(2);
        let belief = Belief::of(&view, rules.dice.faces);
        let mut rng = DecisionRng::seed_from_u64(1);
        let mut cups = Vec::new();
        for _ in 0..50 {
            belief.guess(&mut rng, &view, &mut cups);
            for (seat, cup) in cups.iter().enumerate() {
                assert_eq!(cup.len(), usize::from(view.players[seat].dice));
                assert!(cup.iter().all(|&d| (1..=rules.dice.faces).contains(&d)));
            }
            for (d, seen) in cups[2].iter().zip(&view.my_dice) {
                if let Some(seen) = seen {
                    assert_eq!(d, seen);
                }
            }
        }
    }
}
