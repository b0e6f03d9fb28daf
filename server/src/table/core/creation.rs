//! What a table is made of, as its journal's first entry keeps it (rules, seats, clocks,
//! the dice proofs' secret, the pool it rates for, how it treats stallers), and a table
//! made again from that entry when it is rebuilt.

use std::sync::Arc;
use std::time::Duration;

use dudo_proto::convert;
use dudo_proto::v1 as pb;

use super::{GameLength, Pacing, Setup, Stalling, TableCore};
use crate::budget::Budget;
use crate::table::clock::{Clock, Now};
use crate::table::error::TableError;

impl TableCore {
    /// The table's first journal entry.
    pub fn creation(&self) -> pb::TableCreated {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let mut created = pb::TableCreated {
            id: self.id.clone(),
            code: self.code.clone(),
            rules: Some(self.rules_on_wire()),
            capacity: u32::try_from(self.seats.capacity).unwrap_or(u32::MAX),
            seed: self.seed,
            move_millis: self.clock.as_ref().map_or(0, |c| millis(c.per_move)),
            bank_millis: self.clock.as_ref().map_or(0, |c| millis(c.bank)),
            bot_think_millis: millis(self.bot_pause),
            actions_per_second: self.rate,
            salt_secret: self.proofs.secret().to_vec(),
            rating_pool: self.rating_pool.clone(),
            host_token_hash: self.seats.host_token().map(|h| h.to_vec()).unwrap_or_default(),
            call_window_millis: self.windows.millis().into(),
            hidden: self.hidden,
            reveal_pause_millis: self.pauses.reveal_millis(),
            spectators_chat: self.talk.spectators_chat(),
            ..Default::default()
        };
        self.stalling.to_wire(&mut created);
        created
    }

    /// A table as its creation entry made it (recovery; no journal entry is made for it).
    pub fn from_creation(
        id: String,
        code: String,
        c: &pb::TableCreated,
        length: GameLength,
        budget: Arc<Budget>,
    ) -> Result<TableCore, TableError> {
        let bad = |why: String| TableError::Journal(why);
        let wire = c.rules.as_ref().ok_or_else(|| bad("no rules".into()))?;
        let rules = convert::rules_from_wire(wire).map_err(|e| bad(e.to_string()))?;
        let secret: [u8; 32] =
            c.salt_secret.as_slice().try_into().map_err(|_| bad("salt secret is not 32 bytes".into()))?;
        let clock = (c.move_millis > 0)
            .then(|| Clock::new(Duration::from_millis(c.move_millis), Duration::from_millis(c.bank_millis)));
        let setup = Setup {
            id,
            code,
            capacity: c.capacity as usize,
            seed: c.seed,
            pacing: Pacing {
                clock,
                bot_pause: Duration::from_millis(c.bot_think_millis),
                call_window_millis: u32::try_from(c.call_window_millis).unwrap_or(u32::MAX),
                reveal_pause_millis: c.reveal_pause_millis,
            },
            rate: c.actions_per_second,
            rating_pool: c.rating_pool.clone(),
            journalled: true,
            length,
            budget,
            host_token: match c.host_token_hash.as_slice() {
                [] => None,
                hash => Some(hash.try_into().map_err(|_| bad("host token hash is not 32 bytes".into()))?),
            },
            stalling: Stalling::from_wire(c),
            hidden: c.hidden,
            spectators_chat: c.spectators_chat,
        };
        let mut core = TableCore::new(rules, setup, secret, Now::at(0));
        core.journal.discard();
        Ok(core)
    }
}
