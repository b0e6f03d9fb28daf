//! An export on disk: JSON laid out a game to a line, written and read a game at a time.
//!
//! A tournament's export can be larger than is wise to hold (a 64-entrant Swiss of 6-seat
//! games is hundreds of megabytes), so `dudo arena` writes it as it fetches each record, and
//! `dudo tournament verify` checks it as it reads each line. The file is one JSON object
//! (`serde_json` reads it whole, as anyone else's tools may):
//!
//! ```text
//! {
//! "deals": 10,
//! ... every field of the head, one to a line ...
//! "games": [
//! {"schedule":{"number":0,...},...},
//! ... one game to a line ...
//! {"schedule":{"number":N,...},...}
//! ]
//! }
//! ```

use std::io::{BufRead, Write};

use crate::export::{ExportedGame, Head};

/// The longest line read: a game at a server's length limit is far shorter.
pub const MAX_LINE_BYTES: u64 = 64 << 20;
/// The most the head's lines may hold together (the rules, the entrants, the standings).
pub const MAX_HEAD_BYTES: usize = 16 << 20;
/// The head's fields: no other is read, and none twice.
const HEAD_FIELDS: [&str; 11] = [
    "deals",
    "dice",
    "entrants",
    "format",
    "name",
    "rules",
    "seating",
    "seats",
    "seed",
    "seed_proof",
    "standings",
];

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("an export's head is a JSON object")]
    NotAnObject,
}

/// Why an export could not be read a game at a time.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Not laid out a game to a line (a file reformatted by hand, say): read it whole.
    #[error("line {line}: not laid out a game to a line as dudo writes exports ({why})")]
    Layout { line: usize, why: String },
    #[error("line {line}: {why}")]
    Json { line: usize, why: String },
    #[error("line {line}: longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong { line: usize },
}

/// Writes an export as its games come: the head first, then each game, then the close.
pub struct Writer<W: Write> {
    out: W,
    /// The last game's line, held until the next says whether a comma follows it.
    held: Option<String>,
}

impl<W: Write> Writer<W> {
    pub fn start(mut out: W, head: &Head) -> Result<Writer<W>, WriteError> {
        let serde_json::Value::Object(fields) = serde_json::to_value(head)? else {
            return Err(WriteError::NotAnObject);
        };
        writeln!(out, "{{")?;
        for (key, value) in &fields {
            writeln!(out, "{}: {},", serde_json::to_string(key)?, serde_json::to_string(value)?)?;
        }
        writeln!(out, "\"games\": [")?;
        Ok(Writer { out, held: None })
    }

    /// The next game, in the schedule's order; its fields in their order (its place in the
    /// schedule first).
    pub fn game(&mut self, game: &ExportedGame) -> Result<(), WriteError> {
        if let Some(line) = self.held.take() {
            writeln!(self.out, "{line},")?;
        }
        self.held = Some(serde_json::to_string(game)?);
        Ok(())
    }

