//! The odds of a bid, from one seat's point of view (seed 002, "Basic Dice Odds").
//!
//! With `n` unknown dice each matching a face with chance `p`, the chance of exactly `q`
//! matches is `C(n,q) p^q (1-p)^(n-q)`, and of at least `q` the sum of those from `q` to `n`.
//! A seat knows its own dice (as it was shown them) and every pushed die; the rest are
//! unknown. With a wild face in force, a non-wild face matches with chance 2/faces.

use crate::bid::Bid;
use crate::game::View;

/// The chance that a bid is true (at least) and exactly true.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BidOdds {
    pub at_least: f64,
    pub exactly: f64,
}

/// Binomial probabilities of exactly `k` and at least `k` successes in `n` trials.
pub fn binomial(n: u32, k: u32, p: f64) -> BidOdds {
    if k > n {
        return BidOdds { at_least: 0.0, exactly: 0.0 };
    }
    if p <= 0.0 {
        let hit = if k == 0 { 1.0 } else { 0.0 };
        return BidOdds { at_least: hit, exactly: hit };
    }
    if p >= 1.0 {
        return BidOdds { at_least: 1.0, exactly: if k == n { 1.0 } else { 0.0 } };
    }
    let q = 1.0 - p;
    let ratio = p / q;
    // pmf(0) = q^n; if that underflows, walk in logarithms instead.
    let start = q.powi(n as i32);
    let use_logs = start < 1e-290;
    let mut term = if use_logs { f64::from(n) * q.ln() } else { start };
    let mut exactly = 0.0;
    let mut at_least = 0.0;
    for i in 0..=n {
        let value = if use_logs { term.exp() } else { term };
        if i == k {
            exactly = value;
        }
        if i >= k {
            at_least += value;
        }
        if i < n {
            let step = f64::from(n - i) / f64::from(i + 1) * ratio;
            if use_logs {
                term += step.ln();
            } else {
                term *= step;
            }
        }
    }
    BidOdds { at_least: at_least.min(1.0), exactly }
}

/// `P(exactly k)` for every `k` from 0 to `n`, by the same walk as [`binomial`].
pub(crate) fn pmf_row(n: u32, p: f64) -> Vec<f64> {
    if p <= 0.0 || p >= 1.0 {
        return (0..=n).map(|k| binomial(n, k, p).exactly).collect();
    }
    let q = 1.0 - p;
    let ratio = p / q;
    let start = q.powi(n as i32);
    let use_logs = start < 1e-290;
    let mut term = if use_logs { f64::from(n) * q.ln() } else { start };
    let mut out = Vec::with_capacity(n as usize + 1);
    for i in 0..=n {
        out.push(if use_logs { term.exp() } else { term });
        if i < n {
            let step = f64::from(n - i) / f64::from(i + 1) * ratio;
            if use_logs {
                term += step.ln();
            } else {
                term *= step;
            }
        }
    }
    out
}

/// Odds rows for the chances tables actually use (one or two matching faces out of 3 to 9)
/// and up to [`TABLE_DICE`] unknown dice, built once per process: bots ask the same few
/// questions thousands of times a game.
const TABLE_DICE: u32 = 64;

struct OddsRow {
    at_least: Vec<f64>,
    exactly: Vec<f64>,
}

impl OddsRow {
    fn new(n: u32, p: f64) -> Self {
        let exactly = pmf_row(n, p);
        let mut at_least = vec![0.0; exactly.len() + 1];
        for k in (0..exactly.len()).rev() {
            at_least[k] = (at_least[k + 1] + exactly[k]).min(1.0);
        }
        OddsRow { at_least, exactly }
    }
}

/// (chance, rows by number of unknown dice) for every chance `match_chance` can return.
fn table() -> &'static [(f64, Vec<OddsRow>)] {
    static TABLE: std::sync::OnceLock<Vec<(f64, Vec<OddsRow>)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out = Vec::new();
        for faces in 3u8..=9 {
            for hits in [1.0, 2.0] {
                let p = hits / f64::from(faces);
                out.push((p, (0..=TABLE_DICE).map(|n| OddsRow::new(n, p)).collect()));
            }
        }
        out
    })
}

/// [`binomial`], from the table when it covers `n` and `p`.
pub fn binomial_fast(n: u32, k: u32, p: f64) -> BidOdds {
    if k > n {
        return BidOdds { at_least: 0.0, exactly: 0.0 };
    }
    if n <= TABLE_DICE
        && let Some((_, rows)) = table().iter().find(|(tp, _)| tp.to_bits() == p.to_bits())
    {
        let row = &rows[n as usize];
        return BidOdds { at_least: row.at_least[k as usize], exactly: row.exactly[k as usize] };
    }
    binomial(n, k, p)
}

