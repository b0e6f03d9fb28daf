//! The table's talk: chat lines and quick reactions from its seats (and its spectators, when
//! the host lets them), and the table's own news (who sat down or went, a bot added, the rules
//! changed, the game paused), kept beside the game's events, never among them.
//!
//! Talk is not an input: it is never journalled, never in a game's record or a tournament's
//! export, and it changes nothing a move depends on (no call window, no clock, no prompt).
//! Everything here is bounded: a line's length, the lines kept for latecomers, how fast a
//! seat (and the spectators, together) may speak.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_rules::Seat;

use super::error::TableError;
use super::seats::plain_text;

/// The longest line, in characters.
pub const LONGEST_LINE_CHARS: usize = 200;
/// Lines kept for whoever opens a stream later (what `StorySoFar` carries).
pub const LINES_KEPT: usize = 50;
/// A seat may say this many lines at once, then one every [`SEAT_EVERY`].
const SEAT_BURST: f64 = 5.0;
const SEAT_EVERY: Duration = Duration::from_secs(2);
/// A table's spectators, together: as many at once, then one a second.
const SPECTATORS_BURST: f64 = 10.0;
const SPECTATORS_EVERY: Duration = Duration::from_secs(1);

/// Who says a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Speaker {
    Seat(Seat),
    /// A spectator, under the name it gave (checked as a seat's name is).
    Spectator(String),
}

/// What can be said: a line of text, or a reaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Said {
    pub text: String,
    pub reaction: pb::Reaction,
}

/// A token bucket for lines: `burst` at once, then one every `every`.
#[derive(Clone, Copy, Debug)]
struct Allowance {
    lines: f64,
    at: Duration,
}

impl Allowance {
    fn take(&mut self, burst: f64, every: Duration, now: Duration) -> Result<(), u64> {
        let per_sec = 1.0 / every.as_secs_f64();
        self.lines = (self.lines + now.saturating_sub(self.at).as_secs_f64() * per_sec).min(burst);
        self.at = now;
        if self.lines < 1.0 {
            return Err(((1.0 - self.lines) / per_sec * 1000.0).ceil().max(1.0) as u64);
        }
        self.lines -= 1.0;
        Ok(())
    }
}

#[derive(Debug, Default)]
pub struct Talk {
    /// The last lines said, oldest first.
    lines: VecDeque<pb::TableLine>,
    /// Whether spectators may speak.
    spectators: bool,
    /// Each seat's allowance (seats are the table's, so this is bounded by them).
    seats: BTreeMap<Seat, Allowance>,
    spectators_allowance: Option<Allowance>,
}

/// The words of a reaction, as its line says it after the speaker's name.
pub fn reaction_words(reaction: pb::Reaction) -> Option<&'static str> {
    Some(match reaction {
        pb::Reaction::None => return None,
        pb::Reaction::Laugh => "laughs",
        pb::Reaction::Liar => "cries \"Liar!\"",
        pb::Reaction::Applause => "applauds",
        pb::Reaction::Wow => "gasps",
        pb::Reaction::GoodGame => "says \"Good game!\"",
    })
}

impl Talk {
    pub fn new(spectators: bool) -> Talk {
        Talk { spectators, ..Talk::default() }
    }

    /// Whether spectators may speak.
    pub fn spectators_chat(&self) -> bool {
        self.spectators
    }

    /// What `text` and `reaction` say, checked: one of the two, a line of plain text within
    /// [`LONGEST_LINE_CHARS`].
    pub fn check(text: &str, reaction: i32) -> Result<Said, TableError> {
        let reaction = pb::Reaction::try_from(reaction)
            .map_err(|_| TableError::BadChat(format!("reaction: no reaction {reaction}")))?;
        let text = text.trim();
        if let Err(c) = plain_text(text) {
            return Err(TableError::BadChat(format!(
                "text: it holds the invisible character U+{:04X}; a line is plain text",
                u32::from(c)
            )));
        }
        let chars = text.chars().count();
        if chars > LONGEST_LINE_CHARS {
            return Err(TableError::BadChat(format!(
                "text: {chars} characters; at most {LONGEST_LINE_CHARS}"
            )));
        }
        match (text.is_empty(), reaction) {
            (true, pb::Reaction::None) => Err(TableError::BadChat("text: nothing to say".into())),
            (false, r) if r != pb::Reaction::None => {
                Err(TableError::BadChat("text: a reaction is sent alone, without text".into()))
            }
            _ => Ok(Said { text: text.to_string(), reaction }),
        }
    }

