//! The waits a table keeps for its people: the moment after a showdown, and the host's pause.
//!
//! Both hold play the same way (see `TableCore::holds_play`): nobody is prompted, no bot
//! moves and no clock runs, while an open call window still closes as it would and what it
//! decides is played, so neither can change a window's outcome. The moment after a showdown
//! is live only (a rebuilt table does not wait again); the host's pause is journalled, so a
//! table rebuilt while paused stays paused, its limits counted from when it began.

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_rules::Seat;

/// The longest a table may make its next round wait after a showdown.
pub const LONGEST_REVEAL_MILLIS: u32 = 30_000;
/// From this long into the host's pause any seat may resume it: a host who walked away
/// does not hold everyone for ever.
pub const ANYONE_RESUMES_AFTER_MILLIS: i64 = 5 * 60_000;
/// A game paused this long ends as a reset would: a paused table still holds its place
/// under the server's limits, and nobody is coming back to it.
pub const LONGEST_PAUSE_MILLIS: i64 = 30 * 60_000;

/// The table's waits.
#[derive(Debug, Default)]
pub struct Pauses {
    /// After a showdown, how long the next round waits (0: never).
    reveal_millis: u32,
    /// The wait after the last showdown, while it lasts.
    reveal: Option<RevealWait>,
    /// The host's pause, while it lasts.
    host: Option<HostPause>,
    /// How long this game was paused before the pause in force (ms): the longest pause
    /// counts them all, so pausing again at once after a resume cannot hold a game for ever.
    paused_before: i64,
}

#[derive(Debug)]
struct RevealWait {
    /// When the next round goes on by itself (monotonic, and Unix ms for the streams).
    until: Duration,
    until_wall: i64,
    /// The seats that have said "next".
    ready: Vec<Seat>,
}

/// Who paused the game, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPause {
    pub by: String,
    /// Unix ms: what its limits count from, after a rebuild too.
    pub since: i64,
}

impl Pauses {
    pub fn new(reveal_millis: u32) -> Pauses {
        Pauses { reveal_millis: reveal_millis.min(LONGEST_REVEAL_MILLIS), ..Pauses::default() }
    }

    /// After a showdown, how long the next round waits.
    pub fn reveal_millis(&self) -> u32 {
        self.reveal_millis
    }

    /// Whether play waits (nobody prompted, no bot moving, no clock running).
    pub fn hold_play(&self) -> bool {
        self.reveal.is_some() || self.host.is_some()
    }

    /// A showdown at `mono` (Unix ms `wall`): the next round waits, if the table waits.
    pub fn showdown(&mut self, mono: Duration, wall: i64) {
        if self.reveal_millis == 0 {
            return;
        }
        let wait = Duration::from_millis(self.reveal_millis.into());
        self.reveal = Some(RevealWait {
            until: mono + wait,
            until_wall: wall.saturating_add(i64::from(self.reveal_millis)),
            ready: Vec::new(),
        });
    }

    /// When the wait after a showdown ends (monotonic), while there is one: never while the
    /// host's pause holds it (a pause stops every clock, this one too).
    pub fn reveal_ends(&self) -> Option<Duration> {
        self.reveal.as_ref().filter(|_| self.host.is_none()).map(|r| r.until)
    }

    /// The wait after a showdown, for the streams: until when (Unix ms), and who said "next".
    pub fn reveal_on_wire(&self) -> Option<(u64, Vec<u32>)> {
        let r = self.reveal.as_ref()?;
        let ready = r.ready.iter().map(|&s| u32::try_from(s).unwrap_or(u32::MAX)).collect();
        Some((u64::try_from(r.until_wall).unwrap_or(0), ready))
    }

    /// Whether the table waits after a showdown now.
    pub fn between_rounds(&self) -> bool {
        self.reveal.is_some()
    }

    /// `seat` said "next"; true if it had not yet.
    pub fn ready(&mut self, seat: Seat) -> bool {
        match self.reveal.as_mut() {
            Some(r) if !r.ready.contains(&seat) => {
                r.ready.push(seat);
                true
            }
            _ => false,
        }
    }

    /// Whether every one of `people` has said "next".
    pub fn all_ready(&self, mut people: impl Iterator<Item = Seat>) -> bool {
        self.reveal.as_ref().is_some_and(|r| people.all(|s| r.ready.contains(&s)))
    }

    /// The next round goes on.
    pub fn end_reveal(&mut self) {
        self.reveal = None;
    }

    /// The host's pause, if the game is paused.
    pub fn host(&self) -> Option<&HostPause> {
        self.host.as_ref()
    }

    pub fn pause(&mut self, pause: HostPause) {
        self.host = Some(pause);
    }

