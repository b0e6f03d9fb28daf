//! The journal: every input a table accepts, as an entry the store keeps.
//!
//! Nothing an input caused leaves the table until its entry is durable, and recovery feeds
//! the entries back through the same [`Input`] path live play takes, so a rebuilt table is
//! the same table. Everything random (token hashes, bots' seeds, game seeds, the salt
//! secret) is in an entry or derived from one.

use std::sync::Arc;

use dudo_proto::v1 as pb;
use dudo_proto::v1::journal_entry::Entry;
use dudo_proto::{LeaveWhy, StopWhy, convert};
use dudo_rules::{Action, RuleSet, Seat, Seed};

use super::error::TableError;
use super::seats::{SeatAccount, SeatBot};

/// One input to a table: what the journal records and the core applies.
#[derive(Clone, Debug)]
pub enum Input {
    /// A seat taken (a person's token hash, or a built-in bot).
    Joined { name: String, token_hash: [u8; 32], bot: Option<SeatBot>, account: Option<SeatAccount> },
    /// The host changed the rules before the start.
    RulesChanged { rules: Arc<RuleSet> },
    /// A game began with this seed.
    Started { seed: Seed, game_id: String },
    /// A seat moved; `timed_out`: its clock ran out and this was played for it.
    Moved { seat: Seat, action: Action, timed_out: bool },
    /// A seat freed before the start (`why` none), or out of the game, and why.
    Removed { seat: Seat, why: Option<LeaveWhy> },
    /// A seat asked to go mid-round: it plays the round out by its default moves, and its
    /// `Removed` follows when the round ends.
    Leaving { seat: Seat, why: LeaveWhy },
    /// The host reset the table: the game is over, seats that left are gone.
    Reset,
    /// The table stopped the game at the server's length limit.
    Stopped { why: StopWhy, limit: u64 },
    /// A call window closed with these seats not having answered (ladder tables): `seats`
    /// let the whole window lapse and are not asked again in this game's windows; `cut_short`
    /// ran out of a shorter time (the ladder's patience).
    WindowLapsed { seats: Vec<Seat>, cut_short: Vec<Seat> },
    /// A person answered in the last claim's call window: a call, its held move (the seat
    /// whose turn it is; `timed_out`: its clock's default), or a pass (none).
    WindowAnswered { seat: Seat, action: Option<Action>, timed_out: bool },
    /// The table was rebuilt mid-game (a failover, a restart): its people were cut off.
    Rebuilt,
    /// The host paused the game at `at` (Unix ms): play waits (see `pause`).
    Paused { by: String, at: i64 },
    /// The game goes on; `by` names who resumed it.
    Resumed { by: String },
    /// A seat made its rejoin link: the secret's hash (a new link replaces the old).
    SeatLinkMade { seat: Seat, secret_hash: [u8; 32] },
    /// A device took the seat with its link: the device's own token.
    SeatLinked { seat: Seat, token_hash: [u8; 32] },
    /// The host revoked the seat's link, and every device that took the seat with it.
    SeatLinkRevoked { seat: Seat },
    /// The host muted the seat's talk, or let it speak again.
    Muted { seat: Seat, muted: bool },
}

/// What an accepted input changes besides what its own step does: decided here, once per
/// kind of input, with no catch-all, so a new input that forgets to say fails to compile
/// (and a chat line or a pause cannot silently close a call window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// What a list shows of the table (seats, rules, state, who is leaving) may change: the
    /// table's change count moves on, and its streams are told the table again.
    pub table: bool,
    /// The position changes: the last claim's call window is over (and the calls and the
    /// move held in it with it).
    pub position: bool,
}

impl Input {
    pub fn effects(&self) -> Effects {
        let (table, position) = match self {
            Input::Joined { .. } | Input::RulesChanged { .. } => (true, false),
            Input::Started { .. } | Input::Removed { .. } | Input::Reset | Input::Stopped { .. } => {
                (true, true)
            }
            // A new position, but the same seats, rules and state.
            Input::Moved { .. } => (false, true),
            // A seat marked leaving changes who answers, not the position: the claim's window
            // (and the calls and the move held in it) stays, with that seat's answer a pass.
            Input::Leaving { .. } => (true, false),
            Input::WindowLapsed { .. } | Input::WindowAnswered { .. } | Input::Rebuilt => (false, false),
            // A pause holds play where it stands: an open call window goes on closing as it
            // would (see `pause`), and what it decides is played.
            Input::Paused { .. } | Input::Resumed { .. } => (true, false),
            // What a list shows of the seat (its linked devices) changes; the game does not.
            Input::SeatLinkMade { .. } => (false, false),
            Input::SeatLinked { .. } | Input::SeatLinkRevoked { .. } | Input::Muted { .. } => (true, false),
        };
        Effects { table, position }
    }
}

