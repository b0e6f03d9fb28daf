//! What each input does, one step each, as [`TableCore::apply`] dispatches them. Every step
//! refuses before it changes anything (apply journals what was accepted); a seat's leaving
//! and removal are in `leaving`.

use std::sync::Arc;

use dudo_proto::v1 as pb;
use dudo_proto::{StopWhy, TableEvent, convert};
use dudo_rules::describe::Narrator;
use dudo_rules::{Action, Game, RuleSet, Seat, Seed, Viewer};

use super::TableCore;
use crate::table::clock::Now;
use crate::table::error::TableError;
use crate::table::log::StreamEnd;
use crate::table::seats::{SeatAccount, SeatBot, SeatSlot};

impl TableCore {
    /// A seat taken before the start; the seat it took.
    pub(super) fn join(
        &mut self,
        name: String,
        token_hash: [u8; 32],
        bot: Option<SeatBot>,
        account: Option<SeatAccount>,
        now: Now,
    ) -> Result<Seat, TableError> {
        if self.game.is_some() {
            return Err(TableError::GameStarted("nobody joins now"));
        }
        self.seats.check_room()?;
        match &account {
            Some(a) if self.seats.holds(a) => return Err(TableError::AlreadySeated),
            // A rating is an account's: at a ranked table every person has one.
            None if bot.is_none() && self.rating_pool == "ranked" => return Err(TableError::AccountRequired),
            _ => {}
        }
        // A person is away until a stream of theirs opens.
        let away_since = bot.is_none().then_some(now.wall);
        let mut slot = SeatSlot::new(name, token_hash, bot, account);
        slot.away_since = away_since;
        Ok(self.seats.push(slot))
    }

    /// The host's new rules, before the start.
    pub(super) fn change_rules(&mut self, rules: Arc<RuleSet>) -> Result<(), TableError> {
        if self.game.is_some() {
            return Err(TableError::GameStarted("settings change only before it starts"));
        }
        let (min, max) = (rules.players.min, rules.players.max);
        let capacity = self.seats.capacity;
        if capacity < usize::from(min) || capacity > usize::from(max) {
            return Err(TableError::SeatsOutsideRules { capacity, min, max });
        }
        if !crate::table::journals_faithfully(&rules) {
            return Err(TableError::NotJournalable);
        }
        self.rules_wire = prost::Message::encode_to_vec(&convert::rules_to_wire(&rules));
        self.rules = rules;
        Ok(())
    }

    /// A game begins, dealt from `seed`.
    pub(super) fn start(&mut self, seed: Seed, game_id: String, now: Now) -> Result<(), TableError> {
        if self.game.is_some() {
            return Err(TableError::GameStarted("it cannot start again"));
        }
        let (game, events) = Game::start(Arc::clone(&self.rules), self.seats.len(), seed)?;
        self.game = Some(game);
        self.narrator = Narrator::for_rules(&self.rules);
        self.names = (0..self.seats.len())
            .map(|s| self.seats.get(s).map(|slot| slot.name.clone()).unwrap_or_default())
            .collect();
        self.departures.clear();
        self.pauses.clear();
        self.windows.game_began(self.seats.len(), &self.stalling.unasked, now.mono);
        self.record.begin(game_id, seed, now.wall);
        self.publish(events, now);
        Ok(())
    }

    /// A seat's move (`timed_out`: its clock ran out and this was played for it).
    pub(super) fn make_move(
        &mut self,
        seat: Seat,
        action: Action,
        timed_out: bool,
        now: Now,
    ) -> Result<(), TableError> {
        let game = self.game.as_mut().ok_or(TableError::NotStarted)?;
        // Asked: a built-in bot, or a seat whose prompt had somewhere to go (the clock
        // playing for a bot that never connected asked it nothing). Check tables only:
        // no other table pays for the look at its streams.
        if let Some(offers) = self.offers.as_mut()
            && (self.seats.is_bot(seat) || self.log.open_for(Viewer::Seat(seat)) > 0)
        {
            offers.asked(game, seat);
        }
        let events = game.apply(seat, &action)?;
        if let Some(offers) = self.offers.as_mut().filter(|_| !timed_out) {
            offers.played(seat, action.kind());
        }
        self.windows.claimed(now.wall);
        self.record.moved_after_a_rebuild(seat, timed_out && !self.departures.is_leaving(seat));
        self.departures.moved(seat, timed_out);
        self.record.played += 1;
        if self.journal.kept {
            self.record.moves.push(pb::GameMove {
                seat: u32::try_from(seat).unwrap_or(u32::MAX),
                action: Some(convert::action_to_wire(&action)),
                timed_out,
            });
        }
        // A leaving seat's moves are played for it, as everyone was told: not its clock.
        if timed_out && !self.departures.is_leaving(seat) {
            if let Some(clock) = self.clock.as_mut() {
                clock.ran_out(seat);
            }
            self.log_event(TableEvent::TurnTimedOut { seat, action }, now);
        }
        // After a showdown the next round waits for the people here to see it.
        self.wait_after(&events, now);
        self.publish(events, now);
        Ok(())
    }

    /// The game stopped at the server's length limit.
    pub(super) fn stop(&mut self, why: StopWhy, limit: u64, now: Now) -> Result<(), TableError> {
        let game = self.game.as_mut().ok_or(TableError::NotStarted)?;
        if game.is_over() {
            return Err(TableError::Rule(dudo_rules::RuleError::GameOver));
        }
        let events = game.stop();
        self.log_event(TableEvent::GameStopped { why, limit }, now);
        self.publish(events, now);
        Ok(())
    }

    /// A call window closed with `seats` not having answered (where lapses count).
    pub(super) fn window_lapsed(
        &mut self,
        seats: Vec<Seat>,
        cut_short: Vec<Seat>,
        now: Now,
    ) -> Result<(), TableError> {
        if self.game.as_ref().is_none_or(Game::is_over) {
            return Err(TableError::NotStarted);
        }
        self.windows.lapse(&seats);
        self.log_event(TableEvent::CallWindowLapsed { seats, cut_short }, now);
        Ok(())
    }

    /// A person's answer in the last claim's call window.
    pub(super) fn window_answered(
        &mut self,
        seat: Seat,
        action: Option<Action>,
        timed_out: bool,
        now: Now,
    ) -> Result<(), TableError> {
        let game = self.game.as_ref().filter(|g| !g.is_over()).ok_or(TableError::NotStarted)?;
        let turn = game.turn();
        self.windows.answer(seat, action, timed_out, turn, now.mono);
        Ok(())
    }

    /// The table was rebuilt mid-game: its people were cut off.
    pub(super) fn rebuilt(&mut self) -> Result<(), TableError> {
        let game = self.game.as_ref().filter(|g| !g.is_over()).ok_or(TableError::NotStarted)?;
        let people = (0..self.seats.len()).filter(|&s| game.is_active(s) && !self.seats.is_bot(s));
        self.record.cut_off = people.collect();
        Ok(())
    }

    /// The host's reset: the game is over, and the seats that left are gone.
    pub(super) fn reset(&mut self) {
        self.game = None;
        // A seat that asked to go goes with the game it asked in.
        for seat in self.departures.leaving_seats() {
            self.seats.leave(seat);
        }
        self.departures.clear();
        self.pauses.clear();
        self.windows.reset();
        self.bot_due = None;
        self.log.forget();
        self.proofs.reset();
        self.seats.drop_left();
        if let Some(clock) = self.clock.as_mut() {
            clock.reset();
        }
        self.log.end_seats(StreamEnd::Reseated(pb::reseated::Why::Reset));
    }
}
