//! What the table looks like in a terminal: dice as dice, the seats in play order with the
//! turn, host and starter marks, the bid, and events in words.
//!
//! [`Style`] decides once whether to draw dice glyphs (⚀-⚅) and colour: both need a
//! terminal; colour also respects `NO_COLOR` and `TERM=dumb`, and `DUDO_ASCII` turns the
//! glyphs off for terminals whose fonts lack them. Everything here is pure: strings in,
//! strings out, so tests can check it. The table from one seat is `view`'s.

use std::borrow::Cow;
use std::io::IsTerminal;

use dudo_client::TableEvent;
use dudo_client::dudo_proto::LeaveWhy;
use dudo_client::dudo_proto::v1 as pb;
use dudo_rules::describe::place_text;
use dudo_rules::event::Counted;
use dudo_rules::game::{Legal, PlayerView, View};
use dudo_rules::hand::HandGame;
use dudo_rules::ruleset::{DrinksTally, Family, GameEnd, PassClaim, WagerMode};
use dudo_rules::{EventKind, RuleSet};

use crate::input::Word;

mod view;

pub use view::status;

/// A string from the server (a name, a rule set's name, a reason) made safe to print: control
/// characters (escapes, carriage returns, newlines), bidirectional overrides and invisible
/// formatting characters are shown as `\u{…}` escapes, so that no server, old or hostile,
/// can colour the terminal, move its cursor or fake a line of the game.
/// A name as shown, made safe, with its account's kind where it has one: a bot account's
/// seat reads "Robo [bot]" wherever the name is (a person's account and a guest read plain;
/// the server's own bots are named "Alba (odds bot)" already).
pub fn account_name(name: &str, account: i32) -> String {
    match pb::AccountKind::try_from(account) {
        Ok(pb::AccountKind::Bot) => format!("{} [bot]", safe(name)),
        _ => safe(name).into_owned(),
    }
}

pub fn safe(text: &str) -> Cow<'_, str> {
    fn unsafe_char(c: char) -> bool {
        c.is_control()
            || matches!(c,
                '\u{200B}'..='\u{200F}' // zero-width spaces and joiners, marks left-to-right and right-to-left
                | '\u{2028}'..='\u{202E}' // line and paragraph separators, embeddings and overrides
                | '\u{2060}'..='\u{2069}' // word joiner, invisible operators, isolates
                | '\u{061C}' // Arabic letter mark
                | '\u{FEFF}' // zero-width no-break space
                | '\u{FFF9}'..='\u{FFFB}') // interlinear annotations
    }
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// What a pass claims under these rules, for the hint, Tab and `help`.
pub fn pass_claim(rules: &RuleSet) -> Option<&'static str> {
    match rules.pass.claim {
        PassClaim::Off => None,
        PassClaim::AllSameFace => {
            Some("not a skip: claims all your dice show the same face (wilds do not help)")
        }
        PassClaim::AllDifferent => {
            Some("not a skip: claims no two of your dice show the same face (wilds do not help)")
        }
    }
}

/// How to draw: with dice glyphs and with colour, or plain.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    pub glyphs: bool,
    pub colour: bool,
}

impl Style {
    /// What this process's standard output can show.
    pub fn detect() -> Style {
        let terminal = std::io::stdout().is_terminal();
        let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
            || std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Style { glyphs: terminal && std::env::var_os("DUDO_ASCII").is_none(), colour: terminal && !no_colour }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }

    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }

    /// One die: a glyph for six-sided faces, a boxed number otherwise; `None` is a die
    /// hidden from you.
    pub fn die(self, face: Option<u8>, faces: u8) -> String {
        match face {
            None if self.glyphs => "▣".into(),
            None => "?".into(),
            // The glyph and its number: calls are typed as numbers.
            Some(f @ 1..=6) if self.glyphs && faces <= 6 => {
                format!("{}{f}", ['⚀', '⚁', '⚂', '⚃', '⚄', '⚅'][usize::from(f - 1)])
            }
            Some(f) if self.glyphs => format!("[{f}]"),
            Some(f) => f.to_string(),
        }
    }

    /// Dice in a row; `wild` is drawn in yellow.
    pub fn dice(self, dice: &[Option<u8>], faces: u8, wild: Option<u8>) -> String {
        let drawn: Vec<String> = dice
            .iter()
            .map(|&d| {
                let text = self.die(d, faces);
                if d.is_some() && d == wild { self.yellow(&text) } else { text }
            })
            .collect();
        drawn.join(" ")
    }

    /// A revealed cup, with the dice the server says counted marked: those showing the
    /// claim's `face` in green, the others that counted (wilds, a stair) in yellow.
    pub fn counted_dice(self, dice: &[u8], faces: u8, face: u8, marks: &[bool]) -> String {
        let drawn: Vec<String> = dice
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                let text = self.die(Some(d), faces);
                match marks.get(i) {
                    Some(true) if d == face => self.green(&text),
                    Some(true) => self.yellow(&text),
                    _ => text,
                }
            })
            .collect();
        drawn.join(" ")
    }

    /// A bid as players say it, with the face drawn: "4 × ⚄ (4 fives)".
    pub fn bid(self, bid: dudo_rules::Bid, faces: u8) -> String {
        if self.glyphs {
            format!("{} × {} ({bid})", bid.quantity, self.die(Some(bid.face), faces))
        } else {
            bid.to_string()
        }
    }
}