/// The chance one unknown die matches `face` this round.
pub fn match_chance(face: u8, faces: u8, wild: Option<u8>) -> f64 {
    let hits = match wild {
        Some(w) if w != face => 2.0,
        _ => 1.0,
    };
    hits / f64::from(faces)
}

/// What a seat knows about one face: matching dice it can see, dice it cannot see, and the
/// chance each unseen die matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceKnowledge {
    pub known_matches: u32,
    pub unknown: u32,
    pub chance: f64,
    /// Every die is known (an eliminated player who sees all dice).
    pub certain: bool,
}

/// What a seat knows about every face, from one pass over the dice it can see.
#[derive(Clone, Copy, Debug)]
pub struct Knowledge {
    /// Dice seen per face (index = face).
    seen: [u32; 10],
    known: u32,
    total: u32,
    certain: bool,
    wild: Option<u8>,
    faces: u8,
}

impl Knowledge {
    pub fn of(view: &View, faces: u8) -> Self {
        let mut seen = [0u32; 10];
        let mut known = 0;
        let certain = view.all_dice.is_some();
        let mut tally = |d: u8| {
            if let Some(slot) = seen.get_mut(usize::from(d)) {
                *slot += 1;
            }
            known += 1;
        };
        if let Some(all) = &view.all_dice {
            all.iter().flatten().for_each(|&d| tally(d));
        } else {
            view.my_dice.iter().flatten().for_each(|&d| tally(d));
            for p in view.players.iter().filter(|p| p.place.is_none()) {
                p.pushed.iter().for_each(|&d| tally(d));
            }
        }
        Knowledge { seen, known, total: u32::from(view.total_dice()), certain, wild: view.wild, faces }
    }

    /// What is known about `face`.
    pub fn face(&self, face: u8) -> FaceKnowledge {
        let at = |f: u8| self.seen.get(usize::from(f)).copied().unwrap_or(0);
        let wild = self.wild.filter(|&w| w != face).map_or(0, at);
        FaceKnowledge {
            known_matches: at(face) + wild,
            unknown: if self.certain { 0 } else { self.total.saturating_sub(self.known) },
            chance: match_chance(face, self.faces, self.wild),
            certain: self.certain,
        }
    }
}

/// What the seat whose view this is knows about `face` (a spectator knows no dice).
pub fn knowledge(view: &View, faces: u8, face: u8) -> FaceKnowledge {
    let wild = view.wild;
    let matches = |d: u8| d == face || (wild.is_some_and(|w| w != face && d == w));
    if let Some(all) = &view.all_dice {
        let known_matches = all.iter().flatten().filter(|&&d| matches(d)).count() as u32;
        return FaceKnowledge { known_matches, unknown: 0, chance: 0.0, certain: true };
    }
    let mut known = 0u32;
    let mut known_matches = 0u32;
    for d in view.my_dice.iter().flatten() {
        known += 1;
        known_matches += u32::from(matches(*d));
    }
    for p in view.players.iter().filter(|p| p.place.is_none()) {
        for &d in &p.pushed {
            known += 1;
            known_matches += u32::from(matches(d));
        }
    }
    let unknown = u32::from(view.total_dice()).saturating_sub(known);
    FaceKnowledge { known_matches, unknown, chance: match_chance(face, faces, wild), certain: false }
}

impl FaceKnowledge {
    /// The odds that at least / exactly `quantity` dice match.
    pub fn odds(&self, quantity: u16) -> BidOdds {
        let q = u32::from(quantity);
        if self.certain || self.known_matches >= q {
            let at_least = if self.known_matches >= q { 1.0 } else { 0.0 };
            let exactly = match self.known_matches.cmp(&q) {
                std::cmp::Ordering::Equal if self.certain => 1.0,
                std::cmp::Ordering::Equal => binomial_fast(self.unknown, 0, self.chance).exactly,
                _ => 0.0,
            };
            return BidOdds { at_least, exactly };
        }
        binomial_fast(self.unknown, q - self.known_matches, self.chance)
    }

