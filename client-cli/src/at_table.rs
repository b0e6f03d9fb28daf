//! Sitting at a table: the session's updates drawn for people, and what they type turned
//! into calls and host commands.
//!
//! One loop waits on three things: the session (events, prompts, refusals, reconnects), the
//! typed lines, and a one-second tick for the turn clock's countdown. Nothing typed can end
//! the program by mistake: a line that is not a call says why and the loop goes on.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dudo_client::dudo_proto::v1 as pb;
use dudo_client::{Client, Prompt, Reseat, SeatKey, Session, Update};
use dudo_rules::odds::bid_odds;
use dudo_rules::{Action, Bid, EventKind, RuleSet, View};

use crate::input::{self, Input, Output, Word, Words};
use crate::render::{self, Style, safe};

/// `help` at the table: one item a line (lines are wrapped to the terminal's width).
const HELP: &[&str] = &[
    "Calls: a bid such as `3 5s`, `three fives` or `3x5`; `dudo` to challenge; `calza` (or jonti, exact, spot on) for exactly right.",
    "House rules: `push 5 5 then 6 5s` shows dice and re-rolls the rest; `pass` is not a skip: it claims something about your own dice (all one face, or all different, as the table's rules say) and can be challenged.",
    "The points game: `watch`. Cup games: `accept`, `roll 1 3`, `roll all`, `roll 1 3 show 2`, a hand such as `JJQT9` or `a pair of jacks`, `better`, `bark`/`decline`.",
    "Out of turn: after each bid, everyone who may call on it (calza by the others, a challenge in some rules) is asked at once: call, or `no` to let it stand. If several call, the one sitting closest after the bidder wins, however fast the others were.",
    "Tab completes the calls you may make now.",
    "At the table: `status`, `odds` (how likely each bid is, from your seat), `who`, `help`, `quit` (asks first during a game; `quit!` or Ctrl-C twice leaves at once).",
    "Host: `start`, `bot [random|odds|reader]`, `set FIELD=VALUE`, `remove SEAT` (the seat's number, as `who` and `status` show it), `reset`, `again`.",
    "Anyone: `leave`, at any time: after a round's first bid your moves are played by default until it ends, then your seat goes. The host's `remove SEAT` works the same way.",
];

/// Seconds left at which the countdown says so.
const COUNTDOWN: [u64; 3] = [30, 10, 5];

/// How a seat at the table ends.
pub enum Exit {
    /// The player typed quit, or input ended.
    Quit,
    /// The player left the table for good.
    Left,
    /// The table closed (its host closed it, or the server did at a game's end: a
    /// tournament's tables).
    Closed,
}

pub struct AtTable {
    client: Client,
    key: Option<SeatKey>,
    style: Style,
    out: Output,
    words: Words,
    table: pb::TableInfo,
    rules: Arc<RuleSet>,
    players: Vec<String>,
    /// The view from the last snapshot, prompt or turn update: the server's, never worked
    /// out here from the events.
    view: Option<View>,
    /// The prompt in force: cleared when an event newer than it arrives.
    prompt: Option<Prompt>,
    /// The round's wild face as the server last said it (a view, or the events that start a
    /// round or change its wilds), to colour your dice as they are rolled.
    wild: Option<u8>,
    /// Countdown lines already printed for the prompt in force.
    warned: Vec<u64>,
    /// The claim (its prompt's last event) whose call window was shown: once a claim.
    offered_for: Option<Option<u64>>,
    over: bool,
    /// A call was sent and its answer (events, or a refusal) has not come yet.
    in_flight: bool,
    /// The prompt the call in flight answered (its last_seq): a reconnect repeats that prompt,
    /// which must not free the next line of a script.
    answered: Option<Option<u64>>,
    /// The connection is lost and the session is retrying: said once, not at every retry,
    /// and the turn countdown waits (the server restarts the clock when it is back).
    disconnected: bool,
    /// The server ended the stream on purpose (a reset, renumbered seats) and the session is
    /// coming back: not a lost connection, so its return is not announced as one.
    reseated: bool,
    /// The server said this seat is gone (removed by the host, or left): the stream's end is
    /// told as that, not as an error.
    unseated: Option<Reseat>,
    /// This player reset the table (`reset`, `again`): the server's notice of it says nothing new.
    resetting: bool,
    /// The reset that ended this seat's stream was told (or was ours): the table's return to
    /// waiting that follows is not told again. Spectators have no such notice: for them the
    /// table's going back to waiting says it.
    reset_noted: bool,
    /// The rules this player's own `set` made, as the server answered: when the table's
    /// update brings them, they are not told back to the one who typed them.
    own_rules: Option<Arc<RuleSet>>,
    /// The table is `dudo play`'s: bots fill every other seat, so nobody else joins and there
    /// are no host's instructions to give.
    solo: bool,
    /// The game as it stands was just shown (a snapshot on joining again): the prompt that
    /// follows need not show it a second time.
    shown: bool,
    /// Questions asked so far (the quit question, call windows): which was asked last.
    asked: u64,
    /// `quit` (or Ctrl-C) was asked for during a game and is waiting for a yes: when it
    /// was asked.
    confirming: Option<u64>,
    /// When the call window in force was offered.
    offered_at: u64,
    /// What the answer in flight was, to say what it waits for if it is held.
    sent: Option<Sent>,
    /// The answer in flight is held in a call window, and that was said.
    held: bool,
    /// The claim of ours whose open call window was said (its `last_seq`), so it is said once.
    window_said: Option<Option<u64>>,
    /// A table the server hosts (see [`Console::hosted`]).
    hosted: bool,
}

