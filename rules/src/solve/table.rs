//! A solved strategy's file: what the expert ships (`bots/solved/*.bin`).

use super::{InfoKey, Move};

/// A solved strategy as shipped: for each information set its own play reaches, its moves in
/// the engine's order, each with a weight (the probability, out of the row's total).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub faces: u8,
    pub rows: Vec<(InfoKey, Vec<(Move, u16)>)>,
}

/// The first bytes of a table's file, and its layout's version.
const MAGIC: &[u8; 8] = b"dudocfr1";

impl Table {
    /// The file: the magic, the faces, the row count (u32), then each row: die, bid count,
    /// bids, move count, and each move with its weight (u16), little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.push(self.faces);
        out.extend((self.rows.len() as u32).to_le_bytes());
        for (key, row) in &self.rows {
            out.push(key.die);
            out.push(key.bids.len() as u8);
            out.extend(&key.bids);
            out.push(row.len() as u8);
            for &(m, w) in row {
                out.push(m);
                out.extend(w.to_le_bytes());
            }
        }
        out
    }

    /// Reads [`Table::to_bytes`]'s file; `None` if it is not one.
    pub fn from_bytes(bytes: &[u8]) -> Option<Table> {
        let mut at = bytes.strip_prefix(MAGIC.as_slice())?;
        let mut take = |n: usize| -> Option<&[u8]> {
            let (head, rest) = (at.get(..n)?, at.get(n..)?);
            at = rest;
            Some(head)
        };
        let faces = take(1)?[0];
        let count = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let mut rows = Vec::new();
        for _ in 0..count {
            let die = take(1)?[0];
            let n = usize::from(take(1)?[0]);
            let bids = take(n)?.to_vec();
            let m = usize::from(take(1)?[0]);
            let mut row = Vec::with_capacity(m);
            for _ in 0..m {
                let cell = take(3)?;
                row.push((cell[0], u16::from_le_bytes([cell[1], cell[2]])));
            }
            rows.push((InfoKey { die, bids }, row));
        }
        take(1).is_none().then_some(Table { faces, rows })
    }
}
