//! What a live table does next: the bots move, the turn clock and the call window time the
//! seats, moves and calls out of turn are played, and a game too long is stopped.

use std::time::Duration;

use dudo_proto::StopWhy;
use dudo_proto::v1 as pb;
use dudo_rules::{Action, Game, Seat, Viewer};

use super::{BOT_MOVES_AT_ONCE, TableCore};
use crate::table::bots::{self, BotMove};
use crate::table::clock::{Clock, Now};
use crate::table::error::TableError;
use crate::table::journal::Input;
use crate::table::log;
use crate::table::offers::{CALL_WINDOW, CLOCK_WARNING, PASS_CALL};
use crate::table::window::{Asking, CallWindow, Next};

impl TableCore {
    /// What a live table does after an input: the built-in bots move (at once, or one after
    /// its pause), the clock times the person who must move, and every stream learns where
    /// the game stands (a prompt for each person who may act, the view for the rest).
    pub fn settle(&mut self, now: Now) {
        self.bot_due = None;
        self.enforce_length(now);
        // Bots that move at once play here; with a pause, only what a call window decided
        // (and bots' answers in it, which are never paused) plays now.
        let at_once = self.bot_pause.is_zero();
        let mut played_all = false;
        // Real time, not the table's `now`: this bounds the work, it decides nothing in the game.
        // What the bots cost is this thread's CPU time over the slice (wall time where the
        // system cannot say): on a loaded machine, time the core spent elsewhere is not theirs.
        // A table of people only thinks nothing: no clock read on their moves.
        let bots = self.seats.any_bot();
        let started = std::time::Instant::now();
        let cpu = if bots { cpu_time::ThreadTime::try_now().ok() } else { None };
        // A one-die game the expert solved here is paced for the whole process, not charged.
        let solving = dudo_rules::bots::solved::solving_time_here();
        for n in 0..BOT_MOVES_AT_ONCE {
            if n > 0 && started.elapsed() >= self.bot_slice {
                break;
            }
            // Before each move: a round that ended lets its leaving seats go.
            self.see_off(now);
            let Some((seat, action)) = self.next_move(at_once, now) else {
                played_all = true;
                break;
            };
            if !self.play_bot(seat, action, now) {
                played_all = true;
                break;
            }
            self.enforce_length(now);
        }
        // More to play now (the slice ended first): it comes back through the task's loop, at
        // once. Otherwise a paused bot's move is due after its pause, whether the slice
        // ended or not: a slice that ended on a call in a window, with the next round's
        // first move a paused bot's, left no move due and the table stalled for good.
        let now_too = if played_all { None } else { self.next_move(at_once, now) };
        if let Some((seat, action)) = now_too {
            self.bot_due = Some(BotMove { due: now.mono, seat, action, at_log_len: self.log.next_seq() });
        } else if !at_once && let Some((seat, action)) = self.paused_bot_move() {
            self.bot_due = Some(BotMove {
                due: now.mono + self.bot_pause,
                seat,
                action,
                at_log_len: self.log.next_seq(),
            });
        }
        if bots {
            let thought = cpu.and_then(|t| t.try_elapsed().ok()).unwrap_or_else(|| started.elapsed());
            let solved = dudo_rules::bots::solved::solving_time_here().saturating_sub(solving);
            self.thinking += thought.saturating_sub(solved);
        }
        self.time_the_turn(now);
        self.tell_streams(now);
    }

    /// Times the person whose turn it is, when that changed: from now, the clock restarted
    /// (the seat timed before spends its bank by what it used past its move time).
    fn time_the_turn(&mut self, now: Now) {
        // While play waits nobody's time runs: the seat being timed keeps what it had used.
        if self.holds_play() {
            if let Some(clock) = self.clock.as_mut() {
                clock.freeze(now.mono);
            }
            return;
        }
        if let Some(clock) = self.clock.as_mut() {
            clock.thaw(now.mono);
        }
        let turn = self.game.as_ref().filter(|g| !g.is_over()).and_then(Game::turn);
        // A seat whose move is held in the call window has moved: its clock stops.
        let held = |t: Seat| self.windows.holds(t);
        let person = turn.filter(|&t| !self.plays_itself(t) && !held(t));
        let timed_for = Some((person, self.log.next_seq(), self.record.games));
        if self.timed_for != timed_for {
            if let Some(clock) = self.clock.as_mut() {
                clock.restart(person, now.mono);
            }
            self.prompted = person.map(|p| (p, now.mono));
            self.timed_for = timed_for;
        }
    }

