//! Built-in bots: they fill empty seats, drive `dudo simulate`, and are the bot SDK's
//! reference players. A bot sees only its seat's [`View`] and [`Legal`] actions, exactly what
//! a remote bot receives, so nothing here can peek.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::action::{Action, Seat};
use crate::bid::Bid;
use crate::dice::mix;
use crate::game::{Game, Legal, View};
use crate::hand::{Hand, HandGame};
use crate::odds::{BidOdds, Knowledge};
use crate::ruleset::{PassClaim, PushDice, RuleSet};

mod expert;
mod reader;
pub mod solved;
pub use expert::ExpertBot;
use reader::{BidsRead, reader_out_of_turn};
pub use reader::{ReaderBot, Reading};

/// The names `by_name` knows.
pub const NAMES: &[&str] = &["random", "odds", "reader", "expert"];

/// A player that decides from its own view.
pub trait Bot: Send {
    fn name(&self) -> &'static str;
    /// Whether a decision may take milliseconds, or once a process seconds (the expert
    /// searches, and solves a one-die game the first time it meets it): a server runs such a
    /// bot's decisions where they hold up none of its other work.
    fn thinks(&self) -> bool {
        false
    }
    /// How much of its view the bot reads under `rules`; a loop that asks many questions
    /// (`sim::Runner`) fills only that. Everything, unless a bot says less.
    fn reads(&self, _rules: &RuleSet) -> Reads {
        Reads::Everything
    }
    /// The action [`Bot::act`] would choose for `seat`, worked out from the game itself
    /// without listing the legal actions: the simulator's shortcut (`sim::Runner`), which
    /// only the engine's own bots take. `None`: ask `act`.
    fn act_in(&mut self, _game: &Game, _seat: Seat) -> Option<Action> {
        None
    }
    /// Makes the bot what [`by_name`] would make for seed `seed`, for the next game of a
    /// long run (the simulator's): `false` if it cannot, and a new one is needed.
    fn reseed(&mut self, _seed: u64) -> bool {
        false
    }
    /// The action for the seat whose turn it is. `legal` is never empty.
    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action;
    /// A call out of turn (Calza), or `None` to stay silent.
    fn interject(&mut self, _rules: &RuleSet, _view: &View, _legal: &Legal) -> Option<Action> {
        None
    }
}

/// How much of a seat's view a bot reads before it decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Only `View::moves` (its decision's randomness) and `View::seat`: the rest may be stale.
    Moves,
    /// The whole view.
    Everything,
}