/// The seat names as this viewer reads them: their own marked "(you)".
pub fn names_for(players: &[String], me: Option<usize>) -> Vec<String> {
    players
        .iter()
        .enumerate()
        .map(|(s, n)| if Some(s) == me { format!("{n} (you)") } else { n.clone() })
        .collect()
}

fn known(dice: &[u8]) -> Vec<Option<u8>> {
    dice.iter().map(|&d| Some(d)).collect()
}

/// The reveal as a block: every cup, and when the claim was a count, the dice that counted
/// and how many in each cup, as the server's engine counted them.
pub fn reveal_lines(
    dice: &[Vec<u8>],
    counted: Option<&Counted>,
    names: &[String],
    faces: u8,
    style: Style,
) -> Vec<String> {
    let name = |s: usize| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}"));
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(4);
    let mut lines = vec![style.bold("Cups up:")];
    for (s, d) in dice.iter().enumerate().filter(|(_, d)| !d.is_empty()) {
        let (drawn, tally) = match counted {
            Some(c) => (
                style.counted_dice(d, faces, c.face, c.marks.get(s).map_or(&[], Vec::as_slice)),
                format!("  {}", style.dim(&format!("{} counted", c.count(s)))),
            ),
            None => (style.dice(&known(d), faces, None), String::new()),
        };
        lines.push(format!("  {:<width$}  {drawn}{tally}", name(s)));
    }
    lines
}

/// One entry of the table's log as the lines to print: the server's words for it (`text`),
/// styled by what happened, and laid out where a block reads better than a line (your dice
/// drawn as dice, the reveal's cups with the counted dice marked, the results table). Most
/// are one line; the server's bookkeeping for verifiable dice is none. `wild` is the round's
/// wild face as the server last said it.
pub fn event_lines(
    event: &TableEvent,
    text: &str,
    names: &[String],
    rules: &RuleSet,
    me: Option<usize>,
    wild: Option<u8>,
    style: Style,
) -> Vec<String> {
    let faces = rules.dice.faces;
    let hand_game = rules.family.hand_game();
    // The server's words, made safe to print; from a server older than them, the engine's.
    let said = if text.is_empty() { event.describe(names, hand_game) } else { safe(text).into_owned() };
    let kind = match event {
        TableEvent::Game(e) => &e.kind,
        // The client checks them; people need not read them.
        TableEvent::DiceCommitted { .. } | TableEvent::DiceSalts { .. } => return Vec::new(),
        // A player's own leave, taking effect now: the engine's `SeatLeft` that follows says
        // so, with their place.
        TableEvent::SeatLeaving { why: LeaveWhy::Left, at_round_end: false, .. } => return Vec::new(),
        _ => return vec![said],
    };
    let name = |s: usize| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}"));
    match kind {
        EventKind::DiceRolled { seat, dice } if Some(*seat) == me && hand_game.is_none() => {
            vec![format!("Your dice: {}", style.bold(&style.dice(dice, faces, wild)))]
        }
        EventKind::DiceRevealed { dice, counted } => {
            reveal_lines(dice, counted.as_ref(), names, faces, style)
        }
        // The count that decided it, and who won and lost, in one line.
        EventKind::RoundSettled { .. } | EventKind::ChallengeSettled { .. } => vec![style.bold(&said)],
        EventKind::DiceLost { seat, .. } | EventKind::LifeLost { seat, .. } if Some(*seat) == me => {
            vec![style.red(&said)]
        }
        EventKind::DiceWon { seat, .. } if Some(*seat) == me => vec![style.green(&said)],
        EventKind::RoundStarted { palifico, .. } if !palifico.is_empty() => {
            vec![style.yellow(&format!("★ {said}"))]
        }
        EventKind::RoundStarted { .. } | EventKind::HandStarted { .. } => {
            vec![String::new(), style.cyan(&said)]
        }
        EventKind::ResultsTable { rows } => {
            let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(4);
            // Counts right-aligned, so "9 there" and "10 there" keep the verdicts in a column.
            let counted = rows.iter().map(|r| r.actual.to_string().len()).max().unwrap_or(1);
            let mut lines = vec![style.bold("Results of the round:")];
            for r in rows {
                let verdict = if r.was_true { style.green("true") } else { style.red("false") };
                lines.push(format!(
                    "  {:<width$}  {:<24} {:>counted$} there  {verdict}",
                    name(r.seat),
                    style.bid(r.bid, faces),
                    r.actual
                ));
            }
            lines
        }
        EventKind::GameOver { .. } => vec![String::new(), style.bold(&said)],
        _ => vec![said],
    }
}

