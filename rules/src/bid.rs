//! Bids and what counts as raising one.
//!
//! Every bidding rule of the seeds is decided here, in [`Bidding::check_raise`]: the five
//! systems of seed 002, the wild-face conversions (000's halve / double plus one, 002's
//! "double or one more than the last non-wild bid"), and the face rules of the special rounds
//! (Palifico's locked face, ex-Palifico raises, 004's one-die players). The minimum raise per
//! face is derived from the same check, so the two can never disagree.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ruleset::{BiddingSystem, OpeningOnWilds, WildBids};

/// A claim that at least `quantity` dice on the table show `face`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Bid {
    pub quantity: u16,
    pub face: u8,
}

impl Bid {
    pub const fn new(quantity: u16, face: u8) -> Self {
        Bid { quantity, face }
    }
}

const FACE_SINGULAR: [&str; 10] =
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const FACE_PLURAL: [&str; 10] =
    ["zeros", "ones", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines"];

/// "one", "two", ... for a face.
pub fn face_name(face: u8, plural: bool) -> &'static str {
    let names = if plural { &FACE_PLURAL } else { &FACE_SINGULAR };
    names.get(usize::from(face)).copied().unwrap_or("?")
}

impl fmt::Display for Bid {
    /// "3 fives", "1 one": how players say it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.quantity, face_name(self.face, self.quantity != 1))
    }
}

/// Who may change the face of the bid in the current round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceRule {
    /// The bidding system decides.
    Free,
    /// The face of the opening bid is kept (Palifico for most players).
    Locked,
    /// The face may rise if the quantity does not fall (000's ex-Palifico players).
    RaiseWithoutLoweringQuantity,
}

/// Why a bid is not a legal raise. Turned into [`crate::RuleError`] by the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BidProblem {
    FaceOutOfRange,
    QuantityOutOfRange,
    OpeningOnWilds,
    /// The wild face is never bid at this table.
    WildNeverBid,
    FaceLocked,
    /// Not higher under the rules in force; the text says which rule.
    NotHigher(&'static str),
}

/// Everything that decides whether a bid raises the current one, for one seat in one round.
#[derive(Clone, Copy, Debug)]
pub struct Bidding {
    pub faces: u8,
    /// Dice in play: no bid may claim more.
    pub total_dice: u16,
    /// The wild face this round, if any (none in special rounds).
    pub wild: Option<u8>,
    pub wild_bids: WildBids,
    pub opening_on_wilds: OpeningOnWilds,
    pub system: BiddingSystem,
    pub face_rule: FaceRule,
    /// The quantity of the last bid of the round not on the wild face (002's conversion).
    pub last_natural_quantity: u16,
}