/// The seed of `seat`'s bot in a game dealt from `game_seed`: how `dudo simulate`, a seeded
/// table's bots and the arena seed their seats, so the three play the same game.
pub fn seat_seed(game_seed: u64, seat: usize) -> u64 {
    mix(game_seed ^ (seat as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The randomness of one decision: drawn from the seat's seed and the game's move count
/// (`View::moves`), never from the bot's decisions before it. A bot therefore decides the
/// same wherever it runs (in `dudo simulate`, on a server, in the SDK) and however often it
/// is asked, which is what makes a seeded game replay the same everywhere.
///
/// A bot's choices are not a secret to keep from anyone who could learn its seed (the
/// dice are: they come from `DiceSource`'s ChaCha12), so the generator is a small fast one,
/// named rather than rand's `SmallRng`, whose algorithm may differ between platforms and
/// versions: a decision must be the same everywhere. ChaCha8 cost a fifth of a simulated
/// game (BENCHMARKS.md).
fn decision_rng(seed: u64, view: &View) -> DecisionRng {
    decision_rng_at(seed, view.moves)
}

/// [`decision_rng`] after `moves` moves.
fn decision_rng_at(seed: u64, moves: u64) -> DecisionRng {
    DecisionRng::seed_from_u64(mix(seed ^ moves.wrapping_mul(0xD1B5_4A32_D192_ED03)))
}

/// The generator of a bot's decisions.
type DecisionRng = Xoshiro256PlusPlus;

/// The bot called `name`, its private randomness seeded by `seed`.
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    match name {
        "random" => Some(Box::new(RandomBot::new(seed))),
        "odds" => Some(Box::new(OddsBot::new(seed))),
        "reader" => Some(Box::new(ReaderBot::new(seed))),
        "expert" => Some(Box::new(ExpertBot::new(seed))),
        _ => None,
    }
}

/// Picks uniformly among the legal actions (a push counts as one more choice); in the
/// individual-hand games, a kind of call uniformly (challenge, accept, roll, claim), then
/// uniformly within it. In the points game it guesses least raises and four calls in five
/// are the odds bot's (see `act`).
pub struct RandomBot {
    /// The seat's seed; each decision's randomness is drawn from it and the move count.
    seed: u64,
    rng: DecisionRng,
}

impl RandomBot {
    pub fn new(seed: u64) -> Self {
        RandomBot { seed, rng: DecisionRng::seed_from_u64(seed) }
    }
}

impl Bot for RandomBot {
    fn reseed(&mut self, seed: u64) -> bool {
        *self = RandomBot::new(seed);
        true
    }

    fn name(&self) -> &'static str {
        "random"
    }

    /// In the common hand it picks among the legal actions by the move count alone, unless
    /// it may push (which shows its own dice) or plays the points game (where it asks the
    /// odds bot); the individual-hand games read the view.
    fn reads(&self, rules: &RuleSet) -> Reads {
        let plain = rules.family == crate::ruleset::Family::CommonHand
            && rules.push.dice == PushDice::Off
            && !matches!(rules.game_end, crate::ruleset::GameEnd::Points(_));
        if plain { Reads::Moves } else { Reads::Everything }
    }

    /// Where it reads only the move count, `act`'s uniform pick is the engine's own
    /// `random_legal_action`: the same draw over the same actions in the same order (bids by
    /// face and quantity, pass, challenges, exact call, watch), so the same action.
    fn act_in(&mut self, game: &Game, seat: Seat) -> Option<Action> {
        if self.reads(game.rules()) != Reads::Moves {
            return None;
        }
        game.random_legal_action(seat, &mut decision_rng_at(self.seed, game.moves()))
    }

    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
        self.rng = decision_rng(self.seed, view);
        if let Some(game) = legal.hand_game {
            // Hands have hundreds of claims and dozens of rolls: pick a kind of call
            // uniformly, then uniformly within it, without listing them all.
            let mut kinds = Vec::with_capacity(5);
            if !legal.dudo.is_empty() {
                kinds.push(0);
            }
            if legal.accept {
                kinds.push(1);
            }
            if legal.roll.is_some() {
                kinds.push(2);
            }
            if legal.claim_from.is_some() {
                kinds.push(3);
            }
            if legal.dogs_life {
                kinds.push(4);
            }
            let n = game.dice();
            for _ in 0..8 {
                let action = match kinds.get(self.rng.random_range(0..kinds.len().max(1))) {
                    Some(0) => Action::Dudo { target: None },
                    Some(1) => Action::Accept,
                    Some(2) => {
                        let all = legal.roll.is_some_and(|r| r.all);
                        let mask: u32 =
                            if all { (1 << n) - 1 } else { self.rng.random_range(1..(1u32 << n)) };
                        Action::Roll {
                            dice: (0..n).filter(|i| mask & (1 << i) != 0).collect(),
                            show: Vec::new(),
                        }
                    }
                    Some(3) => {
                        let hands = game.ordered();
                        let floor = legal.claim_from.as_ref().map_or(0, |f| game.value(&f.dice));
                        let from = hands.partition_point(|h| h.0 < floor);
                        let i = self.rng.random_range(from..hands.len().max(from + 1));
                        hands.get(i).map_or(Action::Accept, |h| Action::Claim(h.1.clone()))
                    }
                    Some(4) => Action::DogsLife { bark: self.rng.random_bool(0.5) },
                    _ => break,
                };
                if hand_call_possible(view, legal, &action) {
                    return action;
                }
            }
            return hand_odds_move(game, view, legal);
        }
        // The points game ends only on an exact score, and losses count while gains past the
        // target do not: uniform play (wild guesses, each costing quantity × face) drifts away
        // from the target for ever. There the random bot guesses only least raises, and four
        // in five of its calls are the odds bot's, so its games end.
        let points = matches!(rules.game_end, crate::ruleset::GameEnd::Points(_));
        if points && self.rng.random_bool(0.8) {
            let know = Knowledge::of(view, rules.dice.faces);
            return common_hand_move(&mut self.rng, &know, rules, view, legal);
        }
        let width = |r: &crate::bid::BidRange| {
            if points { 1 } else { u32::from(r.max_quantity - r.min_quantity) + 1 }
        };
        let bids: u32 = legal.bids.iter().map(width).sum();
        let others =
            u32::from(legal.pass) + legal.dudo.len() as u32 + u32::from(legal.calza) + u32::from(legal.watch);
        let push = u32::from(legal.push);
        let total = bids + others + push;
        let mut pick = self.rng.random_range(0..total.max(1));
        if pick < push
            && let Some(action) = random_push(&mut self.rng, rules, view, legal)
        {
            return action;
        }
        pick = pick.saturating_sub(push);
        for r in &legal.bids {
            let n = width(r);
            if pick < n {
                return Action::Bid(Bid::new(r.min_quantity + pick as u16, r.face));
            }
            pick -= n;
        }
        if legal.pass {
            if pick == 0 {
                return Action::Pass;
            }
            pick -= 1;
        }
        let i = pick as usize;
        if i < legal.dudo.len() {
            return Action::Dudo { target: if i == 0 { None } else { Some(legal.dudo[i]) } };
        }
        let i = i - legal.dudo.len();
        if legal.calza && i == 0 {
            return Action::Calza;
        }
        if legal.watch {
            return Action::Watch;
        }
        fallback(legal)
    }

    fn interject(&mut self, _rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
        self.rng = decision_rng(self.seed, view);
        if legal.calza && self.rng.random_range(0..20) == 0 {
            return Some(Action::Calza);
        }
        (!legal.dudo.is_empty() && self.rng.random_range(0..20) == 0).then_some(Action::Dudo { target: None })
    }
}

