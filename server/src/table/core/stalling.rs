//! What a table does with seats that stall its call windows: one small policy, kept in the
//! table's journal so a rebuilt table decides the same.
//!
//! A people's table holds nothing against a seat that lets a window close (that is how a
//! person says no). A ladder's, a tournament's and a bot check's count the lapse: the seat
//! is not asked again that game. A tournament also starts a game with some seats unasked
//! (bots that let a window lapse in an earlier game) and may have seats that forfeit (an
//! entrant benched for stalling: its default move is played at once, and it is never asked).

use dudo_proto::v1 as pb;
use dudo_rules::{Action, Game, Seat};

use crate::table::bots;
use crate::table::seats::Seats;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stalling {
    /// A seat that lets a window lapse is not asked again that game, and the lapse is an
    /// event (a ladder's tables say so by their rating pool instead).
    pub lapses_counted: bool,
    /// Seats each game starts with as if they had let a window lapse.
    pub unasked: Vec<Seat>,
    /// Seats whose default move is played at once, never asked in a window.
    pub forfeit: Vec<Seat>,
}

impl Stalling {
    /// A tournament table's: lapses counted, these seats unasked and these forfeit.
    pub fn tournament(unasked: Vec<Seat>, forfeit: Vec<Seat>) -> Stalling {
        Stalling { lapses_counted: true, unasked, forfeit }
    }

    pub fn forfeits(&self, seat: Seat) -> bool {
        self.forfeit.contains(&seat)
    }

    /// Whether the table plays `seat`'s moves itself: a built-in bot's, or a forfeit seat's.
    pub fn plays_itself(&self, seats: &Seats, seat: Seat) -> bool {
        seats.is_bot(seat) || self.forfeits(seat)
    }

    /// The move the table plays for `seat`: a forfeit seat's default move (as its clock
    /// would play it), or the bot's choice.
    pub fn decide_for(&self, game: &Game, seats: &Seats, seat: Seat) -> Option<Action> {
        if self.forfeits(seat) {
            return game.default_action(seat);
        }
        bots::decide(game, seats, seat)
    }

    /// Into the table's creation entry.
    pub fn to_wire(&self, created: &mut pb::TableCreated) {
        let wire = |seats: &[Seat]| seats.iter().map(|&s| u32::try_from(s).unwrap_or(u32::MAX)).collect();
        created.lapses_counted = self.lapses_counted;
        created.unasked_seats = wire(&self.unasked);
        created.forfeit_seats = wire(&self.forfeit);
    }

    /// From the table's creation entry.
    pub fn from_wire(created: &pb::TableCreated) -> Stalling {
        let seats = |wire: &[u32]| wire.iter().map(|&s| s as Seat).collect();
        Stalling {
            lapses_counted: created.lapses_counted,
            unasked: seats(&created.unasked_seats),
            forfeit: seats(&created.forfeit_seats),
        }
    }
}
