//! A table rebuilt from its journal (at a restart, or adopted by another node of a cluster):
//! the journal's entries fed back through the same inputs live play takes.

use std::sync::Arc;

use dudo_proto::v1 as pb;
use dudo_proto::v1::journal_entry::Entry;
use dudo_store::Store;
use dudo_store::cluster::Lease;
use prost::Message;

use super::core::{GameLength, TableCore};
use super::rate::RateLimit;
use super::{Now, Table, TableError, journal};
use crate::bot_cpu::TableShare;
use crate::budget::Budget;

/// Why a journal could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    #[error("the journal does not start with the table's creation")]
    NoCreation,
    #[error("entry {n}: {why}")]
    Entry { n: i64, why: TableError },
    /// An entry of a kind this version does not know: a newer dudo wrote it (a cluster in
    /// the middle of a rolling upgrade). A node of that version can rebuild the table.
    #[error("entry {n} is of a kind a newer dudo wrote")]
    Newer { n: i64 },
    /// The replay itself failed (a bug): the table cannot be rebuilt.
    #[error("the replay panicked: {0}")]
    Panicked(String),
}

impl Table {
    /// Rebuilds a table from its journal, through the same inputs live play takes, as it was
    /// after the last entry; its clock restarts now for whoever must move, with each seat's
    /// bank as the journal last recorded it. In a cluster, `lease` is the one this node
    /// adopted it under.
    #[allow(clippy::too_many_arguments)]
    pub fn recover(
        open: dudo_store::OpenTable,
        store: Store,
        table_rate: u32,
        length: GameLength,
        budget: Arc<Budget>,
        bot_cpu: TableShare,
        link_base: Arc<str>,
        lease: Option<Lease>,
    ) -> Result<Table, RecoverError> {
        let mut entries = open.entries.into_iter();
        let first = entries.next().ok_or(RecoverError::NoCreation)?;
        let bad = |n: i64, why: TableError| RecoverError::Entry { n, why };
        let decoded = pb::JournalEntry::decode(first.bytes.as_slice())
            .map_err(|e| bad(first.n, TableError::Journal(e.to_string())))?;
        let Some(Entry::Created(created)) = decoded.entry else { return Err(RecoverError::NoCreation) };
        let mut core = TableCore::from_creation(open.id, open.code, &created, length, budget)
            .map_err(|e| bad(first.n, e))?;
        core.set_link_base(link_base);
        let mut next = first.n + 1;
        for entry in entries {
            let decoded = pb::JournalEntry::decode(entry.bytes.as_slice())
                .map_err(|e| bad(entry.n, TableError::Journal(e.to_string())))?;
            if decoded.entry.is_none() {
                return Err(RecoverError::Newer { n: entry.n });
            }
            let input = journal::Input::from_entry(&decoded).map_err(|e| bad(entry.n, e))?;
            core.apply(input, Now::at(entry.at)).map_err(|e| bad(entry.n, e))?;
            core.restore_banks(&decoded.banks_millis);
            next = entry.n + 1;
        }
        // What the replay "journalled" is what was read; a finished game's record was
        // written with the move that ended it.
        core.discard_unsaved();
        // Mid-game: its people were cut off by the server (journalled, so a second rebuild
        // knows it too).
        if core.game().is_some_and(|g| !g.is_over()) {
            let _ = core.apply(journal::Input::Rebuilt, Now::at(super::unix_millis()));
        }
        let rate = RateLimit::new(core.rate(), table_rate);
        let mut table = Table::around(core, Some(store), None, next, rate, bot_cpu, lease);
        // Nobody is subscribed yet: this schedules the next bot move and starts the clock.
        let now = table.now();
        table.core.back_at(now);
        table.core.settle(now);
        Ok(table)
    }
}
