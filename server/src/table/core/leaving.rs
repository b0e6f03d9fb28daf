//! Seats that go before the game ends, and who is there: a player who leaves, a seat the
//! host removes, a seat away for good.
//!
//! A seat can go at any time. Before a round's first claim it goes at once (the engine takes
//! its dice out). After it, the seat is *leaving*: the table plays its moves by their default
//! at once and never asks it to call, and it goes when the round ends, so the round is played
//! out fair. Both are journalled (`SeatLeaving`, then `SeatRemoved`), so a rebuilt table
//! does the same.
//!
//! Presence is live: a person's seat is away while no stream of its is open, since the
//! moment the table saw the last one close. At a game night (not a ladder's, tournament's,
//! bot check's or seeded table) a seat away for a whole round, or whose clock ran out on two
//! moves in a row, is taken out as a leave would take it.

use std::collections::BTreeMap;

use dudo_proto::v1 as pb;
use dudo_proto::{LeaveWhy, TableEvent};
use dudo_rules::{Game, RuleError, Seat, Viewer};

use super::TableCore;
use crate::table::clock::Now;
use crate::table::error::TableError;
use crate::table::journal::Input;
use crate::table::log::StreamEnd;

/// Who is going, and what tells that a seat has gone for good.
#[derive(Default)]
pub(super) struct Departures {
    /// Seats leaving when the round ends, and why: their moves are played by default.
    leaving: Vec<(Seat, LeaveWhy)>,
    /// Each seat's time-outs in a row this game.
    timed_out_in_row: BTreeMap<Seat, u32>,
    /// The round the table last saw begin (live), and when the round before it and it began
    /// (Unix ms; 0: not seen).
    round: u32,
    began: [i64; 2],
    /// A seat came back since the table last told its streams who is here.
    back_untold: bool,
    /// Seats whose address a per-address limit refused lately (the table task says, each
    /// second): they may be trying to come back, so they are not taken out meanwhile, up to
    /// [`TIME_OUTS_REFUSED`] and [`AWAY_REFUSED_MILLIS`].
    refused: Vec<Seat>,
}

/// Time-outs in a row that take a seat out of a game of people.
const TIME_OUTS_IN_A_ROW: u32 = 2;
/// The least time a seat is away before it is away for good, whatever the rounds: a round of
/// bots can pass in a blink, and a player whose stream is slow to open is not gone.
const AWAY_AT_LEAST_MILLIS: i64 = 30_000;
/// How far a seat whose address is being refused is spared: twice the time-outs in a row, and
/// three minutes away. A player may get their own address refused on purpose (a burst of
/// connections past its rate) to hold a seat nobody plays; they hold it this long at most.
const TIME_OUTS_REFUSED: u32 = 2 * TIME_OUTS_IN_A_ROW;
const AWAY_REFUSED_MILLIS: i64 = 180_000;

impl Departures {
    pub(super) fn is_leaving(&self, seat: Seat) -> bool {
        self.leaving.iter().any(|&(s, _)| s == seat)
    }

    /// The seats leaving at the round's end.
    pub(super) fn leaving_seats(&self) -> Vec<Seat> {
        self.leaving.iter().map(|&(s, _)| s).collect()
    }

    /// A move of `seat`'s was played (for it, when `timed_out`).
    pub(super) fn moved(&mut self, seat: Seat, timed_out: bool) {
        if timed_out {
            *self.timed_out_in_row.entry(seat).or_default() += 1;
        } else {
            self.timed_out_in_row.remove(&seat);
        }
    }

    /// A new game, or a reset: nobody is leaving and no round has been seen.
    pub(super) fn clear(&mut self) {
        let (back_untold, refused) = (self.back_untold, std::mem::take(&mut self.refused));
        *self = Departures { back_untold, refused, ..Departures::default() };
    }

    /// The host's pause is over: a seat away during it is away for good only after a whole
    /// round from here.
    pub(super) fn pause_over(&mut self) {
        self.began = [0, 0];
    }

    /// Notes the game's round (live); true when a new one began since it was last noted.
    fn round_is(&mut self, round: u32, at: i64) -> bool {
        if round == self.round {
            return false;
        }
        self.round = round;
        self.began = [self.began[1], at];
        true
    }

