//! What the node's parts (the ladder, the bot check, the tournaments' director) may do with
//! tables: [`ServerTables`], the narrow handle the node lends them instead of itself.
//!
//! A part makes tables the server hosts without a seat ([`ServerTable`]), watches them, asks
//! them what it needs to know, and closes them; it reads the store, an API token's account
//! and whether the server is stopping. The registry, the limits, the budgets and the cluster
//! stay the node's: it implements the trait (`node/lending.rs`), and a part names only this.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use dudo_proto::v1 as pb;
use tokio::sync::oneshot;
use tokio_stream::Stream;

use crate::refusal::Refusal;
use crate::table::{self, Command, SeatAccount};

/// A stream of play updates, as the Play and History services answer.
pub(crate) type UpdateStream = Pin<Box<dyn Stream<Item = Result<pb::PlayUpdate, tonic::Status>> + Send>>;

/// What a part may do with the server's tables.
pub(crate) trait ServerTables: Clone + Send + Sync + 'static {
    /// Makes a table the server hosts without a seat, seats `seats` in their order and
    /// starts its game (a table that cannot be seated or started is closed again).
    fn make(
        &self,
        order: ServerTable,
        seats: Vec<LadderSeat>,
    ) -> impl Future<Output = Result<Made, Refusal>> + Send;

    /// A table's spectator stream wherever in the cluster it is, or where it stands.
    fn find_anywhere(&self, table: &str) -> impl Future<Output = Found> + Send;

    /// Asks a table this node holds something it always answers.
    fn ask_at<T: Send + 'static>(
        &self,
        table: &str,
        command: impl FnOnce(oneshot::Sender<T>) -> Command + Send,
    ) -> impl Future<Output = Result<T, Refusal>> + Send;

    /// Asks a table this node holds something it may refuse; a refusal is its status.
    fn command_at<T: Send + 'static>(
        &self,
        table: &str,
        command: impl FnOnce(table::Answer<T>) -> Command + Send,
    ) -> impl Future<Output = Result<T, Refusal>> + Send {
        async move { self.ask_at(table, command).await?.map_err(Refusal::from) }
    }

    /// Closes a table this node made and holds (by its host token).
    fn close(&self, table: &str, host_token: &str) -> impl Future<Output = ()> + Send;

    /// Closes a table the server made, wherever in the cluster it is now.
    fn close_anywhere(&self, table: &str, host_token: &str) -> impl Future<Output = ()> + Send;

    /// The account an API token belongs to, or why not.
    fn account_of_api_token(
        &self,
        token: &str,
    ) -> impl Future<Output = Result<dudo_store::accounts::Account, Refusal>> + Send;

    /// Where records are kept (none: memory only).
    fn store(&self) -> Option<&dudo_store::Store>;

    /// The store, or why there is none.
    fn records(&self) -> Result<&dudo_store::Store, Refusal>;

    fn stopping(&self) -> &crate::stopping::Stopping;

    /// Whether this node runs the ladder and the tournaments: alone, or holding the
    /// cluster's job.
    fn runs_ladder_here(&self) -> bool;
}

/// Who takes a seat at a table the server makes (a ladder's, a bot check's, a tournament's).
#[derive(Clone, Debug)]
pub enum LadderSeat {
    Account { account: SeatAccount, name: String },
    Bot(String),
}

/// A table the server made: its id, each seat's token (none for a bot) and the host's token.
pub struct Made {
    pub table: String,
    pub tokens: Vec<Option<String>>,
    pub host_token: String,
    /// The server's own spectator stream of the table, opened before its game started: a
    /// game of bots alone can be over before a watch opened afterwards reaches the table,
    /// whose snapshot would then show the end without the `game_over` a watcher waits for.
    pub updates: Option<UpdateStream>,
}

/// What a table the server hosts for itself (a ladder's, a tournament's) is made with.
pub(crate) struct ServerTable {
    /// Its id, when the maker chose it (a tournament stores it before the table exists, so a
    /// table a restart brings back is always one its tournament knows); none: drawn.
    pub(crate) id: Option<String>,
    pub(crate) rules: dudo_rules::RuleSet,
    /// The dice's seed: a tournament's deal (none: from the CSPRNG).
    pub(crate) seed: Option<u64>,
    /// The move clock (0: none) and each seat's bank.
    pub(crate) move_millis: u32,
    pub(crate) time_bank_millis: u32,
    pub(crate) call_window_millis: u32,
    /// Its built-in bots' pause before each move (a ladder pool's `bot_think_millis`).
    pub(crate) bot_think_millis: u32,
    pub(crate) rating_pool: String,
    /// A bot check's table: a seat that lets a call window lapse is not asked again that
    /// game and the lapse is an event a watcher sees (as a ladder's tables do by their rating
    /// pool), and what each seat is asked is kept for the report.
    pub(crate) bot_check: bool,
    /// What it holds against seats that stall its call windows (a tournament's: see
    /// `table::core::Stalling`).
    pub(crate) stalling: table::core::Stalling,
    /// Set when what the table was made for is called off (a tournament cancelled): it is
    /// then not started.
    pub(crate) called_off: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// The host's and the seats' tokens, when the maker chose them (a tournament derives
    /// them, so it can seat its entrants again at a table a restart brought back); none:
    /// drawn at random.
    pub(crate) tokens: Option<GivenTokens>,
}

/// Tokens a table the server hosts is made with (see [`ServerTable::tokens`]).
pub(crate) struct GivenTokens {
    pub(crate) host: String,
    /// By seat; none for a built-in bot's seat (or one that draws its own).
    pub(crate) seats: Vec<Option<String>>,
}

/// Where a game's table is now.
pub(crate) enum Found {
    /// Open, at this node or another: watched from here.
    Open(UpdateStream),
    /// Open in the store but held by no node yet (a restart bringing it back, a cluster
    /// adopting it): looked for again.
    NotYet,
    /// Closed or never kept.
    Gone,
}
