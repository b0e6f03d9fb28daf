//! Reading what the player types while the table keeps talking.
//!
//! In a terminal, rustyline reads lines (history, editing, tab completion of the calls that
//! are legal now) on its own thread, and everything the table says is printed through its
//! external printer so it appears above the line being typed instead of inside it. After each
//! line the editor waits until the table has answered it ([`Reader::resume`]) before it shows
//! the prompt again, so the answer (`status`, `odds`…) is printed whole, above the next
//! prompt. Without a terminal (a pipe, a script) a plain thread reads lines and output is
//! printed directly; the table then takes a line only when it is the player's call, so a file
//! of answers plays a game.
//!
//! The editor puts the terminal in raw mode while it reads. [`Reader`] saves the terminal's
//! mode before the editor starts and puts it back when it is closed or dropped, whichever way
//! the table is left (`quit`, Ctrl-C, a closed stream, a signal, an error, a panic), so the
//! shell is never left without echo or Ctrl-C.

use std::borrow::Cow;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::{Hint, Hinter};
use rustyline::validate::Validator;
use rustyline::{ExternalPrinter, Helper};
use tokio::sync::mpsc;
use unicode_width::UnicodeWidthChar;

/// What the player did at the keyboard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line typed.
    Line(String),
    /// Ctrl-C (or SIGINT while no line was being read).
    Interrupt,
    /// Ctrl-D on an empty line, or the end of piped input.
    End,
}

struct Shared {
    /// Lines for the printer thread, the one caller of the editor's external printer. That
    /// printer may wait for the editor (rustyline hands it one message at a time), and the
    /// editor, once a line is read, waits for the table's loop: were the loop to print
    /// itself, each could wait on the other for ever.
    printing: Mutex<Option<std::sync::mpsc::Sender<String>>>,
    printer_thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The terminal is gone (closed, hung up): the editor has stopped, and its printer would
    /// wait for it for ever (it thinks the terminal is still raw).
    gone: Arc<AtomicBool>,
    /// Standard output is a terminal: lines are wrapped at its width.
    wrap: bool,
}

impl Shared {
    fn direct(wrap: bool) -> Shared {
        Shared {
            printing: Mutex::new(None),
            printer_thread: Mutex::new(None),
            gone: Arc::new(AtomicBool::new(false)),
            wrap,
        }
    }
}

/// Where the table's lines go.
#[derive(Clone)]
pub struct Output {
    shared: Arc<Shared>,
    /// A person at a terminal, rather than a script: lines may come at any time.
    pub interactive: bool,
}

impl Output {
    /// One line (or a few, separated by `\n`), each starting at the first column, wrapped at
    /// word boundaries to the terminal's width.
    pub fn line(&self, text: impl Into<String>) {
        let text = text.into();
        let text = if self.shared.wrap { wrap(&text, width()) } else { text };
        // Always ended by a newline: while the editor is not reading, rustyline's printer
        // writes a message exactly as given, and lines without one would run together.
        if let Ok(printing) = self.shared.printing.lock()
            && let Some(queue) = printing.as_ref()
            && queue.send(format!("{text}\n")).is_ok()
        {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    pub fn lines(&self, lines: impl IntoIterator<Item = String>) {
        for l in lines {
            self.line(l);
        }
    }
}

/// The terminal's width in columns (80 when it does not say).
pub fn width() -> usize {
    #[cfg(unix)]
    if let Ok(size) = rustix::termios::tcgetwinsize(std::io::stdout())
        && size.ws_col > 0
    {
        return usize::from(size.ws_col);
    }
    std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|&c: &usize| c > 0).unwrap_or(80)
}

/// How many columns `text` takes on a terminal: escape sequences (colours) take none.
pub fn columns(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters final-byte (a letter).
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        width += c.width().unwrap_or(0);
    }
    width
}

/// `text` with every line longer than `width` columns broken at spaces (never between a
/// number and the word after it); the lines it continues on are indented two more than the
/// line's own indent. A word longer than a whole line stays whole.
pub fn wrap(text: &str, width: usize) -> String {
    wrap_hanging(text, width, None)
}

