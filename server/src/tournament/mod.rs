//! Tournaments on the server: events with a start time, a field of entrants and a schedule
//! fixed when they start.
//!
//! One task, the [`Director`], owns every tournament taking entries or running (as the
//! matchmaker owns the ladder's queues, and on the same node of a cluster). Each tick it
//! starts the tournaments whose time has come, makes the next games of each running one
//! (at most its `tables` at once), seats a Swiss's next round when the last one has ended,
//! and ends a tournament when its last game has.
//!
//! A game of the schedule is an ordinary table, hosted without a seat like a ladder table,
//! dealt from the game's seed, its seats taken in the schedule's order; entrants are told
//! their seats over their `Tournaments.Enter` stream and play over `Play`. The director
//! watches each table as a spectator; the game's end is written to the store (before the
//! director counts it), and the table closes.
//!
//! What is stored (settings, entrants, each game's table and end) is enough to carry on
//! after a restart: the schedule is made again from the seed, a game whose end is stored
//! counts, one whose record was written but not its end is read back from the record, and
//! one that was cut off is played again from its first move on a new table with the same
//! dice, so no game counts twice or by halves.
//!
//! A tournament's seed decides every deal, so it stays secret until the end (only its
//! commitment is shown), and so do the records of its games: the rotations of a deal play
//! the same dice, and one game's record would show another's cups.

pub(crate) mod director;
mod entries;
mod live;
mod resume;
pub mod spec;
mod tables;
mod views;
pub(crate) mod wire;

use std::collections::HashMap;
use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_store::tournaments::TournamentRow;
use tokio::sync::{mpsc, oneshot};

use crate::refusal::{Refusal, refused};
use crate::server_tables::{Made, ServerTables};
use crate::table::SeatAccount;
pub(crate) use live::{Scheduled, finishes, schedule_of};
pub use spec::{Settings, Spec};
pub(crate) use views::{View, Views};
pub(crate) use wire::{games_of, tournament_to_wire};

/// How often the director looks for tournaments to start and games to make.
pub(crate) const TICK: Duration = Duration::from_millis(250);
/// Updates waiting for one entrant before the newest are dropped (a seat it never hears of
/// is played by the clock).
pub(crate) const ENTRANT_QUEUE: usize = 64;
/// After a game's table could not be made (the server full, its budget spent), the
/// tournament waits this long before trying again.
const RETRY: Duration = Duration::from_secs(2);
/// Waits in a row after tables that could not be made (two minutes of a full server) before
/// a tournament is called off, saying why.
const GIVE_UP_AFTER: u32 = 60;

pub(crate) type Updates = mpsc::Sender<Result<pb::TournamentUpdate, Refusal>>;

/// The states as the store names them.
pub(crate) mod state {
    pub const ENTRY: &str = "entry";
    pub const RUNNING: &str = "running";
    pub const FINISHED: &str = "finished";
    pub const CANCELLED: &str = "cancelled";
}

/// An account entering (or coming back to) a tournament.
pub(crate) struct Entering {
    pub(crate) account: SeatAccount,
    pub(crate) name: String,
    pub(crate) tx: Updates,
}

pub(crate) enum Command {
    /// A tournament the service has stored: the director takes it on.
    Created {
        row: TournamentRow,
    },
    Enter {
        tournament: String,
        entering: Entering,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Called off by `by` (an account id; none for the admin, who may cancel any).
    Cancel {
        tournament: String,
        by: Option<String>,
        reply: oneshot::Sender<Result<TournamentRow, Refusal>>,
    },
    Made {
        tournament: String,
        number: u32,
        made: Result<Made, String>,
    },
    /// A game's watch ended: at the game's end, stored, or before it (its table is looked
    /// for again).
    Ended {
        tournament: String,
        number: u32,
        watched: tables::Watched,
    },
}

/// The director's handle.
#[derive(Clone)]
pub struct TournamentsHandle {
    pub(crate) tx: mpsc::Sender<Command>,
    pub(crate) settings: std::sync::Arc<Settings>,
    /// Schedules and standings made for the service, kept while their tournament's games
    /// stand as they were (see `services::tournaments`).
    pub(crate) views: std::sync::Arc<std::sync::Mutex<Views>>,
    /// One schedule made at a time.
    pub(crate) work: std::sync::Arc<tokio::sync::Semaphore>,
    /// Makings of tournaments, one at a time: an organiser's count and its new tournament
    /// are one step.
    pub(crate) making: std::sync::Arc<tokio::sync::Mutex<()>>,
    /// Tournaments each address made this hour (`Settings::per_hour`).
    pub(crate) made_by_address: crate::accounts::HourlyCounts,
    /// Standings and games read one call at a time per address.
    pub(crate) readers: Readers,
}

/// One read of a tournament's standings or games at a time per address: a crowd from one
/// address queues behind itself, and the rest of the server's readers are not behind it.
#[derive(Clone, Default)]
pub(crate) struct Readers(
    std::sync::Arc<std::sync::Mutex<HashMap<std::net::IpAddr, std::sync::Arc<tokio::sync::Semaphore>>>>,
);

impl Readers {
    /// Waits for `ip`'s turn (none: at once).
    pub(crate) async fn turn(
        &self,
        ip: Option<std::net::IpAddr>,
    ) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, Refusal> {
        let Some(ip) = ip else { return Ok(None) };
        let one = {
            let mut readers = self.0.lock().map_err(|_| Refusal::internal("readers poisoned"))?;
            if readers.len() > 1024 {
                // Addresses nobody is reading for any more are let go.
                readers.retain(|_, s| std::sync::Arc::strong_count(s) > 1);
            }
            std::sync::Arc::clone(
                readers.entry(ip).or_insert_with(|| std::sync::Arc::new(tokio::sync::Semaphore::new(1))),
            )
        };
        one.acquire_owned().await.map(Some).map_err(|_| Refusal::unavailable("the tournaments have stopped"))
    }
}

/// Starts the director.
pub(crate) fn start<T: ServerTables>(tables: T, settings: Settings) -> TournamentsHandle {
    let (tx, rx) = mpsc::channel(1024);
    let settings = std::sync::Arc::new(settings);
    let director = director::Director::new(tables, tx.clone(), std::sync::Arc::clone(&settings));
    tokio::spawn(director.run(rx));
    TournamentsHandle {
        tx,
        settings,
        views: Default::default(),
        work: std::sync::Arc::new(tokio::sync::Semaphore::new(1)),
        making: Default::default(),
        made_by_address: Default::default(),
        readers: Default::default(),
    }
}

fn update(u: pb::tournament_update::Update) -> Result<pb::TournamentUpdate, Refusal> {
    Ok(pb::TournamentUpdate { update: Some(u) })
}

fn store_error(e: dudo_store::StoreError) -> Refusal {
    Refusal::unavailable(format!("the server's database: {e}"))
}

pub(crate) fn now_millis() -> i64 {
    crate::table::unix_millis()
}

pub(crate) fn no_such_tournament(id: &str) -> Refusal {
    let shown: String = id.chars().take(64).collect();
    refused("no_such_tournament", Refusal::not_found(format!("no tournament {shown:?}")))
}

fn moving() -> Refusal {
    refused(
        "tournaments_moving",
        Refusal::unavailable(
            "the tournaments are moving to another node of the cluster: try again in a moment",
        ),
    )
}
