//! The table's talk: chat lines and quick reactions from its seats (and its spectators, when
//! the host lets them), and the table's own news (who sat down or went, a bot added, the rules
//! changed, the game paused), kept beside the game's events, never among them.
//!
//! Talk is not an input: it is never journalled, never in a game's record or a tournament's
//! export, and it changes nothing a move depends on (no call window, no clock, no prompt).
//! Everything here is bounded: a line's length, the lines kept for latecomers, how fast a
//! seat (and the spectators, together) may speak.

use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_rules::{Seat, Viewer};

use super::error::TableError;
use super::rate::{Allowance, Allowances, Pace};
use super::seats::{piled_marks, plain_text};

/// The longest line, in characters.
pub const LONGEST_LINE_CHARS: usize = 200;
/// Lines kept for whoever opens a stream later (what `StorySoFar` carries).
pub const LINES_KEPT: usize = 50;
/// A seat (and one address's spectators) may say this many lines at once, then one every
/// two seconds.
const SPEAKER: Pace = Pace { burst: 5.0, every: Duration::from_secs(2) };
/// A table's spectators, all together: as many at once, then one a second.
const SPECTATORS: Pace = Pace { burst: 10.0, every: Duration::from_secs(1) };
/// Addresses whose spectators' allowances a table keeps at once (see [`Allowances`]).
const SPECTATOR_ADDRESSES: usize = 64;

/// Who says a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Speaker {
    Seat(Seat),
    /// A spectator, under the name it gave (checked as a seat's name is), from an address.
    Spectator {
        name: String,
        from: Option<IpAddr>,
    },
}

/// Which limit a line was past, in the words its refusal says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TalkLimit {
    Seat,
    Spectator,
    Spectators,
    Address,
}

impl TalkLimit {
    pub fn words(self) -> &'static str {
        match self {
            TalkLimit::Seat => "a seat says at most 5 lines at once, then one every 2 seconds",
            TalkLimit::Spectator => "a spectator says at most 5 lines at once, then one every 2 seconds",
            TalkLimit::Spectators => {
                "this table's spectators together say at most 10 lines at once, then one a second"
            }
            TalkLimit::Address => {
                "one address says at most 20 lines at once, on all tables, then two a second"
            }
        }
    }
}

/// What can be said: a line of text, or a reaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Said {
    pub text: String,
    pub reaction: pb::Reaction,
}

/// One of the table's own lines: what everyone reads, and what the seats it is about read
/// instead ("You paused the game." for the one who did).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct News {
    pub text: String,
    pub personal: Vec<(Seat, String)>,
}

impl News {
    pub fn all(text: String) -> News {
        News { text, personal: Vec::new() }
    }

    /// `seat` reads `text` instead.
    pub fn to(mut self, seat: Seat, text: String) -> News {
        self.personal.push((seat, text));
        self
    }
}

/// A line kept for the story so far, with what each seat it is about reads instead.
#[derive(Clone, Debug)]
struct Kept {
    line: pb::TableLine,
    personal: Vec<(Seat, String)>,
}

impl Kept {
    fn for_viewer(&self, viewer: Viewer) -> pb::TableLine {
        let own = match viewer {
            Viewer::Seat(me) => self.personal.iter().find(|(s, _)| *s == me),
            _ => None,
        };
        match own {
            Some((_, text)) => pb::TableLine { text: text.clone(), ..self.line.clone() },
            None => self.line.clone(),
        }
    }
}

#[derive(Debug)]
pub struct Talk {
    /// The last lines said, oldest first.
    lines: VecDeque<Kept>,
    /// Whether spectators may speak.
    spectators: bool,
    /// Each seat's allowance.
    seats: Allowances<Seat>,
    /// Each address's spectators' allowance, so one cannot spend the others' ...
    spectator_addresses: Allowances<Option<IpAddr>>,
    /// ... and all of them together.
    spectators_allowance: Option<Allowance>,
}

