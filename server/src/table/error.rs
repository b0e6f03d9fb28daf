//! Why a table refused an input: typed here, mapped to a gRPC status once, in the service.
//!
//! Each refusal has a stable [`TableError::code`] beside its text, so clients branch on a
//! code and never on prose: a rule the engine enforces gives the engine's own reason
//! (`bid_not_higher`, `not_your_turn`, …), the table gives its own.

use dudo_rules::RuleError;

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TableError {
    /// The engine refused the move or the start; the game is unchanged.
    #[error("{0}")]
    Rule(#[from] RuleError),
    #[error("no seat at this table has that token")]
    NotSeated,
    #[error("only the host may do that")]
    NotHost,
    #[error("the game has not started")]
    NotStarted,
    #[error("the game cannot start: {0}")]
    CannotStart(#[from] dudo_rules::game::StartError),
    #[error("the game has started; {0}")]
    GameStarted(&'static str),
    #[error("the table's {seats} seats are taken")]
    TableFull { seats: usize },
    #[error("seat: there is no seat {seat}")]
    NoSuchSeat { seat: usize },
    #[error("name: {0}")]
    BadName(String),
    #[error("the host cannot leave a table that has not started")]
    HostCannotLeave,
    #[error("this account already holds a seat at this table")]
    AlreadySeated,
    #[error(
        "a rated table seats accounts only: register one (`dudo account register NAME`) and join with its token"
    )]
    AccountRequired,
    #[error("no bot {bot:?}; the bots are {known}")]
    NoSuchBot { bot: String, known: String },
    /// A rule setting that does not apply, with the setting's own message (it names the field).
    #[error("{0}")]
    BadSetting(String),
    #[error("players: the table has {capacity} seats; these rules seat {min} to {max}")]
    SeatsOutsideRules { capacity: usize, min: u8, max: u8 },
    #[error("rules: these settings cannot be saved faithfully (a server bug; please report it)")]
    NotJournalable,
    /// Too many calls from one seat; `retry_after_millis` until the next is allowed.
    #[error("slow down: at most {per_second} calls a second")]
    RateLimited { per_second: u32, retry_after_millis: u64 },
    /// More was due than a stream may hold: a resume from too far back, or a reader that
    /// fell behind (or that the server's memory budget had no room for).
    #[error(
        "too far behind (more was due than a stream may hold); reconnect without `since` for a fresh snapshot"
    )]
    TooFarBehind,
    /// A move or call of a seat leaving at the round's end: the table plays its moves.
    #[error("you are leaving at the end of this round: your moves are played for you until then")]
    Leaving,
    /// A seat already leaving at the round's end is asked to leave again.
    #[error("{name} is already leaving, at the end of this round")]
    AlreadyLeaving { name: String },
    /// A second answer to the same call window (or a second move held in it).
    #[error("you have answered this claim already; wait for the call window to close")]
    AlreadyAnswered,
    /// A call out of turn after the claim's call window closed.
    #[error("the call window on this claim has closed: the claim stands")]
    CallWindowClosed,
    /// An answer to a prompt the game has moved past.
    #[error("stale: the game moved on since the prompt this answers; answer the next one")]
    StalePrompt,
    /// `pass_call` with no call window asking this seat.
    #[error("pass_call: no call window is asking you now")]
    NoCallWindow,
    /// The server holds as much as its memory budget allows.
    #[error("the server is at its memory budget; try again later")]
    ServerBusy,
    /// The table's journal is as long as one table's may be: a reset (another game) is
    /// refused, so that rebuilding the table (a restart, or another node adopting it) stays
    /// quick.
    #[error(
        "this table has kept {entries} entries in its journal, as many as one table may: make a new table for the next game"
    )]
    TableSpent { entries: i64 },
    /// A chat line that cannot be said, naming the field at fault.
    #[error("{0}")]
    BadChat(String),
    #[error("the host has not let spectators chat at this table")]
    SpectatorsMayNotChat,
    #[error("the host has muted you at this table")]
    Muted,
    /// Too many lines from one seat (or the table's spectators, or one address).
    #[error("slow down: {} (the next in {} s)", limit.words(), retry_after_millis.div_ceil(1000))]
    ChatRateLimited { limit: crate::table::talk::TalkLimit, retry_after_millis: u64 },
    /// The host's (or a seat's) calls that change the table without a move, too often.
    #[error("slow down: pausing, resuming, muting and seat links are at most {} at once, then one every {} s (the next in {} s)", crate::table::together::HOST_CALLS.burst, crate::table::together::HOST_CALLS.every.as_secs(), retry_after_millis.div_ceil(1000))]
    TooOften { retry_after_millis: u64 },
    /// One address's seats left (Leave), too often: each leave before
    /// the start renumbers the seats after it and ends their streams.
    #[error("slow down: one address may leave seats {per_minute} time(s) a minute (the next in {} s)", retry_after_millis.div_ceil(1000))]
    LeavesTooOften { per_minute: u32, retry_after_millis: u64 },
    /// A call for a person's seat (mute, link) naming a bot's.
    #[error("seat: seat {seat} is {name}, a bot; only a person's seat can be muted or given a link")]
    BotSeat { seat: usize, name: String },
    /// A move while the host has paused the game.
    #[error("the game is paused: moves wait until it is resumed")]
    Paused,
    #[error("the game is not paused")]
    NotPaused,
    #[error("the game is paused already")]
    AlreadyPaused,
    /// A resume by a seat that is not the host, before anyone may.
    #[error("only the host may resume the game for its first {minutes} minutes")]
    ResumeNotYet { minutes: i64 },
    /// A move after a showdown, before the next round has begun.
    #[error("the next round has not begun: everyone is looking at the reveal (say next, or wait a moment)")]
    BetweenRounds,
    /// "Next" with no reveal to go on from.
    #[error("next_round: the table is not waiting after a showdown")]
    NotBetweenRounds,
    /// A rejoin secret no seat has (revoked, remade, or never made).
    #[error("rejoin: this link is not (or no longer) a seat's at this table; ask the seat for a new one")]
    NoSuchLink,
    /// A journal entry that cannot be replayed (recovery only).
    #[error("journal: {0}")]
    Journal(String),
}