/// An answer sent to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    /// A move on this seat's turn (held, in a call window, until the window closes).
    Move,
    /// A call out of turn (waiting, in a call window, for the seats asked before this one).
    Call,
    /// `no`: no call on this claim.
    Pass,
}

impl AtTable {
    /// Whether a line should be read now. A person may type at any time; a script's next
    /// line is its answer to the call it is asked for.
    fn wants_line(&self) -> bool {
        if self.out.interactive {
            return true;
        }
        !self.in_flight
            && self.prompt.as_ref().is_some_and(|p| p.view.turn.is_some() && p.view.turn == self.me())
    }

    /// Seats are renumbered when someone leaves before the start or at a reset: the views
    /// the server sends say which seat is ours now.
    fn learn_seat(&mut self, view: &View) {
        if let (Some(key), Some(seat)) = (self.key.as_mut(), view.seat) {
            key.seat = seat as u32;
        }
        self.wild = view.wild;
    }

    fn me(&self) -> Option<usize> {
        self.key.as_ref().map(|k| k.seat as usize)
    }

    fn host(&self) -> usize {
        self.table.host as usize
    }

    fn names(&self) -> Vec<String> {
        render::names_for(&self.players, self.me())
    }

    /// Whether leaving now walks out of a game this player is still in.
    fn in_a_game(&self) -> bool {
        let playing = self.table.state == pb::TableState::Playing as i32 && !self.over;
        let still_in = self
            .view
            .as_ref()
            .zip(self.me())
            .is_some_and(|(v, me)| v.players.get(me).is_some_and(|p| p.place.is_none()));
        self.key.is_some() && playing && still_in
    }

    /// `quit`, Ctrl-C or Ctrl-D: at once, unless it would walk out of a game in progress, which
    /// is asked about first (once: a second Ctrl-C, `quit!` or `y` leaves).
    fn ask_to_leave(&mut self) -> Option<Exit> {
        if !self.out.interactive || self.confirming.is_some() || !self.in_a_game() {
            return Some(self.walk_out());
        }
        self.asked += 1;
        self.confirming = Some(self.asked);
        self.out.line(self.style.yellow("Leave the game? y/N (Ctrl-C again or `quit!` leaves at once)"));
        None
    }

    /// The call window asking this seat, while it has not answered.
    fn window_open(&self) -> Option<&Prompt> {
        self.prompt.as_ref().filter(|p| p.call_window.is_some() && !self.in_flight)
    }

    /// What a call window offers: "`calza` or `dudo`", empty when it offers no call.
    fn offers(&self, p: &Prompt) -> String {
        let mut offers = Vec::new();
        if p.legal.calza {
            offers.push(format!("`{}`", dudo_rules::game::exact_call_name(&self.rules)));
        }
        if !p.legal.dudo.is_empty() {
            offers.push("`dudo`".to_string());
        }
        offers.join(" or ")
    }

    /// "Ben's bid of 3 fives", as the server's view has the bid in front of the table.
    fn claim_in_front(&self, view: &View) -> String {
        match view.current_bid {
            Some((s, bid)) => {
                let who = self.names().get(s).cloned().unwrap_or_default();
                format!("{who}'s bid of {}", self.style.bid(bid, self.rules.dice.faces))
            }
            None => "the last claim".into(),
        }
    }

    /// The server took the move or call in flight and gave no outcome yet (a `turn` update,
    /// not events): a call window holds it. Says what it waits for, once. (A `no` gets a
    /// `turn` update too when it closes the window with nothing to play: that holds nothing.)
    fn say_held(&mut self, view: &View) {
        let said = match self.sent {
            _ if self.held || !self.in_flight => return,
            Some(Sent::Move) => "your call is played when the call window closes, unless someone calls first",
            Some(Sent::Call) => "yours is played unless a seat closer after the bidder calls too",
            Some(Sent::Pass) | None => return,
        };
        self.held = true;
        let said = format!("Waiting for calls on {}: {said}.", self.claim_in_front(view));
        self.out.line(self.style.dim(&said));
    }

    /// Our own claim has a call window open (the server says so on its `turn` update): the
    /// others may call out of turn on it before the next move is played. Said once a claim.
    fn say_open_to_calls(
        &mut self,
        view: &View,
        last_seq: Option<u64>,
        window: Option<std::time::SystemTime>,
    ) {
        let Some(closes) = window else { return };
        let ours = view.current_bid.is_some_and(|(s, _)| Some(s) == self.me());
        if !ours || self.window_said == Some(last_seq) {
            return;
        }
        self.window_said = Some(last_seq);
        let left = closes.duration_since(std::time::SystemTime::now()).unwrap_or_default();
        // Rounded up, as the countdowns are: "1 s" while any part of a second is left.
        let seconds = left.as_millis().div_ceil(1000);
        let said =
            format!("Your bid is open to calls out of turn for {seconds} s; the next move waits for them.");
        self.out.line(self.style.dim(&said));
    }

    /// Leaving this terminal mid-game keeps the seat: says so, and how to come back.
    fn walk_out(&mut self) -> Exit {
        if self.hosted {
            // Its caller says how to come back (`dudo tournament enter`).
        } else if self.solo && self.in_a_game() {
            // `dudo play` closes its table of bots when the player goes: nothing to come back to.
            self.out
                .line("You left the game; the table of bots closes with you. `dudo play` deals a new one.");
        } else if self.in_a_game() {
            self.out.line(format!(
                "Your seat is kept: `dudo join {}` brings you back. Until then the game waits for your moves (a table with a clock plays them for you).",
                self.table.join_code
            ));
        }
        Exit::Quit
    }