impl Bidding {
    /// Whether `next` may follow `current` (`None`: `next` opens the round).
    pub fn check_raise(&self, current: Option<Bid>, next: Bid) -> Result<(), BidProblem> {
        if next.face == 0 || next.face > self.faces {
            return Err(BidProblem::FaceOutOfRange);
        }
        if next.quantity == 0 || next.quantity > self.total_dice {
            return Err(BidProblem::QuantityOutOfRange);
        }
        if self.wild == Some(next.face) && self.wild_bids == WildBids::NeverBid {
            return Err(BidProblem::WildNeverBid);
        }
        let Some(cur) = current else {
            if self.wild == Some(next.face)
                && self.opening_on_wilds == OpeningOnWilds::Forbidden
                && self.wild_bids != WildBids::Plain
            {
                return Err(BidProblem::OpeningOnWilds);
            }
            return Ok(());
        };
        match self.face_rule {
            FaceRule::Locked => {
                if next.face != cur.face {
                    return Err(BidProblem::FaceLocked);
                }
                return more(cur, next, "only the quantity may rise in this round");
            }
            FaceRule::RaiseWithoutLoweringQuantity => {
                return if (next.face == cur.face && next.quantity > cur.quantity)
                    || (next.face > cur.face && next.quantity >= cur.quantity)
                {
                    Ok(())
                } else {
                    Err(BidProblem::NotHigher(
                        "an ex-Palifico player may raise the face but not lower the quantity",
                    ))
                };
            }
            FaceRule::Free => {}
        }
        if let Some(wild) = self.wild
            && self.wild_bids != WildBids::Plain
        {
            let (cur_wild, next_wild) = (cur.face == wild, next.face == wild);
            match (cur_wild, next_wild) {
                (true, true) => return more(cur, next, "a bid on wilds is raised by quantity"),
                (false, true) => {
                    return if u32::from(next.quantity) * 2 >= u32::from(cur.quantity) {
                        Ok(())
                    } else {
                        Err(BidProblem::NotHigher(
                            "a switch to wilds needs at least half the quantity, rounded up",
                        ))
                    };
                }
                (true, false) => {
                    let double_plus_one = u32::from(cur.quantity) * 2 + 1;
                    let need = match self.wild_bids {
                        WildBids::HalveAndDoubleOrLastPlusOne => {
                            (u32::from(cur.quantity) * 2).max(u32::from(self.last_natural_quantity) + 1)
                        }
                        _ => double_plus_one,
                    };
                    return if u32::from(next.quantity) >= need {
                        Ok(())
                    } else if self.wild_bids == WildBids::HalveAndDoubleOrLastPlusOne {
                        Err(BidProblem::NotHigher(
                            "leaving wilds needs double the quantity, or one more than the last \
                             bid on another face, whichever is greater",
                        ))
                    } else {
                        Err(BidProblem::NotHigher("leaving wilds needs double the quantity plus one"))
                    };
                }
                (false, false) => {}
            }
        }
        system_raise(self.system, cur, next)
    }

    /// The least quantity of `face` that would be a legal bid now, or `None` if no quantity is.
    ///
    /// Worked out directly from the rule in force (a hot path for bots and playouts);
    /// [`Bidding::min_quantity_by_search`] derives it from [`Bidding::check_raise`] and the
    /// tests hold the two equal.
    // Always inlined: in a loop over the faces the compiler hoists the rule's matches out
    // of the loop (callgrind: BENCHMARKS.md).
    #[inline(always)]
    pub fn min_quantity(&self, current: Option<Bid>, face: u8) -> Option<u16> {
        if face == 0 || face > self.faces {
            return None;
        }
        let q = |n: u32| -> Option<u16> {
            let n = n.max(1);
            (n <= u32::from(self.total_dice)).then_some(n as u16)
        };
        if self.wild == Some(face) && self.wild_bids == WildBids::NeverBid {
            return None;
        }
        let Some(cur) = current else {
            let refused = self.wild == Some(face)
                && self.opening_on_wilds == OpeningOnWilds::Forbidden
                && self.wild_bids != WildBids::Plain;
            return if refused { None } else { q(1) };
        };
        let (cq, cf, f) = (u32::from(cur.quantity), cur.face, face);
        match self.face_rule {
            FaceRule::Locked => return if f == cf { q(cq + 1) } else { None },
            FaceRule::RaiseWithoutLoweringQuantity => {
                return match f.cmp(&cf) {
                    std::cmp::Ordering::Equal => q(cq + 1),
                    std::cmp::Ordering::Greater => q(cq),
                    std::cmp::Ordering::Less => None,
                };
            }
            FaceRule::Free => {}
        }
        if let Some(wild) = self.wild
            && self.wild_bids != WildBids::Plain
        {
            match (cf == wild, f == wild) {
                (true, true) => return q(cq + 1),
                (false, true) => return q(cq.div_ceil(2)),
                (true, false) => {
                    return match self.wild_bids {
                        WildBids::HalveAndDoubleOrLastPlusOne => {
                            q((cq * 2).max(u32::from(self.last_natural_quantity) + 1))
                        }
                        _ => q(cq * 2 + 1),
                    };
                }
                (false, false) => {}
            }
        }
        system_min(self.system, cq, u32::from(cf), u32::from(f)).and_then(q)
    }

