//! Where the dice come from.
//!
//! All randomness of a game is one ChaCha12 stream (the algorithm of rand's `StdRng`, a
//! cryptographically secure generator) inside the game state, seeded from 32 bytes.
//! The same seed and the same actions give the same game, byte for byte: that single fact makes
//! scripts, simulation, duplicate tournaments, replays and crash recovery one feature.
//!
//! `dudo simulate --fast-dice` deals from Xoshiro256++ instead ([`DiceSource::fast`]): a
//! statistics run does not need dice nobody can predict, and it is quicker. No table deals
//! from it.
//!
//! A script may dictate some rolls ([`DiceSource::with_script`]); any roll it does not give
//! comes from the seeded stream, and a scripted roll of the wrong size is noted as a mismatch
//! (the script runner reports it) rather than refused, so the engine never fails mid-action.

use std::collections::VecDeque;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::action::Seat;

/// The 32 bytes a game's dice are drawn from.
pub type Seed = [u8; 32];

/// A seed from a small number, for tests, scripts and reproducible simulations.
pub fn seed_from_u64(n: u64) -> Seed {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&n.to_le_bytes());
    seed
}

/// The seed of game `i` of a run seeded `run_seed` (`dudo simulate`'s games, a tournament's
/// deals): neighbouring games share nothing, and the same run seed gives the same games.
pub fn nth_seed(run_seed: u64, i: u64) -> u64 {
    mix(run_seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// SplitMix64's finaliser: neighbouring inputs share nothing.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The dice of one game.
#[derive(Clone, Debug, PartialEq)]
pub struct DiceSource {
    rng: Generator,
    /// Rolls dictated by a script, per seat, in the order the seat rolls.
    script: Vec<VecDeque<Vec<u8>>>,
    /// The first scripted roll that did not fit what the game asked for.
    mismatch: Option<String>,
}

/// The stream a game's dice are drawn from.
// Unboxed: the large one is every table's; a box would cost an allocation per game dealt.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
enum Generator {
    Secure(ChaCha12Rng),
    Fast(Xoshiro256PlusPlus),
    Dealt(Box<Dealt>),
}

/// Dice dealt by seat and roll ([`DiceSource::dealt`]): a seat's k-th roll starts at a fixed
/// place of a ChaCha12 stream of the seat's own, whatever the other seats rolled before it.
#[derive(Clone, Debug, PartialEq)]
struct Dealt {
    /// Every draw that is not a cup's (a variant's chance, say).
    shared: ChaCha12Rng,
    /// Repositioned before each roll: stream `seat + 1`, word `rolls[seat] · ROLL_WORDS`.
    cups: ChaCha12Rng,
    /// Rolls each seat has made.
    rolls: Vec<u64>,
    /// Whether a cup is being rolled (draws come from `cups`).
    rolling: bool,
}

/// The words of a seat's stream each roll may use: far more than any cup's dice need, even
/// with Lemire's rare rejections, so no roll reaches into the next one's.
const ROLL_WORDS: u128 = 1024;

impl Generator {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        match self {
            Generator::Secure(rng) => rng.next_u32(),
            Generator::Fast(rng) => rng.next_u32(),
            Generator::Dealt(d) if d.rolling => d.cups.next_u32(),
            Generator::Dealt(d) => d.shared.next_u32(),
        }
    }
}

impl DiceSource {
    pub fn new(seed: Seed) -> Self {
        DiceSource {
            rng: Generator::Secure(ChaCha12Rng::from_seed(seed)),
            script: Vec::new(),
            mismatch: None,
        }
    }

    /// Dice from Xoshiro256++ seeded with `seed`: quicker than [`DiceSource::new`], and not
    /// the game a table deals from the same seed. For simulations only.
    pub fn fast(seed: Seed) -> Self {
        DiceSource {
            rng: Generator::Fast(Xoshiro256PlusPlus::from_seed(seed)),
            script: Vec::new(),
            mismatch: None,
        }
    }

    /// Dice dealt by seat and roll, for duplicate tournaments: seat `s`'s `k`-th roll is the
    /// same dice (as many as the cup holds, from the first) in every game dealt from `seed`,
    /// whoever sits there and whatever happened before. With [`DiceSource::new`] a game's
    /// dice are one stream, so once two games' rounds differ (a seat lost a die in one and
    /// not the other) every later cup differs too.
    pub fn dealt(seed: Seed) -> Self {
        let mut cups = ChaCha12Rng::from_seed(seed);
        cups.set_stream(1);
        let dealt = Dealt { shared: ChaCha12Rng::from_seed(seed), cups, rolls: Vec::new(), rolling: false };
        DiceSource { rng: Generator::Dealt(Box::new(dealt)), script: Vec::new(), mismatch: None }
    }

    /// Rolls for each seat, used in order before the seeded stream.
    pub fn with_script(seed: Seed, script: Vec<VecDeque<Vec<u8>>>) -> Self {
        DiceSource { script, ..DiceSource::new(seed) }
    }

    /// Rolls `n` dice of `faces` faces for `seat` into `out` (cleared first).
    pub(crate) fn roll_into(&mut self, seat: Seat, n: usize, faces: u8, out: &mut Vec<u8>) {
        out.clear();
        if let Some(roll) = self.script.get_mut(seat).and_then(|q| q.pop_front()) {
            if roll.len() == n && roll.iter().all(|&f| (1..=faces).contains(&f)) {
                out.extend_from_slice(&roll);
                return;
            }
            if self.mismatch.is_none() {
                self.mismatch = Some(format!(
                    "seat {seat} was to roll {n} dice of 1-{faces} but the script gives {roll:?}"
                ));
            }
        }
        if let Generator::Dealt(d) = &mut self.rng {
            if d.rolls.len() <= seat {
                d.rolls.resize(seat + 1, 0);
            }
            d.cups.set_stream(seat as u64 + 1);
            d.cups.set_word_pos(u128::from(d.rolls[seat]) * ROLL_WORDS);
            d.rolls[seat] += 1;
            d.rolling = true;
        }
        for _ in 0..n {
            out.push(1 + self.below(faces));
        }
        if let Generator::Dealt(d) = &mut self.rng {
            d.rolling = false;
        }
    }

    /// A uniform number below `n` (1 to 255) from the raw 32-bit stream, by Lemire's
    /// multiply-and-reject: our own few lines, so stored seeds replay the same dice whatever
    /// `rand` does next, and no division on the common path.
    fn below(&mut self, n: u8) -> u8 {
        let n = u32::from(n.max(1));
        let mut m = u64::from(self.rng.next_u32()) * u64::from(n);
        if (m as u32) < n {
            // Rejects the few low products that would bias the result.
            let threshold = n.wrapping_neg() % n;
            while (m as u32) < threshold {
                m = u64::from(self.rng.next_u32()) * u64::from(n);
            }
        }
        (m >> 32) as u8
    }

    /// True with `percent` chance; draws nothing when the chance is 0 or 100.
    pub(crate) fn chance(&mut self, percent: u8) -> bool {
        match percent {
            0 => false,
            100.. => true,
            p => self.below(100) < p,
        }
    }

    /// A face other than `face`, uniformly.
    pub(crate) fn other_face(&mut self, face: u8, faces: u8) -> u8 {
        let r = 1 + self.below(faces - 1);
        if r >= face { r + 1 } else { r }
    }

    /// Replaces the scripted rolls (the script runner loads each call's rolls before it).
    pub fn set_script(&mut self, script: Vec<VecDeque<Vec<u8>>>) {
        self.script = script;
    }

    /// A seat with a scripted roll nobody asked for, if any.
    pub fn unused_script_seat(&self) -> Option<Seat> {
        self.script.iter().position(|q| !q.is_empty())
    }

    /// The first scripted roll that did not fit, if any.
    pub fn take_mismatch(&mut self) -> Option<String> {
        self.mismatch.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dice_are_uniform_and_in_range() {
        for mut dice in [
            DiceSource::new(seed_from_u64(9)),
            DiceSource::fast(seed_from_u64(9)),
            DiceSource::dealt(seed_from_u64(9)),
        ] {
            uniform(&mut dice);
        }
    }

    /// Dealt dice: a seat's k-th cup is the same whatever was rolled before it, and a
    /// smaller cup is the larger one's first dice.
    #[test]
    fn dealt_dice_give_a_seat_its_cup_whatever_came_before() {
        let seed = seed_from_u64(11);
        let cups = |order: &[(Seat, usize)]| {
            let mut dice = DiceSource::dealt(seed);
            let _ = dice.chance(50);
            order
                .iter()
                .map(|&(seat, n)| {
                    let mut cup = Vec::new();
                    dice.roll_into(seat, n, 6, &mut cup);
                    (seat, cup)
                })
                .collect::<Vec<_>>()
        };
        let one = cups(&[(0, 5), (1, 5), (0, 5), (1, 5)]);
        let other = cups(&[(1, 5), (0, 4), (1, 2), (0, 5)]);
        assert_eq!(one[1].1, other[0].1, "seat 1's first cup");
        assert_eq!(one[0].1[..4], other[1].1[..], "seat 0's first cup, a die short");
        assert_eq!(one[3].1[..2], other[2].1[..], "seat 1's second cup");
        assert_eq!(one[2].1, other[3].1, "seat 0's second cup");
        assert_ne!(one[0].1, one[2].1, "a seat's cups differ from roll to roll");
        assert_ne!(one[0].1, one[1].1, "seats' cups differ");
    }

    /// The fast dice are another stream: the same seed does not deal the same game.
    #[test]
    fn fast_dice_are_not_the_tables_dice() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        DiceSource::new(seed_from_u64(3)).roll_into(0, 30, 6, &mut a);
        DiceSource::fast(seed_from_u64(3)).roll_into(0, 30, 6, &mut b);
        assert_ne!(a, b);
    }

    fn uniform(dice: &mut DiceSource) {
        let mut counts = [0u32; 7];
        let mut out = Vec::new();
        for _ in 0..6000 {
            dice.roll_into(0, 1, 6, &mut out);
            counts[usize::from(out[0])] += 1;
        }
        assert_eq!(counts[0], 0);
        for &c in &counts[1..] {
            assert!((850..1150).contains(&c), "{counts:?}");
        }
    }
}