    pub fn finish(mut self) -> Result<W, WriteError> {
        if let Some(line) = self.held.take() {
            writeln!(self.out, "{line}")?;
        }
        writeln!(self.out, "]\n}}")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads an export's head, leaving `input` at its first game ([`next_game`] reads them).
pub fn read_head(input: &mut impl BufRead) -> Result<(Head, usize), ReadError> {
    let mut fields = serde_json::Map::new();
    let mut line = String::new();
    let (mut number, mut bytes) = (0, 0);
    loop {
        number += 1;
        if !read_line(input, &mut line, number)? {
            return Err(ReadError::Layout { line: number, why: "it ends before its games".into() });
        }
        bytes += line.len();
        if bytes > MAX_HEAD_BYTES {
            return Err(ReadError::Json {
                line: number,
                why: format!("the head is over {MAX_HEAD_BYTES} bytes"),
            });
        }
        let text = end_of_line(&line);
        if number == 1 {
            if text != "{" {
                return Err(ReadError::Layout { line: number, why: "the first line is not `{`".into() });
            }
            continue;
        }
        if text == "\"games\": [" {
            break;
        }
        // `"key": value,` is one field of the object; every head field ends with a comma.
        let Some(text) = text.strip_suffix(',') else {
            return Err(ReadError::Layout {
                line: number,
                why: "a head field that does not end with `,`".into(),
            });
        };
        let one: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&format!("{{{text}}}"))
            .map_err(|e| ReadError::Layout { line: number, why: format!("not one field: {e}") })?;
        for (key, value) in one {
            if !HEAD_FIELDS.contains(&key.as_str()) {
                return Err(ReadError::Json {
                    line: number,
                    why: format!("{key:?} is not a field of an export's head"),
                });
            }
            if fields.insert(key.clone(), value).is_some() {
                return Err(ReadError::Json { line: number, why: format!("{key:?} a second time") });
            }
        }
    }
    let head = serde_json::from_value(serde_json::Value::Object(fields))
        .map_err(|e| ReadError::Json { line: 1, why: format!("the head: {e}") })?;
    Ok((head, number))
}

/// Reads an export's games a line at a time, holding each line until the next says whether
/// it must end with a comma (all but the last), and the file's close after them: a file this
/// reads is one JSON object, and says to a JSON tool just what it says to the verifier.
pub struct Games<R> {
    input: R,
    /// Lines read so far.
    line: usize,
    /// The next game's line, read ahead.
    ahead: Option<String>,
    done: bool,
}

impl<R: BufRead> Games<R> {
    /// The games after [`read_head`], which read `line` lines.
    pub fn new(mut input: R, mut line: usize) -> Result<Games<R>, ReadError> {
        let ahead = Self::read_game_line(&mut input, &mut line)?;
        Ok(Games { input, line, ahead, done: false })
    }

    /// A game's line, or `None` at `]` (after which only `}` may follow).
    fn read_game_line(input: &mut R, line: &mut usize) -> Result<Option<String>, ReadError> {
        let mut text = String::new();
        *line += 1;
        if !read_line(input, &mut text, *line)? {
            return Err(ReadError::Layout { line: *line, why: "it ends inside its games".into() });
        }
        if end_of_line(&text) != "]" {
            let end = end_of_line(&text).len();
            text.truncate(end);
            return Ok(Some(text));
        }
        // The close: `}` and nothing after it.
        let mut rest = String::new();
        *line += 1;
        if !read_line(input, &mut rest, *line)? || end_of_line(&rest) != "}" {
            return Err(ReadError::Layout {
                line: *line,
                why: "the games' `]` is not followed by `}`".into(),
            });
        }
        rest.clear();
        if read_line(input, &mut rest, *line + 1)? && !rest.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
            return Err(ReadError::Layout {
                line: *line + 1,
                why: "something follows the export's `}`".into(),
            });
        }
        Ok(None)
    }

    /// The next game, or `None` after the last.
    pub fn next_game(&mut self) -> Result<Option<ExportedGame>, ReadError> {
        if self.done {
            return Ok(None);
        }
        let Some(text) = self.ahead.take() else {
            self.done = true;
            return Ok(None);
        };
        let number = self.line;
        self.ahead = Self::read_game_line(&mut self.input, &mut self.line)?;
        let body = match (text.strip_suffix(','), self.ahead.is_some()) {
            (Some(body), true) => body,
            (None, false) => text.as_str(),
            (Some(_), false) => {
                return Err(ReadError::Layout { line: number, why: "the last game ends with `,`".into() });
            }
            (None, true) => {
                return Err(ReadError::Layout {
                    line: number,
                    why: "a game before the last lacks its `,`".into(),
                });
            }
        };
        let game = serde_json::from_str(body)
            .map_err(|e| ReadError::Json { line: number, why: format!("a game: {e}") })?;
        Ok(Some(game))
    }
}