/// A push of some dice of one face, with a bid the rules allow after it.
fn random_push(rng: &mut impl Rng, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
    let seen: Vec<u8> = view.my_dice.iter().flatten().copied().collect();
    if seen.is_empty() || view.my_dice.len() < 2 {
        return None;
    }
    let face = seen[rng.random_range(0..seen.len())];
    let mut of_face = seen.iter().filter(|&&d| d == face).count().min(view.my_dice.len() - 1);
    if rules.push.dice == PushDice::MatchingBidFace {
        // The bid must claim more than the dice shown.
        let r = legal.bids.iter().find(|r| r.face == face)?;
        of_face = of_face.min(usize::from(r.max_quantity).saturating_sub(1));
        if of_face == 0 {
            return None;
        }
    }
    let k = rng.random_range(1..=of_face);
    let bid = match rules.push.dice {
        PushDice::MatchingBidFace => {
            let least = legal.min_bid(face)?;
            Bid::new(least.quantity.max(k as u16 + 1), face)
        }
        _ => {
            let r = legal.bids.get(rng.random_range(0..legal.bids.len().max(1)))?;
            Bid::new(r.min_quantity, r.face)
        }
    };
    Some(Action::Push { dice: vec![face; k], bid })
}

fn fallback(legal: &Legal) -> Action {
    if !legal.dudo.is_empty() {
        return Action::Dudo { target: None };
    }
    if legal.dogs_life {
        return Action::DogsLife { bark: true };
    }
    if legal.accept {
        return Action::Accept;
    }
    match legal.bids.first() {
        Some(r) => Action::Bid(Bid::new(r.min_quantity, r.face)),
        None if legal.pass => Action::Pass,
        None => Action::Calza,
    }
}

/// What a bot believes about how many dice show each face: the odds bot's plain binomial
/// knowledge, or the reader's, which also weighs what the others have bid.
pub trait Beliefs {
    fn odds(&self, face: u8, quantity: u16) -> BidOdds;
    /// The largest quantity of `face` at least `threshold` likely to be there.
    fn likely_quantity(&self, face: u8, threshold: f64) -> u32;
}

impl Beliefs for Knowledge {
    fn odds(&self, face: u8, quantity: u16) -> BidOdds {
        self.face(face).odds(quantity)
    }

    fn likely_quantity(&self, face: u8, threshold: f64) -> u32 {
        self.face(face).likely_quantity(threshold)
    }
}

/// Bids and challenges by the binomial odds from its own seat (seed 002's "Basic Dice Odds"):
/// it challenges when the bid is less likely true than its best raise, raises to the most
/// likely minimum raise, and calls exact when that is the likeliest way to win.
pub struct OddsBot {
    /// The seat's seed; each decision's randomness is drawn from it and the move count.
    seed: u64,
    rng: DecisionRng,
}

impl OddsBot {
    pub fn new(seed: u64) -> Self {
        OddsBot { seed, rng: DecisionRng::seed_from_u64(seed) }
    }
}