    /// Stops a game in play that reached the server's length limit.
    pub(super) fn enforce_length(&mut self, now: Now) {
        if self.game.as_ref().is_none_or(Game::is_over) {
            return;
        }
        let moves = self.record.played;
        let lasted = u64::try_from(now.wall.saturating_sub(self.record.started_at)).unwrap_or(0);
        let bytes = self.log.bytes() as u64;
        let stop = if self.length.max_moves > 0 && moves >= self.length.max_moves {
            Some((StopWhy::Moves, self.length.max_moves))
        } else if self.length.max_millis > 0 && lasted >= self.length.max_millis {
            Some((StopWhy::Time, self.length.max_millis))
        } else if self.length.max_bytes > 0 && bytes >= self.length.max_bytes {
            Some((StopWhy::Size, self.length.max_bytes))
        } else if self.log.budget_exceeded() {
            // The server holds more than its budget: the games still growing stop, rather
            // than the server running out of memory (what they played is kept).
            Some((StopWhy::Memory, bytes))
        } else {
            None
        };
        if let Some((why, limit)) = stop {
            tracing::info!(moves, lasted_ms = lasted, bytes, ?why, "a game reached a limit and is stopped");
            let _ = self.apply(Input::Stopped { why, limit }, now);
        }
    }

    /// The next move to play now, if any: opens the claim's call window (the bots asked
    /// answer at once), then plays what it decides; with no window open, the move of the bot
    /// whose turn it is (when `bots_now`).
    pub(super) fn next_move(&mut self, bots_now: bool, now: Now) -> Option<(Seat, Action)> {
        let game = self.game.as_ref().filter(|g| !g.is_over())?;
        let turn = game.turn();
        // While play waits, only an open call window goes on (to its end, as it would): no
        // window opens, and nothing is played for the seat whose turn it is.
        let waits = self.holds_play();
        if waits && self.windows.open().is_none() {
            return None;
        }
        if self.windows.current().is_none() {
            let limit = self.windows.limit(self.clock.as_ref());
            let asking = self.asking();
            // Each seat asked until its own time is up (see `CallWindows::ask_until`).
            let asked: Vec<(Seat, Duration, bool)> = game
                .seats_to_ask()
                .filter(|&s| Some(s) != turn && !self.windows.has_lapsed(s) && !self.stalling.forfeits(s))
                .filter(|&s| !self.departures.is_leaving(s) && !self.away_at_a_game_night(s))
                .filter_map(|s| {
                    let asking = if self.seats.is_bot(s) { Asking::Whole } else { asking };
                    self.windows.ask_until(s, limit, asking, now.mono, now.wall)
                })
                .collect();
            if !asked.is_empty() {
                if let Some(offers) = self.offers.as_mut() {
                    for &(seat, _, _) in &asked {
                        offers.told(seat, CALL_WINDOW);
                    }
                }
                let window = self.windows.open_window(&asked, self.log.last_seq(), now.mono);
                for &(seat, _, _) in asked.iter().filter(|&&(s, _, _)| self.seats.is_bot(s)) {
                    match bots::decide(game, &self.seats, seat) {
                        Some(call) => window.call(seat, call, now.mono),
                        None => window.pass(seat, now.mono),
                    }
                }
            }
            // A rebuilt table: what people had answered in the window before (none live).
            if let Some(unheld) = self.windows.resume_kept(turn, now.mono) {
                return Some(unheld);
            }
        }
        // The move the table plays for the seat whose turn it is, held in an open window.
        let to_hold = match (self.windows.open(), turn) {
            (Some(w), Some(t)) if bots_now && !waits && !w.holds(t) && self.plays_itself(t) => {
                self.decide_for(game, t).map(|action| (t, action))
            }
            _ => None,
        };
        match self.windows.decide(to_hold) {
            Next::Waiting => return None,
            Next::Play(seat, action) => return Some((seat, action)),
            Next::Nothing if waits => return None,
            Next::Nothing => {}
        }
        let t = turn.filter(|&t| bots_now && self.plays_itself(t))?;
        Some((t, self.decide_for(game, t)?))
    }

    /// The move the bot whose turn it is will play after its pause (none while its move
    /// waits in a call window, or when it is not a bot's turn).
    pub(super) fn paused_bot_move(&self) -> Option<(Seat, Action)> {
        let game = self.game.as_ref().filter(|g| !g.is_over())?;
        let t = game.turn().filter(|&t| self.plays_itself(t))?;
        if self.windows.holds(t) || self.holds_play() {
            return None;
        }
        Some((t, self.decide_for(game, t)?))
    }