    /// Takes one line from the speaker's allowance at `now`, or says how long to wait.
    pub fn allow(&mut self, speaker: &Speaker, now: Duration) -> Result<(), TableError> {
        let (allowance, burst, every) = match speaker {
            Speaker::Seat(s) => (
                self.seats.entry(*s).or_insert(Allowance { lines: SEAT_BURST, at: now }),
                SEAT_BURST,
                SEAT_EVERY,
            ),
            Speaker::Spectator(_) => {
                if !self.spectators {
                    return Err(TableError::SpectatorsMayNotChat);
                }
                (
                    self.spectators_allowance.get_or_insert(Allowance { lines: SPECTATORS_BURST, at: now }),
                    SPECTATORS_BURST,
                    SPECTATORS_EVERY,
                )
            }
        };
        allowance
            .take(burst, every, now)
            .map_err(|wait| TableError::ChatRateLimited { retry_after_millis: wait })
    }

    /// Keeps a line (the oldest goes past [`LINES_KEPT`]) and gives it back to be sent.
    pub fn keep(&mut self, line: pb::TableLine) -> pb::TableLine {
        if self.lines.len() >= LINES_KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(line.clone());
        line
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &pb::TableLine> {
        self.lines.iter()
    }

    /// Seats were renumbered or reset: allowances start again (they are per seat number).
    pub fn seats_changed(&mut self) {
        self.seats.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_plain_text_within_its_length_or_a_reaction_alone() {
        assert_eq!(Talk::check("  nice bluff ", 0).map(|s| s.text), Ok("nice bluff".into()));
        assert!(Talk::check("", pb::Reaction::Laugh as i32).is_ok());
        for (text, reaction, says) in [
            ("", 0, "nothing to say"),
            ("   ", 0, "nothing to say"),
            ("ha", pb::Reaction::Laugh as i32, "alone"),
            ("line\nbreak", 0, "U+000A"),
            ("\u{1b}[2J", 0, "U+001B"),
            ("x", 99, "reaction: no reaction 99"),
        ] {
            let e = Talk::check(text, reaction).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        let long = "é".repeat(LONGEST_LINE_CHARS + 1);
        assert!(Talk::check(&long, 0).is_err());
        assert!(Talk::check(&"é".repeat(LONGEST_LINE_CHARS), 0).is_ok());
    }

    #[test]
    fn a_seat_speaks_in_bursts_then_waits_and_spectators_only_when_allowed() {
        let mut talk = Talk::new(false);
        let t = Duration::from_secs(100);
        for _ in 0..5 {
            assert!(talk.allow(&Speaker::Seat(1), t).is_ok());
        }
        let Err(TableError::ChatRateLimited { retry_after_millis }) = talk.allow(&Speaker::Seat(1), t) else {
            panic!("a sixth line at once is refused");
        };
        assert!((1..=2_000).contains(&retry_after_millis), "{retry_after_millis}");
        assert!(talk.allow(&Speaker::Seat(2), t).is_ok(), "another seat has its own");
        assert!(talk.allow(&Speaker::Seat(1), t + SEAT_EVERY).is_ok(), "one more once it waited");
        assert_eq!(talk.allow(&Speaker::Spectator("Eve".into()), t), Err(TableError::SpectatorsMayNotChat));
        let mut open = Talk::new(true);
        assert!(open.allow(&Speaker::Spectator("Eve".into()), t).is_ok());
    }

    #[test]
    fn only_the_last_lines_are_kept() {
        let mut talk = Talk::default();
        for n in 0..(LINES_KEPT as u64 + 7) {
            talk.keep(pb::TableLine { at_unix_millis: n, ..Default::default() });
        }
        let kept: Vec<u64> = talk.lines().map(|l| l.at_unix_millis).collect();
        assert_eq!(kept.len(), LINES_KEPT);
        assert_eq!(kept.first(), Some(&7));
    }
}
