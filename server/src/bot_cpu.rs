//! The CPU the built-in bots may take: a share for each table, and one for all tables.
//!
//! A table of bots playing at once would keep a worker thread busy for as long as its game
//! lasts, and bots weighing many dice think long: two host-only tables of 64 bots could make
//! every other call wait. Each table plays its bots in slices (`table::core::BOT_SLICE`) and
//! charges the CPU time they took here; a table past its share waits before its next slice.
//!
//! Two token buckets, both in seconds of one core: the table's own (`--bot-cpu-percent-per-
//! table`) and the server's (`--bot-cpu-percent`, every table's bots together). A table that
//! has been light lately does not wait for the server's: people playing against a few bots
//! never queue behind a bot tournament. Light is an absolute measure ([`LIGHT`] of a core,
//! its own bucket), not a share of the table's own: otherwise many tables each just under
//! their own share would all skip the server's.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// What bots may take: a fraction of one core per table and for all tables (none: no limit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BotCpuLimits {
    pub per_table: Option<f64>,
    pub all_tables: Option<f64>,
}

/// How much thinking a bucket lets through at once, in seconds of its own rate.
const BURST_SECONDS: f64 = 2.0;
/// A table whose bots take less than this of a core (a person's game with a few bots takes
/// microseconds a move; `dudo-load play`'s tables, bots answering a program at once, about
/// 0.2%) is light: it does not wait for the server's share. Bounds what tables skipping the
/// server's share can take to this times the tables an address may hold.
const LIGHT: f64 = 0.005;

/// The server's bucket, shared by every table.
#[derive(Debug)]
pub struct BotCpu {
    limits: BotCpuLimits,
    all: Option<Mutex<Bucket>>,
}

impl Default for BotCpu {
    fn default() -> BotCpu {
        BotCpu { limits: BotCpuLimits { per_table: None, all_tables: None }, all: None }
    }
}

impl BotCpu {
    pub fn new(limits: BotCpuLimits) -> Arc<BotCpu> {
        let all = limits.all_tables.map(|rate| Mutex::new(Bucket::new(rate)));
        Arc::new(BotCpu { limits, all })
    }

    pub fn unlimited() -> Arc<BotCpu> {
        Arc::new(BotCpu::default())
    }

    /// A new table's share.
    pub fn table_share(self: &Arc<Self>) -> TableShare {
        TableShare {
            own: self.limits.per_table.map(Bucket::new),
            light: Bucket::new(LIGHT),
            all: Arc::clone(self),
        }
    }
}

/// One table's share, and the server's bucket it also draws on.
#[derive(Debug)]
pub struct TableShare {
    own: Option<Bucket>,
    /// What a light table may take: while it is not in debt, the table skips the server's.
    light: Bucket,
    all: Arc<BotCpu>,
}

impl TableShare {
    /// Charges `used` of thinking, at `now`.
    pub fn spend(&mut self, used: Duration, now: Instant) {
        if used.is_zero() {
            return;
        }
        if let Some(own) = &mut self.own {
            own.spend(used, now);
        }
        self.light.spend(used, now);
        if let Some(all) = &self.all.all
            && let Ok(mut all) = all.lock()
        {
            all.spend(used, now);
        }
    }

    /// When the table's bots may think again: now, or once its share (and, for a table that
    /// has been busy, the server's) has refilled.
    pub fn ready_at(&mut self, now: Instant) -> Instant {
        let mut wait = Duration::ZERO;
        if let Some(own) = &mut self.own {
            own.refill(now);
            wait = own.wait();
        }
        self.light.refill(now);
        let light = self.light.balance >= 0.0;
        if !light
            && let Some(all) = &self.all.all
            && let Ok(mut all) = all.lock()
        {
            all.refill(now);
            wait = wait.max(all.wait());
        }
        now + wait
    }
}

/// A token bucket of CPU seconds.
#[derive(Debug)]
struct Bucket {
    /// Seconds of CPU per second.
    rate: f64,
    /// Seconds of CPU it may spend now; below zero, the debt to wait out.
    balance: f64,
    at: Instant,
}

impl Bucket {
    fn new(rate: f64) -> Bucket {
        let rate = rate.max(1e-3);
        Bucket { rate, balance: rate * BURST_SECONDS, at: Instant::now() }
    }

    fn burst(&self) -> f64 {
        self.rate * BURST_SECONDS
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.balance = (self.balance + elapsed * self.rate).min(self.burst());
        self.at = now.max(self.at);
    }

    fn spend(&mut self, used: Duration, now: Instant) {
        self.refill(now);
        self.balance -= used.as_secs_f64();
    }

    fn wait(&self) -> Duration {
        if self.balance >= 0.0 {
            return Duration::ZERO;
        }
        // A debt of a whole minute means a clock went wrong, not a bot: cap the wait.
        Duration::from_secs_f64((-self.balance / self.rate).min(60.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_table_waits_for_its_share_and_a_light_one_does_not_wait_for_the_server() {
        let cpu = BotCpu::new(BotCpuLimits { per_table: Some(0.05), all_tables: Some(0.1) });
        let (mut busy, mut light) = (cpu.table_share(), cpu.table_share());
        let now = Instant::now();
        assert_eq!(busy.ready_at(now), now, "a new table thinks at once");
        // 150 ms of thinking: its own 100 ms burst and 50 ms of debt, at 5% of a core: 1 s.
        busy.spend(Duration::from_millis(150), now);
        assert_eq!(busy.ready_at(now), now + Duration::from_secs(1));
        // The server's bucket (200 ms) is not in debt, but a busy table's own is the bound.
        busy.spend(Duration::from_millis(100), now);
        let server_debt = 0.25 - 0.2;
        assert!(busy.ready_at(now) >= now + Duration::from_secs_f64(server_debt / 0.1));
        // The light table has its whole share: it does not queue behind the busy one.
        assert_eq!(light.ready_at(now), now);
        let later = now + Duration::from_secs(10);
        assert_eq!(busy.ready_at(later), later, "the shares refilled");
    }

    #[test]
    fn tables_each_within_their_own_share_still_wait_for_the_servers() {
        let cpu = BotCpu::new(BotCpuLimits { per_table: Some(0.05), all_tables: Some(0.1) });
        let now = Instant::now();
        let mut tables: Vec<TableShare> = (0..10).map(|_| cpu.table_share()).collect();
        // Each takes 40 ms: within its own 100 ms burst, past what a light table takes.
        for t in &mut tables {
            t.spend(Duration::from_millis(40), now);
        }
        // 400 ms against the server's 200 ms burst: 200 ms of debt at 10% of a core, 2 s.
        for t in &mut tables {
            assert_eq!(t.ready_at(now), now + Duration::from_secs(2));
        }
    }

    #[test]
    fn without_a_share_per_table_the_servers_still_holds() {
        let cpu = BotCpu::new(BotCpuLimits { per_table: None, all_tables: Some(0.1) });
        let now = Instant::now();
        let mut table = cpu.table_share();
        table.spend(Duration::from_millis(300), now);
        assert_eq!(table.ready_at(now), now + Duration::from_secs(1));
    }

    #[test]
    fn no_limits_never_wait() {
        let cpu = BotCpu::unlimited();
        let mut share = cpu.table_share();
        let now = Instant::now();
        share.spend(Duration::from_secs(100), now);
        assert_eq!(share.ready_at(now), now);
    }
}
