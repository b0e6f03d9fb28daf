//! What the table tells its streams: each seat's prompt or turn, the table's summary and
//! info, subscriptions, and what waits to be saved or delivered.

use std::sync::Arc;

use dudo_proto::convert;
use dudo_proto::v1 as pb;
use dudo_proto::v1::play_update::Update as Up;
use dudo_rules::{Seat, Viewer};
use dudo_store::FinishedGame;

use super::TableCore;
use crate::table::clock::Now;
use crate::table::error::TableError;
use crate::table::log::{self, Sink, StreamEnd};
use crate::table::window::CallWindow;

impl TableCore {
    /// The prompt for `seat`, if it is a person's seat that may act now.
    pub(super) fn prompt_for(&self, seat: Seat, now: Now) -> Option<log::Shared> {
        let game = self.game.as_ref()?;
        if self.plays_itself(seat) || game.is_over() || !self.asks(game, seat) {
            return None;
        }
        let deadline = self.deadline_for(seat, now);
        let window = self.windows.current().and_then(|w| w.closes_for(seat)).map(|c| now.wall_at(c));
        Some(log::update(Up::Prompt(Box::new(pb::Prompt {
            view: Some(convert::view_to_wire(&game.view(seat))),
            legal: Some(convert::legal_to_wire(&game.legal(seat))),
            deadline_unix_millis: deadline,
            last_seq: self.log.last_seq(),
            call_window_unix_millis: window,
        }))))
    }

    /// When the clock runs out for `seat`, in Unix ms, if it is the seat being timed.
    pub(super) fn deadline_for(&self, seat: Seat, now: Now) -> Option<u64> {
        let clock = self.clock.as_ref()?;
        (clock.timing() == Some(seat)).then(|| clock.deadline().map(|d| now.wall_at(d))).flatten()
    }

    /// Where the game stands for `viewer`, as a `turn` update.
    pub(super) fn turn_for(&self, viewer: Viewer, now: Now) -> Option<log::Shared> {
        let game = self.game.as_ref()?;
        let view = match viewer {
            Viewer::Seat(s) => game.view(s),
            _ => game.spectator_view(),
        };
        let deadline = game.turn().and_then(|t| self.deadline_for(t, now));
        let window = self.windows.current().and_then(CallWindow::closes_last).map(|c| now.wall_at(c));
        let (next_round, ready) = self.pauses.reveal_on_wire().unzip();
        Some(log::update(Up::Turn(Box::new(pb::Turn {
            last_seq: self.log.last_seq(),
            view: Some(convert::view_to_wire(&view)),
            deadline_unix_millis: deadline,
            call_window_unix_millis: window,
            next_round_unix_millis: next_round,
            ready: ready.unwrap_or_default(),
        }))))
    }

    /// Every stream learns where the game stands: a prompt for each person who may act, the
    /// view for everyone else (one copy per viewer, shared by its streams).
    pub fn tell_streams(&mut self, now: Now) {
        if self.game.is_none() {
            return;
        }
        let updates: Vec<(Viewer, Option<log::Shared>)> = self
            .log
            .viewers()
            .into_iter()
            .map(|viewer| {
                let prompt = match viewer {
                    Viewer::Seat(s) => self.prompt_for(s, now),
                    _ => None,
                };
                (viewer, prompt.or_else(|| self.turn_for(viewer, now)))
            })
            .collect();
        self.log.queue_each(|viewer| updates.iter().find(|(v, _)| *v == viewer).and_then(|(_, u)| u.clone()));
    }

    /// Tells every stream who sits at the table now, if that changed.
    pub(super) fn announce_table(&mut self) {
        let info = self.info();
        if self.announced.as_ref() == Some(&info) {
            return;
        }
        let update = log::update(Up::Table(Box::new(info.clone())));
        self.announced = Some(info);
        self.log.queue_each(|_| Some(update.clone()));
    }

    /// Opens a stream for the holder of `token` (a spectator without one). Resuming after
    /// `since`: the table, every event since that the viewer may see, then where the game
    /// stands; a new stream, or a resume from before the events kept: a snapshot.
    pub fn subscribe(
        &mut self,
        token: Option<&str>,
        since: Option<u64>,
        sink: Box<dyn Sink>,
        now: Now,
    ) -> Result<(), TableError> {
        let viewer = match token {
            Some(t) => Viewer::Seat(self.seats.seat_of(t)?),
            None => Viewer::Spectator,
        };
        if let Viewer::Seat(seat) = viewer {
            self.present(seat);
        }
        let over = self.game_over();
        let mut first = Vec::new();
        let resumed = since.and_then(|since| self.log.since(viewer, since, over));
        let is_resume = resumed.is_some();
        match resumed {
            Some(events) => {
                if events.len() >= log::SUBSCRIBER_BUFFER {
                    return Err(TableError::TooFarBehind);
                }
                first.push(log::update(Up::Table(Box::new(self.info()))));
                first.extend(events);
            }
            None => {
                let view = self.game.as_ref().map(|g| match viewer {
                    Viewer::Seat(s) => convert::view_to_wire(&g.view(s)),
                    _ => convert::view_to_wire(&g.spectator_view()),
                });
                let seat = match viewer {
                    Viewer::Seat(s) => u32::try_from(s).ok(),
                    _ => None,
                };
                let snapshot =
                    pb::Snapshot { last_seq: self.log.last_seq(), view, table: Some(self.info()), seat };
                first.push(log::update(Up::Snapshot(Box::new(snapshot))));
                // The story so far: this game's events it may see, and the table's talk.
                let history =
                    pb::StorySoFar { events: self.log.history(viewer, over), lines: self.lines_for(viewer) };
                if !(history.events.is_empty() && history.lines.is_empty()) {
                    first.push(log::update(Up::Story(history)));
                }
            }
        }
        let prompt = match viewer {
            Viewer::Seat(s) => self.prompt_for(s, now),
            _ => None,
        };
        match prompt {
            Some(p) => first.push(p),
            // A resumed stream learns where the game stands (a snapshot says it already, but
            // not the wait after a showdown).
            None if is_resume || self.holds_play() => first.extend(self.turn_for(viewer, now)),
            None => {}
        }
        match self.log.subscribe(viewer, sink, first) {
            Ok(()) => {}
            Err(log::Refused::TooMuch) => return Err(TableError::TooFarBehind),
            // Refused for the budget, not for the resume's length: the client is not behind.
            Err(log::Refused::Budget) => return Err(TableError::ServerBusy),
        }
        Ok(())
    }

