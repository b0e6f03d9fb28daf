//! The reader: the odds bot's play, with every other player's bids this round read as
//! evidence about their dice.

use rand::SeedableRng;

use super::{Beliefs, Bot, DecisionRng, common_hand_move, decision_rng, hand_odds_move, out_of_turn};
use crate::action::Action;
use crate::game::{Legal, View};
use crate::odds::{BidOdds, match_chance};
use crate::ruleset::RuleSet;

/// The odds bot's play on better beliefs: it reads every other player's bids this round as
/// evidence about their dice. A player who bid on a face is taken to hold more of it than
/// chance would give: each of their hidden dice matches with odds tilted by `TILT` per bid
/// they made on that face (at most two), as if they bid what they hold. Everything else is
/// the odds bot's, so the difference between the two is what reading bids is worth.
pub struct ReaderBot {
    /// The seat's seed; each decision's randomness is drawn from it and the move count.
    seed: u64,
    rng: DecisionRng,
}

impl ReaderBot {
    pub fn new(seed: u64) -> Self {
        ReaderBot { seed, rng: DecisionRng::seed_from_u64(seed) }
    }
}

impl Bot for ReaderBot {
    fn reseed(&mut self, seed: u64) -> bool {
        *self = ReaderBot::new(seed);
        true
    }

    fn name(&self) -> &'static str {
        "reader"
    }

    fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Action {
        self.rng = decision_rng(self.seed, view);
        if let Some(game) = legal.hand_game {
            return hand_odds_move(game, view, legal);
        }
        common_hand_move(&mut self.rng, &Reading::of(view, rules.dice.faces), rules, view, legal)
    }

    fn interject(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
        reader_out_of_turn(rules, view, legal)
    }
}

/// The reader's call out of turn (the expert's too): only the bid's own face is asked about.
pub(super) fn reader_out_of_turn(rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
    let face = view.current_bid.map(|(_, b)| b.face)?;
    out_of_turn(&Reading::of_faces(view, rules.dice.faces, face..=face), rules, view, legal)
}

/// How much one bid on a face raises the log-odds that each of the bidder's dice shows it.
pub(super) const TILT: f64 = 0.9;

/// For each face, the chance of every total count of matching dice on the table, from one
/// seat, with the others' bids read as evidence.
pub struct Reading {
    /// `tails[face][q]`: the chance at least `q` dice match `face`; `pmf` the chance of exactly.
    tails: Vec<Vec<f64>>,
    pmf: Vec<Vec<f64>>,
}

impl Reading {
    pub fn of(view: &View, faces: u8) -> Reading {
        Reading::of_faces(view, faces, 1..=faces)
    }

    /// The reading of `asked` faces only (the others read as impossible): a call out of turn
    /// needs one face, and a table of many dice should not pay for the rest.
    pub fn of_faces(view: &View, faces: u8, asked: std::ops::RangeInclusive<u8>) -> Reading {
        let bids = BidsRead::of(view, faces);
        let mut tails = vec![Vec::new(); usize::from(faces) + 1];
        let mut pmf = vec![Vec::new(); usize::from(faces) + 1];
        for face in asked.filter(|f| (1..=faces).contains(f)) {
            let dist = count_distribution(view, &bids, faces, face);
            let mut tail = vec![0.0; dist.len() + 1];
            for q in (0..dist.len()).rev() {
                tail[q] = tail[q + 1] + dist[q];
            }
            tails[usize::from(face)] = tail;
            pmf[usize::from(face)] = dist;
        }
        Reading { tails, pmf }
    }
}

/// How many bids (at most two) each seat made on each face this round: one pass over the
/// round's claims, however many seats ask.
pub(super) struct BidsRead {
    /// `counts[seat * (faces + 1) + face]`.
    counts: Vec<u8>,
    stride: usize,
}

impl BidsRead {
    pub(super) fn of(view: &View, faces: u8) -> BidsRead {
        let stride = usize::from(faces) + 1;
        let mut counts = vec![0u8; view.players.len() * stride];
        for claim in &view.claims {
            let face = match claim.kind {
                crate::game::ClaimKind::Bid(b) | crate::game::ClaimKind::PushBid(b) => b.face,
                crate::game::ClaimKind::Pass => continue,
            };
            if let Some(n) = counts.get_mut(claim.seat * stride + usize::from(face)) {
                *n = (*n + 1).min(2);
            }
        }
        BidsRead { counts, stride }
    }

