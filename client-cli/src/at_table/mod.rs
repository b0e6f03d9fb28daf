//! Sitting at a table: the session's updates drawn for people, and what they type turned
//! into calls and host commands.
//!
//! One loop waits on three things: the session (events, prompts, refusals, reconnects), the
//! typed lines, and a one-second tick for the turn clock's countdown. Nothing typed can end
//! the program by mistake: a line that is not a call says why and the loop goes on.
//!
//! This file holds the seat's state and the loop; `screen` draws what the session says,
//! `calls` reads what people type, and `signals` turns the signals that end the program
//! into inputs.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dudo_client::dudo_proto::v1 as pb;
use dudo_client::{Client, Prompt, Reseat, SeatKey, Session, Update};
use dudo_rules::odds::bid_odds;
use dudo_rules::{Action, Bid, EventKind, RuleSet, View};

use crate::input::{self, Input, Output, Word, Words};
use crate::render::{self, Style, safe};

mod calls;
mod screen;
mod signals;

use signals::Signals;

/// `help` at the table: one item a line (lines are wrapped to the terminal's width).
const HELP: &[&str] = &[
    "Calls: a bid such as `3 5s`, `three fives` or `3x5`; `dudo` to challenge; `calza` (or jonti, exact, spot on) for exactly right.",
    "House rules: `push 5 5 then 6 5s` shows dice and re-rolls the rest; `pass` is not a skip: it claims something about your own dice (all one face, or all different, as the table's rules say) and can be challenged.",
    "The points game: `watch`. Cup games: `accept`, `roll 1 3`, `roll all`, `roll 1 3 show 2`, a hand such as `JJQT9` or `a pair of jacks`, `better`, `bark`/`decline`.",
    "Out of turn: after each bid, everyone who may call on it (calza by the others, a challenge in some rules) is asked at once: call, or `no` to let it stand. If several call, the one sitting closest after the bidder wins, however fast the others were.",
    "Tab completes the calls you may make now.",
    "At the table: `status`, `odds` (how likely each bid is, from your seat), `who`, `rules` (how to play at this table), `help`, `quit` (asks first during a game; `quit!` or Ctrl-C twice leaves at once).",
    "Host: `start`, `bot [random|odds|reader|expert]`, `set FIELD=VALUE`, `remove SEAT` (the seat's number, as `who` and `status` show it), `reset`, `again`.",
    "Talk: `say …` for a line everyone sees; `laugh`, `liar!`, `clap`, `wow`, `gg` for a quick reaction (`liar` alone challenges).",
    "After a showdown the next round waits a few seconds so everyone sees who lost: Enter (or `next`) says you have seen it.",
    "Host: `pause` stops every clock and holds the game (anyone may `resume` after 5 minutes); `mute SEAT`, `unmute SEAT`; `revoke SEAT` makes a seat's rejoin link stop working.",
    "Another device: `link` shows your seat's own rejoin link (keep it to yourself): open it in a browser, or `dudo join LINK` in a terminal.",
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
    /// After a showdown, while the next round waits: when it goes on by itself (said once).
    between_rounds: Option<SystemTime>,
    /// "Next" is to be sent (a script has seen the reveal at once).
    next_due: bool,
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
    words.set(["help", "status", "rules", "quit"].map(Word::plain).to_vec());
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
        solo: setup.is_some(),
        shown: false,
        asked: 0,
        confirming: None,
        offered_at: 0,
        sent: None,
        held: false,
        window_said: None,
        hosted,
        between_rounds: None,
        next_due: false,
    };
    if me.key.is_some() {
        out.line(style.dim("Type `help` for how to call, `quit` to stop."));
    }
    at_the_table(&mut me, session, &mut console.reader, setup).await
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
                    if std::mem::take(&mut me.next_due) {
                        let _ = session.next_round().await;
                    }
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
                            Reseat::Relinked => {
                                "The host revoked the link this device took the seat with: it no longer holds the seat (`dudo watch` still shows the table)."
                            }
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