    /// How this table asks its network seats in call windows. A people's table: the whole
    /// window. A bot check's too (a quick bot that never answers a window would be given
    /// ever shorter ones, and never seen to let one lapse), and a seeded ladder pool's (a
    /// test's: it plays the same game whatever the timing). A ladder's: each seat's
    /// patience. A tournament's: the table's patience, alike for every seat, so that a seat
    /// that stalls windows (never answering, or at the last moment) makes a game at most
    /// about twice as long, in every game, while a deal's rotations are asked alike.
    fn asking(&self) -> Asking {
        if !self.lapses_count() || self.is_bot_check() {
            return Asking::Whole;
        }
        match (self.stalling.lapses_counted, self.seed) {
            // Only a tournament's tables count lapses by their setup (a ladder's by its pool).
            (true, _) => Asking::Evenly,
            (false, Some(_)) => Asking::Whole,
            (false, None) => Asking::Patiently,
        }
    }

    /// When the open call window closes (monotonic), if one is waiting for someone.
    pub fn window_closes(&self) -> Option<Duration> {
        self.windows.current().and_then(CallWindow::closes)
    }

    /// Whether a seat that lets a call window lapse is not asked again this game (and named in
    /// a `call_window_lapsed` event the ladder and tournaments count like a time-out). On
    /// ladder, tournament and bot check tables only: a network seat there is a bot that can
    /// answer at once, while at a game night letting the window close is how a person says
    /// no. Derived from what the journal keeps (the rating pool, the table's setup), so a
    /// rebuilt table decides the same.
    pub(super) fn lapses_count(&self) -> bool {
        self.stalling.lapses_counted || self.rating_pool.starts_with(dudo_store::ladder::POOL_PREFIX)
    }

    /// The call window's time is up: whoever has not answered lets the claim pass, and is
    /// told so (where lapses count) before the game moves on.
    pub fn close_window(&mut self, now: Now) {
        let (lapsed, cut_short) = self.windows.time_up(now.mono);
        let people = |seats: Vec<Seat>| -> Vec<Seat> {
            seats.into_iter().filter(|&s| !self.seats.is_bot(s)).collect()
        };
        let (seats, cut_short) = (people(lapsed), people(cut_short));
        if self.lapses_count() && !(seats.is_empty() && cut_short.is_empty()) {
            let _ = self.apply(Input::WindowLapsed { seats, cut_short }, now);
        }
        self.settle(now);
    }

    /// The stream of the seat holding `token` handed it its window prompt on the claim
    /// `answers` at `at` (monotonic, at or before `now`): the seat's time runs from then.
    pub fn prompt_written(&mut self, token: &str, answers: u64, at: Duration, now: Now) {
        let Ok(seat) = self.seats.seat_of(token) else { return };
        let limit = self.windows.limit(self.clock.as_ref());
        let earlier = i64::try_from(now.mono.saturating_sub(at).as_millis()).unwrap_or(0);
        self.windows.prompt_written(seat, answers, at, limit, now.wall.saturating_sub(earlier));
    }

    /// Whether an answer from `seat` naming `answers` was to the last call window that asked
    /// it, now closed: refused as `call_window_closed`, not as a stale prompt.
    pub fn answers_closed_window(&self, seat: Seat, answers: u64) -> bool {
        self.windows.answers_closed_window(seat, answers)
    }

    /// A person's move or call. In an open call window, a call waits for the window's
    /// decision and the move of the seat whose turn it is is held until it closes; true when
    /// the table must settle (something may have changed), false when only the seat's own
    /// prompt is answered.
    pub fn play(&mut self, seat: Seat, action: Action, now: Now) -> Result<bool, TableError> {
        let game = self.game.as_ref().ok_or(TableError::NotStarted)?;
        // Going anyway, it could call at no cost to itself (say, to save a friend's bluff).
        if self.departures.is_leaving(seat) {
            return Err(TableError::Leaving);
        }
        if let Some((asked, at)) = self.prompted.filter(|&(p, _)| p == seat && game.turn() == Some(seat)) {
            self.windows.moved(asked, now.mono.saturating_sub(at));
        }
        // While play waits only an answer the open call window waits for is taken.
        if let Some(why) = self.why_waiting().filter(|_| !self.windows.waits_for(seat)) {
            return Err(why);
        }
        if let Some(window) = self.windows.current() {
            let my_turn = game.turn() == Some(seat);
            if window.is_open() {
                // A call it was asked for, or the move of the seat whose turn it is, held.
                if window.waits_for(seat) || (my_turn && !window.holds(seat)) {
                    game.check(seat, &action)?;
                    self.apply(Input::WindowAnswered { seat, action: Some(action), timed_out: false }, now)?;
                    return Ok(self.answered(seat, now));
                }
                if window.asked(seat) || my_turn {
                    return Err(TableError::AlreadyAnswered);
                }
            } else if window.asked(seat) && !my_turn {
                return Err(TableError::CallWindowClosed);
            }
        }
        self.apply(Input::Moved { seat, action, timed_out: false }, now)?;
        Ok(true)
    }

