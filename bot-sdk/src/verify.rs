//! Checking the server's dice: every roll is committed to (a SHA-256 hash) before anyone
//! bids, and the salts and dice behind the hashes are published with the reveal. A bot that
//! checks them knows the server dealt the dice it claims and did not change them later.
//!
//! The hash is SHA-256 of `"dudo-v1"` ‖ round (u32 big-endian) ‖ seat (u32 big-endian) ‖ the
//! dice (one byte each) ‖ the 16-byte salt. Common-hand games open every commitment of the
//! round; the individual-hand games open only the last, the cup that was lifted.

use dudo_client::TableEvent;
use dudo_rules::{EventKind, RuleSet};
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
    /// Rounds seen from their start, whose commitments all passed by this stream.
    whole_rounds: Vec<u32>,
    checked: usize,
}

impl DiceCheck {
    /// Commitments checked so far.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// Takes one entry of the log; an error if it reveals dice that do not match their
    /// commitment.
    pub fn see(&mut self, event: &TableEvent, rules: Option<&RuleSet>) -> Result<(), DiceCheckError> {
        match event {
            // A new game numbers its rounds afresh.
            TableEvent::Game(e) => {
                match &e.kind {
                    EventKind::GameStarted { .. } => {
                        self.committed.clear();
                        self.whole_rounds.clear();
                    }
                    EventKind::RoundStarted { round, .. } | EventKind::HandStarted { hand: round, .. } => {
                        self.whole_rounds.push(*round);
                    }
                    _ => {}
                }
                Ok(())
            }
            TableEvent::DiceCommitted { round, commitments, .. } => {
                self.committed.push((*round, commitments.clone()));
                Ok(())
            }
            TableEvent::DiceSalts { round, salts } => {
                // A seat that joined the stream mid-round may have missed some of that round's
                // commitments: it cannot check the round, and says nothing.
                if !self.whole_rounds.contains(round) {
                    return Ok(());
                }
                let individual = rules.is_some_and(|r| r.family.hand_game().is_some());
                let round_commitments: Vec<&(usize, String)> =
                    self.committed.iter().filter(|c| c.0 == *round).flat_map(|c| c.1.iter()).collect();
                // Every roll of the round (a push re-rolls, so a seat may have two), in order;
                // the cup games open only the last look under the cup.
                let opened = if individual {
                    &round_commitments[round_commitments.len().saturating_sub(1)..]
                } else {
                    &round_commitments[..]
                };
                if opened.len() != salts.len() {
                    let seat = salts.first().map_or(0, |s| s.0);
                    return Err(DiceCheckError {
                        round: *round,
                        seat,
                        problem: format!("{} commitments but {} reveals", opened.len(), salts.len()),
                    });
                }
                for ((committed_seat, hash), (seat, salt, dice)) in
                    opened.iter().map(|c| (c.0, &c.1)).zip(salts)
                {
                    let bad = |problem: &str| DiceCheckError {
                        round: *round,
                        seat: *seat,
                        problem: problem.into(),
                    };
                    if committed_seat != *seat {
                        return Err(bad("revealed out of the order of the commitments"));
                    }
                    let recomputed = commitment(*round, *seat, dice, salt)
                        .ok_or_else(|| bad("the salt is not 16 hex bytes"))?;
                    if &recomputed != hash {
                        return Err(bad("the revealed dice and salt do not hash to the commitment"));
                    }
                    self.checked += 1;
                }
                Ok(())
            }
            TableEvent::TurnTimedOut { .. }
            | TableEvent::GameStopped { .. }
            | TableEvent::CallWindowLapsed { .. }
            | TableEvent::SeatLeaving { .. } => Ok(()),
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

#[cfg(test)]
mod tests {
    use dudo_rules::{Audience, Event};

    use super::*;

    fn event(kind: EventKind) -> TableEvent {
        TableEvent::Game(Event { audience: Audience::Everyone, kind })
    }

    #[test]
    fn a_push_commits_twice_and_both_reveals_check() {
        let salt = |n: u8| format!("{n:02x}").repeat(16);
        let hash = |seat: usize, dice: &[u8], n: u8| commitment(1, seat, dice, &salt(n)).unwrap_or_default();
        let first = [2u8, 3, 5];
        let pushed = [5u8, 5, 6];
        let other = [1u8, 1, 4];
        let mut check = DiceCheck::default();
        let rules = dudo_rules::presets::house();
        let steps = [
            event(EventKind::RoundStarted {
                round: 1,
                starter: 0,
                dice_counts: vec![3, 3],
                palifico: vec![],
                wild: None,
            }),
            TableEvent::DiceCommitted {
                round: 1,
                commitments: vec![(0, hash(0, &first, 1)), (1, hash(1, &other, 2))],
                table: String::new(),
            },
            // Seat 0 pushes and re-rolls: a second commitment for the same seat and round.
            TableEvent::DiceCommitted {
                round: 1,
                commitments: vec![(0, hash(0, &pushed, 3))],
                table: String::new(),
            },
        ];
        for step in steps {
            check.see(&step, Some(&rules)).unwrap();
        }
        let reveal = |last: [u8; 3]| TableEvent::DiceSalts {
            round: 1,
            salts: vec![
                (0, salt(1), first.to_vec()),
                (1, salt(2), other.to_vec()),
                (0, salt(3), last.to_vec()),
            ],
        };
        let mut honest = DiceCheck { committed: check.committed.clone(), whole_rounds: vec![1], checked: 0 };
        assert_eq!(honest.see(&reveal(pushed), Some(&rules)), Ok(()));
        assert_eq!(honest.checked(), 3);
        let err = check.see(&reveal([6, 6, 6]), Some(&rules)).unwrap_err();
        assert_eq!((err.round, err.seat), (1, 0));
    }
}