/// A line without its line ending (`\n`, or `\r\n`): nothing else is stripped, so what is
/// read is what a JSON reader reads.
fn end_of_line(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// One line into `line` (cleared first), at most [`MAX_LINE_BYTES`]; false at the end.
fn read_line(input: &mut impl BufRead, line: &mut String, number: usize) -> Result<bool, ReadError> {
    line.clear();
    let read = std::io::Read::take(&mut *input, MAX_LINE_BYTES).read_line(line)?;
    if read as u64 == MAX_LINE_BYTES && !line.ends_with('\n') {
        return Err(ReadError::LineTooLong { line: number });
    }
    Ok(read > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Export, FORMAT, Format, Verifier, verify};
    use crate::{Deals, Standings};

    fn head() -> Head {
        Head {
            format: FORMAT.into(),
            name: "t".into(),
            seating: Format::RoundRobin,
            seed: 1,
            seats: 2,
            deals: 1,
            dice: Deals::Duplicate,
            rules: dudo_rules::RuleSet::default(),
            entrants: vec!["a".into(), "b".into()],
            standings: Standings::default(),
            seed_proof: None,
        }
    }

    #[test]
    fn a_file_written_a_game_at_a_time_reads_whole_and_a_game_at_a_time() {
        let games: Vec<ExportedGame> = (0..3)
            .map(|n| ExportedGame {
                schedule: crate::Game { number: n, round: 0, table: 0, deal: 0, seed: 5, seats: vec![0, 1] },
                id: format!("g{n}"),
                players: Vec::new(),
                moves: Vec::new(),
                log: Vec::new(),
                committed: Vec::new(),
                opened: Vec::new(),
                finish: vec![1, 0],
            })
            .collect();
        let mut writer = Writer::start(Vec::new(), &head()).unwrap_or_else(|e| panic!("{e}"));
        for g in &games {
            assert!(writer.game(g).is_ok());
        }
        let bytes = writer.finish().unwrap_or_default();
        // Whole, as any JSON reader takes it.
        let whole: Export = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((whole.head, whole.games.clone()), (head(), games.clone()));
        // A game at a time.
        let mut input = std::io::Cursor::new(bytes.clone());
        let (read, line) = read_head(&mut input).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read, head());
        let mut reader = Games::new(input, line).unwrap_or_else(|e| panic!("{e}"));
        let mut back = Vec::new();
        while let Some(g) = reader.next_game().unwrap_or_else(|e| panic!("{e}")) {
            back.push(g);
        }
        assert_eq!(back, games);
        assert!(Verifier::new(&read).is_ok());
        // What a JSON tool would read otherwise is refused: more after the close, a missing
        // or extra comma, an unknown or repeated head field.
        let text = String::from_utf8(bytes).unwrap_or_default();
        let refused = |changed: String| {
            let mut input = std::io::Cursor::new(changed.into_bytes());
            let Ok((_, line)) = read_head(&mut input) else { return true };
            let Ok(mut reader) = Games::new(input, line) else { return true };
            loop {
                match reader.next_game() {
                    Err(_) => return true,
                    Ok(None) => return false,
                    Ok(Some(_)) => {}
                }
            }
        };
        assert!(!refused(text.clone()));
        assert!(!refused(text.replace('\n', "\r\n")), "CRLF is still the same JSON");
        assert!(refused(text.replace("]\n}\n", "]\n,\"games\":[]}\n")));
        assert!(refused(format!("{text}junk")));
        assert!(refused(text.replace("]\n}\n", "]\n")));
        assert!(refused(text.replacen("},\n{\"schedule\"", "}\n{\"schedule\"", 1)));
        assert!(refused(text.replace("\"name\": \"t\",\n", "\"name\": \"t\",\n\"x\": [0],\n")));
        assert!(refused(text.replace("\"name\": \"t\",\n", "\"name\": \"t\",\n\"name\": \"u\",\n")));
    }

    #[test]
    fn a_file_in_another_layout_says_so() {
        let pretty = b"{\n  \"format\": \"dudo-tournament-v1\",\n  \"games\": []\n}\n";
        let mut input = std::io::Cursor::new(&pretty[..]);
        assert!(matches!(read_head(&mut input), Err(ReadError::Layout { line: 3, .. })));
    }

    #[test]
    fn an_honest_export_verifies_after_a_trip_through_json() {
        for preset in ["fibbing", "perudo-jonti", "mexican"] {
            let export = crate::export::tests::tournament(preset);
            let mut writer = Writer::start(Vec::new(), &export.head).unwrap_or_else(|e| panic!("{e}"));
            for game in &export.games {
                assert!(writer.game(game).is_ok());
            }
            let text = String::from_utf8(writer.finish().unwrap_or_default()).unwrap_or_default();
            let lines = text.lines().filter(|l| l.starts_with("{\"schedule\":{\"number\":")).count();
            assert_eq!(lines, export.games.len(), "{text}");
            let back: Export = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(verify(&back), Ok(export.head.standings.clone()), "{preset}");
        }
    }
}