/// The least raise on the face most likely to be there.
fn best_raise(rng: &mut DecisionRng, know: &impl Beliefs, legal: &Legal) -> Option<(Bid, f64)> {
    let mut best: Option<(Bid, f64)> = None;
    for r in &legal.bids {
        let bid = Bid::new(r.min_quantity, r.face);
        let p = know.odds(r.face, bid.quantity).at_least;
        // Ties go to a coin flip so the bot is not fully predictable.
        let better = match best {
            None => true,
            Some((_, bp)) => p > bp + 1e-12 || ((p - bp).abs() <= 1e-12 && rng.random_bool(0.5)),
        };
        if better {
            best = Some((bid, p));
        }
    }
    best
}

/// The opening bid: the most dice of one face still more likely there than not.
fn opening(know: &impl Beliefs, legal: &Legal) -> Option<Bid> {
    let mut best: Option<(Bid, f64)> = None;
    for r in &legal.bids {
        // The largest quantity of this face that is still more likely true than not.
        let likely = know.likely_quantity(r.face, 0.5);
        let q = u16::try_from(likely).unwrap_or(u16::MAX).clamp(r.min_quantity, r.max_quantity);
        let bid = Bid::new(q, r.face);
        let p = know.odds(r.face, q).at_least;
        let better = match best {
            None => true,
            Some((b, bp)) => q > b.quantity || (q == b.quantity && p > bp),
        };
        if better {
            best = Some((bid, p));
        }
    }
    best.map(|b| b.0)
}

/// Whether an individual-hand call can be made with what this seat sees: a Mexican claim
/// needs a one under the cup.
fn hand_call_possible(view: &View, legal: &Legal, action: &Action) -> bool {
    match (action, legal.hand_game, &view.hand) {
        (Action::Claim(h), Some(game), Some(hand)) if game.is_mexican(&h.dice) => {
            hand.dice.contains(&Some(1))
        }
        _ => true,
    }
}

/// The odds bot's individual-hand play: challenge a claim a fresh roll rarely makes, keep
/// the biggest group and re-roll the rest, then claim the truth if it is enough, else the
/// least the rules allow.
fn hand_odds_move(game: HandGame, view: &View, legal: &Legal) -> Action {
    if legal.dogs_life {
        return Action::DogsLife { bark: true };
    }
    let Some(hand) = &view.hand else { return fallback(legal) };
    if let (Some(&claimant), Some((_, claim))) = (legal.dudo.first(), &hand.claim) {
        let _ = claimant;
        if game.chance_at_least(claim) < 0.2
            || !legal.accept && legal.roll.is_none() && legal.claim_from.is_none()
        {
            return Action::Dudo { target: None };
        }
    }
    // Handed the cup and not challenging: take it and look before anything else.
    if legal.accept && !hand.accepted {
        return Action::Accept;
    }
    let dice: Vec<u8> = hand.dice.iter().map(|d| d.unwrap_or(0)).collect();
    let known = dice.iter().all(|&d| d > 0);
    if let Some(roll) = legal.roll {
        let n = game.dice();
        let floor_met =
            legal.claim_from.as_ref().is_some_and(|f| known && game.value(&dice) >= game.value(&f.dice));
        let first = hand.rolls_this_turn == 0;
        if roll.all
            && (first
                || hand.five_aces_tries.is_some()
                || (roll.drinks <= 1 && !floor_met && hand.rolls_this_turn < 3))
        {
            return Action::Roll { dice: (0..n).collect(), show: Vec::new() };
        }
        if hand.five_aces_tries.is_some() {
            let reroll: Vec<usize> = (0..n).filter(|&i| dice[i] != 6).collect();
            return Action::Roll {
                dice: if reroll.is_empty() { (0..n).collect() } else { reroll },
                show: Vec::new(),
            };
        }
        if !roll.all && first && known && !floor_met {
            // Keep the most of a kind (the highest such face), re-roll the rest.
            let mut counts = [0u8; 7];
            dice.iter().for_each(|&d| counts[usize::from(d)] += 1);
            let keep = (1..=6u8).max_by_key(|&f| (counts[usize::from(f)], f)).unwrap_or(6);
            let reroll: Vec<usize> = (0..n).filter(|&i| dice[i] != keep).collect();
            if !reroll.is_empty() {
                return Action::Roll { dice: reroll, show: Vec::new() };
            }
        }
    }
    if let Some(floor) = &legal.claim_from {
        // The truth when it is enough (it cannot be caught), else the least bluff.
        let truth = Hand::new(dice.clone());
        let claim =
            if known && game.value(&truth.dice) >= game.value(&floor.dice) { truth } else { floor.clone() };
        let claim = Action::Claim(claim);
        if hand_call_possible(view, legal, &claim) {
            return claim;
        }
        let least = Action::Claim(floor.clone());
        if hand_call_possible(view, legal, &least) {
            return least;
        }
    }
    if legal.accept {
        return Action::Accept;
    }
    if let Some(roll) = legal.roll {
        let _ = roll;
        return Action::Roll { dice: (0..game.dice()).collect(), show: Vec::new() };
    }
    fallback(legal)
}

