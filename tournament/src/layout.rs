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
    let mut number = 0;
    loop {
        number += 1;
        if !read_line(input, &mut line, number)? {
            return Err(ReadError::Layout { line: number, why: "it ends before its games".into() });
        }
        let text = line.trim_end();
        if number == 1 {
            if text != "{" {
                return Err(ReadError::Layout { line: number, why: "the first line is not `{`".into() });
            }
            continue;
        }
        if text == "\"games\": [" {
            break;
        }
        // `"key": value,` is an object's one field.
        let field = format!("{{{}}}", text.strip_suffix(',').unwrap_or(text));
        let one: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&field)
            .map_err(|e| ReadError::Layout { line: number, why: format!("not one field: {e}") })?;
        fields.extend(one);
    }
    let head = serde_json::from_value(serde_json::Value::Object(fields))
        .map_err(|e| ReadError::Json { line: 1, why: format!("the head: {e}") })?;
    Ok((head, number))
}

/// The next game, or `None` at the games' close; `line` counts the file's lines.
pub fn next_game(input: &mut impl BufRead, line: &mut usize) -> Result<Option<ExportedGame>, ReadError> {
    let mut text = String::new();
    *line += 1;
    if !read_line(input, &mut text, *line)? {
        return Err(ReadError::Layout { line: *line, why: "it ends inside its games".into() });
    }
    let trimmed = text.trim_end();
    if trimmed == "]" {
        return Ok(None);
    }
    let game = serde_json::from_str(trimmed.strip_suffix(',').unwrap_or(trimmed))
        .map_err(|e| ReadError::Json { line: *line, why: format!("a game: {e}") })?;
    Ok(Some(game))
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
    use crate::export::{Export, FORMAT, Format, Verifier};
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
        let mut input = std::io::Cursor::new(bytes);
        let (read, mut line) = read_head(&mut input).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read, head());
        let mut back = Vec::new();
        while let Some(g) = next_game(&mut input, &mut line).unwrap_or_else(|e| panic!("{e}")) {
            back.push(g);
        }
        assert_eq!(back, games);
        assert!(Verifier::new(&read).is_ok());
    }

    #[test]
    fn a_file_in_another_layout_says_so() {
        let pretty = b"{\n  \"format\": \"dudo-tournament-v1\",\n  \"games\": []\n}\n";
        let mut input = std::io::Cursor::new(&pretty[..]);
        assert!(matches!(read_head(&mut input), Err(ReadError::Layout { line: 4, .. })));
    }
}
