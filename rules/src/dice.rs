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
}

impl Generator {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        match self {
            Generator::Secure(rng) => rng.next_u32(),
            Generator::Fast(rng) => rng.next_u32(),
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
        for _ in 0..n {
            out.push(1 + self.below(faces));
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
        for mut dice in [DiceSource::new(seed_from_u64(9)), DiceSource::fast(seed_from_u64(9))] {
            uniform(&mut dice);
        }
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