    fn set_table(&mut self, mut table: pb::TableInfo, rules: Arc<RuleSet>) {
        // Everything the server names is printed: made safe once, here.
        for p in &mut table.players {
            p.name = render::account_name(&p.name, p.account);
        }
        if let Cow::Owned(code) = safe(&table.join_code) {
            table.join_code = code;
        }
        let rules = safe_rules(rules);
        // A table seen before: what the host changed in it is news to everyone else.
        if !self.table.id.is_empty() {
            self.tell_changes(&table, &rules);
        }
        let before: Vec<String> = self.players.clone();
        let players: Vec<String> = table.players.iter().map(|p| p.name.clone()).collect();
        if !before.is_empty() && table.state == pb::TableState::Waiting as i32 {
            for (s, p) in table.players.iter().enumerate() {
                if before.get(s) != Some(&p.name) && !before.contains(&p.name) {
                    self.out.line(format!("{} sits down at seat {}", p.name, p.seat));
                }
            }
            for name in before.iter().filter(|n| !players.contains(n)) {
                self.out.line(format!("{name} leaves the table"));
            }
        }
        if !self.table.id.is_empty() {
            for line in crate::presence::changes(&self.table, &table) {
                self.out.line(self.style.dim(&line));
            }
        }
        // A seat number can change before the start (someone left): the table says which is ours.
        self.players = players;
        self.rules = rules;
        self.table = table;
    }

    /// Says what the host changed: the rules (before the start), or the table reset to waiting.
    fn tell_changes(&mut self, table: &pb::TableInfo, rules: &Arc<RuleSet>) {
        let waiting = pb::TableState::Waiting as i32;
        let noted = std::mem::take(&mut self.reset_noted);
        if self.table.state != waiting
            && table.state == waiting
            && !noted
            && !std::mem::take(&mut self.resetting)
        {
            self.out.line(self.style.dim("The host reset the table: back to waiting, same seats and rules."));
        }
        let changes = render::rule_changes(&self.rules, rules);
        // This player's own `set` was answered already.
        if changes.is_empty() || self.own_rules.take().is_some_and(|own| *own == **rules) {
            return;
        }
        // The host's seat hears of a change made from its other terminal (`dudo host`).
        let who = if self.key.is_some() && self.me() == Some(self.host()) { "You" } else { "The host" };
        self.out.line(self.style.yellow(&format!("{who} changed {}.", render::and_list(&changes))));
    }

    /// The names the board shows: each with its presence mark ("Ben (away 2 min)").
    fn status_names(&self) -> Vec<String> {
        let now = SystemTime::now();
        let mark =
            |s: usize| self.table.players.get(s).map(|p| crate::presence::mark(p, now)).unwrap_or_default();
        self.players.iter().enumerate().map(|(s, n)| format!("{n}{}", mark(s))).collect()
    }

    /// Who sits where, by the seat numbers `remove SEAT` takes.
    fn seat_list(&self) -> String {
        let seated: Vec<String> = self
            .players
            .iter()
            .enumerate()
            .map(|(s, n)| {
                let marks = match (Some(s) == self.me(), s == self.host()) {
                    (true, true) => " (you, host)",
                    (true, false) => " (you)",
                    (false, true) => " (host)",
                    (false, false) => "",
                };
                let here = self.table.players.get(s).map(|p| crate::presence::mark(p, SystemTime::now()));
                format!("seat {s} {n}{marks}{}", here.unwrap_or_default())
            })
            .collect();
        seated.join(", ")
    }

    fn waiting_room(&self) -> Vec<String> {
        let t = &self.table;
        let waiting = t.state == pb::TableState::Waiting as i32;
        if self.solo && waiting {
            let bots = t.seats.saturating_sub(1);
            return vec![format!(
                "Table {} ({}): you and {bots} {}.",
                self.style.bold(&t.join_code),
                self.rules.name,
                if bots == 1 { "bot" } else { "bots" }
            )];
        }
        let clock = match (t.move_millis / 1000, t.time_bank_millis / 1000) {
            (0, _) if t.move_millis == 0 => "no clock".to_string(),
            (0, _) => format!("clock {} ms a move", t.move_millis),
            (secs, 0) => format!("clock {secs} s a move"),
            (secs, bank) => format!("clock {secs} s a move, {bank} s bank"),
        };
        let mut lines = vec![format!(
            "Table {} ({}), {} of {} seats taken, {clock}.",
            self.style.bold(&t.join_code),
            self.rules.name,
            t.players.len(),
            t.seats,
        )];
        if waiting && t.players.len() < t.seats as usize {
            lines.push(format!("Others join with: {}", crate::lobby_cmd::join_hint(t, self.client.addr())));
        }
        lines.push(format!("At the table: {}", self.seat_list()));
        if waiting && self.me() == Some(self.host()) {
            lines.push(
                "You are the host: `bot` adds a bot, `set FIELD=VALUE` changes a rule, `start` begins."
                    .into(),
            );
        } else if waiting && self.key.is_some() {
            lines.push("Waiting for the host to start the game.".into());
        }
        lines
    }

