//! Events: everything that happens at a table, each with its audience.
//!
//! The engine is the one place that decides who may see what. Every event it emits carries an
//! [`Audience`]; a seat's stream, a spectator's stream and a replay are the same log filtered
//! by [`Audience::admits`]. Private facts (your dice) go to one seat and, when the table lets
//! losers see dice, to the eliminated; the truth about everyone's dice is also kept for the
//! replay once the game is over.

use serde::{Deserialize, Serialize};

use crate::action::Seat;
use crate::bid::Bid;

/// A set of seats, as a bit mask (tables have at most 64 seats); a list of seats in JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "Vec<Seat>", from = "Vec<Seat>")]
pub struct SeatSet(pub u64);

impl From<SeatSet> for Vec<Seat> {
    fn from(set: SeatSet) -> Self {
        set.iter().collect()
    }
}

impl From<Vec<Seat>> for SeatSet {
    fn from(seats: Vec<Seat>) -> Self {
        seats.into_iter().fold(SeatSet::default(), SeatSet::with)
    }
}

impl SeatSet {
    pub fn single(seat: Seat) -> Self {
        SeatSet(1u64.checked_shl(seat as u32).unwrap_or(0))
    }
    pub fn contains(self, seat: Seat) -> bool {
        seat < 64 && self.0 & (1u64 << seat) != 0
    }
    pub fn insert(&mut self, seat: Seat) {
        *self = self.with(seat);
    }
    pub fn with(self, seat: Seat) -> Self {
        SeatSet(self.0 | SeatSet::single(seat).0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The seats in the set, lowest first.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let seat = bits.trailing_zeros() as Seat;
            bits &= bits - 1;
            Some(seat)
        })
    }
}

/// Who may see an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "to")]
pub enum Audience {
    /// Every seat and every spectator.
    Everyone,
    /// Only these seats, ever (what a seat was shown of its own dice, fibbing included).
    Seats { seats: SeatSet },
    /// The truth about hidden dice: these seats now, everyone once the game is over.
    Hidden { seats: SeatSet },
}

/// Someone reading the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    Seat(Seat),
    Spectator,
    /// A finished game's replay: every hidden fact, nothing seat-private.
    Replay,
}

impl Audience {
    /// Whether `viewer` may see an event with this audience; `game_over` opens hidden facts.
    pub fn admits(self, viewer: Viewer, game_over: bool) -> bool {
        match (self, viewer) {
            (Audience::Everyone, _) => true,
            (Audience::Seats { seats }, Viewer::Seat(s)) => seats.contains(s),
            (Audience::Seats { .. }, _) => false,
            (Audience::Hidden { .. }, _) if game_over => true,
            (Audience::Hidden { seats }, Viewer::Seat(s)) => seats.contains(s),
            (Audience::Hidden { .. }, _) => false,
        }
    }
}

/// One thing that happened, and who may know it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub audience: Audience,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Showdown {
    /// A Dudo on a bid: `actual` dice matched it.
    DudoOnBid { bid: Bid, actual: u16 },
    /// A Dudo on a pass: whether the passer's dice fit the pass.
    DudoOnPass { pass_was_true: bool },
    /// An exact call on a bid: `actual` dice matched it.
    Calza { bid: Bid, actual: u16 },
    /// Seed 001: everyone but one watched; the last guess standing was checked.
    GuessesChecked { bid: Bid, actual: u16 },
}

impl Showdown {
    /// The bid the showdown counted dice for (none for a challenged pass).
    pub fn bid(&self) -> Option<Bid> {
        match *self {
            Showdown::DudoOnBid { bid, .. }
            | Showdown::Calza { bid, .. }
            | Showdown::GuessesChecked { bid, .. } => Some(bid),
            Showdown::DudoOnPass { .. } => None,
        }
    }
}

/// What counted at a showdown on a count, as the engine counted it: wilds (unless the bid is
/// on the wild face, or wilds are off this round), snyd's stairs (the whole cup) and pushed
/// dice. Clients show it; they never count again themselves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counted {
    /// The face the challenged claim was about.
    pub face: u8,
    /// Per seat, one mark per die of that seat's revealed dice (in the same order): true
    /// where the die counted. Empty for a seat that is out.
    pub marks: Vec<Vec<bool>>,
    /// Dice counted on the whole table: the `actual` of the showdown that follows.
    pub total: u16,
}

impl Counted {
    /// How many of `seat`'s dice counted.
    pub fn count(&self, seat: Seat) -> u16 {
        let n = self.marks.get(seat).map_or(0, |m| m.iter().filter(|&&c| c).count());
        u16::try_from(n).unwrap_or(u16::MAX)
    }
}

/// One row of seed 000's results table: a call of the round and whether it was true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRow {
    pub seat: Seat,
    pub bid: Bid,
    pub actual: u16,
    pub was_true: bool,
}