    /// The least legal quantity found by binary search over [`Bidding::check_raise`]
    /// (legality is monotone in the quantity for a fixed face): the reference for tests.
    pub fn min_quantity_by_search(&self, current: Option<Bid>, face: u8) -> Option<u16> {
        let ok = |q: u16| self.check_raise(current, Bid::new(q, face)).is_ok();
        if self.total_dice == 0 || !ok(self.total_dice) {
            return None;
        }
        let (mut lo, mut hi) = (1u16, self.total_dice);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if ok(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }

    /// The legal bids for each face, as inclusive quantity ranges.
    pub fn ranges(&self, current: Option<Bid>) -> Vec<BidRange> {
        let mut out = Vec::new();
        self.ranges_into(current, &mut out);
        out
    }

    /// [`Bidding::ranges`] into a reused vector.
    pub fn ranges_into(&self, current: Option<Bid>, out: &mut Vec<BidRange>) {
        out.clear();
        let wilds_plain = self.wild.is_none() || self.wild_bids == WildBids::Plain;
        match current {
            // Opening with no wild conversion: any face, from one die.
            None if wilds_plain => self.push_ranges(out, |_| Some(1)),
            // Raising with no wild conversion and no face rule: the system alone decides each
            // face, as in `min_quantity`'s last step. Each system gets its own loop, so the
            // loop body is a few instructions (a playout's hottest call: BENCHMARKS.md).
            Some(cur) if wilds_plain && self.face_rule == FaceRule::Free => {
                let (cq, cf) = (u32::from(cur.quantity), u32::from(cur.face));
                macro_rules! each_face {
                    ($system:expr) => {
                        self.push_ranges(out, |f| system_min($system, cq, cf, f))
                    };
                }
                match self.system {
                    BiddingSystem::MoreOfSameFaceOrHigherFace => {
                        each_face!(BiddingSystem::MoreOfSameFaceOrHigherFace)
                    }
                    BiddingSystem::MoreDiceOrHigherFace => each_face!(BiddingSystem::MoreDiceOrHigherFace),
                    BiddingSystem::MoreDice => each_face!(BiddingSystem::MoreDice),
                    BiddingSystem::AboveHighestNumber => each_face!(BiddingSystem::AboveHighestNumber),
                    BiddingSystem::HigherProduct => each_face!(BiddingSystem::HigherProduct),
                    BiddingSystem::NeitherFalls => each_face!(BiddingSystem::NeitherFalls),
                }
            }
            _ => {
                for face in 1..=self.faces {
                    if let Some(min) = self.min_quantity(current, face) {
                        out.push(BidRange { face, min_quantity: min, max_quantity: self.total_dice });
                    }
                }
            }
        }
    }

    /// A range for each face whose least quantity `min` gives, within the dice in play.
    #[inline(always)]
    fn push_ranges(&self, out: &mut Vec<BidRange>, min: impl Fn(u32) -> Option<u32>) {
        let total = self.total_dice;
        out.reserve(usize::from(self.faces));
        for face in 1..=self.faces {
            if let Some(n) = min(u32::from(face)) {
                let n = n.max(1);
                if n <= u32::from(total) {
                    out.push(BidRange { face, min_quantity: n as u16, max_quantity: total });
                }
            }
        }
    }
}

/// The least quantity of face `f` that raises quantity `cq` of face `cf` under `system`,
/// before the table's dice bound it (`None`: no quantity of `f` does). The last step of
/// [`Bidding::min_quantity`], after wilds and face rules; inlined, so a caller that names
/// the system gets its arm alone.
#[inline(always)]
fn system_min(system: BiddingSystem, cq: u32, cf: u32, f: u32) -> Option<u32> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match system {
        BiddingSystem::MoreOfSameFaceOrHigherFace => match f.cmp(&cf) {
            Equal => Some(cq + 1),
            Greater => Some(1),
            Less => None,
        },
        BiddingSystem::MoreDiceOrHigherFace => Some(if f > cf { cq } else { cq + 1 }),
        BiddingSystem::MoreDice => Some(cq + 1),
        BiddingSystem::AboveHighestNumber => {
            let m = cq.max(cf);
            Some(if f > m { 1 } else { m + 1 })
        }
        BiddingSystem::HigherProduct => Some(cq * cf / f.max(1) + 1),
        BiddingSystem::NeitherFalls => match f.cmp(&cf) {
            Equal => Some(cq + 1),
            Greater => Some(cq),
            Less => None,
        },
    }
}