    fn on_update(&mut self, update: Update) {
        match update {
            Update::Snapshot { view, table, rules, seat, .. } => {
                // Our number may have moved (a seat before ours freed): known before the table
                // is shown, so "(you)" marks the right seat.
                if let (Some(key), Some(seat)) = (self.key.as_mut(), seat) {
                    key.seat = u32::try_from(seat).unwrap_or(key.seat);
                }
                self.set_table(table, rules);
                match view {
                    None => self.out.lines(self.waiting_room()),
                    Some(v) => {
                        self.over = v.phase == dudo_rules::game::Phase::Over;
                        self.learn_seat(&v);
                        self.out.lines(render::status(
                            &v,
                            &self.rules,
                            &self.status_names(),
                            self.host(),
                            self.style,
                        ));
                        self.shown = true;
                        self.view = Some(v);
                    }
                }
            }
            Update::Table { table, rules } => self.set_table(table, rules),
            Update::Event { seq, event } => {
                // A move held in a call window that another seat's call beat is not played.
                let mine = self.me();
                let beaten = match event.game() {
                    Some(EventKind::CalzaCalled { seat } | EventKind::DudoCalled { seat, .. }) => {
                        Some(*seat).filter(|s| Some(*s) != mine)
                    }
                    _ => None,
                }
                .filter(|_| self.held && self.sent == Some(Sent::Move));
                self.in_flight = false;
                self.answered = None;
                self.held = false;
                self.sent = None;
                self.shown = false;
                if self.prompt.as_ref().is_some_and(|p| p.last_seq.is_none_or(|l| l < seq)) {
                    self.prompt = None;
                }
                match event.game() {
                    Some(EventKind::RoundStarted { wild, .. } | EventKind::SeatLeft { wild, .. }) => {
                        self.wild = *wild;
                    }
                    Some(EventKind::WildsOff) => self.wild = None,
                    Some(EventKind::GameStarted { .. }) => self.over = false,
                    _ => {}
                }
                // The bid in front of the table before this event, as the server's last view has it.
                let bid = self.view.as_ref().and_then(|v| v.current_bid);
                let lines = render::event_lines(
                    &event,
                    &self.names(),
                    &self.rules,
                    self.me(),
                    (self.wild, bid),
                    self.style,
                );
                self.out.lines(lines.into_iter().map(|l| if l.is_empty() { l } else { format!("  {l}") }));
                if let Some(caller) = beaten {
                    let name = self.players.get(caller).cloned().unwrap_or_default();
                    self.out.line(
                        self.style.dim(&format!("  Your held call is not played: {name} called first.")),
                    );
                }
                if let Some(EventKind::GameOver { .. }) = event.game() {
                    self.over = true;
                    if self.hosted {
                        self.out.line("Game over.");
                    } else if self.me() == Some(self.host()) {
                        self.out.line(
                            "Game over. `again` plays another game with the same seats; `quit` leaves.",
                        );
                    } else {
                        self.out.line("Game over. `quit` leaves; the host may start another game.");
                    }
                }
            }
            Update::Prompt(p) => {
                if self.answered != Some(p.last_seq) {
                    self.in_flight = false;
                }
                self.learn_seat(&p.view);
                self.on_prompt(p);
            }
            // Where the game stands between prompts, as the server has it.
            Update::Turn { view, last_seq, call_window, .. } => {
                self.learn_seat(&view);
                self.say_held(&view);
                self.say_open_to_calls(&view, last_seq, call_window);
                self.view = Some(view);
            }
            Update::Rejected { reason, code, .. } => {
                self.in_flight = false;
                self.answered = None;
                self.held = false;
                self.sent = None;
                // The rule's own words already say "… is not allowed" where that is the point.
                let line = if reason.contains("not allowed") {
                    safe(&reason).into_owned()
                } else {
                    format!("Not allowed: {}", safe(&reason))
                };
                self.out.line(self.style.red(&line));
                if code == "rate_limited" {
                    self.out.line("Too fast for this table: you are asked again in a moment.");
                }
            }
            // The server's word that the clock runs low; the countdown's own marks near it
            // are not said again (nor is it, after one of them).
            Update::ClockWarning { left, .. } => {
                let secs = (left.as_millis() as u64).div_ceil(1000).max(1);
                let near: Vec<u64> = COUNTDOWN.iter().copied().filter(|m| m.abs_diff(secs) <= 2).collect();
                if !near.iter().any(|m| self.warned.contains(m)) {
                    self.warned.extend(near);
                    self.out.line(
                        self.style.yellow(&format!("⏳ {secs} s left to call: then the clock calls for you")),
                    );
                }
            }
            // A reset or renumbered seats end the stream on purpose and it comes straight
            // back with a fresh snapshot: no connection was lost.
            Update::Reseated(why) => {
                self.reseated = true;
                self.prompt = None;
                if why == Reseat::Reset {
                    self.reset_noted = true;
                }
                let said = match why {
                    Reseat::Reset if std::mem::take(&mut self.resetting) => None,
                    Reseat::Reset => Some("The host reset the table: back to waiting, same seats and rules."),
                    Reseat::Renumbered => Some("A seat was freed: the seats after it moved down one."),
                    // Said when the stream ends, just after.
                    Reseat::Removed | Reseat::Left | Reseat::Away => {
                        self.unseated = Some(why);
                        None
                    }
                    Reseat::Other => None,
                };
                if let Some(said) = said {
                    self.out.line(self.style.dim(said));
                }
            }
            // The transport's own words (an h2 error, say) mean nothing at a table.
            Update::Reconnecting { code, .. } => {
                if !self.disconnected {
                    self.disconnected = true;
                    // A table handed to another node on purpose (a drain) is no lost connection.
                    let said = match code.as_deref() {
                        Some("table_moved") => {
                            "The table is moving to another node of the server; back in a moment…"
                        }
                        _ => "Connection to the server lost; reconnecting (for up to two minutes)…",
                    };
                    self.out.line(self.style.dim(said));
                }
            }
            Update::Reconnected => {
                // An answer sent before the cut may not have reached the table (or the table
                // was rebuilt at another node): a prompt it sends again is answered again.
                self.answered = None;
                self.in_flight = false;
                self.offered_for = None;
                let lost = std::mem::take(&mut self.disconnected);
                if !std::mem::take(&mut self.reseated) || lost {
                    self.out.line(self.style.dim("Reconnected; carrying on where we were."));
                }
            }
        }
    }

