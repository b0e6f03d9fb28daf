//! Verifiable dice: the table commits to every roll before anyone acts on it, and publishes
//! the salts with the reveal, so anyone can check the dice were the ones committed to.
//!
//! Which events are rolls to commit to and which reveal them is `dudo_rules::proof::step`
//! (individual-hand games commit to each look under the cup and open only the last).
//!
//! Salts are drawn from a journalled secret and the log's length, so a table rebuilt from its
//! journal reveals the very salts its players were committed to.

use dudo_proto::TableEvent;
use dudo_rules::proof::{self, Step};
use dudo_rules::{Event, Seat};
use sha2::{Digest, Sha256};

// What is committed and opened (`proof::step`), the commitment and its hex are the engine
// crate's, so a verifier checks dice without a server (`dudo tournament verify`).
pub use dudo_rules::proof::{commitment, hex};

pub struct DiceProofs {
    /// What the salts are drawn from (journalled with the table's creation).
    secret: [u8; 32],
    /// The round the last commitments were for.
    round: u32,
    /// The salts and dice behind this round's commitments, to publish with the reveal.
    salts: Vec<(Seat, String, Vec<u8>)>,
    /// Commitments gathered from the batch being published.
    pending: Vec<(Seat, String)>,
}

impl DiceProofs {
    pub fn new(secret: [u8; 32]) -> DiceProofs {
        DiceProofs { secret, round: 0, salts: Vec::new(), pending: Vec::new() }
    }

    pub fn secret(&self) -> [u8; 32] {
        self.secret
    }

    /// A salt for a commitment: secret to the players, different for every commitment (the
    /// log's length goes in), and the same again when the table is rebuilt.
    fn salt(&self, log_len: u64) -> [u8; 16] {
        let mut h = Sha256::new();
        h.update(b"dudo-salt-v1");
        h.update(self.secret);
        h.update(log_len.to_be_bytes());
        let digest = h.finalize();
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&digest[..16]);
        salt
    }

    /// What goes in the log before `event` (the commitments of a round that just ended, when
    /// a batch opens the next); notes any roll `event` makes. `log_len` is the log's length.
    pub fn before(&mut self, event: &Event, log_len: u64) -> Option<TableEvent> {
        let step = proof::step(event)?;
        if let Step::Round(round) = step {
            let earlier = self.commitments();
            self.round = round;
            self.salts.clear();
            return earlier;
        }
        let (seat, dice, replaces) = step.roll()?;
        let salt = self.salt(log_len);
        self.pending.push((seat, hex(&commitment(self.round, seat, &dice, &salt))));
        if replaces {
            self.salts.clear();
        }
        self.salts.push((seat, hex(&salt), dice));
        None
    }

    /// What goes in the log after `event`: the salts, when it revealed the dice.
    pub fn after(&mut self, event: &Event) -> Option<TableEvent> {
        (proof::step(event) == Some(Step::Reveal) && !self.salts.is_empty())
            .then(|| TableEvent::DiceSalts { round: self.round, salts: std::mem::take(&mut self.salts) })
    }

    /// The commitments gathered so far, for the current round, if any.
    pub fn commitments(&mut self) -> Option<TableEvent> {
        if self.pending.is_empty() {
            return None;
        }
        let commitments = std::mem::take(&mut self.pending);
        let mut table = Sha256::new();
        for (_, h) in &commitments {
            table.update(h.as_bytes());
        }
        Some(TableEvent::DiceCommitted { round: self.round, commitments, table: hex(&table.finalize()) })
    }

    /// A reset: nothing of the old game is ever opened.
    pub fn reset(&mut self) {
        self.salts.clear();
        self.pending.clear();
    }
}
