//! What a table commits to about its dice, so that anyone can check them afterwards.
//!
//! Before anyone acts on a roll, the server publishes the SHA-256 of the round, the seat, the
//! dice and a secret salt; with the reveal it publishes the salts. The server's side (when to
//! commit, how salts are drawn) is the table's; the hash is here, beside the engine that
//! rolled the dice, so a verifier needs no server.

use sha2::{Digest, Sha256};

use crate::action::Seat;
use crate::event::{Audience, Event, EventKind};

/// What an event is to the dice proofs: the one place that says which rolls a table commits
/// to and which a reveal opens. The server's proofs commit and open by it; a verifier checks
/// an export by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// A round (or a hand of the individual-hand games) begins: its rolls are committed under
    /// this number, and nothing of the round before is opened any more.
    Round(u32),
    /// A cup rolled, hidden from the others: committed, and opened with the round's others.
    Cup { seat: Seat, dice: &'a [Option<u8>] },
    /// A look under the cup (the individual-hand games): committed, and only the last look
    /// is opened; opening the earlier ones would show what was under the cup before a
    /// re-roll, which the table game never shows.
    Look { seat: Seat, dice: &'a [u8] },
    /// The dice are shown: the round's rolls still unopened are opened.
    Reveal,
}

impl Step<'_> {
    /// The roll to commit to, if this is one: its seat and dice, and whether it replaces the
    /// round's earlier rolls as the one to open.
    pub fn roll(&self) -> Option<(Seat, Vec<u8>, bool)> {
        match *self {
            Step::Cup { seat, dice } => Some((seat, dice.iter().flatten().copied().collect(), false)),
            Step::Look { seat, dice } => Some((seat, dice.to_vec(), true)),
            Step::Round(_) | Step::Reveal => None,
        }
    }
}

/// What `event` is to the dice proofs, if anything.
pub fn step(event: &Event) -> Option<Step<'_>> {
    match &event.kind {
        EventKind::RoundStarted { round, .. } | EventKind::HandStarted { hand: round, .. } => {
            Some(Step::Round(*round))
        }
        EventKind::DiceRolled { seat, dice } if matches!(event.audience, Audience::Hidden { .. }) => {
            Some(Step::Cup { seat: *seat, dice })
        }
        EventKind::HandSeen { seat, dice } => Some(Step::Look { seat: *seat, dice }),
        EventKind::DiceRevealed { .. } | EventKind::HandRevealed { .. } => Some(Step::Reveal),
        _ => None,
    }
}

/// SHA-256 of `"dudo-v1" ‖ round ‖ seat ‖ dice ‖ salt`, numbers as big-endian u32.
pub fn commitment(round: u32, seat: Seat, dice: &[u8], salt: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"dudo-v1");
    h.update(round.to_be_bytes());
    h.update(u32::try_from(seat).unwrap_or(u32::MAX).to_be_bytes());
    h.update(dice);
    h.update(salt);
    h.finalize().into()
}

/// Lower-case hex, in one allocation (every roll's commitment is written this way).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The bytes of lower- or upper-case hex, or `None` if it is not hex.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| text.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_goes_there_and_back() {
        assert_eq!(hex(&[0, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(from_hex("000fA0ff"), Some(vec![0, 0x0f, 0xa0, 0xff]));
        assert_eq!(from_hex("0g"), None);
        assert_eq!(from_hex("abc"), None);
    }
}