    fn on_prompt(&mut self, p: Prompt) {
        self.words.set(render::completions(&p.legal, &self.rules));
        self.warned.clear();
        // Marks the clock is already under when the prompt comes are not said (a 30 s clock
        // starts at 29.9 s: "30 s left" then would say nothing).
        if let Some(left) = p.deadline.and_then(|d| d.duration_since(SystemTime::now()).ok()) {
            self.warned.extend(COUNTDOWN.iter().filter(|&&m| m > left.as_secs()));
        }
        let my_turn = p.view.turn.is_some() && p.view.turn == self.me();
        // The same prompt again (the table settled with nothing new for this seat, as when a
        // call window closes): it is in force, and said once.
        let again = self
            .prompt
            .as_ref()
            .is_some_and(|old| old.last_seq == p.last_seq && old.view.turn == p.view.turn);
        if my_turn && !again {
            // Joining again shows the game in its snapshot: not a second time here.
            if !std::mem::take(&mut self.shown) {
                self.out.line(String::new());
                self.out.lines(render::status(
                    &p.view,
                    &self.rules,
                    &self.status_names(),
                    self.host(),
                    self.style,
                ));
            }
            self.out.line(render::hint(&p.legal, &self.rules, self.style));
            let clock = match p.deadline.and_then(|d| d.duration_since(SystemTime::now()).ok()) {
                Some(left) => format!(" ({} s on the clock)", left.as_secs()),
                None => String::new(),
            };
            self.out.line(self.style.cyan(&format!("Your call{clock}:")));
        } else if !my_turn && self.offered_for != Some(p.last_seq) {
            // A call window: every seat that may call out of turn is asked at once.
            self.offered_for = Some(p.last_seq);
            let offers = self.offers(&p);
            if !offers.is_empty() {
                let left = match p.call_window.and_then(|d| d.duration_since(SystemTime::now()).ok()) {
                    Some(left) => format!(" ({} s)", left.as_millis().div_ceil(1000)),
                    None => String::new(),
                };
                self.asked += 1;
                self.offered_at = self.asked;
                self.out.line(self.style.cyan(&format!(
                    "Out of turn: {offers} on the bid in front of you, or `no` to let it stand{left}."
                )));
            }
        }
        self.view = Some(p.view.clone());
        self.prompt = Some(p);
    }

    /// The turn clock: a line at 30, 10 and 5 seconds left.
    fn countdown(&mut self) {
        let Some(p) = &self.prompt else { return };
        // A move sent (held in a call window, say) stops the seat's clock.
        if p.view.turn != self.me() || self.in_flight {
            return;
        }
        let Some(left) = p.deadline.and_then(|d| d.duration_since(SystemTime::now()).ok()) else { return };
        let secs = left.as_secs();
        for mark in COUNTDOWN {
            if secs < mark && secs + 2 >= mark && !self.warned.contains(&mark) {
                self.warned.push(mark);
                self.out.line(self.style.yellow(&format!("⏳ {mark} s left to call")));
            }
        }
    }

    fn odds(&self) -> Vec<String> {
        let Some(view) = &self.view else { return vec!["No game yet.".into()] };
        if self.rules.family.hand_game().is_some() {
            return vec!["Odds are for the common-hand games.".into()];
        }
        let faces = self.rules.dice.faces;
        let mut lines = Vec::new();
        if let Some((_, bid)) = view.current_bid {
            let o = bid_odds(view, faces, bid);
            lines.push(format!(
                "The bid {bid}: {:.0}% likely true, {:.0}% exactly right (from your seat)",
                o.at_least * 100.0,
                o.exactly * 100.0
            ));
        }
        if let Some(p) = &self.prompt {
            for r in &p.legal.bids {
                let b = Bid::new(r.min_quantity, r.face);
                lines.push(format!("  {b}: {:.0}% true", bid_odds(view, faces, b).at_least * 100.0));
            }
        }
        if lines.is_empty() {
            lines.push("No bid to judge yet.".into());
        }
        lines
    }

    fn parse(&self, prompt: &Prompt, line: &str) -> Result<Action, String> {
        let view = &prompt.view;
        match self.rules.family.hand_game() {
            None => dudo_rules::action::parse_call_with(line, &prompt.legal).map_err(|e| e.to_string()),
            Some(kind) => {
                let previous = view.hand.as_ref().and_then(|h| h.claim.as_ref()).map(|c| &c.1);
                dudo_rules::action::parse_hand_call(kind, line, previous).map_err(|e| e.to_string())
            }
        }
    }

    /// What was typed. Returns how the seat ends, if it does.
    async fn on_input(&mut self, input: Input, session: &Session) -> Option<Exit> {
        match input {
            Input::Line(line) => self.on_line(&line, session).await,
            Input::Interrupt | Input::End => self.ask_to_leave(),
        }
    }