    /// The pause ends at `now` (Unix ms; `mono`, monotonic). A reveal it held is shown its
    /// whole wait again from here: the pause may have come as it was about to end.
    pub fn resume(&mut self, now: i64, mono: Duration) {
        if let Some(p) = self.host.take() {
            self.paused_before = self.paused_before.saturating_add(now.saturating_sub(p.since).max(0));
        }
        let millis = self.reveal_millis;
        if let Some(r) = self.reveal.as_mut() {
            r.until = mono + Duration::from_millis(millis.into());
            r.until_wall = now.saturating_add(i64::from(millis));
        }
    }

    /// A new game, or none: no wait carries over.
    pub fn clear(&mut self) {
        self.reveal = None;
        self.host = None;
        self.paused_before = 0;
    }

    /// When the pause in force ends the game (Unix ms): the game's pauses together last
    /// [`LONGEST_PAUSE_MILLIS`] at most.
    fn ends_at(&self, p: &HostPause) -> i64 {
        p.since.saturating_add(LONGEST_PAUSE_MILLIS.saturating_sub(self.paused_before).max(0))
    }

    /// When the host's pause ends the game (monotonic), as seen at `now_wall`, `now_mono`.
    pub fn pause_ends(&self, now_wall: i64, now_mono: Duration) -> Option<Duration> {
        let p = self.host.as_ref()?;
        let left = self.ends_at(p).saturating_sub(now_wall).max(0);
        Some(now_mono + Duration::from_millis(u64::try_from(left).unwrap_or(0)))
    }

    /// Whether any seat (not only the host) may resume at `now` (Unix ms).
    pub fn anyone_resumes(&self, now: i64) -> bool {
        self.host.as_ref().is_some_and(|p| now >= p.since.saturating_add(ANYONE_RESUMES_AFTER_MILLIS))
    }

    /// The host's pause as the table's info shows it.
    pub fn to_wire(&self) -> Option<pb::Pause> {
        let p = self.host.as_ref()?;
        let at = |ms: i64| u64::try_from(p.since.saturating_add(ms)).unwrap_or(0);
        Some(pb::Pause {
            by: p.by.clone(),
            since_unix_millis: at(0),
            anyone_resumes_unix_millis: at(ANYONE_RESUMES_AFTER_MILLIS),
            ends_unix_millis: u64::try_from(self.ends_at(p)).unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_showdown_waits_for_everyone_or_its_time_and_a_table_of_none_never_waits() {
        let mut none = Pauses::new(0);
        none.showdown(Duration::ZERO, 0);
        assert!(!none.hold_play());
        let mut p = Pauses::new(5_000);
        p.showdown(Duration::from_secs(1), 1_000);
        assert!(p.hold_play() && p.between_rounds());
        assert_eq!(p.reveal_ends(), Some(Duration::from_secs(6)));
        assert_eq!(p.reveal_on_wire(), Some((6_000, vec![])));
        assert!(p.ready(2));
        assert!(!p.ready(2), "said once");
        assert!(!p.all_ready([0, 2].into_iter()));
        assert!(p.ready(0));
        assert!(p.all_ready([0, 2].into_iter()));
        p.end_reveal();
        assert!(!p.hold_play());
        assert!(!p.ready(0), "no wait, nothing to say next to");
        assert_eq!(Pauses::new(u32::MAX).reveal_millis(), LONGEST_REVEAL_MILLIS);
    }

    #[test]
    fn the_hosts_pause_opens_to_anyone_then_ends() {
        let mut p = Pauses::default();
        p.pause(HostPause { by: "Ana".into(), since: 10_000 });
        assert!(p.hold_play());
        assert!(!p.anyone_resumes(10_000 + ANYONE_RESUMES_AFTER_MILLIS - 1));
        assert!(p.anyone_resumes(10_000 + ANYONE_RESUMES_AFTER_MILLIS));
        // Seen a minute in, on a clock that reads 7 s.
        let ends = p.pause_ends(70_000, Duration::from_secs(7));
        assert_eq!(ends, Some(Duration::from_millis(7_000 + 10_000 + LONGEST_PAUSE_MILLIS as u64 - 70_000)));
        assert_eq!(p.pause_ends(i64::MAX, Duration::ZERO), Some(Duration::ZERO), "past its end: now");
        let wire = p.to_wire().unwrap_or_default();
        assert_eq!((wire.by.as_str(), wire.since_unix_millis), ("Ana", 10_000));
        p.resume(70_000, Duration::from_secs(70));
        assert!(!p.hold_play() && p.to_wire().is_none());
        // Paused again at once: the minute already paused counts.
        p.pause(HostPause { by: "Ana".into(), since: 70_001 });
        let ends = p.to_wire().unwrap_or_default().ends_unix_millis;
        assert_eq!(ends, 70_001 + LONGEST_PAUSE_MILLIS as u64 - 60_000);
    }
}
