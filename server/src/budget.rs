//! The server's memory budget: one count of the memory clients make the server hold.
//!
//! Limits on counts (tables, streams, seats, moves) bound each thing a client can make; they
//! do not bound their product. This does: the events of games in play, the updates waiting
//! for slow readers and the replays being read are all counted here, as the memory they
//! take (estimated from their encoded size, see `log::Shared`), against one limit
//! (`--memory-budget-mib`). Past it the server refuses new work that would hold more (a
//! stream, a resume, a replay, a new game) with `server_busy`, drops readers that fall
//! behind, and stops games that go on growing; what is already held is never cut short.
//!
//! Each address has a share of its own (`--memory-per-address-mib`), a budget whose takings
//! also count against the server's: one address that fills its share is refused, and
//! everyone else plays on.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes held against a limit, shared by the whole server.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    used: AtomicUsize,
    /// The budget this one is a share of: what is taken here is taken there too.
    parent: Option<Arc<Budget>>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { limit: usize::MAX, used: AtomicUsize::new(0), parent: None }
    }
}

impl Budget {
    pub fn new(limit: usize) -> Arc<Budget> {
        Arc::new(Budget { limit, used: AtomicUsize::new(0), parent: None })
    }

    /// A share of `parent` of at most `limit`.
    pub fn share(parent: &Arc<Budget>, limit: usize) -> Arc<Budget> {
        Arc::new(Budget { limit, used: AtomicUsize::new(0), parent: Some(Arc::clone(parent)) })
    }

    /// A budget no test needs to think about.
    pub fn unlimited() -> Arc<Budget> {
        Arc::new(Budget::default())
    }

    /// Takes `bytes` if they fit under the limit (and under the parent's).
    pub fn try_take(&self, bytes: usize) -> bool {
        let fits = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&after| after <= self.limit)
            })
            .is_ok();
        if fits
            && let Some(parent) = &self.parent
            && !parent.try_take(bytes)
        {
            self.give_own(bytes);
            return false;
        }
        fits
    }

    /// Takes `bytes` whether or not they fit: for what must be kept (a game's events, once
    /// played), which the caller then checks with [`Budget::over`].
    pub fn take(&self, bytes: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| Some(used.saturating_add(bytes)));
        if let Some(parent) = &self.parent {
            parent.take(bytes);
        }
    }

    pub fn give(&self, bytes: usize) {
        self.give_own(bytes);
        if let Some(parent) = &self.parent {
            parent.give(bytes);
        }
    }

    fn give_own(&self, bytes: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| Some(used.saturating_sub(bytes)));
    }

    /// Whether more is held than the limit allows, here or in the parent.
    pub fn over(&self) -> bool {
        self.used() > self.limit || self.parent.as_ref().is_some_and(|p| p.over())
    }

    /// Whether nothing more fits, here or in the parent.
    pub fn full(&self) -> bool {
        self.used() >= self.limit || self.parent.as_ref().is_some_and(|p| p.full())
    }

    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Takes `bytes` for as long as the returned guard lives; `None` if they do not fit.
    pub fn hold(self: &Arc<Self>, bytes: usize) -> Option<Held> {
        self.try_take(bytes).then(|| Held { budget: Arc::clone(self), bytes })
    }
}

/// Bytes taken from a budget, given back when dropped.
#[derive(Debug)]
pub struct Held {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.give(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_what_fits_and_gives_it_back() {
        let budget = Budget::new(100);
        assert!(budget.try_take(60));
        assert!(!budget.try_take(41), "past the limit");
        assert!(budget.try_take(40));
        budget.give(100);
        let held = budget.hold(100);
        assert!(held.is_some());
        assert!(budget.hold(1).is_none());
        drop(held);
        assert_eq!(budget.used(), 0);
        budget.take(150);
        assert!(budget.over());
    }

    #[test]
    fn a_share_counts_against_its_parent_and_stops_at_its_own_limit() {
        let server = Budget::new(100);
        let (a, b) = (Budget::share(&server, 60), Budget::share(&server, 60));
        assert!(a.try_take(60));
        assert!(!a.try_take(1), "a's share is full");
        assert!(b.try_take(40));
        assert!(!b.try_take(1), "the server is full");
        assert_eq!(b.used(), 40, "a refusal takes nothing");
        assert!(a.full() && b.full());
        a.give(60);
        assert_eq!(server.used(), 40);
        assert!(b.try_take(20));
    }
}

/// The server's budget and each address's share of it, as what admits work (a connection, a
/// call, a table, a stream) finds them.
#[derive(Clone, Default)]
pub struct Budgets {
    server: Arc<Budget>,
    /// Each address's share (0: none, everything counts against the server's alone).
    per_address: usize,
    shares: Arc<Mutex<HashMap<IpAddr, Arc<Budget>>>>,
}

impl Budgets {
    pub fn new(server: Arc<Budget>, per_address: usize) -> Budgets {
        Budgets { server, per_address, shares: Arc::default() }
    }

    /// The server's budget, which every share also counts against.
    pub fn server(&self) -> &Arc<Budget> {
        &self.server
    }

    /// The budget what `ip` makes the server hold counts against: its share of the
    /// server's (the server's own for an unknown address, or with no shares).
    pub fn for_address(&self, ip: Option<IpAddr>) -> Arc<Budget> {
        // Without shares (or an address) no lock is taken: this runs for every call.
        let Some(ip) = ip.filter(|_| self.per_address > 0) else { return Arc::clone(&self.server) };
        let Ok(mut shares) = self.shares.lock() else { return Arc::clone(&self.server) };
        if shares.len() > 1024 {
            // Shares nothing holds any more (no table, stream or replay) are let go.
            shares.retain(|_, b| Arc::strong_count(b) > 1 || b.used() > 0);
        }
        Arc::clone(shares.entry(ip).or_insert_with(|| Budget::share(&self.server, self.per_address)))
    }
}