/// Every quantity from `min_quantity` to `max_quantity` of `face` is a legal bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BidRange {
    pub face: u8,
    pub min_quantity: u16,
    pub max_quantity: u16,
}

fn more(cur: Bid, next: Bid, why: &'static str) -> Result<(), BidProblem> {
    if next.quantity > cur.quantity { Ok(()) } else { Err(BidProblem::NotHigher(why)) }
}

fn system_raise(system: BiddingSystem, cur: Bid, next: Bid) -> Result<(), BidProblem> {
    let (q, f, nq, nf) =
        (u32::from(cur.quantity), u32::from(cur.face), u32::from(next.quantity), u32::from(next.face));
    let (ok, why) = match system {
        BiddingSystem::MoreOfSameFaceOrHigherFace => {
            ((nf == f && nq > q) || nf > f, "bid more of the same face, or any quantity of a higher face")
        }
        BiddingSystem::MoreDiceOrHigherFace => {
            (nq > q || (nq == q && nf > f), "bid more dice, or the same quantity of a higher face")
        }
        BiddingSystem::MoreDice => (nq > q, "bid more dice"),
        BiddingSystem::AboveHighestNumber => {
            let m = q.max(f);
            (nq > m || nf > m, "the quantity or the face must exceed the higher number of the last bid")
        }
        BiddingSystem::HigherProduct => {
            (nq * nf > q * f, "quantity times face must be higher than the last bid's")
        }
        BiddingSystem::NeitherFalls => {
            (nq >= q && nf >= f && (nq, nf) != (q, f), "raise the quantity or the face, lowering neither")
        }
    };
    if ok { Ok(()) } else { Err(BidProblem::NotHigher(why)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perudo(total: u16) -> Bidding {
        Bidding {
            faces: 6,
            total_dice: total,
            wild: Some(1),
            wild_bids: WildBids::HalveAndDoublePlusOne,
            opening_on_wilds: OpeningOnWilds::Forbidden,
            system: BiddingSystem::MoreDiceOrHigherFace,
            face_rule: FaceRule::Free,
            last_natural_quantity: 0,
        }
    }

    fn b(q: u16, f: u8) -> Bid {
        Bid::new(q, f)
    }

    #[test]
    fn seed_004_legal_and_illegal_examples() {
        let r = perudo(25);
        assert!(r.check_raise(Some(b(3, 4)), b(3, 6)).is_ok());
        assert!(r.check_raise(Some(b(3, 4)), b(4, 2)).is_ok());
        assert!(r.check_raise(Some(b(3, 5)), b(5, 5)).is_ok());
        assert!(r.check_raise(Some(b(3, 5)), b(2, 6)).is_err());
        assert!(r.check_raise(Some(b(3, 5)), b(3, 4)).is_err());
    }

    #[test]
    fn seed_004_ordering_from_one_two_upwards() {
        // "one two, one three, ..., one six, two twos, ... two sixes, one one, three twos"
        let order = [
            b(1, 2),
            b(1, 3),
            b(1, 4),
            b(1, 5),
            b(1, 6),
            b(2, 2),
            b(2, 3),
            b(2, 4),
            b(2, 5),
            b(2, 6),
            b(1, 1),
            b(3, 2),
        ];
        let r = perudo(25);
        assert!(r.check_raise(None, order[0]).is_ok());
        for w in order.windows(2) {
            assert!(r.check_raise(Some(w[0]), w[1]).is_ok(), "{} -> {}", w[0], w[1]);
            assert!(r.check_raise(Some(w[1]), w[0]).is_err(), "{} -> {}", w[1], w[0]);
        }
        // The minimum raise from each bid is the next bid of the ordering.
        for w in order.windows(2) {
            let mins: Vec<Bid> = r.ranges(Some(w[0])).iter().map(|g| b(g.min_quantity, g.face)).collect();
            assert!(mins.contains(&w[1]));
        }
    }

    #[test]
    fn seed_000_and_004_ones_conversions() {
        let r = perudo(30);
        // "four fives" -> "two ones"; "five sixes" -> "three ones"
        assert!(r.check_raise(Some(b(4, 5)), b(2, 1)).is_ok());
        assert!(r.check_raise(Some(b(5, 6)), b(3, 1)).is_ok());
        assert!(r.check_raise(Some(b(5, 6)), b(2, 1)).is_err());
        // "two ones" -> "five threes" but not "four threes"; "six ones" -> "thirteen twos"
        assert!(r.check_raise(Some(b(2, 1)), b(5, 3)).is_ok());
        assert!(r.check_raise(Some(b(2, 1)), b(4, 3)).is_err());
        assert!(r.check_raise(Some(b(6, 1)), b(13, 2)).is_ok());
        assert!(r.check_raise(Some(b(6, 1)), b(12, 6)).is_err());
        // 004: "six twos" -> "three ones", "eleven fives" -> "six ones", "four ones" -> nine
        assert!(r.check_raise(Some(b(6, 2)), b(3, 1)).is_ok());
        assert!(r.check_raise(Some(b(11, 5)), b(6, 1)).is_ok());
        assert!(r.check_raise(Some(b(11, 5)), b(5, 1)).is_err());
        assert!(r.check_raise(Some(b(4, 1)), b(9, 4)).is_ok());
        assert!(r.check_raise(Some(b(3, 1)), b(4, 1)).is_ok());
        // No opening on ones in a normal round.
        assert_eq!(r.check_raise(None, b(2, 1)), Err(BidProblem::OpeningOnWilds));
    }

    #[test]
    fn seed_002_article_conversion() {
        let mut r = perudo(30);
        r.wild_bids = WildBids::HalveAndDoubleOrLastPlusOne;
        // "four 5s" -> "two 1s" -> "three 1s" or five of any face
        r.last_natural_quantity = 4;
        assert!(r.check_raise(Some(b(4, 5)), b(2, 1)).is_ok());
        assert!(r.check_raise(Some(b(2, 1)), b(3, 1)).is_ok());
        assert!(r.check_raise(Some(b(2, 1)), b(5, 2)).is_ok());
        assert!(r.check_raise(Some(b(2, 1)), b(4, 6)).is_err());
        // "three 1s" -> six or more of the new face
        assert!(r.check_raise(Some(b(3, 1)), b(6, 2)).is_ok());
        assert!(r.check_raise(Some(b(3, 1)), b(5, 6)).is_err());
    }

    #[test]
    fn seed_002_minimum_raises_of_each_system() {
        let mut r = perudo(30);
        r.wild = None;
        let min = |r: &Bidding, cur: Bid| -> Vec<(u8, u16)> {
            r.ranges(Some(cur)).iter().map(|g| (g.face, g.min_quantity)).collect()
        };
        // (1) "three twos": four twos or any quantity of threes and up.
        r.system = BiddingSystem::MoreOfSameFaceOrHigherFace;
        assert_eq!(min(&r, b(3, 2)), vec![(2, 4), (3, 1), (4, 1), (5, 1), (6, 1)]);
        // (2) "four fours": five of any face, or four fives.
        r.system = BiddingSystem::MoreDiceOrHigherFace;
        assert_eq!(min(&r, b(4, 4)), vec![(1, 5), (2, 5), (3, 5), (4, 5), (5, 4), (6, 4)]);
        // (3) "five threes": six of anything, or any quantity of sixes.
        r.system = BiddingSystem::AboveHighestNumber;
        assert_eq!(min(&r, b(5, 3)), vec![(1, 6), (2, 6), (3, 6), (4, 6), (5, 6), (6, 1)]);
        assert!(r.check_raise(Some(b(4, 5)), b(5, 4)).is_err());
        assert!(r.check_raise(Some(b(4, 5)), b(6, 4)).is_ok());
        // (4) "three threes" (9): two fives or five twos (10).
        r.system = BiddingSystem::HigherProduct;
        let m = min(&r, b(3, 3));
        assert!(m.contains(&(5, 2)) && m.contains(&(2, 5)));
        // (5) "six fives": six sixes or seven fives.
        r.system = BiddingSystem::NeitherFalls;
        assert_eq!(min(&r, b(6, 5)), vec![(5, 7), (6, 6)]);
        // Jumping is allowed in every system: "four fours" -> "seven sixes".
        for system in [
            BiddingSystem::MoreOfSameFaceOrHigherFace,
            BiddingSystem::MoreDiceOrHigherFace,
            BiddingSystem::AboveHighestNumber,
            BiddingSystem::HigherProduct,
            BiddingSystem::NeitherFalls,
        ] {
            r.system = system;
            assert!(r.check_raise(Some(b(4, 4)), b(7, 6)).is_ok(), "{system:?}");
        }
    }

    #[test]
    fn palifico_face_rules() {
        let mut r = perudo(10);
        r.wild = None;
        r.face_rule = FaceRule::Locked;
        assert!(r.check_raise(None, b(1, 1)).is_ok());
        assert!(r.check_raise(Some(b(1, 1)), b(2, 1)).is_ok());
        assert_eq!(r.check_raise(Some(b(1, 1)), b(1, 2)), Err(BidProblem::FaceLocked));
        r.face_rule = FaceRule::RaiseWithoutLoweringQuantity;
        assert!(r.check_raise(Some(b(1, 1)), b(1, 2)).is_ok());
        assert!(r.check_raise(Some(b(2, 5)), b(2, 6)).is_ok());
        assert!(r.check_raise(Some(b(1, 6)), b(2, 6)).is_ok());
        assert!(r.check_raise(Some(b(2, 5)), b(3, 4)).is_err());
    }

    #[test]
    fn direct_minimum_matches_the_search_over_check_raise() {
        let systems = [
            BiddingSystem::MoreOfSameFaceOrHigherFace,
            BiddingSystem::MoreDiceOrHigherFace,
            BiddingSystem::MoreDice,
            BiddingSystem::AboveHighestNumber,
            BiddingSystem::HigherProduct,
            BiddingSystem::NeitherFalls,
        ];
        let wild_bids = [
            WildBids::HalveAndDoublePlusOne,
            WildBids::HalveAndDoubleOrLastPlusOne,
            WildBids::Plain,
            WildBids::NeverBid,
        ];
        let face_rules = [FaceRule::Free, FaceRule::Locked, FaceRule::RaiseWithoutLoweringQuantity];
        for faces in [3u8, 6, 9] {
            for total in [1u16, 2, 7, 30] {
                for wild in [None, Some(1), Some(faces)] {
                    for &wb in &wild_bids {
                        for &system in &systems {
                            for &face_rule in &face_rules {
                                for opening_on_wilds in [OpeningOnWilds::Forbidden, OpeningOnWilds::Allowed] {
                                    let r = Bidding {
                                        faces,
                                        total_dice: total,
                                        wild,
                                        wild_bids: wb,
                                        opening_on_wilds,
                                        system,
                                        face_rule,
                                        last_natural_quantity: total / 2,
                                    };
                                    let currents = std::iter::once(None).chain(
                                        (1..=total.min(12))
                                            .flat_map(|q| (1..=faces).map(move |f| Some(b(q, f)))),
                                    );
                                    for cur in currents {
                                        let by_face: Vec<BidRange> = (1..=faces)
                                            .filter_map(|face| {
                                                let min_quantity = r.min_quantity(cur, face)?;
                                                Some(BidRange { face, min_quantity, max_quantity: total })
                                            })
                                            .collect();
                                        assert_eq!(r.ranges(cur), by_face, "{r:?} {cur:?}");
                                        for face in 0..=faces + 1 {
                                            assert_eq!(
                                                r.min_quantity(cur, face),
                                                r.min_quantity_by_search(cur, face),
                                                "{r:?} {cur:?} face {face}"
                                            );
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn quantities_are_bounded_by_the_dice_in_play() {
        let r = perudo(4);
        assert_eq!(r.check_raise(None, b(5, 3)), Err(BidProblem::QuantityOutOfRange));
        assert_eq!(r.check_raise(None, b(0, 3)), Err(BidProblem::QuantityOutOfRange));
        assert_eq!(r.check_raise(None, b(1, 7)), Err(BidProblem::FaceOutOfRange));
        // From "two ones" with four dice, no other face can be reached (needs five).
        assert_eq!(r.ranges(Some(b(2, 1))), vec![BidRange { face: 1, min_quantity: 3, max_quantity: 4 }]);
    }
}
