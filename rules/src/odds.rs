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
    let log_start = f64::from(n) * q.ln();
    let use_logs = log_start < -700.0;
    let mut term = if use_logs { log_start } else { q.powi(n as i32) };
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

/// The chance one unknown die matches `face` this round.
pub fn match_chance(face: u8, faces: u8, wild: Option<u8>) -> f64 {
    let hits = match wild {
        Some(w) if w != face => 2.0,
        _ => 1.0,
    };
    hits / f64::from(faces)
}

/// How likely `bid` is from the seat whose view this is (a spectator knows no dice).
pub fn bid_odds(view: &View, faces: u8, bid: Bid) -> BidOdds {
    let wild = view.wild;
    let matches = |d: u8| d == bid.face || (wild.is_some_and(|w| w != bid.face && d == w));
    if let Some(all) = &view.all_dice {
        let actual = all.iter().flatten().filter(|&&d| matches(d)).count() as u32;
        let q = u32::from(bid.quantity);
        return BidOdds {
            at_least: if actual >= q { 1.0 } else { 0.0 },
            exactly: if actual == q { 1.0 } else { 0.0 },
        };
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
    let total = u32::from(view.total_dice());
    let unknown = total.saturating_sub(known);
    let q = u32::from(bid.quantity);
    let p = match_chance(bid.face, faces, wild);
    if known_matches >= q {
        let exactly = if known_matches == q { binomial(unknown, 0, p).exactly } else { 0.0 };
        return BidOdds { at_least: 1.0, exactly };
    }
    binomial(unknown, q - known_matches, p)
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
    fn huge_tables_do_not_underflow() {
        let o = binomial(2560, 853, 1.0 / 3.0);
        assert!(o.at_least > 0.4 && o.at_least < 0.6, "{o:?}");
        let total: f64 = (0..=100).map(|k| binomial(100, k, 0.3).exactly).sum();
        assert!(close(total, 1.0));
    }
}