    /// The largest quantity whose bid is at least `threshold` likely, from one pass over the
    /// distribution (0 if none is).
    pub fn likely_quantity(&self, threshold: f64) -> u32 {
        if self.certain || self.unknown == 0 {
            return self.known_matches;
        }
        let (n, p) = (self.unknown, self.chance);
        let top = p.powi(n as i32);
        if top > 1e-290 {
            // Walk down from the top, summing the tail, until it reaches the threshold.
            let ratio = (1.0 - p) / p;
            let mut pmf = top;
            let mut tail = 0.0;
            let mut k = n;
            loop {
                tail += pmf;
                if tail >= threshold || k == 0 {
                    return self.known_matches + if tail >= threshold { k } else { 0 };
                }
                pmf *= f64::from(k) / f64::from(n - k + 1) * ratio;
                k -= 1;
            }
        }
        // Huge tables: search the monotone tail instead of risking underflow.
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if binomial(n, mid, p).at_least >= threshold {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.known_matches + lo
    }
}

/// How likely `bid` is from the seat whose view this is (a spectator knows no dice).
pub fn bid_odds(view: &View, faces: u8, bid: Bid) -> BidOdds {
    knowledge(view, faces, bid.face).odds(bid.quantity)
}

/// The quantity most likely to be exactly right for `face` (002's "expected quantity").
pub fn expected_quantity(view: &View, faces: u8, face: u8) -> f64 {
    let wild = view.wild;
    let matches = |d: u8| d == face || (wild.is_some_and(|w| w != face && d == w));
    let mine: usize = view.my_dice.iter().flatten().filter(|&&d| matches(d)).count();
    let pushed: usize = view.players.iter().flat_map(|p| p.pushed.iter()).filter(|&&d| matches(d)).count();
    let known =
        view.my_dice.iter().flatten().count() + view.players.iter().map(|p| p.pushed.len()).sum::<usize>();
    let unknown = usize::from(view.total_dice()).saturating_sub(known);
    (mine + pushed) as f64 + unknown as f64 * match_chance(face, faces, wild)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn seed_002_formulas() {
        // P(q) = C(n,q) (1/6)^q (5/6)^(n-q): one six among two dice is 10/36.
        let o = binomial(2, 1, 1.0 / 6.0);
        assert!(close(o.exactly, 10.0 / 36.0));
        assert!(close(o.at_least, 11.0 / 36.0));
        // At least zero is certain; more than n is impossible.
        assert!(close(binomial(10, 0, 0.3).at_least, 1.0));
        assert_eq!(binomial(3, 4, 0.5).at_least, 0.0);
    }

    #[test]
    fn expected_quantity_has_better_than_even_odds() {
        // "A bid of the expected quantity, rounded down, has a greater than 50% chance".
        for n in [6u32, 12, 18, 24, 30] {
            let o = binomial(n, n / 6, 1.0 / 6.0);
            assert!(o.at_least > 0.5, "n={n}");
            // ...and the highest chance of being exactly right.
            let best = (0..=n).max_by(|&a, &b| {
                binomial(n, a, 1.0 / 6.0).exactly.total_cmp(&binomial(n, b, 1.0 / 6.0).exactly)
            });
            assert_eq!(best, Some(n / 6), "n={n}");
        }
    }

    #[test]
    fn sixty_percent_of_the_dice_is_effectively_impossible() {
        // "At a quantity roughly 60% of the number of unknown dice ... less than 1 in 10,000".
        assert!(binomial(25, 15, 1.0 / 6.0).at_least < 1e-4);
    }

    #[test]
    fn likely_quantity_is_the_largest_bid_at_least_that_likely() {
        for (n, p) in [(0u32, 1.0 / 6.0), (1, 1.0 / 3.0), (10, 1.0 / 6.0), (25, 1.0 / 3.0), (3000, 1.0 / 3.0)]
        {
            let k = FaceKnowledge { known_matches: 2, unknown: n, chance: p, certain: false };
            let q = k.likely_quantity(0.5);
            assert!(q >= 2);
            assert!(binomial(n, q - 2, p).at_least >= 0.5, "n={n}");
            if q - 2 < n {
                assert!(binomial(n, q - 1, p).at_least < 0.5, "n={n}");
            }
        }
    }

    #[test]
    fn the_table_holds_exactly_what_binomial_computes() {
        for n in [0u32, 1, 7, 30, 64, 65] {
            for k in 0..=n + 1 {
                for p in [1.0 / 6.0, 2.0 / 6.0, 1.0 / 9.0, 2.0 / 3.0, 0.3] {
                    let (a, b) = (binomial_fast(n, k, p), binomial(n, k, p));
                    assert!((a.at_least - b.at_least).abs() < 1e-12 && a.exactly == b.exactly, "{n} {k}");
                }
            }
        }
    }

    #[test]
    fn huge_tables_do_not_underflow() {
        let o = binomial(2560, 853, 1.0 / 3.0);
        assert!(o.at_least > 0.4 && o.at_least < 0.6, "{o:?}");
        let total: f64 = (0..=100).map(|k| binomial(100, k, 0.3).exactly).sum();
        assert!(close(total, 1.0));
    }
}