/// [`wrap`], with the lines a line continues on indented `hang` columns (a table's last
/// column) rather than two more than its own indent, when that leaves 20 columns to write in.
pub fn wrap_hanging(text: &str, width: usize, hang: Option<usize>) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in text.split('\n') {
        if columns(line) <= width {
            out.push(line.to_string());
            continue;
        }
        let body = line.trim_start_matches(' ');
        let indent = line.len() - body.len();
        let hanging = match hang {
            Some(h) if h + 20 <= width => " ".repeat(h),
            _ => " ".repeat((indent + 2).min(width / 2)),
        };
        let mut current = " ".repeat(indent);
        let mut used = indent;
        let mut fresh = true;
        // Runs of spaces are kept inside a line (they align columns) and dropped at a break.
        let mut rest = body;
        while !rest.is_empty() {
            let spaces = rest.len() - rest.trim_start_matches(' ').len();
            let (gap, after) = rest.split_at(spaces);
            // A number stays with the word after it ("6 2s", "3 fives"): a bid is not split.
            let mut word_len = after.find(' ').unwrap_or(after.len());
            while after[..word_len].bytes().all(|b| b.is_ascii_digit())
                && after[word_len..].starts_with(' ')
                && !after[word_len + 1..].starts_with(' ')
                && word_len + 1 < after.len()
            {
                word_len += 1 + after[word_len + 1..].find(' ').unwrap_or(after.len() - word_len - 1);
            }
            let (word, after) = after.split_at(word_len);
            rest = after;
            if word.is_empty() {
                break;
            }
            let (gap_cols, word_cols) = (gap.len(), columns(word));
            if fresh || used + gap_cols + word_cols <= width {
                if !fresh {
                    current.push_str(gap);
                    used += gap_cols;
                }
                current.push_str(word);
                used += word_cols;
                fresh = false;
            } else {
                out.push(std::mem::take(&mut current));
                current = format!("{hanging}{word}");
                used = hanging.len() + word_cols;
            }
        }
        out.push(current);
    }
    out.join("\n")
}

/// A word tab completion offers, and what it means when that is not plain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Shown beside the word in the list, and as a hint once it is typed.
    pub note: Option<String>,
    /// Offered only once something is typed ("7" lists every face seven may be bid on),
    /// not on an empty line, whose list stays short.
    pub later: bool,
}

impl Word {
    pub fn plain(text: impl Into<String>) -> Word {
        Word { text: text.into(), note: None, later: false }
    }

    /// A word offered once something is typed.
    pub fn later(text: impl Into<String>) -> Word {
        Word { text: text.into(), note: None, later: true }
    }
}

/// The words tab completion offers; the table updates them at each prompt.
#[derive(Clone, Default)]
pub struct Words(Arc<Mutex<Vec<Word>>>);

impl Words {
    pub fn set(&self, words: Vec<Word>) {
        if let Ok(mut w) = self.0.lock() {
            *w = words;
        }
    }

    fn get(&self) -> Vec<Word> {
        self.0.lock().map(|w| w.clone()).unwrap_or_default()
    }
}

/// The editor's helper: completes the calls in `Words`, and notes what the less obvious ones
/// mean (dimmed, when colour is on).
struct Calls(Words, bool);

impl Completer for Calls {
    type Candidate = Pair;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let typed = line.get(..pos).unwrap_or(line);
        let candidates = self
            .0
            .get()
            .into_iter()
            .filter(|w| w.text.starts_with(typed) && !(w.later && typed.trim().is_empty()))
            .map(|w| Pair {
                display: match &w.note {
                    Some(note) => format!("{}  ({note})", w.text),
                    None => w.text.clone(),
                },
                replacement: w.text,
            })
            .collect();
        Ok((0, candidates))
    }
}

/// A hint shown after what was typed, never inserted.
pub struct Note(String);

impl Hint for Note {
    fn display(&self) -> &str {
        &self.0
    }
    fn completion(&self) -> Option<&str> {
        None
    }
}

impl Hinter for Calls {
    type Hint = Note;
    fn hint(&self, line: &str, pos: usize, _: &rustyline::Context<'_>) -> Option<Note> {
        if pos != line.len() {
            return None;
        }
        let typed = line.trim().to_ascii_lowercase();
        let words = self.0.get();
        let word = words.iter().find(|w| w.note.is_some() && w.text.trim() == typed)?;
        word.note.as_ref().map(|n| Note(format!("  ({n})")))
    }
}

