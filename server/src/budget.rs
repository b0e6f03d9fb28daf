//! The server's memory budget: one count of the bytes clients make the server hold.
//!
//! Limits on counts (tables, streams, seats, moves) bound each thing a client can make; they
//! do not bound their product. This does: the events of games in play, the updates waiting
//! for slow readers and the replays being read are all counted here, in encoded bytes,
//! against one limit (`--memory-budget`). Past it the server refuses new work that would
//! hold more (a stream, a resume, a replay, a new game) with `server_busy`, drops readers
//! that fall behind, and stops games that go on growing; what is already held is never
//! cut short.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes held against a limit, shared by the whole server.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    used: AtomicUsize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { limit: usize::MAX, used: AtomicUsize::new(0) }
    }
}

impl Budget {
    pub fn new(limit: usize) -> Arc<Budget> {
        Arc::new(Budget { limit, used: AtomicUsize::new(0) })
    }

    /// A budget no test needs to think about.
    pub fn unlimited() -> Arc<Budget> {
        Arc::new(Budget::default())
    }

    /// Takes `bytes` if they fit under the limit.
    pub fn try_take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&after| after <= self.limit)
            })
            .is_ok()
    }

    /// Takes `bytes` whether or not they fit: for what must be kept (a game's events, once
    /// played), which the caller then checks with [`Budget::over`].
    pub fn take(&self, bytes: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| Some(used.saturating_add(bytes)));
    }

    pub fn give(&self, bytes: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| Some(used.saturating_sub(bytes)));
    }

    /// Whether more is held than the limit allows.
    pub fn over(&self) -> bool {
        self.used() > self.limit
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
}