    /// Why `seat` (a person's, away since `away_since`) is taken out at `now`, if it is:
    /// not soon while its address is being refused (its reconnects may be what is refused).
    fn gone_for_good(&self, seat: Seat, away_since: Option<i64>, now: i64) -> Option<LeaveWhy> {
        let refused = self.refused.contains(&seat);
        let most = if refused { TIME_OUTS_REFUSED } else { TIME_OUTS_IN_A_ROW };
        if self.timed_out_in_row.get(&seat).is_some_and(|&n| n >= most) {
            return Some(LeaveWhy::TimedOut);
        }
        if refused && away_since.is_none_or(|t| now.saturating_sub(t) < AWAY_REFUSED_MILLIS) {
            return None;
        }
        // Away since before the last round began, and still: away for all of it.
        let last_began = self.began[0];
        away_since
            .filter(|&t| last_began > 0 && t <= last_began && now.saturating_sub(t) >= AWAY_AT_LEAST_MILLIS)
            .map(|_| LeaveWhy::Away)
    }
}

/// What the seat's own streams are told when it goes.
fn reseated_why(why: Option<LeaveWhy>) -> pb::reseated::Why {
    match why {
        Some(LeaveWhy::Left) | None => pb::reseated::Why::Left,
        Some(LeaveWhy::Removed) => pb::reseated::Why::Removed,
        Some(LeaveWhy::Away | LeaveWhy::TimedOut) => pb::reseated::Why::Away,
    }
}

impl TableCore {
    /// Takes `seat` out (apply's `Removed`): before the start it frees the seat; during a
    /// game the engine allows it only before the first claim of a round, and the seat
    /// finishes below those still in. The seat's own streams are told why and end.
    pub(super) fn remove(&mut self, seat: Seat, why: Option<LeaveWhy>, now: Now) -> Result<(), TableError> {
        if seat >= self.seats.len() {
            return Err(TableError::NoSuchSeat { seat });
        }
        let reseated = reseated_why(why);
        match self.game.as_mut() {
            None => {
                self.seats.free(seat)?;
                self.log.end_seat(seat, StreamEnd::Reseated(reseated));
                // Seats after it move down: their streams must reconnect with their tokens
                // (which find the new numbers), so no stream carries another seat's dice.
                // The seats before it keep their numbers and their streams: a join and leave
                // at the end of a waiting table ends nobody's.
                self.log.end_seats_after(seat, StreamEnd::Reseated(pb::reseated::Why::Renumbered));
            }
            // The game is over: nothing to take out of it, the seat just goes (its token
            // stops answering), as a player leaving between games expects.
            Some(game) if game.is_over() => {
                if self.seats.get(seat).is_some_and(|s| s.left) {
                    return Err(TableError::Rule(RuleError::OutOfTheGame { seat }));
                }
                self.seats.leave(seat);
                self.log.end_seat(seat, StreamEnd::Reseated(reseated));
            }
            Some(game) => {
                let events = game.remove(seat)?;
                let wire_seat = u32::try_from(seat).unwrap_or(u32::MAX);
                self.record.moves.push(pb::GameMove { seat: wire_seat, action: None, timed_out: false });
                // No rejoin: the token no longer answers, and a bot no longer plays.
                self.seats.leave(seat);
                self.log.end_seat(seat, StreamEnd::Reseated(reseated));
                let was_leaving = self.departures.is_leaving(seat);
                self.departures.leaving.retain(|&(s, _)| s != seat);
                // Journals from before the reason was kept are replayed without the event.
                if let Some(why) = why {
                    self.log_event(TableEvent::SeatLeaving { seat, why, at_round_end: false }, now);
                } else if was_leaving {
                    tracing::debug!(seat, "a leaving seat went without a reason");
                }
                self.publish(events, now);
            }
        }
        Ok(())
    }

    fn already_leaving(&self, seat: Seat) -> TableError {
        let name = self.seats.get(seat).map_or_else(|| format!("seat {seat}"), |s| s.name.clone());
        TableError::AlreadyLeaving { name }
    }

    /// The game ended with seats still leaving (its last round ended it): they go now, as
    /// they would have at the round's end (part of `apply`, so a rebuilt table does too).
    pub(super) fn let_the_leaving_go_if_over(&mut self) {
        if self.departures.leaving.is_empty() || !self.game.as_ref().is_some_and(Game::is_over) {
            return;
        }
        for (seat, why) in std::mem::take(&mut self.departures.leaving) {
            self.seats.leave(seat);
            self.log.end_seat(seat, StreamEnd::Reseated(reseated_why(Some(why))));
        }
    }