impl Highlighter for Calls {
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.1 { Cow::Owned(format!("\x1b[2m{hint}\x1b[0m")) } else { Cow::Borrowed(hint) }
    }
}
impl Validator for Calls {}
impl Helper for Calls {}

/// The terminal's mode when the table began, to put back.
#[cfg(unix)]
struct Terminal(rustix::termios::Termios);

#[cfg(unix)]
impl Terminal {
    fn save() -> Option<Terminal> {
        rustix::termios::tcgetattr(std::io::stdin()).ok().map(Terminal)
    }
    fn restore(&self) {
        let _ = rustix::termios::tcsetattr(std::io::stdin(), rustix::termios::OptionalActions::Now, &self.0);
    }
}

#[cfg(not(unix))]
struct Terminal;

#[cfg(not(unix))]
impl Terminal {
    fn save() -> Option<Terminal> {
        None
    }
    fn restore(&self) {}
}

/// The lines typed, and the terminal to give back.
pub struct Reader {
    lines: mpsc::Receiver<Input>,
    /// Lets the editor show its prompt again once a line has been answered; dropped to stop it.
    resume: Option<std::sync::mpsc::Sender<()>>,
    output: Output,
    terminal: Option<Terminal>,
    /// The editor is reading a line: its prompt is on the screen, the terminal raw.
    reading: Arc<AtomicBool>,
}

impl Reader {
    /// The next thing typed; `None` once the reader is closed.
    pub async fn next(&mut self) -> Option<Input> {
        self.lines.recv().await
    }

    /// The last line has been answered: show the prompt again.
    pub fn resume(&self) {
        if let Some(resume) = &self.resume {
            let _ = resume.send(());
        }
    }