    /// A typed line. Returns how the seat ends, if it does.
    async fn on_line(&mut self, line: &str, session: &Session) -> Option<Exit> {
        let trimmed = line.trim();
        let lower = trimmed.trim_start_matches('/').to_ascii_lowercase();
        let (word, rest) = lower.split_once(' ').map_or((lower.as_str(), ""), |(w, r)| (w, r.trim()));
        let original_rest = trimmed.split_once(' ').map_or("", |(_, r)| r.trim());
        // Two questions may be open at once, the quit question and a call window's: a no
        // answers the one asked last, and the other is still asked (and said so).
        if let Some(asked) = self.confirming {
            let window_after = self.window_open().is_some() && self.offered_at > asked;
            match word {
                "y" | "yes" | "quit" | "exit" | "quit!" => return Some(self.walk_out()),
                "n" | "no" if window_after => {}
                "" | "n" | "no" => {
                    self.confirming = None;
                    self.out.line("Staying at the table.");
                    if let Some(p) = self.window_open() {
                        let still = format!(
                            "Still open: {} on the bid in front of you, or `no` to let it stand.",
                            self.offers(p)
                        );
                        self.out.line(self.style.cyan(&still));
                    }
                    return None;
                }
                // Anything else is taken as it is: a call, a command.
                _ => self.confirming = None,
            }
        }
        match word {
            "" => {}
            "help" | "?" => {
                self.out.lines(HELP.iter().map(|l| l.to_string()));
                if let Some(claim) = render::pass_claim(&self.rules) {
                    self.out.line(format!("At this table `pass` is {claim}."));
                }
            }
            "quit!" | "exit!" => return Some(self.walk_out()),
            "quit" | "exit" => return self.ask_to_leave(),
            "status" => match &self.view {
                Some(v) if self.table.state != pb::TableState::Waiting as i32 => {
                    self.out.lines(render::status(
                        v,
                        &self.rules,
                        &self.status_names(),
                        self.host(),
                        self.style,
                    ));
                    if let Some(p) = &self.prompt {
                        self.out.line(render::hint(&p.legal, &self.rules, self.style));
                    }
                }
                _ => self.out.lines(self.waiting_room()),
            },
            "who" => self.out.lines(self.waiting_room()),
            // No call out of turn on this claim (the call window's answer).
            "n" | "no" => {
                let Some(p) = self.window_open().cloned() else {
                    let said = if self.in_flight && self.sent.is_some() {
                        "You have answered this call window."
                    } else {
                        "No call window is asking you now: `no` answers one (`help` says more)."
                    };
                    self.out.line(said);
                    return None;
                };
                self.answered = Some(p.last_seq);
                self.in_flight = true;
                self.sent = Some(Sent::Pass);
                if session.pass_call(&p).await.is_err() {
                    self.out.line(self.style.red("The connection to the table has closed."));
                    return None;
                }
                self.out.line(self.style.dim(&format!("You let {} stand.", self.claim_in_front(&p.view))));
                if self.confirming.is_some() {
                    self.out.line(self.style.yellow("Still asked: leave the game? y/N"));
                }
            }
            "odds" => self.out.lines(self.odds()),
            "start" | "bot" | "set" | "remove" | "reset" | "again" | "leave" => {
                return self.lobby_command(word, rest, original_rest).await;
            }
            _ => self.call(trimmed, session).await,
        }
        None
    }

    async fn call(&mut self, line: &str, session: &Session) {
        let Some(key) = &self.key else {
            self.out.line("You are watching: spectators make no calls.");
            return;
        };
        let Some(prompt) = &self.prompt else {
            let turn = self.view.as_ref().and_then(|v| v.turn);
            let whose = match turn.and_then(|t| self.players.get(t)) {
                Some(name) if !self.over => format!(" ({name} is to play)"),
                _ => String::new(),
            };
            self.out.line(format!("It is not your turn{whose}: nothing may be called now."));
            return;
        };
        let action = match self.parse(prompt, line) {
            Ok(a) => a,
            Err(e) => {
                self.out.line(self.style.red(&e));
                return;
            }
        };
        let my_turn = prompt.view.turn == Some(key.seat as usize);
        if !my_turn {
            let allowed = match &action {
                Action::Calza => prompt.legal.calza,
                Action::Dudo { .. } => !prompt.legal.dudo.is_empty(),
                _ => false,
            };
            if !allowed {
                self.out.line("It is not your turn: only an out-of-turn call offered above may be made now.");
                return;
            }
        }
        self.in_flight = true;
        self.answered = Some(prompt.last_seq);
        self.sent = Some(if my_turn { Sent::Move } else { Sent::Call });
        if session.answer(prompt, action).await.is_err() {
            self.out.line(self.style.red("The connection to the table has closed."));
        }
    }