    pub(super) fn on(&self, seat: usize, face: u8) -> u8 {
        self.counts.get(seat * self.stride + usize::from(face)).copied().unwrap_or(0)
    }
}

impl Beliefs for Reading {
    fn odds(&self, face: u8, quantity: u16) -> BidOdds {
        let q = usize::from(quantity);
        let at = |v: &Vec<Vec<f64>>| v.get(usize::from(face)).and_then(|d| d.get(q)).copied().unwrap_or(0.0);
        BidOdds { at_least: at(&self.tails).min(1.0), exactly: at(&self.pmf) }
    }

    fn likely_quantity(&self, face: u8, threshold: f64) -> u32 {
        let tail = self.tails.get(usize::from(face)).map_or(&[][..], Vec::as_slice);
        tail.iter().rposition(|&p| p >= threshold).map_or(0, |q| q as u32)
    }
}

/// The distribution of the number of dice matching `face` this round, as one seat reads it.
///
/// Hidden dice with the same chance of matching are one binomial: the seat's own hidden
/// dice and those of players who did not bid on the face, then those who bid once, then
/// twice. Each binomial is cut where its chances fall below [`NEGLIGIBLE`], so the work
/// grows with the spread of the count, not with the square of the dice on the table.
fn count_distribution(view: &View, bids: &BidsRead, faces: u8, face: u8) -> Vec<f64> {
    let wild = view.wild;
    let matches = |d: u8| d == face || wild.is_some_and(|w| w != face && d == w);
    if let Some(all) = &view.all_dice {
        let n = all.iter().flatten().filter(|&&d| matches(d)).count();
        let mut dist = vec![0.0; n + 1];
        dist[n] = 1.0;
        return dist;
    }
    let chance = match_chance(face, faces, wild);
    let mut known = 0usize;
    // Hidden dice by how many bids their owner made on the face (0, 1, 2).
    let mut hidden = [0u32; 3];
    for d in &view.my_dice {
        match d {
            Some(d) => known += usize::from(matches(*d)),
            None => hidden[0] += 1,
        }
    }
    for (seat, p) in view.players.iter().enumerate() {
        if p.place.is_some() {
            continue;
        }
        known += p.pushed.iter().filter(|&&d| matches(d)).count();
        if Some(seat) == view.seat {
            continue;
        }
        let unseen = u32::from(p.dice).saturating_sub(p.pushed.len() as u32);
        hidden[usize::from(bids.on(seat, face))] += unseen;
    }
    let mut dist = Counts { offset: known, chances: vec![1.0] };
    for (bids_on_face, &n) in hidden.iter().enumerate() {
        if n == 0 {
            continue;
        }
        // Tilting the log-odds of each die is the same as a binomial with a larger chance.
        let boost = (TILT * bids_on_face as f64).exp();
        let tilted = chance * boost / (1.0 - chance + chance * boost);
        dist = dist.plus(&Counts::binomial(n, tilted));
    }
    let mut out = vec![0.0; dist.offset];
    out.extend(dist.chances);
    out
}

/// Chances this small decide nothing a bot does (its thresholds are tenths).
const NEGLIGIBLE: f64 = 1e-15;

/// A distribution over counts, from `offset` on (below it, and past its end, nothing).
struct Counts {
    offset: usize,
    chances: Vec<f64>,
}

impl Counts {
    /// Binomial(n, p), without its negligible tails.
    fn binomial(n: u32, p: f64) -> Counts {
        let row = crate::odds::pmf_row(n, p);
        let first = row.iter().position(|&c| c > NEGLIGIBLE).unwrap_or(0);
        let last = row.iter().rposition(|&c| c > NEGLIGIBLE).unwrap_or(first);
        Counts { offset: first, chances: row.get(first..=last).map_or_else(|| vec![1.0], <[f64]>::to_vec) }
    }

    /// The distribution of the sum of two independent counts.
    fn plus(&self, other: &Counts) -> Counts {
        let mut chances = vec![0.0; (self.chances.len() + other.chances.len()).saturating_sub(1)];
        for (i, &a) in self.chances.iter().enumerate() {
            for (j, &b) in other.chances.iter().enumerate() {
                chances[i + j] += a * b;
            }
        }
        Counts { offset: self.offset + other.offset, chances }
    }
}