/// What kind of "no" a refusal is: the one list the node's refusals share.
pub use crate::refusal::Kind;

/// A table's refusal as the node passes it on, its code and any wait kept.
impl From<TableError> for crate::refusal::Refusal {
    fn from(e: TableError) -> Self {
        let refusal =
            crate::refusal::refused(e.code(), crate::refusal::Refusal::new(e.kind(), e.to_string()));
        match e {
            TableError::RateLimited { retry_after_millis, .. }
            | TableError::ChatRateLimited { retry_after_millis, .. }
            | TableError::TooOften { retry_after_millis }
            | TableError::LeavesTooOften { retry_after_millis, .. } => {
                refusal.retry_after(retry_after_millis)
            }
            _ => refusal,
        }
    }
}

impl TableError {
    /// The refusal as a stable code for programs.
    pub fn code(&self) -> &'static str {
        match self {
            TableError::Rule(e) => e.reason(),
            TableError::NotSeated => "not_seated",
            TableError::NotHost => "not_host",
            TableError::NotStarted => "not_started",
            TableError::CannotStart(_) => "cannot_start",
            TableError::GameStarted(_) => "game_started",
            TableError::TableFull { .. } => "table_full",
            TableError::NoSuchSeat { .. } => "no_such_seat",
            TableError::HostCannotLeave => "host_cannot_leave",
            TableError::AlreadySeated => "already_seated",
            TableError::AccountRequired => "account_required",
            TableError::BadName(_) => "bad_name",
            TableError::NoSuchBot { .. } => "no_such_bot",
            TableError::BadSetting(_) => "bad_setting",
            TableError::SeatsOutsideRules { .. } => "seats_outside_rules",
            TableError::NotJournalable => "not_journalable",
            TableError::RateLimited { .. } => "rate_limited",
            TableError::TooFarBehind => "too_far_behind",
            TableError::ServerBusy => "server_busy",
            TableError::AlreadyAnswered => "already_answered",
            TableError::AlreadyLeaving { .. } => "already_leaving",
            TableError::Leaving => "leaving",
            TableError::CallWindowClosed => "call_window_closed",
            TableError::NoCallWindow => "no_call_window",
            TableError::StalePrompt => "stale_prompt",
            TableError::TableSpent { .. } => "table_spent",
            TableError::Journal(_) => "journal",
            TableError::BadChat(_) => "bad_chat",
            TableError::SpectatorsMayNotChat => "spectators_may_not_chat",
            TableError::Muted => "muted",
            TableError::ChatRateLimited { .. } => "chat_rate_limited",
            TableError::TooOften { .. } | TableError::LeavesTooOften { .. } => "rate_limited",
            TableError::BotSeat { .. } => "bot_seat",
            TableError::Paused => "paused",
            TableError::NotPaused => "not_paused",
            TableError::AlreadyPaused => "already_paused",
            TableError::ResumeNotYet { .. } => "resume_not_yet",
            TableError::BetweenRounds => "between_rounds",
            TableError::NotBetweenRounds => "not_between_rounds",
            TableError::NoSuchLink => "no_such_link",
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            TableError::Rule(_)
            | TableError::NotStarted
            | TableError::CannotStart(_)
            | TableError::GameStarted(_)
            | TableError::HostCannotLeave
            | TableError::AlreadySeated
            | TableError::AlreadyAnswered
            | TableError::AlreadyLeaving { .. }
            | TableError::Leaving
            | TableError::CallWindowClosed
            | TableError::NoCallWindow
            | TableError::StalePrompt
            | TableError::TableSpent { .. }
            | TableError::Paused
            | TableError::NotPaused
            | TableError::AlreadyPaused
            | TableError::BetweenRounds
            | TableError::NotBetweenRounds => Kind::FailedPrecondition,
            TableError::SpectatorsMayNotChat | TableError::Muted | TableError::ResumeNotYet { .. } => {
                Kind::PermissionDenied
            }
            TableError::NoSuchLink => Kind::Unauthenticated,
            TableError::ChatRateLimited { .. }
            | TableError::TooOften { .. }
            | TableError::LeavesTooOften { .. } => Kind::ResourceExhausted,
            TableError::BotSeat { .. } => Kind::InvalidArgument,
            TableError::BadChat(_) => Kind::InvalidArgument,
            TableError::AccountRequired => Kind::PermissionDenied,
            TableError::NotSeated => Kind::Unauthenticated,
            TableError::NotHost => Kind::PermissionDenied,
            TableError::TableFull { .. }
            | TableError::RateLimited { .. }
            | TableError::TooFarBehind
            | TableError::ServerBusy => Kind::ResourceExhausted,
            TableError::NoSuchSeat { .. }
            | TableError::BadName(_)
            | TableError::NoSuchBot { .. }
            | TableError::BadSetting(_)
            | TableError::SeatsOutsideRules { .. } => Kind::InvalidArgument,
            TableError::NotJournalable | TableError::Journal(_) => Kind::Internal,
        }
    }
}