    async fn lobby_command(&mut self, word: &str, rest: &str, original_rest: &str) -> Option<Exit> {
        let Some(key) = self.key.clone() else {
            self.out.line("You are watching: only seated players may do that.");
            return None;
        };
        let client = self.client.clone();
        let result = match word {
            "start" => client.start(&key).await.map(|_| "The game begins.".to_string()),
            "bot" => {
                let kind = if rest.is_empty() { "odds" } else { rest };
                client.add_bot(&key, kind).await.map(|_| format!("A bot ({kind}) sits down."))
            }
            "set" => match original_rest.split_once('=') {
                Some((path, value)) => {
                    let changed = client
                        .change_settings(&key, vec![(path.trim().to_string(), value.trim().to_string())])
                        .await;
                    // The table's update brings these rules back: this player knows already.
                    if let Ok(info) = &changed {
                        self.own_rules = dudo_client::rules_of(info).ok().map(|r| safe_rules(Arc::new(r)));
                    }
                    changed.map(|_| format!("{} is now {}.", path.trim(), value.trim()))
                }
                None => Ok("Write it as `set FIELD=VALUE`, as in `set dice.faces=8`.".to_string()),
            },
            "remove" => match rest.parse::<u32>() {
                Ok(seat) => client.remove(&key, seat).await.map(|_| format!("Seat {seat} is taken out.")),
                Err(_) => {
                    Ok("Write it as `remove SEAT`, with the seat's number (`who` lists them).".to_string())
                }
            },
            "reset" => {
                self.resetting = true;
                client.reset(&key).await.map(|_| "The table is back to waiting.".to_string())
            }
            "again" => match client.reset(&key).await {
                Ok(_) => client.start(&key).await.map(|_| "Another game begins.".to_string()),
                Err(e) => Err(e),
            },
            "leave" => match client.leave(&key).await {
                Ok(info) => {
                    crate::seats::forget(client.addr(), &key.table, Some(&key.token));
                    let mid_round = info.players.get(key.seat as usize).is_some_and(|p| p.leaving);
                    self.out.line(if mid_round {
                        "You left the table: your moves are played by default until this round ends."
                    } else {
                        "You left the table."
                    });
                    return Some(Exit::Left);
                }
                Err(e) => Err(e),
            },
            _ => return None,
        };
        if word == "again" {
            self.resetting = result.is_ok();
        }
        match result {
            Ok(text) => self.out.line(text),
            Err(e) => {
                self.resetting = false;
                self.out.line(self.style.red(&format!("Refused: {}", safe(&e.to_string()))));
            }
        }
        None
    }
}

/// `rules` with its name made safe to print.
fn safe_rules(rules: Arc<RuleSet>) -> Arc<RuleSet> {
    match safe(&rules.name) {
        Cow::Borrowed(_) => rules,
        Cow::Owned(name) => Arc::new(RuleSet { name, ..(*rules).clone() }),
    }
}

/// What the caller wants done at the table once it is shown (for example `dudo play` adding
/// its bots and starting), run by the loop after the first snapshot.
pub type Setup = std::pin::Pin<Box<dyn std::future::Future<Output = anyhow::Result<()>> + Send>>;

/// The terminal a player sits at: the line editor reading calls, the output it shares, and
/// the calls it completes. Opened once for a run of games (`dudo tournament enter` in
/// person): the line editor is the terminal's, and a second one cannot start while the first
/// is reading.
pub struct Console {
    reader: input::Reader,
    out: Output,
    words: Words,
    style: Style,
    /// Its tables are ones the server hosts (a tournament's): no host starts another game,
    /// and nobody comes back by a join code.
    pub hosted: bool,
}

impl Console {
    pub fn open() -> Console {
        let style = Style::detect();
        let words = Words::default();
        let (reader, out) = input::start(words.clone(), style.colour);
        Console { reader, out, words, style, hosted: false }
    }

    /// Prints a line above the editor's prompt.
    pub fn say(&self, text: impl Into<String>) {
        self.out.line(text);
    }

    /// Between games: waits for what is typed, and says there is no game to call in; true
    /// once the player asks to leave (`quit`, Ctrl-C, the end of input).
    pub async fn wants_to_leave(&mut self) -> bool {
        match self.reader.next().await {
            Some(Input::Line(line)) if !matches!(line.trim(), "quit" | "quit!" | "leave") => {
                self.out.line(self.style.dim(
                    "No game in play: your next seat comes when the schedule reaches it. `quit` leaves.",
                ));
                self.reader.resume();
                false
            }
            _ => true,
        }
    }

    /// Puts the terminal back as it was.
    pub fn close(mut self) {
        self.reader.close();
    }
}

/// Sits at the table until the player quits or leaves. `key` is `None` for a spectator.
/// `setup` is `dudo play`'s: it fills the table with bots and starts the game.
pub async fn sit(
    client: Client,
    key: Option<SeatKey>,
    table_ref: &str,
    setup: Option<Setup>,
) -> anyhow::Result<Exit> {
    let mut console = Console::open();
    let (exit, last_words) = sit_at(&mut console, client, key, table_ref, setup).await;
    // The terminal first, then the last words, straight to standard output.
    let out = console.out.clone();
    console.close();
    if let Some(text) = last_words {
        out.line(text);
    }
    exit
}

/// [`sit`] at an open console, which stays open: how it ended, and what to say last.
pub async fn sit_at(
    console: &mut Console,
    client: Client,
    key: Option<SeatKey>,
    table_ref: &str,
    setup: Option<Setup>,
) -> (anyhow::Result<Exit>, Option<String>) {
    let (style, out, words, hosted) =
        (console.style, console.out.clone(), console.words.clone(), console.hosted);
    words.set(["help", "status", "quit"].map(Word::plain).to_vec());
    let session = match &key {
        Some(k) => client.play(k, None),
        None => client.watch(table_ref, None),
    };
    let mut me = AtTable {
        client,
        key,
        style,
        out: out.clone(),
        words,
        table: pb::TableInfo::default(),
        rules: Arc::new(dudo_rules::presets::fibbing()),
        players: Vec::new(),
        view: None,
        prompt: None,
        wild: None,
        warned: Vec::new(),
        offered_for: None,
        over: false,
        in_flight: false,
        answered: None,
        disconnected: false,
        reseated: false,
        unseated: None,
        resetting: false,
        reset_noted: false,
        own_rules: None,
        solo: setup.is_some(),
        shown: false,
        asked: 0,
        confirming: None,
        offered_at: 0,
        sent: None,
        held: false,
        window_said: None,
        hosted,
    };
    if me.key.is_some() {
        out.line(style.dim("Type `help` for how to call, `quit` to stop."));
    }
    at_the_table(&mut me, session, &mut console.reader, setup).await
}