    /// The last event logged (what a prompt's `last_seq` says).
    pub fn last_seq(&self) -> Option<u64> {
        self.log.last_seq()
    }

    /// A number that changes whenever [`TableCore::summary`] may have.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The link people open to join: the browser table's page for this table's code.
    pub(super) fn link(&self) -> String {
        format!("{}/t/{}", self.link_base, self.code)
    }

    /// Where the server's pages are (`http://HOST:PORT`), for the table's link.
    pub fn set_link_base(&mut self, base: Arc<str>) {
        self.link_base = base;
    }

    /// The table in a list: its name, seats and host, without the whole rule set.
    pub fn summary(&self) -> pb::TableSummary {
        pb::TableSummary {
            id: self.id.clone(),
            join_code: self.code.clone(),
            link: self.link(),
            rules: self.rules.name.clone(),
            seats: u32::try_from(self.seats.capacity).unwrap_or(u32::MAX),
            taken: u32::try_from(self.seats.len()).unwrap_or(u32::MAX),
            host: self.seats.get(self.seats.host()).map(|s| s.name.clone()).unwrap_or_default(),
            state: self.state() as i32,
        }
    }

    pub(super) fn state(&self) -> pb::TableState {
        match &self.game {
            None => pb::TableState::Waiting,
            Some(g) if g.is_over() => pb::TableState::Over,
            Some(_) => pb::TableState::Playing,
        }
    }

    pub fn info(&self) -> pb::TableInfo {
        let millis = |d: std::time::Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        let state = self.state();
        pb::TableInfo {
            id: self.id.clone(),
            join_code: self.code.clone(),
            link: self.link(),
            rules: Some(self.rules_on_wire()),
            seats: u32::try_from(self.seats.capacity).unwrap_or(u32::MAX),
            players: self.seats.to_wire(|s| self.departures.is_leaving(s)),
            host: u32::try_from(self.seats.host()).unwrap_or(u32::MAX),
            state: state as i32,
            call_window_millis: self.windows.millis(),
            seeded: self.seed.is_some(),
            move_millis: self.clock.as_ref().map_or(0, |c| millis(c.per_move)),
            time_bank_millis: self.clock.as_ref().map_or(0, |c| millis(c.bank)),
            reveal_pause_millis: self.pauses.reveal_millis(),
            pause: self.pauses.to_wire(),
            spectators_chat: self.talk.spectators_chat(),
        }
    }

    /// What waits to be written: the journal's entries (the last with the clock's banks) and
    /// the games finished since the last write.
    pub fn take_unsaved(&mut self) -> (Vec<(i64, pb::JournalEntry)>, Vec<FinishedGame>) {
        let banks = match self.clock.as_ref() {
            Some(clock) => clock
                .banks(self.seats.len())
                .iter()
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .collect(),
            None => Vec::new(),
        };
        (self.journal.take(banks), std::mem::take(&mut self.finished))
    }

    /// Whether anything waits to be written.
    pub fn has_unsaved(&self) -> bool {
        !self.journal.is_empty() || !self.finished.is_empty()
    }

    /// Forgets what a rebuilt table "journalled" while its journal was replayed.
    pub fn discard_unsaved(&mut self) {
        self.journal.discard();
        self.finished.clear();
    }

    /// Sends every stream what waited for the journal.
    pub fn deliver(&mut self) {
        self.log.deliver();
    }

    pub fn end_streams(&mut self, why: StreamEnd) {
        self.log.end_all(why);
    }

    /// Ends every stream now, sending nothing unsaved.
    pub fn abandon_streams(&mut self, why: StreamEnd) {
        self.log.abandon(why);
    }

    /// Ends `seat`'s streams as a dropped connection would (a bot check's).
    pub fn drop_seat_streams(&mut self, seat: Seat) {
        self.log.end_seat(seat, StreamEnd::Dropped);
    }

    /// How many call windows `seat` was asked in, and how many seats were asked in all.
    pub fn windows_asked(&self, seat: Seat) -> (u32, u32) {
        self.windows.asked_count(seat)
    }

    /// How many streams `seat` has open.
    pub fn seat_streams(&self, seat: Seat) -> usize {
        self.log.open_for(Viewer::Seat(seat))
    }

    /// Drops streams whose readers are gone; true if none is left.
    pub fn prune_streams(&mut self) -> bool {
        self.log.prune()
    }
}
