//! What a session asks of a table: the commands its task takes over its bounded channel,
//! each with the channel its answer comes back on.

use tokio::sync::oneshot;

use dudo_proto::v1 as pb;
use dudo_rules::{Action, Seat};

use super::{SeatAccount, StreamSink, TableError};

/// What a lobby call that changes the table answers: the table as its own command left it.
pub type Answer<T = pb::TableInfo> = oneshot::Sender<Result<T, TableError>>;

/// What a session asks of a table.
pub enum Command {
    /// Take a seat: its number, its token (shown once) and the table.
    Join {
        name: String,
        /// The account taking the seat (`name` is then the account's); none for a guest.
        account: Option<SeatAccount>,
        /// The seat's token, when the server chose it (a tournament's seat); none: drawn.
        token: Option<String>,
        reply: Answer<(Seat, String, pb::TableInfo)>,
    },
    AddBot {
        token: String,
        bot: String,
        reply: Answer,
    },
    Start {
        token: String,
        reply: Answer,
    },
    Info {
        reply: oneshot::Sender<pb::TableInfo>,
    },
    Subscribe {
        token: Option<String>,
        since: Option<u64>,
        tx: StreamSink,
        /// Where the reader is (as per-address limits count it): a seat's reconnects are
        /// looked for among the refusals from there.
        from: Option<std::net::IpAddr>,
        reply: Answer<()>,
    },
    /// A seat's move or call; none: it lets the claim pass (its call window's `pass_call`).
    Act {
        token: String,
        action: Option<Action>,
        /// The prompt it answers (its `last_seq`), if the client said.
        answers: Option<Option<u64>>,
        reply: Answer<()>,
    },
    /// "Next" after a showdown, from a seat.
    NextRound {
        token: String,
        reply: Answer<()>,
    },
    /// A chat line or reaction: from a seat (its token), or a spectator (none, and a name).
    Say {
        token: Option<String>,
        name: String,
        /// The spectator's address (its allowance is its own).
        from: Option<std::net::IpAddr>,
        text: String,
        reaction: i32,
        reply: Answer<()>,
    },
    /// The host pauses the game.
    Pause {
        token: String,
        reply: Answer,
    },
    /// The host (or, after a while, any seat) resumes it.
    Resume {
        token: String,
        reply: Answer,
    },
    /// The seat makes its rejoin link: the link's secret (shown once, to that seat).
    SeatLink {
        token: String,
        reply: Answer<String>,
    },
    /// A device takes a seat back with its link: the seat, the device's token, the table.
    Rejoin {
        secret: String,
        reply: Answer<(Seat, String, pb::TableInfo)>,
    },
    /// The host revokes a seat's link.
    RevokeLink {
        token: String,
        seat: Seat,
        reply: Answer,
    },
    /// The host mutes a seat's chat, or lets it speak again.
    Mute {
        token: String,
        seat: Seat,
        muted: bool,
        reply: Answer,
    },
    /// The seat's prompt, if it may still act: its answer to the prompt it holds was refused,
    /// and the stream that sent it is sent the prompt again after the refusal.
    PromptAgain {
        token: String,
        reply: oneshot::Sender<Option<pb::PlayUpdate>>,
    },
    /// Whether `token` holds a seat here (a seat's stream may then make room at its
    /// address's cap of streams).
    HoldsSeat {
        token: String,
        reply: oneshot::Sender<bool>,
    },
    ChangeSettings {
        token: String,
        settings: Vec<(String, String)>,
        reply: Answer,
    },
    Remove {
        token: String,
        seat: Seat,
        reply: Answer,
    },
    Reset {
        token: String,
        reply: Answer,
    },
    Leave {
        token: String,
        reply: Answer,
    },
    /// The host closes the table for good: streams end, the table leaves the server.
    Close {
        token: String,
        reply: Answer,
    },
    /// The node lets go of the table (draining, or it lost the lease): its streams are told
    /// to reconnect, and its task ends once what it journalled is written.
    Release {
        reply: oneshot::Sender<()>,
    },
    /// The node hands the table to a node with fewer, if no game is in play now (checked
    /// here, in the table's own turn: a start queued before it wins): true if let go.
    HandOver {
        reply: oneshot::Sender<bool>,
    },
    /// The server is stopping: tell every stream and close it.
    Shutdown {
        reply: oneshot::Sender<()>,
    },
    /// A seat's stream handed it a call window's prompt (on the claim `answers`) at `at`:
    /// its time to answer counts from then, not from when the table wrote it (a server
    /// starting four ladder games at once on two cores delivered prompts late, and bots
    /// answering in under a millisecond were cut short). Sent without waiting: no answer.
    PromptWritten {
        token: String,
        answers: u64,
        at: tokio::time::Instant,
    },
    /// How a seat has behaved (a bot check asks the table it made).
    Conduct {
        seat: Seat,
        reply: oneshot::Sender<super::SeatConduct>,
    },
    /// Cut a seat's streams as a dropped connection would (a bot check tries a bot's
    /// reconnecting).
    DropSeat {
        seat: Seat,
        reply: oneshot::Sender<()>,
    },
    /// Warn a seat that its clock runs low as soon as its next move is timed, whatever is
    /// left (a bot check tries a bot's answer to the warning).
    WarnSoon {
        seat: Seat,
        reply: oneshot::Sender<()>,
    },
}