    /// A person lets the last claim pass without calling.
    pub fn pass_call(&mut self, seat: Seat, now: Now) -> Result<bool, TableError> {
        if self.departures.is_leaving(seat) {
            return Err(TableError::Leaving);
        }
        match self.windows.current() {
            Some(window) if window.waits_for(seat) => {
                if let Some(offers) = self.offers.as_mut() {
                    offers.played(seat, PASS_CALL);
                }
                self.apply(Input::WindowAnswered { seat, action: None, timed_out: false }, now)?;
                Ok(self.answered(seat, now))
            }
            Some(window) if window.answered(seat) => Err(TableError::AlreadyAnswered),
            // Asked, and its time ran out or the window decided without it.
            Some(window) if window.asked(seat) => Err(TableError::CallWindowClosed),
            _ => Err(TableError::NoCallWindow),
        }
    }

    /// A seat answered in the window: true if the window may now decide; otherwise only the
    /// seat's streams learn that it waits (its prompt is answered).
    pub(super) fn answered(&mut self, seat: Seat, now: Now) -> bool {
        if self.windows.can_decide() {
            return true;
        }
        // A move of the seat whose turn it is, held while others may still call: it has
        // moved, and its clock stops now (left running, it ran out and played the default
        // over the move held).
        self.time_the_turn(now);
        let viewer = Viewer::Seat(seat);
        if let Some(turn) = self.turn_for(viewer, now) {
            self.log.queue_each(|v| (v == viewer).then(|| turn.clone()));
        }
        false
    }

    /// Plays a bot's move (its seat's default if the move is refused, never a stall); false
    /// if nothing happened.
    pub(super) fn play_bot(&mut self, seat: Seat, action: Action, now: Now) -> bool {
        // The default move a time-out left in a call window is played as a time-out.
        let timed_out = self.windows.take_timed_out_held(seat)
            || self.stalling.forfeits(seat)
            || self.departures.is_leaving(seat);
        if self.apply(Input::Moved { seat, action, timed_out }, now).is_ok() {
            return true;
        }
        let fallback = self.game.as_ref().and_then(|g| g.default_action(seat));
        fallback
            .is_some_and(|action| self.apply(Input::Moved { seat, action, timed_out: false }, now).is_ok())
    }

    /// Whether the table is waiting for `seat`: a person's seat that may act now.
    pub fn awaits(&self, seat: Seat) -> bool {
        !self.plays_itself(seat) && self.game.as_ref().is_some_and(|g| !g.is_over() && self.asks(g, seat))
    }

    /// Whether `seat` is asked to act now: its turn (unless its move is held in the call
    /// window), or its call out of turn while the window waits for it.
    pub(super) fn asks(&self, game: &Game, seat: Seat) -> bool {
        match self.windows.open() {
            Some(w) if self.holds_play() => w.waits_for(seat),
            Some(w) => w.waits_for(seat) || (game.turn() == Some(seat) && !w.holds(seat)),
            None => !self.holds_play() && game.turn() == Some(seat),
        }
    }

    /// The prompt `seat` holds, if it may act now (for the one stream whose answer was
    /// refused: the seat's other streams hold it already).
    pub fn prompt_of(&self, seat: Seat, now: Now) -> Option<pb::PlayUpdate> {
        self.prompt_for(seat, now).map(crate::table::log::Shared::into_update)
    }

    /// Prompts `seat` again on all its streams, if it may still act: its last answer was
    /// refused for the pace, and it may move now.
    pub fn prompt_again(&mut self, seat: Seat, now: Now) {
        if let Some(prompt) = self.prompt_for(seat, now) {
            self.log.queue_each(|viewer| (viewer == Viewer::Seat(seat)).then(|| prompt.clone()));
        }
    }

    /// When the clock runs out for the seat it is timing (monotonic).
    pub fn deadline(&self) -> Option<Duration> {
        self.clock.as_ref()?.deadline()
    }

    /// When the seat being timed is to be told its clock runs low (monotonic): at once for a
    /// seat a bot check asked to be warned soon.
    pub fn warning_due(&self) -> Option<Duration> {
        let clock = self.clock.as_ref()?;
        let due = clock.warning()?;
        // Early only once the seat is there to be told (a bot still starting is not).
        let early = clock.timing().is_some_and(|s| Some(s) == self.warn_soon && self.seat_streams(s) > 0);
        Some(if early { Duration::ZERO } else { due })
    }

