//! Reading what the player types while the table keeps talking.
//!
//! In a terminal, rustyline reads lines (history, editing, tab completion of the calls that
//! are legal now) on its own thread, and everything the table says is printed through its
//! external printer so it appears above the line being typed instead of inside it. Without a
//! terminal (a pipe, a script) a plain thread reads lines and output is printed directly;
//! the table then takes a line only when it is the player's call, so a file of answers
//! plays a game.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::{Arc, Mutex};

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{ExternalPrinter, Helper};
use tokio::sync::mpsc;

/// A line typed, or the end of input (Ctrl-D, Ctrl-C, a closed pipe).
pub type Line = Option<String>;

/// Where the table's lines go.
#[derive(Clone)]
pub struct Output {
    printer: Option<Arc<Mutex<Box<dyn ExternalPrinter + Send>>>>,
    /// A person at a terminal, rather than a script: lines may come at any time.
    pub interactive: bool,
}

impl Output {
    pub fn line(&self, text: impl Into<String>) {
        let text = text.into();
        if let Some(printer) = &self.printer
            && let Ok(mut p) = printer.lock()
            && p.print(text.clone()).is_ok()
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

/// The words tab completion offers; the table updates them at each prompt.
#[derive(Clone, Default)]
pub struct Words(Arc<Mutex<Vec<String>>>);

impl Words {
    pub fn set(&self, words: Vec<String>) {
        if let Ok(mut w) = self.0.lock() {
            *w = words;
        }
    }
}

struct Calls(Words);

impl Completer for Calls {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let typed = &line[..pos];
        let words = self.0.0.lock().map(|w| w.clone()).unwrap_or_default();
        Ok((0, words.into_iter().filter(|w| w.starts_with(typed)).collect()))
    }
}

impl Hinter for Calls {
    type Hint = String;
}
impl Highlighter for Calls {}
impl Validator for Calls {}
impl Helper for Calls {}

/// Starts reading lines; returns them on a channel, with the output to print through.
pub fn start(words: Words) -> (mpsc::Receiver<Line>, Output) {
    let (tx, rx) = mpsc::channel(16);
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let config = rustyline::Config::builder().completion_type(rustyline::CompletionType::List).build();
        if let Ok(mut editor) =
            rustyline::Editor::<Calls, rustyline::history::DefaultHistory>::with_config(config)
        {
            editor.set_helper(Some(Calls(words)));
            let printer = editor
                .create_external_printer()
                .ok()
                .map(|p| Arc::new(Mutex::new(Box::new(p) as Box<dyn ExternalPrinter + Send>)));
            std::thread::spawn(move || {
                loop {
                    match editor.readline("> ") {
                        Ok(line) => {
                            if !line.trim().is_empty() {
                                let _ = editor.add_history_entry(line.as_str());
                            }
                            if tx.blocking_send(Some(line)).is_err() {
                                return;
                            }
                        }
                        Err(_) => {
                            let _ = tx.blocking_send(None);
                            return;
                        }
                    }
                }
            });
            return (rx, Output { printer, interactive: true });
        }
    }
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        loop {
            let mut line = String::new();
            match input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = tx.blocking_send(None);
                    return;
                }
                Ok(_) => {
                    if tx.blocking_send(Some(line.trim_end().to_string())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    (rx, Output { printer: None, interactive: false })
}