fn wire_seat(seat: Seat) -> u32 {
    u32::try_from(seat).unwrap_or(u32::MAX)
}

impl Input {
    pub fn to_entry(&self) -> Entry {
        match self {
            Input::Joined { name, token_hash, bot, account } => Entry::Joined(pb::SeatJoined {
                name: name.clone(),
                token_hash: token_hash.to_vec(),
                bot: bot.as_ref().map(|b| b.kind.clone()).unwrap_or_default(),
                bot_seed: bot.as_ref().map_or(0, |b| b.seed),
                account_id: account.as_ref().map(|a| a.id.clone()).unwrap_or_default(),
                account_kind: account.as_ref().map_or(pb::AccountKind::None, |a| a.kind) as i32,
            }),
            Input::RulesChanged { rules } => {
                Entry::RulesChanged(pb::RulesChanged { rules: Some(convert::rules_to_wire(rules)) })
            }
            Input::Started { seed, game_id } => {
                Entry::Started(pb::GameBegun { seed: seed.to_vec(), game_id: game_id.clone() })
            }
            Input::Moved { seat, action, timed_out } => Entry::Moved(pb::MoveMade {
                seat: wire_seat(*seat),
                action: Some(convert::action_to_wire(action)),
                timed_out: *timed_out,
            }),
            Input::Removed { seat, why } => Entry::Removed(pb::SeatRemoved {
                seat: wire_seat(*seat),
                why: why.map(|w| convert::leave_why_to_wire(w) as i32),
            }),
            Input::Leaving { seat, why } => Entry::Leaving(pb::SeatLeaving {
                seat: wire_seat(*seat),
                why: convert::leave_why_to_wire(*why) as i32,
                at_round_end: true,
            }),
            Input::Reset => Entry::Reset(pb::TableReset {}),
            Input::Stopped { why, limit } => {
                Entry::Stopped(pb::GameStopped { why: convert::stop_why_to_wire(*why) as i32, limit: *limit })
            }
            Input::WindowLapsed { seats, cut_short } => Entry::WindowLapsed(pb::CallWindowLapsed {
                seats: seats.iter().map(|&s| wire_seat(s)).collect(),
                cut_short: cut_short.iter().map(|&s| wire_seat(s)).collect(),
            }),
            Input::WindowAnswered { seat, action, timed_out } => Entry::WindowAnswer(pb::CallWindowAnswer {
                seat: wire_seat(*seat),
                action: action.as_ref().map(convert::action_to_wire),
                timed_out: *timed_out,
            }),
            Input::Rebuilt => Entry::Rebuilt(pb::TableRebuilt {}),
            Input::Paused { by, at } => Entry::Paused(pb::GamePaused { by: by.clone(), at_unix_millis: *at }),
            Input::Resumed { by } => Entry::Resumed(pb::GameResumed { by: by.clone() }),
            Input::SeatLinkMade { seat, secret_hash } => Entry::LinkMade(pb::SeatLinkMade {
                seat: wire_seat(*seat),
                secret_hash: secret_hash.to_vec(),
            }),
            Input::SeatLinked { seat, token_hash } => {
                Entry::Linked(pb::SeatLinked { seat: wire_seat(*seat), token_hash: token_hash.to_vec() })
            }
            Input::SeatLinkRevoked { seat } => Entry::LinkRevoked(pb::SeatOnly { seat: wire_seat(*seat) }),
            Input::Muted { seat, muted } => {
                Entry::Muted(pb::SeatMuted { seat: wire_seat(*seat), muted: *muted })
            }
        }
    }

