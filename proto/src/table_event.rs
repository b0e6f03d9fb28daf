//! What a table's log holds: the engine's events, and the few the table adds itself.
//!
//! The engine decides the game; the table adds what only a server can know or do: its
//! commitments to the dice it rolled and the salts that open them (verifiable dice), and the
//! turn clock running out. Those are not the game's events, so they live here, beside the
//! engine's [`EventKind`] rather than inside it; a log entry is one or the other, and every
//! table event is public.

use dudo_rules::action::{Action, Seat};
use dudo_rules::describe::{Narrator, describe_in};
use dudo_rules::event::{Audience, Event, EventKind, Viewer};
use dudo_rules::hand::HandGame;

/// One entry of a table's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TableEvent {
    /// Something the engine decided, with its audience.
    Game(Event),
    /// The server's commitments to dice it just rolled: for each roll, the seat and SHA-256
    /// of `"dudo-v1" ‖ round ‖ seat ‖ dice ‖ salt` (hex), and SHA-256 of them all.
    DiceCommitted { round: u32, commitments: Vec<(Seat, String)>, table: String },
    /// The salts and dice behind the round's commitments, in the same order, published with
    /// the reveal so anyone can check the dice were the ones committed to.
    DiceSalts { round: u32, salts: Vec<(Seat, String, Vec<u8>)> },
    /// The turn clock ran out for `seat`; `action` (its default) is played for it.
    TurnTimedOut { seat: Seat, action: Action },
    /// The table ended the game at the server's length limit; the engine's `GameOver`
    /// follows.
    GameStopped { why: StopWhy, limit: u64 },
    /// A call window closed with `seats` not having answered: they are not asked again in
    /// this game's windows; `cut_short`, given less than the whole window, ran out of it (not
    /// held against them).
    CallWindowLapsed { seats: Vec<Seat>, cut_short: Vec<Seat> },
    /// `seat` is taken out of the game, and why; `at_round_end`: it plays the round out by
    /// its default moves first.
    SeatLeaving { seat: Seat, why: LeaveWhy, at_round_end: bool },
}

/// Why a seat leaves a game before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaveWhy {
    /// The player left.
    Left,
    /// The host removed them.
    Removed,
    /// No stream open for a whole round.
    Away,
    /// Their clock ran out on two moves in a row.
    TimedOut,
}

/// Which of the server's length limits a game reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopWhy {
    /// `limit` moves.
    Moves,
    /// `limit` milliseconds.
    Time,
    /// `limit` encoded bytes of events.
    Size,
    /// The server's memory budget (`limit`: the game's own bytes when it stopped).
    Memory,
}

impl TableEvent {
    pub fn audience(&self) -> Audience {
        match self {
            TableEvent::Game(e) => e.audience,
            _ => Audience::Everyone,
        }
    }

    /// Whether `viewer` may see this entry; `game_over` opens hidden facts.
    pub fn admits(&self, viewer: Viewer, game_over: bool) -> bool {
        self.audience().admits(viewer, game_over)
    }

    /// One line for people, seats named by `names` (hands in `game`'s symbols).
    pub fn describe(&self, names: &[String], game: Option<HandGame>) -> String {
        match self {
            TableEvent::Game(e) => describe_in(&e.kind, names, game),
            TableEvent::DiceCommitted { round, commitments, .. } => {
                format!("The server commits to round {round}'s {} rolls", commitments.len())
            }
            TableEvent::DiceSalts { round, .. } => format!("The salts of round {round}'s dice are published"),
            TableEvent::TurnTimedOut { seat, action } => {
                let name = names.get(*seat).cloned().unwrap_or_else(|| format!("seat {seat}"));
                format!("{name} ran out of time: {action} is played for them")
            }
            TableEvent::GameStopped { why: StopWhy::Moves, limit } => {
                format!("The game is stopped: it reached the server's limit of {limit} moves")
            }
            TableEvent::GameStopped { why: StopWhy::Time, limit } => {
                let minutes = limit / 60_000;
                let unit = if minutes == 1 { "minute" } else { "minutes" };
                format!("The game is stopped: it outlasted the server's limit of {minutes} {unit}")
            }
            TableEvent::GameStopped { why: StopWhy::Size, limit } => {
                let kib = limit / 1024;
                format!("The game is stopped: its events reached the server's limit of {kib} KiB")
            }
            TableEvent::GameStopped { why: StopWhy::Memory, .. } => {
                "The game is stopped: the server is short of memory".to_string()
            }
            TableEvent::CallWindowLapsed { seats, cut_short } => {
                let who = |seats: &[Seat]| {
                    let named =
                        seats.iter().map(|&s| names.get(s).cloned().unwrap_or_else(|| format!("seat {s}")));
                    named.collect::<Vec<String>>().join(", ")
                };
                let mut said = Vec::new();
                if !seats.is_empty() {
                    let lapsed = who(seats);
                    said.push(format!(
                        "{lapsed} let the call window lapse: not asked to call out of turn again this game"
                    ));
                }
                if !cut_short.is_empty() {
                    let short = who(cut_short);
                    said.push(format!("The call window closed on {short}: their shorter time in it ran out"));
                }
                said.join("; ")
            }
            TableEvent::SeatLeaving { seat, why, at_round_end } => {
                let name = names.get(*seat).cloned().unwrap_or_else(|| format!("seat {seat}"));
                let what = match why {
                    LeaveWhy::Left => format!("{name} leaves the game"),
                    LeaveWhy::Removed => format!("The host removes {name} from the game"),
                    LeaveWhy::Away => {
                        format!("{name} has been away for a whole round and is taken out of the game")
                    }
                    LeaveWhy::TimedOut => {
                        format!("{name} ran out of time twice in a row and is taken out of the game")
                    }
                };
                if *at_round_end {
                    format!("{what} at the end of this round; until then their moves are played for them")
                } else {
                    what
                }
            }
        }
    }

    /// The line its audience reads for this entry (see [`Narrator::line_for`]): what every
    /// stream is sent with it, so clients in any language show the same words.
    pub fn words(&self, narrator: &mut Narrator, names: &[String], game: Option<HandGame>) -> String {
        match self {
            TableEvent::Game(e) => narrator.line_for(e, names),
            _ => self.describe(names, game),
        }
    }

    /// The engine's event, if this is one.
    pub fn game(&self) -> Option<&EventKind> {
        match self {
            TableEvent::Game(e) => Some(&e.kind),
            _ => None,
        }
    }
}

impl From<Event> for TableEvent {
    fn from(e: Event) -> Self {
        TableEvent::Game(e)
    }
}