    /// Marks `seat` leaving at the round's end (apply's `Leaving`): the round had begun.
    pub(super) fn mark_leaving(&mut self, seat: Seat, why: LeaveWhy, now: Now) -> Result<(), TableError> {
        let game = self.game.as_ref().ok_or(TableError::NotStarted)?;
        if game.is_over() {
            return Err(TableError::Rule(RuleError::GameOver));
        }
        if !game.is_active(seat) {
            return Err(TableError::Rule(RuleError::OutOfTheGame { seat }));
        }
        if self.departures.is_leaving(seat) {
            return Err(self.already_leaving(seat));
        }
        self.departures.leaving.push((seat, why));
        // A call it was asked for is let pass at once: nobody waits on a seat that is going.
        if let Some(window) = self.windows.open_mut().filter(|w| w.waits_for(seat)) {
            window.pass(seat, now.mono);
        }
        self.log_event(TableEvent::SeatLeaving { seat, why, at_round_end: true }, now);
        Ok(())
    }

    /// Takes `seat` out for `why`, live: at once when the round allows it, otherwise at the
    /// round's end (it plays the round out by its default moves). Before the start, frees
    /// the seat.
    pub fn take_out(&mut self, seat: Seat, why: LeaveWhy, now: Now) -> Result<(), TableError> {
        if self.game.is_none() {
            return self.apply(Input::Removed { seat, why: Some(why) }, now).map(|_| ());
        }
        if self.departures.is_leaving(seat) {
            return Err(self.already_leaving(seat));
        }
        match self.apply(Input::Removed { seat, why: Some(why) }, now) {
            Err(TableError::Rule(RuleError::LeaveMidRound { .. })) => {
                self.apply(Input::Leaving { seat, why }, now).map(|_| ())
            }
            done => done.map(|_| ()),
        }
    }

    /// Whether this table takes out seats away for good: a game night's. A ladder's,
    /// tournament's or bot check's table has its own answer to a seat that stalls (benching),
    /// and a seeded one plays the same game whatever the timing.
    fn takes_out_the_away(&self) -> bool {
        !self.hidden && !self.lapses_count() && !self.is_bot_check() && self.seed.is_none()
    }

    /// Whether `seat` is a person away from a game night's table: not asked in call windows
    /// (nobody is there to answer, and the others would wait out the whole window).
    pub(super) fn away_at_a_game_night(&self, seat: Seat) -> bool {
        self.takes_out_the_away()
            && self.seats.get(seat).is_some_and(|s| s.bot.is_none() && s.away_since.is_some())
    }

    /// What a live table does before each move it settles: as a round begins, seats away for
    /// good are taken out, and the seats leaving at the end of the last one go.
    pub(super) fn see_off(&mut self, now: Now) {
        let Some(game) = self.game.as_ref().filter(|g| !g.is_over()) else { return };
        // Seats go only as a round begins (before its first claim, when the engine lets
        // them): between, this is one comparison on the bots' hot path.
        if !self.departures.round_is(game.round(), now.wall) {
            return;
        }
        if self.takes_out_the_away() {
            // Never the host: the table is theirs (to reset, to start the next game), and the
            // clock plays their moves meanwhile.
            let host = self.seats.host();
            let gone: Vec<(Seat, LeaveWhy)> = (0..self.seats.len())
                .filter(|&s| {
                    s != host && game.is_active(s) && !self.seats.is_bot(s) && !self.departures.is_leaving(s)
                })
                .filter_map(|s| {
                    let away = self.seats.get(s).and_then(|slot| slot.away_since);
                    self.departures.gone_for_good(s, away, now.wall).map(|why| (s, why))
                })
                .collect();
            for (seat, why) in gone {
                tracing::info!(seat, ?why, "a seat is taken out of the game");
                let _ = self.take_out(seat, why, now);
            }
        }
        for (seat, why) in self.departures.leaving.clone() {
            match self.apply(Input::Removed { seat, why: Some(why) }, now) {
                // A table rebuilt mid-round sees its round as new: the seat goes at the next.
                Ok(_) | Err(TableError::Rule(RuleError::LeaveMidRound { .. })) => {}
                // It goes with the game, then (see `let_the_leaving_go_if_over`).
                Err(e) => tracing::warn!(seat, error = %e, "a leaving seat could not go as its round began"),
            }
        }
    }

    /// Whether the table plays `seat`'s moves: a bot's, a forfeit seat's, a leaving seat's.
    pub(super) fn plays_itself(&self, seat: Seat) -> bool {
        self.stalling.plays_itself(&self.seats, seat) || self.departures.is_leaving(seat)
    }

    /// The move the table plays for `seat`: a leaving seat's default, or as `Stalling` says.
    pub(super) fn decide_for(&self, game: &Game, seat: Seat) -> Option<dudo_rules::Action> {
        if self.departures.is_leaving(seat) {
            return game.default_action(seat);
        }
        self.stalling.decide_for(game, &self.seats, seat)
    }

