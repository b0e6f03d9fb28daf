//! The commands of a table its people share beyond the game (see `core::pausing` and
//! `core::talking`): "next" after a showdown, talk, the host's pause, a seat's rejoin link and
//! the host's mute. Each is checked here (who asks, how often) and becomes an input, or (talk,
//! "next") a change the core makes without the journal.
//!
//! The calls that write a journal entry without a move (pause, resume, mute, links) are held
//! to [`HOST_CALLS`] per seat: a host pausing and resuming in a loop would otherwise grow the
//! journal, and push the table's talk out of its kept lines, as fast as it could send.

use std::net::IpAddr;

use super::journal::Input;
use super::rate::Pace;
use super::seats::token_hash;
use super::{Table, TableError, core, secret, talk, unix_millis};
use crate::table::command::Answer;
use dudo_rules::Seat;

/// How often one seat (the host's too) may pause, resume, mute or make or take a link.
pub const HOST_CALLS: Pace = Pace { burst: 6.0, every: std::time::Duration::from_secs(5) };

impl Table {
    /// One of `seat`'s calls that write a journal entry without a move, if it may make one.
    fn not_too_often(&mut self, seat: Seat) -> Result<(), TableError> {
        let now = self.now().mono;
        self.host_calls.take(seat, now).map_err(|wait| TableError::TooOften { retry_after_millis: wait })
    }

    pub(super) fn next_round(&mut self, token: &str, reply: Answer<()>) {
        let now = self.now();
        let result = self.core.seats().seat_of(token).and_then(|seat| self.core.next_round(seat));
        match result {
            Ok(core::Ready::RoundGoesOn) => self.core.settle(now),
            // Who has seen the reveal shows on every stream.
            Ok(core::Ready::Noted) => self.core.tell_streams(now),
            Ok(core::Ready::Already) | Err(_) => {}
        }
        self.reply(reply, result.map(|_| ()));
    }

    pub(super) fn say(
        &mut self,
        token: Option<&str>,
        name: String,
        from: Option<IpAddr>,
        said: (&str, i32),
        reply: Answer<()>,
    ) {
        let now = self.now();
        let speaker = match token {
            Some(t) => self.core.seats().seat_of(t).map(talk::Speaker::Seat),
            None => Ok(talk::Speaker::Spectator { name, from }),
        };
        let (text, reaction) = said;
        let result = speaker.and_then(|speaker| self.core.say(speaker, text, reaction, now));
        self.reply(reply, result);
    }

    pub(super) fn pause(&mut self, token: &str, reply: Answer) {
        let result = self.core.seats().host_only(token).and_then(|host| {
            self.not_too_often(host)?;
            let by = self.core.host_name(host);
            self.input(Input::Paused { by, at: unix_millis() })
        });
        self.reply(reply, result);
    }

    /// The host resumes at once; another seat once the pause has lasted long enough.
    pub(super) fn resume(&mut self, token: &str, reply: Answer) {
        let seats = self.core.seats();
        let by = match seats.host_only(token) {
            Ok(host) => self.core.may_resume(true, unix_millis()).map(|_| host),
            Err(TableError::NotHost) => {
                seats.seat_of(token).and_then(|seat| self.core.may_resume(false, unix_millis()).map(|_| seat))
            }
            Err(e) => Err(e),
        };
        let result = by.and_then(|seat| {
            self.not_too_often(seat)?;
            let by = self.core.host_name(seat);
            self.input(Input::Resumed { by })
        });
        self.reply(reply, result);
    }

    /// The seat's new rejoin link: its secret, shown once, to that seat only.
    pub(super) fn seat_link(&mut self, token: &str, reply: Answer<String>) {
        let result = self.core.seats().seat_of(token).and_then(|seat| {
            self.not_too_often(seat)?;
            let secret = secret();
            self.input(Input::SeatLinkMade { seat, secret_hash: token_hash(&secret) }).map(|_| secret)
        });
        self.reply(reply, result);
    }

    /// A device takes a seat back with its link: a token of its own.
    pub(super) fn rejoin(&mut self, link: &str, reply: Answer<(Seat, String, dudo_proto::v1::TableInfo)>) {
        let result = self.core.seats().seat_of_link(link).and_then(|seat| {
            self.not_too_often(seat)?;
            let token = secret();
            self.input(Input::SeatLinked { seat, token_hash: token_hash(&token) })
                .map(|info| (seat, token, info))
        });
        self.reply(reply, result);
    }

    pub(super) fn revoke_link(&mut self, token: &str, seat: Seat, reply: Answer) {
        let result = self.core.seats().host_only(token).and_then(|host| {
            self.core.person(seat)?;
            self.not_too_often(host)?;
            self.input(Input::SeatLinkRevoked { seat })
        });
        self.reply(reply, result);
    }

    /// The host mutes a seat, or lets it speak again; asked for what already is, nothing
    /// changes and nobody is told.
    pub(super) fn mute(&mut self, token: &str, seat: Seat, muted: bool, reply: Answer) {
        let result = self.core.seats().host_only(token).and_then(|host| {
            if self.core.person(seat)?.muted == muted {
                return Ok(self.core.info());
            }
            self.not_too_often(host)?;
            self.input(Input::Muted { seat, muted })
        });
        self.reply(reply, result);
    }
}