impl Default for Talk {
    fn default() -> Talk {
        Talk::new(false)
    }
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

/// The first character of `text` a chat line may not hold, and why: what a name may not hold
/// (control characters, line breaks, bidirectional overrides, invisible characters), save
/// what emoji are made of (the emoji presentation selector and the zero-width joiner of
/// "👨‍👩‍👧"); characters of the private use areas (shown as anything, or as nothing); and
/// more than [`MOST_MARKS`](super::seats::MOST_MARKS) combining marks on one character.
fn chat_fault(text: &str) -> Option<(char, &'static str)> {
    use unicode_normalization::char::is_combining_mark;
    let emoji = |c: char| matches!(c, '\u{FE0F}' | '\u{200D}');
    let private = |c: char| matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}');
    let mut before: Option<char> = None;
    for c in text.chars() {
        if private(c) {
            return Some((c, "a private-use character shows differently on every screen"));
        }
        // The joiner and the selector belong after a symbol (an emoji): alone, or by a
        // letter, they only hide something.
        let by_a_symbol = before.is_some_and(|b| !b.is_alphanumeric() && !b.is_whitespace());
        if emoji(c) && !by_a_symbol {
            return Some((c, "it is invisible here (it belongs inside an emoji); a line is plain text"));
        }
        if !emoji(c) && plain_text(c.encode_utf8(&mut [0; 4])).is_err() {
            return Some((c, "it is invisible or would break the line; a line is plain text"));
        }
        if before.is_none() && is_combining_mark(c) {
            return Some((c, "a line cannot start with an accent (it would sit on what is shown before it)"));
        }
        before = Some(c);
    }
    if let Some(c) = piled_marks(text) {
        return Some((c, "too many accents on one letter; they spill over the lines around"));
    }
    None
}

impl Talk {
    pub fn new(spectators: bool) -> Talk {
        Talk {
            lines: VecDeque::new(),
            spectators,
            seats: Allowances::new(SPEAKER, 256),
            spectator_addresses: Allowances::new(SPEAKER, SPECTATOR_ADDRESSES),
            spectators_allowance: None,
        }
    }

    /// Whether spectators may speak.
    pub fn spectators_chat(&self) -> bool {
        self.spectators
    }

    /// What `text` and `reaction` say, checked: one of the two, a line of plain text within
    /// [`LONGEST_LINE_CHARS`] (normalised, as names are).
    pub fn check(text: &str, reaction: i32) -> Result<Said, TableError> {
        use unicode_normalization::UnicodeNormalization;
        let reaction = pb::Reaction::try_from(reaction)
            .map_err(|_| TableError::BadChat(format!("reaction: no reaction {reaction}")))?;
        let text: String = text.nfc().collect::<String>().trim().to_string();
        if let Some((c, why)) = chat_fault(&text) {
            return Err(TableError::BadChat(format!("text: it holds U+{:04X}: {why}", u32::from(c))));
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
            _ => Ok(Said { text, reaction }),
        }
    }

    /// Takes one line from the speaker's allowance at `now`, or says how long to wait.
    pub fn allow(&mut self, speaker: &Speaker, now: Duration) -> Result<(), TableError> {
        let limited =
            |limit: TalkLimit| move |wait| TableError::ChatRateLimited { limit, retry_after_millis: wait };
        match speaker {
            Speaker::Seat(s) => self.seats.take(*s, now).map_err(limited(TalkLimit::Seat)),
            Speaker::Spectator { from, .. } => {
                if !self.spectators {
                    return Err(TableError::SpectatorsMayNotChat);
                }
                // The address's own first: a spectator refused takes nothing from the others.
                self.spectator_addresses.take(*from, now).map_err(limited(TalkLimit::Spectator))?;
                let all = self.spectators_allowance.get_or_insert(Allowance::full(SPECTATORS, now));
                all.take(SPECTATORS, now).map_err(limited(TalkLimit::Spectators))
            }
        }
    }

    /// Keeps a line (the oldest goes past [`LINES_KEPT`]) with what the seats it is about
    /// read instead.
    pub fn keep(&mut self, line: pb::TableLine, personal: Vec<(Seat, String)>) {
        if self.lines.len() >= LINES_KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(Kept { line, personal });
    }