    /// Stops reading and puts the terminal back as it was: its mode, and no prompt left on
    /// the line. Whatever is printed afterwards goes straight to standard output. Safe to
    /// call more than once; dropping the reader calls it.
    pub fn close(&mut self) {
        self.resume = None;
        // The lines already queued are printed first (a printer stuck on an editor that has
        // gone is not waited for long); from now on lines go straight to standard output.
        let queue = self.output.shared.printing.lock().ok().and_then(|mut q| q.take());
        drop(queue);
        if let Some(thread) = self.output.shared.printer_thread.lock().ok().and_then(|mut t| t.take()) {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
            while !thread.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            if thread.is_finished() {
                let _ = thread.join();
            }
        }
        if let Some(terminal) = self.terminal.take() {
            terminal.restore();
            if self.reading.load(Ordering::SeqCst) {
                // The editor's prompt (and anything half typed) is on the last line.
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(b"\r\x1b[K");
                let _ = out.flush();
            }
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.close();
    }
}

/// Whether the editor failed because the terminal is gone (an I/O error), rather than for
/// Ctrl-C or Ctrl-D.
fn terminal_gone(e: &ReadlineError) -> bool {
    #[cfg(unix)]
    if matches!(e, ReadlineError::Errno(_)) {
        return true;
    }
    matches!(e, ReadlineError::Io(_))
}

/// Starts reading lines; returns the reader, with the output to print through. `colour`:
/// whether the editor may dim its notes.
pub fn start(words: Words, colour: bool) -> (Reader, Output) {
    let (tx, rx) = mpsc::channel(16);
    let wrap = std::io::stdout().is_terminal();
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let terminal = Terminal::save();
        let config = rustyline::Config::builder().completion_type(rustyline::CompletionType::List).build();
        if let Ok(mut editor) =
            rustyline::Editor::<Calls, rustyline::history::DefaultHistory>::with_config(config)
        {
            editor.set_helper(Some(Calls(words, colour)));
            let printer =
                editor.create_external_printer().ok().map(|p| Box::new(p) as Box<dyn ExternalPrinter + Send>);
            let (resume, resumed) = std::sync::mpsc::channel::<()>();
            let reading = Arc::new(AtomicBool::new(false));
            let in_editor = Arc::clone(&reading);
            let shared = Arc::new(Shared::direct(wrap));
            if let Some(mut printer) = printer {
                let (queue, lines) = std::sync::mpsc::channel::<String>();
                let gone = Arc::clone(&shared.gone);
                let thread = std::thread::spawn(move || {
                    for text in lines {
                        if gone.load(Ordering::SeqCst) || printer.print(text.clone()).is_err() {
                            let mut out = std::io::stdout().lock();
                            let _ = out.write_all(text.as_bytes());
                            let _ = out.flush();
                        }
                    }
                });
                if let Ok(mut printing) = shared.printing.lock() {
                    *printing = Some(queue);
                }
                if let Ok(mut slot) = shared.printer_thread.lock() {
                    *slot = Some(thread);
                }
            }
            let editor_shared = Arc::clone(&shared);
            std::thread::spawn(move || {
                loop {
                    in_editor.store(true, Ordering::SeqCst);
                    let read = editor.readline("> ");
                    in_editor.store(false, Ordering::SeqCst);
                    let input = match read {
                        Ok(line) => {
                            if !line.trim().is_empty() {
                                let _ = editor.add_history_entry(line.as_str());
                            }
                            Input::Line(line)
                        }
                        Err(ReadlineError::Interrupted) => Input::Interrupt,
                        // The terminal is gone: nothing more can be read. The editor goes
                        // with this thread, which frees a print waiting on it, and output
                        // goes straight to standard output from now on.
                        Err(e) if terminal_gone(&e) => {
                            editor_shared.gone.store(true, Ordering::SeqCst);
                            let _ = tx.blocking_send(Input::End);
                            return;
                        }
                        Err(_) => Input::End,
                    };
                    // Then wait for the answer to be printed before prompting again; a closed
                    // reader stops here, with the terminal out of raw mode.
                    if tx.blocking_send(input).is_err() || resumed.recv().is_err() {
                        return;
                    }
                }
            });
            let output = Output { shared, interactive: true };
            let reader =
                Reader { lines: rx, resume: Some(resume), output: output.clone(), terminal, reading };
            return (reader, output);
        }
    }
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        loop {
            let mut line = String::new();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = tx.blocking_send(Input::End);
                    return;
                }
                Ok(_) => {
                    if tx.blocking_send(Input::Line(line.trim_end().to_string())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let output = Output { shared: Arc::new(Shared::direct(wrap)), interactive: false };
    let reader = Reader {
        lines: rx,
        resume: None,
        output: output.clone(),
        terminal: None,
        reading: Arc::new(AtomicBool::new(false)),
    };
    (reader, output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_between_words_with_a_hanging_indent() {
        let text = "  You may call (least raise on each face): 1 2s, 1 3s, 1 4s, 1 5s, 1 6s, dudo, calza";
        let wrapped = wrap(text, 40);
        for line in wrapped.lines() {
            assert!(columns(line) <= 40, "{wrapped}");
        }
        assert_eq!(
            wrapped,
            "  You may call (least raise on each\n    face): 1 2s, 1 3s, 1 4s, 1 5s, 1 6s,\n    dudo, calza"
        );
        // Words are never cut, short lines and inner alignment are left alone.
        assert_eq!(wrap("  Ana    5 dice", 40), "  Ana    5 dice");
        assert_eq!(wrap("supercalifragilistic word", 10), "supercalifragilistic\n  word");
        // A bid stays whole.
        assert_eq!(wrap("bids: 3 1s, 16 2s", 13), "bids: 3 1s,\n  16 2s");
        assert_eq!(wrap("bids: 3 1s, 16 2s", 9), "bids:\n  3 1s,\n  16 2s");
    }

    #[test]
    fn a_table_row_continues_under_its_last_column() {
        let row = "abc-1   2026-11-25 18:03  Alba (reader bot) > Bruno (odds bot)";
        assert_eq!(
            wrap_hanging(row, 46, Some(26)),
            "abc-1   2026-11-25 18:03  Alba (reader bot) >\n                          Bruno (odds bot)"
        );
        // Too narrow for the column: the usual two-column indent.
        assert_eq!(wrap_hanging("aaaa bbbb cccc", 10, Some(5)), "aaaa bbbb\n  cccc");
    }

    #[test]
    fn colours_take_no_columns() {
        assert_eq!(columns("\x1b[1mRound 3\x1b[0m"), 7);
        assert_eq!(columns("⚀ ⚅"), 3);
        let red = format!("\x1b[31m{}\x1b[0m", "word ".repeat(20).trim_end());
        for line in wrap(&red, 30).lines() {
            assert!(columns(line) <= 30);
        }
    }
}
