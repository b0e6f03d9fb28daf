//! Checking the server's dice: every roll is committed to (a SHA-256 hash) before anyone
//! bids, and the salts and dice behind the hashes are published with the reveal. A bot that
//! checks them knows the server dealt the dice it claims and did not change them later.
//!
//! The hash is SHA-256 of `"dudo-v1"` ‖ round (u32 big-endian) ‖ seat (u32 big-endian) ‖ the
//! dice (one byte each) ‖ the 16-byte salt. Common-hand games open every commitment of the
//! round; the individual-hand games open only the last, the cup that was lifted.

use dudo_rules::{Event, EventKind, RuleSet};
use sha2::{Digest, Sha256};

/// A reveal that does not match what was committed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("round {round}, seat {seat}: {problem}")]
pub struct DiceCheckError {
    pub round: u32,
    pub seat: usize,
    pub problem: String,
}

/// Follows a seat's events and checks every reveal against its commitments.
#[derive(Default)]
pub struct DiceCheck {
    /// The commitments seen, by round: (seat, hex hash), in order.
    committed: Vec<(u32, Vec<(usize, String)>)>,
    checked: usize,
}

impl DiceCheck {
    /// Commitments checked so far.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// Takes one event; an error if it reveals dice that do not match their commitment.
    pub fn see(&mut self, event: &Event, rules: Option<&RuleSet>) -> Result<(), DiceCheckError> {
        match &event.kind {
            EventKind::DiceCommitted { round, commitments, .. } => {
                self.committed.push((*round, commitments.clone()));
                Ok(())
            }
            EventKind::DiceSalts { round, salts } => {
                let individual = rules.is_some_and(|r| r.family.hand_game().is_some());
                let round_commitments: Vec<&(usize, String)> =
                    self.committed.iter().filter(|c| c.0 == *round).flat_map(|c| c.1.iter()).collect();
                let opened = if individual {
                    &round_commitments[round_commitments.len().saturating_sub(1)..]
                } else {
                    &round_commitments[..]
                };
                // A seat that joined the stream mid-round never saw that round's commitments:
                // it cannot check them, and says nothing.
                if round_commitments.is_empty() {
                    return Ok(());
                }
                for (seat, salt, dice) in salts {
                    let bad = |problem: &str| DiceCheckError {
                        round: *round,
                        seat: *seat,
                        problem: problem.into(),
                    };
                    let Some((_, hash)) = opened.iter().find(|c| c.0 == *seat) else {
                        return Err(bad("dice revealed that were never committed to"));
                    };
                    if &commitment(*round, *seat, dice, salt)
                        .ok_or_else(|| bad("the salt is not 16 hex bytes"))?
                        != hash
                    {
                        return Err(bad("the revealed dice and salt do not hash to the commitment"));
                    }
                    self.checked += 1;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The commitment to `dice` at `seat` in `round` with `salt` (hex), as hex.
pub fn commitment(round: u32, seat: usize, dice: &[u8], salt: &str) -> Option<String> {
    if salt.len() != 32 {
        return None;
    }
    let salt: Vec<u8> = (0..32)
        .step_by(2)
        .map(|i| u8::from_str_radix(salt.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    let mut h = Sha256::new();
    h.update(b"dudo-v1");
    h.update(round.to_be_bytes());
    h.update(u32::try_from(seat).ok()?.to_be_bytes());
    h.update(dice);
    h.update(salt);
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}
