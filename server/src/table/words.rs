//! The small words a table is made with: game ids and seeds, secrets, the time, and whether
//! rules survive the journal.

use std::time::SystemTime;

use dudo_proto::convert;
use dudo_rules::{RuleSet, seed_from_u64};
use rand::Rng;

use super::proofs;

/// The dice seed of a seeded table's game `number` (from 1): the table's seed for the first
/// (the game `dudo simulate` plays with it), then the game's number mixed in, so that a reset
/// does not deal again the dice a finished game's public replay shows.
pub(super) fn game_seed(table_seed: u64, number: u32) -> dudo_rules::Seed {
    let mut seed = seed_from_u64(table_seed);
    if number > 1 {
        seed[8..12].copy_from_slice(&number.to_le_bytes());
    }
    seed
}

/// The id of a table's `n`th game (from 1): short enough to copy, unique enough (64 random
/// bits): the table id's first 16 hex digits and the count.
pub fn game_id(table: &str, n: u32) -> String {
    format!("{}-{n}", table.get(..16).unwrap_or(table))
}

/// A random secret, 128 bits, as hex.
pub fn secret() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    proofs::hex(&bytes)
}

/// Whether rules come back from the journal as they went in: a table whose rules would not
/// could not be rebuilt the same, so it is refused rather than started.
pub fn journals_faithfully(rules: &RuleSet) -> bool {
    convert::rules_from_wire(&convert::rules_to_wire(rules)).is_ok_and(|back| back == *rules)
}

/// Now, in Unix milliseconds.
pub fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