    /// Tells the seat being timed that its clock runs low, if it is still asked to move.
    pub fn warn(&mut self, now: Now) {
        let Some(clock) = self.clock.as_mut() else { return };
        let Some(seat) = clock.timing() else { return };
        clock.warned();
        let deadline = clock.deadline();
        let heard = self.seat_streams(seat) > 0;
        if self.warn_soon == Some(seat) && heard {
            self.warn_soon = None;
        }
        let Some(deadline) = deadline.filter(|_| self.awaits(seat)) else { return };
        let warning = pb::ClockWarning {
            deadline_unix_millis: now.wall_at(deadline),
            left_millis: u64::try_from(deadline.saturating_sub(now.mono).as_millis()).unwrap_or(u64::MAX),
            last_seq: self.log.last_seq(),
        };
        let update = log::update(pb::play_update::Update::ClockWarning(warning));
        self.log.queue_each(|viewer| (viewer == Viewer::Seat(seat)).then(|| update.clone()));
        if let Some(offers) = self.offers.as_mut().filter(|_| heard) {
            offers.told(seat, CLOCK_WARNING);
        }
    }

    /// Warns `seat` as soon as its next move is timed (see [`TableCore::warning_due`]).
    pub fn warn_soon(&mut self, seat: Seat) {
        self.warn_soon = Some(seat);
    }

    /// The real time bots took since this was last asked.
    pub fn take_thinking(&mut self) -> Duration {
        std::mem::take(&mut self.thinking)
    }

    /// When the paused bot's move is due (monotonic).
    pub fn bot_due(&self) -> Option<Duration> {
        self.bot_due.as_ref().map(|b| b.due)
    }

    /// The clock ran out: the seat's default action is played for it, and the log says so.
    pub fn time_out(&mut self, now: Now) {
        let Some(seat) = self.clock.as_ref().and_then(Clock::timing) else { return };
        let action = self.game.as_ref().and_then(|g| g.default_action(seat));
        // A call window is open on the claim: the default move waits in it like any move of
        // the seat whose turn it is, and a call made in the window still wins.
        if let (Some(window), Some(action)) = (self.windows.open(), action.clone()) {
            // A move it made stands: the clock only ever plays for a seat that has not.
            if window.holds(seat) {
                if let Some(clock) = self.clock.as_mut() {
                    clock.stop();
                }
                return;
            }
            let _ = self.apply(Input::WindowAnswered { seat, action: Some(action), timed_out: true }, now);
            if let Some(clock) = self.clock.as_mut() {
                clock.ran_out(seat);
            }
            self.settle(now);
            return;
        }
        match action.map(|action| self.apply(Input::Moved { seat, action, timed_out: true }, now)) {
            Some(Ok(_)) => self.settle(now),
            // Nothing to play for it: the clock stops rather than fire again at once.
            _ => {
                if let Some(clock) = self.clock.as_mut() {
                    clock.stop();
                }
            }
        }
    }

    /// The paused bot's time has come: it moves if nothing happened since it chose.
    pub fn bot_moves(&mut self, now: Now) {
        let Some(due) = self.bot_due.take() else { return };
        // As before every move settle plays: a round that began since the move was planned
        // lets its leaving seats go first (a slice that ended on a round's last move left the
        // next round's first move due, and a seat the host removed played it instead of going).
        // Going changes the log, and the move planned before is dropped for settle's own.
        self.see_off(now);
        if due.at_log_len == self.log.next_seq() {
            let turn = self.game.as_ref().and_then(Game::turn);
            match self.windows.open_mut() {
                // Its pause is over but the window is not: the move waits in it.
                Some(window) if turn == Some(due.seat) => window.hold(due.seat, due.action),
                _ => {
                    self.play_bot(due.seat, due.action, now);
                }
            }
        }
        self.settle(now);
    }

    /// Shortens one go of bot moves (tests: a slice that ends after every move).
    #[cfg(test)]
    pub fn set_bot_slice(&mut self, slice: Duration) {
        self.bot_slice = slice;
    }

    /// The banks as a rebuilt table's journal last recorded them.
    pub fn restore_banks(&mut self, banks_millis: &[u64]) {
        if let Some(clock) = self.clock.as_mut()
            && !banks_millis.is_empty()
        {
            clock.restore(banks_millis.iter().map(|&ms| Duration::from_millis(ms)).collect());
        }
    }
}