/// What you may call now, with the least raise on each face.
pub fn hint(legal: &Legal, rules: &RuleSet, style: Style) -> String {
    let faces = rules.dice.faces;
    if let Some(kind) = legal.hand_game {
        let mut parts = Vec::new();
        if !legal.dudo.is_empty() {
            parts.push("dudo (lift the cup)".to_string());
        }
        if legal.accept {
            parts.push("accept".to_string());
        }
        if let Some(roll) = legal.roll {
            let cost =
                if roll.drinks > 0 { format!(" (costs {} drinks)", roll.drinks) } else { String::new() };
            parts.push(if roll.all {
                format!("roll all{cost}")
            } else {
                format!("roll POSITIONS, as in `roll 1 3`{cost}")
            });
            if roll.may_show {
                parts.push("roll 1 3 show 2 (leave dice in view)".to_string());
            }
        }
        if let Some(from) = &legal.claim_from {
            parts.push(format!("a claim of {} or better (a hand, or `better`)", from.text(kind)));
        }
        if legal.dogs_life {
            parts.push("bark (take the dog's life) or decline".to_string());
        }
        return format!("You may: {}", parts.join("; "));
    }
    let mut parts: Vec<String> = legal
        .bids
        .iter()
        .map(|r| {
            let face = style.die(Some(r.face), faces);
            if style.glyphs {
                format!("{} {face}", r.min_quantity)
            } else {
                format!("{} {}s", r.min_quantity, r.face)
            }
        })
        .collect();
    if !legal.dudo.is_empty() {
        parts.push("dudo".into());
    }
    if legal.calza {
        parts.push(dudo_rules::game::exact_call_name(rules).into());
    }
    if legal.pass {
        parts.push(match pass_claim(rules) {
            Some(claim) => format!("pass ({claim})"),
            None => "pass".into(),
        });
    }
    if legal.push {
        parts.push("push DICE then BID".into());
    }
    if legal.watch {
        parts.push("watch".into());
    }
    let least = if legal.bids.is_empty() { "" } else { " (least raise on each face)" };
    format!("You may call{least}: {}", parts.join(", "))
}

/// Words a player may type now, for tab completion, with what the less obvious ones mean.
pub fn completions(legal: &Legal, rules: &RuleSet) -> Vec<Word> {
    let mut words: Vec<String> =
        legal.bids.iter().map(|r| format!("{} {}s", r.min_quantity, r.face)).collect();
    if !legal.dudo.is_empty() {
        words.push("dudo".into());
    }
    if legal.calza {
        words.push(dudo_rules::game::exact_call_name(rules).into());
    }
    let mut pass = None;
    if legal.pass {
        pass = Some(Word { text: "pass".into(), note: pass_claim(rules).map(String::from), later: false });
    }
    for (allowed, word) in [(legal.push, "push "), (legal.watch, "watch"), (legal.accept, "accept")] {
        if allowed {
            words.push(word.into());
        }
    }
    if let Some(roll) = legal.roll {
        words.push(if roll.all { "roll all".into() } else { "roll ".into() });
    }
    if legal.claim_from.is_some() {
        words.push("better".into());
    }
    if legal.dogs_life {
        words.extend(["bark".to_string(), "decline".to_string()]);
    }
    words.extend(["odds", "status", "help", "quit"].map(String::from));
    let mut words: Vec<Word> = words.into_iter().map(Word::plain).collect();
    // Past the least raise, each face's higher bids, offered once a quantity is typed: Tab
    // after "7 " lists every face seven may go on.
    const HIGHER: u16 = 24;
    for r in &legal.bids {
        let most = r.max_quantity.min(r.min_quantity.saturating_add(HIGHER));
        words.extend((r.min_quantity + 1..=most).map(|q| Word::later(format!("{q} {}s", r.face))));
    }
    if let Some(pass) = pass {
        let at = words.iter().position(|w| w.text == "push " || w.text == "odds").unwrap_or(words.len());
        words.insert(at, pass);
    }
    words
}

/// How others join a table: by its link when the server gave it a public address
/// (`--public-url`: a cluster's balancer, say), which names the server too; otherwise by its
/// code at the address this client dialed.
pub(crate) fn join_hint(info: &dudo_client::dudo_proto::v1::TableInfo, dialed: &str) -> String {
    let public = dudo_client::dudo_proto::link::parse(&info.link).filter(|l| {
        let host = l.server.trim_start_matches("https://").rsplit_once(':').map_or("", |(h, _)| h);
        !(host == "localhost" || host.starts_with("127.") || host == "[::1]")
    });
    match public {
        Some(_) => format!("dudo join {}", safe(&info.link)),
        None => format!("dudo join {} --server {dialed}", safe(&info.join_code)),
    }
}

#[cfg(test)]
mod tests;
