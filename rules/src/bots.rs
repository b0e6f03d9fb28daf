//! Built-in bots: they fill empty seats, drive `dudo simulate`, and are the bot SDK's
//! reference players. A bot sees only its seat's [`View`] and [`Legal`] actions, exactly what
//! a remote bot receives, so nothing here can peek.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::action::Action;
use crate::bid::Bid;
use crate::game::{Legal, View};
use crate::hand::{Hand, HandGame};
use crate::odds::{Knowledge, knowledge};
use crate::ruleset::{PassClaim, PushDice, RuleSet};

/// The names `by_name` knows.
pub const NAMES: &[&str] = &["random", "odds"];

/// A player that decides from its own view.
pub trait Bot: Send {
    fn name(&self) -> &'static str;
    /// The action for the seat whose turn it is. `legal` is never empty.
    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action;
    /// A call out of turn (Calza), or `None` to stay silent.
    fn interject(&mut self, _rules: &RuleSet, _view: &View, _legal: &Legal) -> Option<Action> {
        None
    }
}

/// The bot called `name`, its private randomness seeded by `seed`.
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    match name {
        "random" => Some(Box::new(RandomBot::new(seed))),
        "odds" => Some(Box::new(OddsBot::new(seed))),
        _ => None,
    }
}

/// Picks uniformly among the legal actions (a push counts as one more choice); in the
/// individual-hand games, a kind of call uniformly (challenge, accept, roll, claim), then
/// uniformly within it.
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    pub fn new(seed: u64) -> Self {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &'static str {
        "random"
    }

    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
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
        let bids: u32 = legal.bids.iter().map(|r| u32::from(r.max_quantity - r.min_quantity) + 1).sum();
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
            let n = u32::from(r.max_quantity - r.min_quantity) + 1;
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

    fn interject(&mut self, _rules: &RuleSet, _view: &View, legal: &Legal) -> Option<Action> {
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
    let of_face = seen.iter().filter(|&&d| d == face).count().min(view.my_dice.len() - 1);
    let k = rng.random_range(1..=of_face);
    let bid = match rules.push.dice {
        PushDice::MatchingBidFace => legal.min_bid(face)?,
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

/// Bids and challenges by the binomial odds from its own seat (seed 002's "Basic Dice Odds"):
/// it challenges when the bid is less likely true than its best raise, raises to the most
/// likely minimum raise, and calls exact when that is the likeliest way to win.
pub struct OddsBot {
    rng: ChaCha8Rng,
}

impl OddsBot {
    pub fn new(seed: u64) -> Self {
        OddsBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    fn best_raise(&mut self, know: &Knowledge, legal: &Legal) -> Option<(Bid, f64)> {
        let mut best: Option<(Bid, f64)> = None;
        for r in &legal.bids {
            let bid = Bid::new(r.min_quantity, r.face);
            let p = know.face(r.face).odds(bid.quantity).at_least;
            // Ties go to a coin flip so the bot is not fully predictable.
            let better = match best {
                None => true,
                Some((_, bp)) => p > bp + 1e-12 || ((p - bp).abs() <= 1e-12 && self.rng.random_bool(0.5)),
            };
            if better {
                best = Some((bid, p));
            }
        }
        best
    }

    fn opening(&mut self, know: &Knowledge, legal: &Legal) -> Option<Bid> {
        let mut best: Option<(Bid, f64)> = None;
        for r in &legal.bids {
            // The largest quantity of this face that is still more likely true than not.
            let know = know.face(r.face);
            let likely = know.likely_quantity(0.5);
            let q = u16::try_from(likely).unwrap_or(u16::MAX).clamp(r.min_quantity, r.max_quantity);
            let bid = Bid::new(q, r.face);
            let p = know.odds(q).at_least;
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
    fn name(&self) -> &'static str {
        "odds"
    }

    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
        if let Some(game) = legal.hand_game {
            return hand_odds_move(game, view, legal);
        }
        let know = Knowledge::of(view, rules.dice.faces);
        let Some((_, current)) = view.current_bid else {
            return match self.opening(&know, legal) {
                Some(bid) => Action::Bid(bid),
                None => fallback(legal),
            };
        };
        let now = know.face(current.face).odds(current.quantity);
        let best = self.best_raise(&know, legal);
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
            && know.face(mine.face).odds(mine.quantity).at_least >= 0.6
        {
            return Action::Watch;
        }
        match best {
            Some((bid, p)) if legal.dudo.is_empty() || p >= dudo_p => Action::Bid(bid),
            _ => fallback(legal),
        }
    }

    fn interject(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
        let (_, current) = view.current_bid?;
        // An out-of-turn challenge (002) when the bid is very likely false.
        if !legal.dudo.is_empty()
            && knowledge(view, rules.dice.faces, current.face).odds(current.quantity).at_least < 0.2
        {
            return Some(Action::Dudo { target: None });
        }
        if !legal.calza {
            return None;
        }
        let mine = view.seat.and_then(|s| view.players.get(s)).map_or(0, |p| p.dice);
        if mine >= u16::from(rules.dice.max) {
            return None;
        }
        let p = knowledge(view, rules.dice.faces, current.face).odds(current.quantity).exactly;
        (mine < u16::from(rules.dice.max) && p > 0.5).then_some(Action::Calza)
    }
}