fn pass_is_true(rules: &RuleSet, view: &View) -> bool {
    let Some(seat) = view.seat else { return false };
    let mut dice: Vec<u8> = Vec::new();
    for d in &view.my_dice {
        match d {
            Some(d) => dice.push(*d),
            None => return false,
        }
    }
    dice.extend(view.players.get(seat).map(|p| p.pushed.clone()).unwrap_or_default());
    match rules.pass.claim {
        PassClaim::AllSameFace => dice.windows(2).all(|w| w[0] == w[1]),
        PassClaim::AllDifferent => {
            dice.sort_unstable();
            dice.windows(2).all(|w| w[0] != w[1])
        }
        PassClaim::Off => false,
    }
}

impl Bot for OddsBot {
    fn reseed(&mut self, seed: u64) -> bool {
        *self = OddsBot::new(seed);
        true
    }

    fn name(&self) -> &'static str {
        "odds"
    }

    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
        self.rng = decision_rng(self.seed, view);
        if let Some(game) = legal.hand_game {
            return hand_odds_move(game, view, legal);
        }
        common_hand_move(&mut self.rng, &Knowledge::of(view, rules.dice.faces), rules, view, legal)
    }

    fn interject(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
        out_of_turn(&Knowledge::of(view, rules.dice.faces), rules, view, legal)
    }
}

/// The common-hand play of the odds and reader bots, given what the bot believes: challenge
/// when the bid is less likely true than its best raise, raise to the likeliest least raise,
/// call exact when that is the likeliest way to win.
fn common_hand_move(
    rng: &mut DecisionRng,
    know: &impl Beliefs,
    rules: &RuleSet,
    view: &View,
    legal: &Legal,
) -> Action {
    let Some((_, current)) = view.current_bid else {
        return match opening(know, legal) {
            Some(bid) => Action::Bid(bid),
            None => fallback(legal),
        };
    };
    let now = know.odds(current.face, current.quantity);
    let best = best_raise(rng, know, legal);
    let raise_p = best.map_or(0.0, |b| b.1);
    let dudo_p = 1.0 - now.at_least;
    if legal.calza && now.exactly > dudo_p.max(raise_p) {
        return Action::Calza;
    }
    if legal.pass && raise_p < 0.5 && pass_is_true(rules, view) {
        return Action::Pass;
    }
    // The points game: stop while the last guess of ours still looks good.
    if legal.watch
        && raise_p < 0.5
        && dudo_p < 0.5
        && let Some(mine) = view.seat.and_then(|s| view.players.get(s)).and_then(|p| p.last_guess)
        && know.odds(mine.face, mine.quantity).at_least >= 0.6
    {
        return Action::Watch;
    }
    match best {
        Some((bid, p)) if legal.dudo.is_empty() || p >= dudo_p => Action::Bid(bid),
        _ => fallback(legal),
    }
}

/// Out of turn: a challenge when the bid is very likely false, exact when it is likely right.
fn out_of_turn(know: &impl Beliefs, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
    let (_, current) = view.current_bid?;
    // An out-of-turn challenge (002) when the bid is very likely false.
    if !legal.dudo.is_empty() && know.odds(current.face, current.quantity).at_least < 0.2 {
        return Some(Action::Dudo { target: None });
    }
    if !legal.calza {
        return None;
    }
    let mine = view.seat.and_then(|s| view.players.get(s)).map_or(0, |p| p.dice);
    if mine >= u16::from(rules.dice.max) {
        return None;
    }
    let p = know.odds(current.face, current.quantity).exactly;
    (mine < u16::from(rules.dice.max) && p > 0.5).then_some(Action::Calza)
}