    /// A stream of `seat`'s is opening: it is here. The new stream learns it from the table
    /// it is sent first; the others at the next presence check, so a client that opens and
    /// drops streams in a loop costs the others one table update a second at most.
    pub(super) fn present(&mut self, seat: Seat) {
        if self.seats.set_away(seat, None) {
            self.departures.back_untold = true;
        }
    }

    /// Who is here now: seats whose every stream has closed are away from `now` on (told to
    /// everyone at the table). Live tables check every second (see `Table::run`).
    /// The seats whose address a per-address limit refused lately (see
    /// `Departures::refused`).
    pub fn reconnects_refused(&mut self, seats: Vec<Seat>) {
        if !seats.is_empty() {
            tracing::debug!(?seats, "seats' addresses are being refused: not taken out meanwhile");
        }
        self.departures.refused = seats;
    }

    pub fn check_presence(&mut self, now: Now) {
        self.log.prune();
        let mut changed = false;
        // Just rebuilt (another node adopted the table, or the server restarted): its people
        // are reconnecting, and are not told to the others as away unless they are still not
        // back once the grace is over.
        let reconnecting = self.windows.reconnecting(now.wall);
        for seat in 0..self.seats.len() {
            let person = self.seats.get(seat).is_some_and(|s| s.bot.is_none() && !s.left);
            if person && !reconnecting && self.log.open_for(Viewer::Seat(seat)) == 0 {
                changed |= self.seats.set_away(seat, Some(now.wall));
            }
        }
        if changed || std::mem::take(&mut self.departures.back_untold) {
            self.announce_table();
        }
    }

    /// A rebuilt table: nobody has reconnected yet, but everyone is taken to be here (asked
    /// in call windows, not told to the others as away) for a grace in which their clients
    /// come back; whoever is not back by then is away from then (see `check_presence`).
    pub fn back_at(&mut self, now: Now) {
        self.windows.rebuilt_at(now.wall);
        for seat in 0..self.seats.len() {
            if !self.seats.is_bot(seat) {
                self.seats.set_away(seat, None);
            }
        }
    }

    /// Whether any seat is a person's (presence is checked only then).
    pub fn has_people(&self) -> bool {
        !self.seats.all_bots()
    }

    /// A table whose people have all gone, with no game left to play and no seatless host:
    /// nobody can start, reset or close it, so it closes itself (rather than wait out its
    /// idle time, or for ever while someone watches).
    pub fn orphaned(&self) -> bool {
        self.seats.host_token().is_none()
            && !self.seats.is_empty()
            && !self.seats.any_person()
            && self.game.as_ref().is_none_or(Game::is_over)
    }

    /// A ladder table whose one game is over (and recorded with the move that ended it): it
    /// closes itself, whichever node holds it, rather than wait for the matchmaker that made
    /// it (which may have died with its node) to close it.
    pub fn ladder_game_over(&self) -> bool {
        self.rating_pool.starts_with(dudo_store::ladder::POOL_PREFIX)
            && self.game.as_ref().is_some_and(Game::is_over)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_is_away_for_good_once_away_for_all_of_a_round_or_out_of_time_twice() {
        let mut d = Departures::default();
        let now = 40_000;
        assert!(d.round_is(1, 1_000));
        assert!(!d.round_is(1, 2_000), "the same round");
        // Away since before round 1 began, seen as round 1 plays: not yet a whole round.
        assert_eq!(d.gone_for_good(0, Some(500), now), None);
        assert!(d.round_is(2, 9_000));
        assert_eq!(d.gone_for_good(0, Some(500), now), Some(LeaveWhy::Away));
        assert_eq!(d.gone_for_good(0, Some(1_000), now), Some(LeaveWhy::Away), "away as it began");
        assert_eq!(d.gone_for_good(0, Some(1_001), now), None, "here when round 1 began");
        assert_eq!(d.gone_for_good(0, None, now), None, "here now");
        // A round of bots passes in a blink: away for it, but not for long, is not gone.
        assert_eq!(d.gone_for_good(0, Some(500), 9_100), None);
        d.moved(1, true);
        assert_eq!(d.gone_for_good(1, None, now), None);
        d.moved(1, false);
        d.moved(1, true);
        assert_eq!(
            d.gone_for_good(1, None, now),
            None,
            "a move of its own in between starts the count again"
        );
        d.moved(1, true);
        assert_eq!(d.gone_for_good(1, None, now), Some(LeaveWhy::TimedOut));
    }
}