    /// The input an entry recorded (every entry but the table's creation).
    pub fn from_entry(entry: &pb::JournalEntry) -> Result<Input, TableError> {
        let bad = |why: &str| TableError::Journal(why.to_string());
        Ok(match entry.entry.as_ref() {
            None | Some(Entry::Created(_)) => return Err(bad("a second creation, or an empty entry")),
            Some(Entry::Joined(j)) => Input::Joined {
                name: j.name.clone(),
                token_hash: j.token_hash.as_slice().try_into().map_err(|_| bad("token hash size"))?,
                bot: (!j.bot.is_empty()).then(|| SeatBot { kind: j.bot.clone(), seed: j.bot_seed }),
                account: (!j.account_id.is_empty()).then(|| SeatAccount {
                    id: j.account_id.clone(),
                    kind: pb::AccountKind::try_from(j.account_kind).unwrap_or(pb::AccountKind::Person),
                }),
            },
            Some(Entry::RulesChanged(r)) => {
                let wire = r.rules.as_ref().ok_or_else(|| bad("no rules"))?;
                let rules = convert::rules_from_wire(wire).map_err(|e| TableError::Journal(e.to_string()))?;
                Input::RulesChanged { rules: Arc::new(rules) }
            }
            Some(Entry::Started(g)) => Input::Started {
                seed: g.seed.as_slice().try_into().map_err(|_| bad("seed size"))?,
                game_id: g.game_id.clone(),
            },
            Some(Entry::Moved(m)) => {
                let wire = m.action.as_ref().ok_or_else(|| bad("no action"))?;
                Input::Moved {
                    seat: m.seat as Seat,
                    action: convert::action_from_wire(wire)
                        .map_err(|e| TableError::Journal(e.to_string()))?,
                    timed_out: m.timed_out,
                }
            }
            Some(Entry::Removed(r)) => Input::Removed {
                seat: r.seat as Seat,
                why: match r.why {
                    Some(w) => Some(
                        convert::leave_why_from_wire(w).ok_or_else(|| bad("an unknown reason to leave"))?,
                    ),
                    None => None,
                },
            },
            Some(Entry::Leaving(l)) => Input::Leaving {
                seat: l.seat as Seat,
                why: convert::leave_why_from_wire(l.why).ok_or_else(|| bad("an unknown reason to leave"))?,
            },
            Some(Entry::Reset(_)) => Input::Reset,
            Some(Entry::Stopped(s)) => Input::Stopped {
                why: convert::stop_why_from_wire(s.why).ok_or_else(|| bad("an unknown reason to stop"))?,
                limit: s.limit,
            },
            Some(Entry::WindowLapsed(l)) => Input::WindowLapsed {
                seats: l.seats.iter().map(|&s| s as Seat).collect(),
                cut_short: l.cut_short.iter().map(|&s| s as Seat).collect(),
            },
            Some(Entry::WindowAnswer(a)) => Input::WindowAnswered {
                seat: a.seat as Seat,
                action: match a.action.as_ref() {
                    Some(wire) => Some(
                        convert::action_from_wire(wire).map_err(|e| TableError::Journal(e.to_string()))?,
                    ),
                    None => None,
                },
                timed_out: a.timed_out,
            },
            Some(Entry::Rebuilt(_)) => Input::Rebuilt,
            Some(Entry::Paused(p)) => Input::Paused { by: p.by.clone(), at: p.at_unix_millis },
            Some(Entry::Resumed(r)) => Input::Resumed { by: r.by.clone() },
            Some(Entry::LinkMade(l)) => Input::SeatLinkMade {
                seat: l.seat as Seat,
                secret_hash: l.secret_hash.as_slice().try_into().map_err(|_| bad("link hash size"))?,
            },
            Some(Entry::Linked(l)) => Input::SeatLinked {
                seat: l.seat as Seat,
                token_hash: l.token_hash.as_slice().try_into().map_err(|_| bad("token hash size"))?,
            },
            Some(Entry::LinkRevoked(r)) => Input::SeatLinkRevoked { seat: r.seat as Seat },
            Some(Entry::Muted(m)) => Input::Muted { seat: m.seat as Seat, muted: m.muted },
        })
    }
}

/// Entries made since the journal was last written.
#[derive(Default)]
pub struct Journal {
    /// Whether there is a store to write to (without one nothing is kept).
    pub kept: bool,
    pending: Vec<(i64, pb::JournalEntry)>,
}

impl Journal {
    pub fn new(kept: bool) -> Journal {
        Journal { kept, pending: Vec::new() }
    }

    /// Keeps an input's entry (made only when the journal is kept).
    pub fn record(&mut self, at: i64, entry: Option<Entry>) {
        if let (true, Some(entry)) = (self.kept, entry) {
            self.pending.push((at, pb::JournalEntry { entry: Some(entry), banks_millis: Vec::new() }));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The entries to write, the last one carrying the clock's banks (so a rebuilt table's
    /// clocks are fair).
    pub fn take(&mut self, banks_millis: Vec<u64>) -> Vec<(i64, pb::JournalEntry)> {
        if let Some((_, last)) = self.pending.last_mut() {
            last.banks_millis = banks_millis;
        }
        std::mem::take(&mut self.pending)
    }

    /// Forgets what is pending (recovery: those entries are the ones being replayed).
    pub fn discard(&mut self) {
        self.pending.clear();
    }
}
