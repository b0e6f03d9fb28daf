//! The table's waits, as the core keeps them (see `table::pause`): after a showdown, the
//! next round waits for its people to see it; the host may pause a game. While play waits
//! nobody is prompted, no bot moves and no clock runs (see `turns`); an open call window
//! still closes as it would, so a wait never changes what a window decides.

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_rules::{Event, EventKind, Game, Seat, Viewer};

use super::TableCore;

/// What a seat's "next" changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ready {
    /// It had said it already.
    Already,
    /// It is noted: who has seen the reveal shows on every stream.
    Noted,
    /// It was the last: the next round goes on.
    RoundGoesOn,
}
use crate::table::clock::Now;
use crate::table::error::TableError;
use crate::table::journal::Input;
use crate::table::log::StreamEnd;
use crate::table::pause::{ANYONE_RESUMES_AFTER_MILLIS, HostPause};

impl TableCore {
    /// Whether play waits now (the host's pause, or the moment after a showdown).
    pub(super) fn holds_play(&self) -> bool {
        self.pauses.hold_play()
    }

    /// Why a move is refused while play waits, if it waits.
    pub(super) fn why_waiting(&self) -> Option<TableError> {
        if self.pauses.host().is_some() {
            return Some(TableError::Paused);
        }
        self.pauses.between_rounds().then_some(TableError::BetweenRounds)
    }

    /// The host's pause (apply's `Paused`): a game in play waits.
    pub(super) fn pause(&mut self, by: String, at: i64, _now: Now) -> Result<(), TableError> {
        if self.game.as_ref().is_none_or(Game::is_over) {
            return Err(TableError::NotStarted);
        }
        if self.pauses.host().is_some() {
            return Err(TableError::AlreadyPaused);
        }
        self.pauses.pause(HostPause { by, since: at });
        Ok(())
    }

    /// The game goes on (apply's `Resumed`). Nobody away during the pause is taken out for
    /// it: the rounds a seat must be away for are counted again from here.
    pub(super) fn resume(&mut self, _by: String, now: Now) -> Result<(), TableError> {
        if self.pauses.host().is_none() {
            return Err(TableError::NotPaused);
        }
        self.pauses.resume(now.wall, now.mono);
        self.departures.pause_over();
        Ok(())
    }

    /// The host revoked `seat`'s link (apply's `SeatLinkRevoked`): the devices that took
    /// the seat with it no longer answer, and the seat's streams are told to reconnect (its
    /// first token still answers).
    pub(super) fn revoke_link(&mut self, seat: Seat, _now: Now) -> Result<(), TableError> {
        self.seats.revoke_link(seat)?;
        self.log.end_seat(seat, StreamEnd::Reseated(pb::reseated::Why::Relinked));
        Ok(())
    }

    /// A device took `seat` with its link (apply's `SeatLinked`). When that pushed out the
    /// oldest device, the seat's streams are told to reconnect, so the one whose token no
    /// longer answers stops reading the seat's dice.
    pub(super) fn linked(&mut self, seat: Seat, token_hash: [u8; 32]) -> Result<(), TableError> {
        if self.seats.add_device(seat, token_hash)? {
            self.log.end_seat(seat, StreamEnd::Reseated(pb::reseated::Why::Relinked));
        }
        Ok(())
    }

    /// After `events` (a move's), whether the round just ended with a showdown in a game
    /// still going: then the next round waits, if a person is there to see it.
    pub(super) fn wait_after(&mut self, events: &[Event], now: Now) {
        let showdown = events
            .iter()
            .any(|e| matches!(e.kind, EventKind::RoundSettled { .. } | EventKind::ChallengeSettled { .. }));
        if showdown && !self.game_over() && !self.people_here().is_empty() {
            self.pauses.showdown(now.mono, now.wall);
        }
    }

    /// The people's seats with a stream open: who a wait is for.
    fn people_here(&self) -> Vec<Seat> {
        (0..self.seats.len())
            .filter(|&s| {
                self.seats.get(s).is_some_and(|slot| slot.bot.is_none() && !slot.left)
                    && self.log.open_for(Viewer::Seat(s)) > 0
            })
            .collect()
    }

    /// `seat` says "next" after a showdown: what it changed (nothing, for a seat that had
    /// said it: a flood of them tells nobody anything).
    pub fn next_round(&mut self, seat: Seat) -> Result<Ready, TableError> {
        if !self.pauses.between_rounds() {
            return Err(TableError::NotBetweenRounds);
        }
        if !self.pauses.ready(seat) {
            return Ok(Ready::Already);
        }
        if self.pauses.all_ready(self.people_here().into_iter()) {
            self.pauses.end_reveal();
            return Ok(Ready::RoundGoesOn);
        }
        Ok(Ready::Noted)
    }

    /// When the wait after a showdown ends by itself (monotonic).
    pub fn reveal_ends(&self) -> Option<Duration> {
        self.pauses.reveal_ends()
    }

    /// The wait after a showdown is over: the next round goes on.
    pub fn end_reveal(&mut self, now: Now) {
        self.pauses.end_reveal();
        self.settle(now);
    }

    /// When the host's pause ends the game (monotonic), if the game is paused.
    pub fn pause_ends(&self, now: Now) -> Option<Duration> {
        self.pauses.pause_ends(now.wall, now.mono)
    }

    /// The host's pause ran its longest: the game ends as a reset would, and the table says so.
    pub fn pause_ran_out(&mut self, now: Now) {
        if self.pauses.pause_ends(now.wall, now.mono).is_none_or(|end| end > now.mono) {
            return;
        }
        let minutes = crate::table::pause::LONGEST_PAUSE_MILLIS / 60_000;
        if self.apply(Input::Reset, now).is_ok() {
            self.tell(
                crate::table::talk::News::all(format!(
                    "The game was paused for {minutes} minutes and has ended; the host can start another."
                )),
                now,
            );
        }
        self.settle(now);
    }

    /// Whether the holder of `seat` (the host: `is_host`) may resume the game at `now`.
    pub fn may_resume(&self, is_host: bool, now: i64) -> Result<(), TableError> {
        if self.pauses.host().is_none() {
            return Err(TableError::NotPaused);
        }
        if is_host || self.pauses.anyone_resumes(now) {
            return Ok(());
        }
        Err(TableError::ResumeNotYet { minutes: ANYONE_RESUMES_AFTER_MILLIS / 60_000 })
    }
}