    /// The newest line as `viewer` reads it.
    pub fn newest_for(&self, viewer: Viewer) -> Option<pb::TableLine> {
        self.lines.back().map(|k| k.for_viewer(viewer))
    }

    /// The lines kept, oldest first, as `viewer` reads them.
    pub fn lines_for(&self, viewer: Viewer) -> Vec<pb::TableLine> {
        self.lines.iter().map(|k| k.for_viewer(viewer)).collect()
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
        // What emoji are made of, and a few accents, are plain text.
        for fine in [
            "\u{2764}\u{FE0F}",
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
            "Ti\u{1EBF}ng Vi\u{1EC7}t",
            "e\u{0301}\u{0323}",
        ] {
            assert!(Talk::check(fine, 0).is_ok(), "{fine:?}");
        }
        for (text, reaction, says) in [
            ("", 0, "nothing to say"),
            ("   ", 0, "nothing to say"),
            ("ha", pb::Reaction::Laugh as i32, "alone"),
            ("line\nbreak", 0, "U+000A"),
            ("\u{1b}[2J", 0, "U+001B"),
            ("secret \u{E000} glyph", 0, "U+E000"),
            ("Z\u{0300}\u{0301}\u{0302}\u{0303}\u{0304}algo", 0, "accents"),
            ("\u{e9}\u{0302}\u{0303}\u{0304}", 0, "accents"),
            ("\u{200D}", 0, "U+200D"),
            ("a\u{200D}b", 0, "U+200D"),
            ("\u{FE0F}", 0, "U+FE0F"),
            ("\u{0301}hi", 0, "start with an accent"),
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
        let Err(TableError::ChatRateLimited { retry_after_millis, .. }) = talk.allow(&Speaker::Seat(1), t)
        else {
            panic!("a sixth line at once is refused");
        };
        assert!((1..=2_000).contains(&retry_after_millis), "{retry_after_millis}");
        assert!(talk.allow(&Speaker::Seat(2), t).is_ok(), "another seat has its own");
        assert!(talk.allow(&Speaker::Seat(1), t + SPEAKER.every).is_ok(), "one more once it waited");
        let eve = |a: u8| Speaker::Spectator { name: "Eve".into(), from: Some(IpAddr::from([127, 0, 0, a])) };
        assert_eq!(talk.allow(&eve(1), t), Err(TableError::SpectatorsMayNotChat));
        let mut open = Talk::new(true);
        assert!(open.allow(&eve(1), t).is_ok());
    }

    #[test]
    fn one_spectator_cannot_spend_the_others_allowance() {
        let mut talk = Talk::new(true);
        let t = Duration::from_secs(100);
        let from =
            |a: u8| Speaker::Spectator { name: "Eve".into(), from: Some(IpAddr::from([127, 0, 0, a])) };
        let said = (0..50).filter(|_| talk.allow(&from(1), t).is_ok()).count();
        assert_eq!(said, 5, "one address says its own five");
        let Err(TableError::ChatRateLimited { limit, .. }) = talk.allow(&from(1), t) else { panic!() };
        assert_eq!(limit, TalkLimit::Spectator);
        assert!(talk.allow(&from(2), t).is_ok(), "another spectator still speaks");
    }

    #[test]
    fn only_the_last_lines_are_kept() {
        let mut talk = Talk::default();
        for n in 0..(LINES_KEPT as u64 + 7) {
            talk.keep(pb::TableLine { at_unix_millis: n, ..Default::default() }, vec![(1, "yours".into())]);
        }
        let kept: Vec<u64> = talk.lines_for(Viewer::Spectator).iter().map(|l| l.at_unix_millis).collect();
        assert_eq!(talk.lines_for(Viewer::Seat(1)).first().map(|l| l.text.as_str()), Some("yours"));
        assert_eq!(kept.len(), LINES_KEPT);
        assert_eq!(kept.first(), Some(&7));
    }
}