/// Signals that end the program, as inputs: Ctrl-C while no line is being read (the line
/// editor reads it as a key otherwise), a closed terminal, `kill`.
struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    ends: Vec<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                ends: [SignalKind::terminate(), SignalKind::hangup()]
                    .into_iter()
                    .filter_map(|k| signal(k).ok())
                    .collect(),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal: `Interrupt` for Ctrl-C, `End` for the others.
    async fn next(&mut self) -> Input {
        #[cfg(unix)]
        {
            let interrupt = async {
                match &mut self.interrupt {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let ends = futures_any(&mut self.ends);
            tokio::select! {
                _ = interrupt => Input::Interrupt,
                _ = ends => Input::End,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            Input::Interrupt
        }
    }
}

/// Waits for any of `signals`.
#[cfg(unix)]
async fn futures_any(signals: &mut [tokio::signal::unix::Signal]) {
    if signals.is_empty() {
        return std::future::pending().await;
    }
    std::future::poll_fn(|cx| {
        for s in signals.iter_mut() {
            if s.poll_recv(cx).is_ready() {
                return std::task::Poll::Ready(());
            }
        }
        std::task::Poll::Pending
    })
    .await
}

/// The loop at the table; returns how it ended and what to say last (once the terminal is
/// itself again). `setup` runs once the table's first snapshot is shown, so that everything
/// it does (bots sitting down, the start) is told as it happens, in order.
async fn at_the_table(
    me: &mut AtTable,
    mut session: Session,
    reader: &mut input::Reader,
    mut setup: Option<Setup>,
) -> (anyhow::Result<Exit>, Option<String>) {
    let style = me.style;
    let mut signals = Signals::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            update = session.next() => match update {
                Some(Ok(u)) => {
                    me.on_update(u);
                    // A script has nothing more to say once the game is over.
                    if me.over && !me.out.interactive {
                        return (Ok(Exit::Quit), None);
                    }
                }
                Some(Err(e)) => {
                    // A token the table no longer knows (removed, left): forget the seat; a table
                    // that is gone: every seat held at it.
                    match (e.code(), &me.key) {
                        (Some(dudo_client::Code::Unauthenticated), Some(key)) => {
                            crate::seats::forget(me.client.addr(), &key.table, Some(&key.token));
                        }
                        (Some(dudo_client::Code::NotFound), Some(key)) => {
                            crate::seats::forget(me.client.addr(), &key.table, None);
                        }
                        _ => {}
                    }
                    let gone = matches!(
                        e.code(),
                        Some(dudo_client::Code::Unauthenticated | dudo_client::Code::NotFound)
                    );
                    let why = safe(&e.to_string()).into_owned();
                    let said = if let Some(unseated) = me.unseated.filter(|_| gone) {
                        style.red(match unseated {
                            Reseat::Removed => "The host removed you from the table.",
                            Reseat::Away => {
                                "You were taken out of the game: away for a whole round, or out of time twice in a row."
                            }
                            _ => "You left the table.",
                        })
                    } else if me.disconnected && !gone {
                        // The server never came back while we tried: the seat is still ours.
                        let table = if me.table.join_code.is_empty() {
                            me.key.as_ref().map_or_else(String::new, |k| k.table.clone())
                        } else {
                            me.table.join_code.clone()
                        };
                        let back = match &me.key {
                            Some(_) => format!(
                                " `dudo join {table} --server {}` takes you back to your seat when it is up again.",
                                me.client.addr()
                            ),
                            None => String::new(),
                        };
                        style.red(&format!("Gave up reconnecting to the server ({why}).{back}"))
                    } else if me.over && e.code() == Some(dudo_client::Code::NotFound) {
                        style.dim("The game is over, and its table has closed.")
                    } else {
                        style.red(&format!("The table has closed the stream: {why}"))
                    };
                    let exit = match e.code() {
                        Some(dudo_client::Code::NotFound) => Exit::Closed,
                        _ => Exit::Quit,
                    };
                    return (Ok(exit), Some(said));
                }
                None => return (Ok(Exit::Quit), None),
            },
            input = reader.next(), if me.wants_line() => {
                let exit = match input {
                    Some(input) => me.on_input(input, &session).await,
                    None => Some(Exit::Quit),
                };
                if let Some(exit) = exit {
                    return (Ok(exit), None);
                }
                // Answered: the editor may prompt again.
                reader.resume();
            },
            signal = signals.next() => {
                let exit = match signal {
                    Input::Interrupt => me.ask_to_leave(),
                    _ => {
                        // Hung up or told to stop: leave now. The seat is kept; and should
                        // closing down wait on a terminal that is gone, the process still
                        // ends (once a signal is handled here, its default action is not).
                        std::thread::spawn(|| {
                            std::thread::sleep(std::time::Duration::from_secs(3));
                            std::process::exit(143);
                        });
                        Some(Exit::Quit)
                    }
                };
                if let Some(exit) = exit {
                    return (Ok(exit), None);
                }
            },
            _ = tick.tick(), if !me.disconnected => me.countdown(),
            done = async {
                match setup.as_mut() {
                    Some(setup) => setup.await,
                    None => std::future::pending().await,
                }
            }, if setup.is_some() && !me.table.id.is_empty() => {
                setup = None;
                if let Err(e) = done {
                    return (Err(e), None);
                }
            },
        }
    }
}