/// What happened. Seats are indices in play order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum EventKind {
    /// The game began with these seats, each holding `dice` dice.
    GameStarted {
        seats: usize,
        dice: Vec<u16>,
    },
    /// One throw of the roll-off for the first starter: only the tied seats throw again.
    RollOff {
        rolls: Vec<(Seat, u8)>,
    },
    /// This seat makes the first call of the game.
    StarterChosen {
        seat: Seat,
    },
    /// A round began: everyone rolled. `palifico` lists the seats the round is special for.
    RoundStarted {
        round: u32,
        starter: Seat,
        dice_counts: Vec<u16>,
        palifico: Vec<Seat>,
        wild: Option<u8>,
    },
    /// A seat's dice under its cup, as the audience sees them (`None`: hidden from its owner).
    DiceRolled {
        seat: Seat,
        dice: Vec<Option<u8>>,
    },
    /// Ones stopped being wild: the round was opened on ones (002 "West Coast").
    WildsOff,
    BidMade {
        seat: Seat,
        bid: Bid,
    },
    /// Dice put on the table in view of all, before the rest of the cup is re-rolled.
    DicePushed {
        seat: Seat,
        pushed: Vec<u8>,
    },
    Passed {
        seat: Seat,
    },
    DudoCalled {
        seat: Seat,
        target: Seat,
    },
    CalzaCalled {
        seat: Seat,
    },
    /// Every die on the table, true values, per seat (under the cup and pushed), each
    /// sorted; `counted` says which of them counted for the challenged claim and how many
    /// there were (`None` when the claim was not a count: a challenged pass).
    DiceRevealed {
        dice: Vec<Vec<u8>>,
        counted: Option<Counted>,
    },
    /// The round's outcome; `winner` and `loser` of the challenge or exact call.
    RoundSettled {
        showdown: Showdown,
        winner: Seat,
        loser: Seat,
    },
    DiceLost {
        seat: Seat,
        count: u16,
        left: u16,
    },
    DiceWon {
        seat: Seat,
        count: u16,
        now: u16,
    },
    /// The loser handed dice to the winner (002).
    DiceGiven {
        from: Seat,
        to: Seat,
        count: u16,
    },
    /// Stopped guessing for the round (001).
    Watched {
        seat: Seat,
    },
    /// Points for a guess (001): `discarded` when they would have passed the target.
    Scored {
        seat: Seat,
        points: i64,
        total: i64,
        discarded: bool,
    },
    /// Money changed hands (002).
    Paid {
        from: Seat,
        to: Seat,
        amount: u32,
    },
    /// Drinks taken (002).
    Drank {
        seat: Seat,
        drinks: u32,
        total: u32,
    },
    /// Out of the game, finishing in `place` (1 is the winner).
    Eliminated {
        seat: Seat,
        place: usize,
    },
    /// Left before the first bid of a round, or removed by the host; out of the game. The
    /// round goes on: `starter`, `palifico` and `wild` are its state without the seat.
    SeatLeft {
        seat: Seat,
        place: usize,
        starter: Seat,
        palifico: Vec<Seat>,
        wild: Option<u8>,
    },
    /// Seed 000's results table for the round just played.
    ResultsTable {
        rows: Vec<ResultRow>,
    },
    /// Individual hand: a new hand begins; `starter` rolls all the dice.
    HandStarted {
        hand: u32,
        starter: Seat,
    },
    /// Individual hand: `seat` took the cup without challenging.
    Accepted {
        seat: Seat,
    },
    /// Individual hand: `seat` re-rolled `count` dice (the count is public, which dice is not).
    HandRolled {
        seat: Seat,
        count: usize,
    },
    /// Individual hand: the dice under the cup, for whoever may look (positions in order).
    HandSeen {
        seat: Seat,
        dice: Vec<u8>,
    },
    /// Individual hand: dice in view of all (rolled outside the box, the Mexican's one).
    DiceShown {
        seat: Seat,
        dice: Vec<(usize, u8)>,
    },
    /// Individual hand: `seat` passes the cup claiming `claim` (`spoken` when an undercall
    /// was taken as "better").
    Claimed {
        seat: Seat,
        spoken: crate::hand::Hand,
        claim: crate::hand::Hand,
    },
    /// Individual hand: the cup is lifted.
    HandRevealed {
        dice: Vec<u8>,
    },
    /// Individual hand: a challenge settled.
    ChallengeSettled {
        claim: crate::hand::Hand,
        hand: crate::hand::Hand,
        winner: Seat,
        loser: Seat,
    },
    /// Poker dice: the five-aces test, passed or failed.
    FiveAces {
        seat: Seat,
        made: bool,
    },
    /// Mexican: the cup-catching forfeit, decided by the server's dice.
    CupCaught {
        seat: Seat,
        caught: bool,
        drinks: u32,
    },
    LifeLost {
        seat: Seat,
        lives: u8,
    },
    /// The dog's life taken (barked) or declined (002).
    DogsLife {
        seat: Seat,
        barked: bool,
    },
    /// The game is over; seats from first place to last, and every seat's ledger (points,
    /// money, drinks: zero where the table keeps none).
    GameOver {
        standings: Vec<Seat>,
        points: Vec<i64>,
        money: Vec<i64>,
        drinks: Vec<u32>,
    },
}
