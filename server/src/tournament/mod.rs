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

pub mod spec;

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_store::tournaments::{EntrantRow, TournamentRow};
use dudo_tournament::Game;
use dudo_tournament::export::Format;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::StreamExt;
use tonic::Status;

use crate::ladder::{LadderSeat, Made};
use crate::node::Dudo;
use crate::node::making::ServerTable;
use crate::status::refused;
use crate::table::SeatAccount;
pub use spec::{Settings, Spec};

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

pub(crate) type Updates = mpsc::Sender<Result<pb::TournamentUpdate, Status>>;

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
        reply: oneshot::Sender<Result<(), Status>>,
    },
    /// Called off by `by` (an account id; none for the admin, who may cancel any).
    Cancel {
        tournament: String,
        by: Option<String>,
        reply: oneshot::Sender<Result<TournamentRow, Status>>,
    },
    Made {
        tournament: String,
        number: u32,
        made: Result<Made, String>,
    },
    /// A game ended, its end stored (none: its table was lost, and it is played again).
    Ended {
        tournament: String,
        number: u32,
        finish: Option<Vec<usize>>,
    },
}

/// The director's handle.
#[derive(Clone)]
pub struct TournamentsHandle {
    pub(crate) tx: mpsc::Sender<Command>,
    pub(crate) settings: std::sync::Arc<Settings>,
    /// Schedules and standings made for the service, kept while their tournament's games
    /// stand as they were (see `services::tournaments`).
    pub(crate) views: std::sync::Arc<std::sync::Mutex<crate::services::Views>>,
    /// One schedule made at a time.
    pub(crate) work: std::sync::Arc<tokio::sync::Semaphore>,
    /// Makings of tournaments, one at a time: an organiser's count and its new tournament
    /// are one step.
    pub(crate) making: std::sync::Arc<tokio::sync::Mutex<()>>,
}

/// A game in play: its table, once made.
struct InPlay {
    made: Option<Seated>,
}

/// A game's table: its id, each seat's token (none for a house bot) and the host's token.
struct Seated {
    table: String,
    tokens: Vec<Option<String>>,
    host_token: String,
}

/// A tournament taking entries or running.
struct Live {
    row: TournamentRow,
    spec: Spec,
    entrants: Vec<EntrantRow>,
    /// Each entrant's open stream, by number.
    streams: HashMap<u32, Updates>,
    /// The schedule so far: all of a round robin; a Swiss's rounds as they are seated.
    schedule: Vec<Game>,
    /// Each scheduled game's entrants from first place to last, once it has ended.
    finished: Vec<Option<Vec<usize>>>,
    /// Games to make, lowest number first.
    waiting: BTreeSet<u32>,
    in_play: HashMap<u32, InPlay>,
    /// No table is made before this, after one could not be.
    not_before: Option<Instant>,
    /// Tables that could not be made since one last was.
    failures: u32,
}

/// An entrant's kind when its account is a person's: it is seated at one game at a time.
const PERSON: &str = "person";

/// The task that owns every tournament taking entries or running.
pub(crate) struct Director {
    dudo: Dudo,
    live: HashMap<String, Live>,
    /// The store's tournaments have been read (again after this node took the job back).
    loaded: bool,
    tx: mpsc::Sender<Command>,
}

/// Starts the director.
pub fn start(dudo: Dudo, settings: Settings) -> TournamentsHandle {
    let (tx, rx) = mpsc::channel(1024);
    let director = Director { dudo, live: HashMap::new(), loaded: false, tx: tx.clone() };
    tokio::spawn(director.run(rx));
    TournamentsHandle {
        tx,
        settings: std::sync::Arc::new(settings),
        views: Default::default(),
        work: std::sync::Arc::new(tokio::sync::Semaphore::new(1)),
        making: Default::default(),
    }
}

fn update(u: pb::tournament_update::Update) -> Result<pb::TournamentUpdate, Status> {
    Ok(pb::TournamentUpdate { update: Some(u) })
}

fn store_error(e: dudo_store::StoreError) -> Status {
    Status::unavailable(format!("the server's database: {e}"))
}

impl Live {
    fn new(row: TournamentRow, entrants: Vec<EntrantRow>) -> Result<Live, String> {
        let spec: Spec = serde_json::from_str(&row.spec).map_err(|e| format!("its settings: {e}"))?;
        Ok(Live {
            row,
            spec,
            entrants,
            streams: HashMap::new(),
            schedule: Vec::new(),
            finished: Vec::new(),
            waiting: BTreeSet::new(),
            in_play: HashMap::new(),
            not_before: None,
            failures: 0,
        })
    }

    /// Seats the next part of the schedule (all of a round robin, a Swiss's next round) if
    /// every game so far has ended and there is one; whether it did.
    fn schedule_more(&mut self) -> Result<bool, String> {
        let more = next_games(&self.spec, self.entrants.len(), self.row.seed, &self.schedule, &self.finished)
            .map_err(|e| e.to_string())?;
        if more.is_empty() {
            return Ok(false);
        }
        for g in &more {
            self.waiting.insert(g.number);
        }
        self.finished.extend(more.iter().map(|_| None));
        self.schedule.extend(more);
        Ok(true)
    }

    fn tell(&self, entrant: usize, u: pb::tournament_update::Update) {
        if let Some(tx) = u32::try_from(entrant).ok().and_then(|e| self.streams.get(&e)) {
            let _ = tx.try_send(update(u));
        }
    }

    fn seated(&self, number: u32, made: &Made) {
        let Some(game) = self.schedule.get(number as usize) else { return };
        for (seat, (&entrant, token)) in game.seats.iter().zip(&made.tokens).enumerate() {
            let Some(token) = token else { continue };
            let seated = pb::TournamentSeated {
                table: made.table.clone(),
                seat: seat as u32,
                token: token.clone(),
                game: crate::table::game_id(&made.table, 1),
                number,
            };
            self.tell(entrant, pb::tournament_update::Update::Seated(seated));
        }
    }
}

/// Every game ended so far, in schedule order.
pub(crate) fn finishes(schedule: &[Game], finished: &[Option<Vec<usize>>]) -> Vec<dudo_tournament::Finished> {
    schedule
        .iter()
        .zip(finished)
        .filter_map(|(g, f)| {
            f.as_ref().map(|f| dudo_tournament::Finished { deal: g.deal, finish: f.clone() })
        })
        .collect()
}

/// The games to seat after `schedule` once all of it has ended: the whole round robin at
/// first, a Swiss's next round (by the standings so far) until its rounds are played; none
/// when the schedule is whole or games are still to end.
pub(crate) fn next_games(
    spec: &Spec,
    entrants: usize,
    seed: u64,
    schedule: &[Game],
    finished: &[Option<Vec<usize>>],
) -> Result<Vec<Game>, dudo_tournament::ScheduleError> {
    use dudo_tournament::schedule;
    if finished.iter().any(Option::is_none) {
        return Ok(Vec::new());
    }
    let seats = spec.seats as usize;
    let kind = spec.dice;
    match spec.seating {
        Format::RoundRobin if schedule.is_empty() => {
            schedule::round_robin(entrants, seats, spec.deals, seed, kind)
        }
        Format::RoundRobin => Ok(Vec::new()),
        Format::Swiss { rounds } => {
            let played = schedule.last().map_or(0, |g| g.round + 1);
            if played >= rounds {
                return Ok(Vec::new());
            }
            let done = finishes(schedule, finished);
            schedule::swiss_round_after(entrants, seats, spec.deals, played, &done, seed, kind)
        }
    }
}

/// A schedule as far as it is seated, and each game's end so far (by number).
#[derive(Default)]
pub(crate) struct Scheduled {
    pub(crate) games: Vec<Game>,
    pub(crate) finished: Vec<Option<Vec<usize>>>,
}

/// The whole schedule as far as `finished` (by game number) lets it be seated: what the
/// service shows and counts standings by, made again from the store.
pub(crate) fn schedule_of(
    spec: &Spec,
    entrants: usize,
    seed: u64,
    ended: &HashMap<u32, Vec<usize>>,
) -> Result<Scheduled, dudo_tournament::ScheduleError> {
    let mut schedule: Vec<Game> = Vec::new();
    let mut finished: Vec<Option<Vec<usize>>> = Vec::new();
    loop {
        let more = next_games(spec, entrants, seed, &schedule, &finished)?;
        if more.is_empty() {
            return Ok(Scheduled { games: schedule, finished });
        }
        finished.extend(more.iter().map(|g| ended.get(&g.number).cloned()));
        schedule.extend(more);
    }
}

impl Director {
    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => self.handle(command).await,
                    None => return,
                },
                _ = tick.tick() => self.tick().await,
            }
        }
    }

    /// Whether this node runs the tournaments: alone, or holding the cluster's ladder job.
    fn here(&self) -> bool {
        self.dudo.runs_ladder_here()
    }

    async fn tick(&mut self) {
        if self.dudo.stopping().is_stopping() {
            return;
        }
        if !self.here() {
            if self.loaded {
                // Another node took the job: its director carries the tournaments on.
                for live in self.live.values() {
                    for tx in live.streams.values() {
                        let _ = tx.try_send(Err(moving()));
                    }
                }
                self.live.clear();
                self.loaded = false;
            }
            return;
        }
        if !self.loaded {
            match self.load().await {
                Ok(()) => self.loaded = true,
                Err(e) => {
                    tracing::warn!(error = %e, "tournaments could not be read; trying again");
                    return;
                }
            }
        }
        let ids: Vec<String> = self.live.keys().cloned().collect();
        for id in ids {
            self.advance(&id).await;
        }
    }

    /// Reads every tournament taking entries or running from the store.
    async fn load(&mut self) -> Result<(), dudo_store::StoreError> {
        let Some(store) = self.dudo.store().cloned() else { return Ok(()) };
        self.live.clear();
        for row in store.unfinished_tournaments().await? {
            let id = row.id.clone();
            let entrants = store.entrants(&id).await?;
            let running = row.state == state::RUNNING;
            let mut live = match Live::new(row, entrants) {
                Ok(live) => live,
                Err(why) => {
                    tracing::warn!(tournament = %id, error = %why, "a tournament could not be read; cancelled");
                    let _ = store.set_tournament_state(&id, state::CANCELLED, now_millis(), &why).await;
                    continue;
                }
            };
            if running {
                self.resume(&store, &mut live).await?;
            }
            self.live.insert(id, live);
        }
        if !self.live.is_empty() {
            tracing::info!(tournaments = self.live.len(), "tournaments carried on");
        }
        Ok(())
    }

    /// Makes a running tournament's schedule again and finds where it was: games whose end
    /// is stored count; one whose record is stored but not its end (the server stopped in
    /// between) is read back from the record; the rest are played (again).
    async fn resume(&self, store: &dudo_store::Store, live: &mut Live) -> Result<(), dudo_store::StoreError> {
        let rows = store.tournament_games(&live.row.id, None, u32::MAX).await?;
        let mut ended: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut recorded: HashMap<u32, String> = HashMap::new();
        for row in rows {
            match row.finish {
                Some(finish) => {
                    ended.insert(row.number, finish);
                }
                None => {
                    recorded.insert(row.number, row.game);
                }
            }
        }
        loop {
            // Games recorded without their end: their end is read from the record, which
            // may seat a Swiss's next round, which is then read on.
            let Scheduled { games: schedule, finished } = match schedule_of(
                &live.spec,
                live.entrants.len(),
                live.row.seed,
                &ended,
            ) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(tournament = %live.row.id, error = %e, "a tournament's schedule could not be made again");
                    Scheduled { games: Vec::new(), finished: Vec::new() }
                }
            };
            let mut found = false;
            for (g, f) in schedule.iter().zip(&finished) {
                if f.is_some() {
                    continue;
                }
                let Some(id) = recorded.remove(&g.number) else { continue };
                if let Some(record) = store.game(&id).await?
                    && let Some(finish) = finish_from_record(&record.summary, &g.seats)
                {
                    store.tournament_game_finished(&live.row.id, g.number, &finish).await?;
                    ended.insert(g.number, finish);
                    found = true;
                }
            }
            if !found {
                live.waiting = schedule
                    .iter()
                    .zip(&finished)
                    .filter(|(_, f)| f.is_none())
                    .map(|(g, _)| g.number)
                    .collect();
                live.schedule = schedule;
                live.finished = finished;
                return Ok(());
            }
        }
    }

    async fn handle(&mut self, command: Command) {
        // A call in the first moments after a start finds the tournaments read, not "moving".
        if !self.loaded && self.here() && matches!(command, Command::Enter { .. } | Command::Cancel { .. }) {
            match self.load().await {
                Ok(()) => self.loaded = true,
                Err(e) => tracing::warn!(error = %e, "tournaments could not be read"),
            }
        }
        match command {
            Command::Created { row } => {
                if !self.loaded {
                    // Read with the rest when this node loads.
                    return;
                }
                let id = row.id.clone();
                let entrants = match self.dudo.store() {
                    Some(store) => store.entrants(&id).await.unwrap_or_default(),
                    None => Vec::new(),
                };
                match Live::new(row, entrants) {
                    Ok(live) => {
                        self.live.insert(id, live);
                    }
                    Err(why) => {
                        tracing::warn!(tournament = %id, error = %why, "a new tournament could not be read")
                    }
                }
            }
            Command::Enter { tournament, entering, reply } => {
                let answer = self.enter(&tournament, entering).await;
                let _ = reply.send(answer);
            }
            Command::Cancel { tournament, by, reply } => {
                let answer = self.cancel(&tournament, by).await;
                let _ = reply.send(answer);
            }
            Command::Made { tournament, number, made } => {
                let Some(live) = self.live.get_mut(&tournament) else {
                    // Cancelled meanwhile: the table goes.
                    if let Ok(made) = made {
                        self.dudo.close_internal(&made.table, &made.host_token).await;
                    }
                    return;
                };
                match made {
                    Ok(mut made) => {
                        live.failures = 0;
                        live.seated(number, &made);
                        if let (Some(game), Some(updates)) =
                            (live.schedule.get(number as usize).cloned(), made.updates.take())
                        {
                            watch(&self.dudo, &self.tx, &tournament, game, &made, updates);
                        }
                        let seated =
                            Seated { table: made.table, tokens: made.tokens, host_token: made.host_token };
                        live.in_play.insert(number, InPlay { made: Some(seated) });
                    }
                    Err(why) => {
                        tracing::warn!(tournament = %tournament, game = number, error = %why, "a tournament game could not be made; trying again");
                        live.in_play.remove(&number);
                        live.waiting.insert(number);
                        // Counted once a wait: the games made at once fail together.
                        if live.not_before.is_none_or(|t| Instant::now() >= t) {
                            live.failures += 1;
                        }
                        live.not_before = Some(Instant::now() + RETRY);
                        if live.failures >= GIVE_UP_AFTER {
                            let why = format!(
                                "its games could not be made ({} tries in a row): {why}",
                                live.failures
                            );
                            if let Err(e) = self.end(&tournament, state::CANCELLED, &why).await {
                                tracing::warn!(tournament = %tournament, error = %e, "a tournament could not be cancelled");
                            }
                        }
                    }
                }
            }
            Command::Ended { tournament, number, finish } => {
                let Some(live) = self.live.get_mut(&tournament) else { return };
                let table =
                    live.in_play.remove(&number).and_then(|p| p.made).map(|m| m.table).unwrap_or_default();
                match finish {
                    Some(finish) => {
                        if let Some(slot) = live.finished.get_mut(number as usize) {
                            *slot = Some(finish.clone());
                        }
                        for (place, &entrant) in finish.iter().enumerate() {
                            let ended = pb::TournamentGameEnded {
                                game: crate::table::game_id(&table, 1),
                                table: table.clone(),
                                number,
                                place: place as u32 + 1,
                            };
                            live.tell(entrant, pb::tournament_update::Update::Ended(ended));
                        }
                    }
                    None => {
                        // Its table was lost: the game is played again from its first move.
                        live.waiting.insert(number);
                    }
                }
                // The next game now, not at the next tick: a field of quick bots would
                // otherwise wait on the clock between games.
                if !self.dudo.stopping().is_stopping() {
                    self.advance(&tournament).await;
                }
            }
        }
    }

    /// Why `tournament` is not one the director holds: it has ended, it does not exist, or
    /// (before this node has read them) the tournaments are moving here.
    async fn not_live(&self, tournament: &str) -> Status {
        let stored = match self.dudo.records() {
            Ok(store) => store.tournament(tournament).await,
            Err(why) => return why,
        };
        match stored {
            Err(e) => store_error(e),
            Ok(Some(row)) => refused(
                "tournament_over",
                Status::failed_precondition(format!("tournament {} has ended ({})", row.id, row.state)),
            ),
            Ok(None) if !self.loaded => moving(),
            Ok(None) => no_such_tournament(tournament),
        }
    }

    async fn enter(&mut self, tournament: &str, entering: Entering) -> Result<(), Status> {
        let store = self.dudo.records()?.clone();
        if !self.live.contains_key(tournament) {
            return Err(self.not_live(tournament).await);
        }
        let Some(live) = self.live.get_mut(tournament) else { return Err(no_such_tournament(tournament)) };
        let key = crate::accounts::name_key(&entering.name);
        let number = match live.entrants.iter().find(|e| e.account == entering.account.id) {
            Some(e) => e.number,
            // Two entrants of one name would read as one in the standings and the export.
            None if live
                .entrants
                .iter()
                .any(|e| e.account.is_empty() && crate::accounts::name_key(&e.name) == key) =>
            {
                return Err(refused(
                    "name_taken",
                    Status::failed_precondition(format!(
                        "tournament {} has a house bot named {}: an account of that name cannot enter it",
                        live.row.id, entering.name
                    )),
                ));
            }
            None if live.row.state != state::ENTRY => {
                return Err(refused(
                    "entry_closed",
                    Status::failed_precondition(format!(
                        "tournament {} has started; its entry closed",
                        live.row.id
                    )),
                ));
            }
            None if live.entrants.len() >= live.spec.max_entrants as usize => {
                return Err(refused(
                    "tournament_full",
                    Status::resource_exhausted(format!(
                        "tournament {} has its {} entrants",
                        live.row.id, live.spec.max_entrants
                    )),
                ));
            }
            None => {
                let row = EntrantRow {
                    number: live.entrants.len() as u32,
                    account: entering.account.id.clone(),
                    name: entering.name.clone(),
                    kind: match entering.account.kind {
                        pb::AccountKind::Bot => "bot".into(),
                        _ => PERSON.into(),
                    },
                    bot: String::new(),
                    entered_at: now_millis(),
                };
                store.add_entrant(tournament, &row).await.map_err(store_error)?;
                let number = row.number;
                live.entrants.push(row);
                number
            }
        };
        let told = pb::TournamentEntered {
            tournament: Some(tournament_to_wire(
                &live.row,
                &live.spec,
                &live.entrants,
                live.finished.iter().filter(|f| f.is_some()).count() as u64,
            )),
            entrant: number,
        };
        let _ = entering.tx.try_send(update(pb::tournament_update::Update::Entered(told)));
        // Back after its stream dropped: the games it is seated at are said again.
        for (&game, in_play) in &live.in_play {
            let Some(made) = &in_play.made else { continue };
            let Some(scheduled) = live.schedule.get(game as usize) else { continue };
            for (seat, (&e, token)) in scheduled.seats.iter().zip(&made.tokens).enumerate() {
                if e as u32 != number {
                    continue;
                }
                let Some(token) = token else { continue };
                let seated = pb::TournamentSeated {
                    table: made.table.clone(),
                    seat: seat as u32,
                    token: token.clone(),
                    game: crate::table::game_id(&made.table, 1),
                    number: game,
                };
                let _ = entering.tx.try_send(update(pb::tournament_update::Update::Seated(seated)));
            }
        }
        // One stream an entrant: the newest (a bot that restarted) replaces the one before.
        if let Some(old) = live.streams.insert(number, entering.tx) {
            let _ = old.try_send(Err(refused(
                "entered_again",
                Status::aborted("this account entered the tournament again on another stream"),
            )));
        }
        Ok(())
    }

    async fn cancel(&mut self, tournament: &str, by: Option<String>) -> Result<TournamentRow, Status> {
        let Some(live) = self.live.get(tournament) else {
            return Err(self.not_live(tournament).await);
        };
        if let Some(by) = &by
            && *by != live.row.organiser
        {
            return Err(refused(
                "not_organiser",
                Status::permission_denied("only the tournament's organiser (or the admin) may cancel it"),
            ));
        }
        self.end(tournament, state::CANCELLED, "called off by its organiser").await.map_err(store_error)
    }

    /// Ends a tournament: stored as `state`, its games in play closed, its entrants told.
    async fn end(
        &mut self,
        tournament: &str,
        state: &str,
        why: &str,
    ) -> Result<TournamentRow, dudo_store::StoreError> {
        let Some(store) = self.dudo.store().cloned() else {
            return Err(dudo_store::StoreError::ReadOnly);
        };
        let at = now_millis();
        store.set_tournament_state(tournament, state, at, why).await?;
        let Some(mut live) = self.live.remove(tournament) else {
            return store.tournament(tournament).await?.ok_or(dudo_store::StoreError::ReadOnly);
        };
        (live.row.state, live.row.ended_at, live.row.why) = (state.to_string(), at, why.to_string());
        for in_play in live.in_play.values() {
            if let Some(made) = &in_play.made {
                self.dudo.close_internal(&made.table, &made.host_token).await;
            }
        }
        let finished = live.finished.iter().filter(|f| f.is_some()).count() as u64;
        let over = pb::TournamentOver {
            tournament: Some(tournament_to_wire(&live.row, &live.spec, &live.entrants, finished)),
        };
        for tx in live.streams.values() {
            let _ = tx.try_send(update(pb::tournament_update::Update::Over(over.clone())));
        }
        tracing::info!(tournament = %tournament, state, why, "a tournament ended");
        Ok(live.row)
    }

    /// Moves one tournament on: starts it when its time comes, makes its next games, ends it
    /// after its last.
    async fn advance(&mut self, id: &str) {
        let now = now_millis();
        let Some(live) = self.live.get_mut(id) else { return };
        match live.next(now) {
            Next::Wait => {}
            Next::End(state, why) => {
                if let Err(e) = self.end(id, state, &why).await {
                    tracing::warn!(tournament = %id, error = %e, "a tournament's end could not be stored; trying again");
                }
            }
            Next::Start => {
                let stored = match self.dudo.store() {
                    Some(store) => store.set_tournament_state(id, state::RUNNING, 0, "").await,
                    None => Ok(()),
                };
                let Some(live) = self.live.get_mut(id) else { return };
                if let Err(e) = stored {
                    tracing::warn!(tournament = %id, error = %e, "a tournament could not start; trying again");
                    live.schedule.clear();
                    live.finished.clear();
                    live.waiting.clear();
                    return;
                }
                live.row.state = state::RUNNING.into();
                let (entrants, games) = (live.entrants.len(), live.schedule.len());
                tracing::info!(tournament = %id, entrants, games, "a tournament started");
                self.make_more(id);
            }
            Next::Make => self.make_more(id),
        }
    }

    /// Makes the tournament's next games, up to its tables at once: the lowest numbers
    /// first, passing over a game of an entrant who plays in person and is at a table now
    /// (a person plays one game at a time; a bot, any number).
    fn make_more(&mut self, id: &str) {
        let Some(live) = self.live.get_mut(id) else { return };
        while live.in_play.len() < live.spec.tables as usize {
            let busy = live.people_in_play();
            let free = |n: &u32| {
                live.schedule.get(*n as usize).is_none_or(|g| g.seats.iter().all(|e| !busy.contains(e)))
            };
            let Some(number) = live.waiting.iter().copied().find(free) else { return };
            live.waiting.remove(&number);
            let Some(game) = live.schedule.get(number as usize).cloned() else { continue };
            live.in_play.insert(number, InPlay { made: None });
            make(&self.dudo, &self.tx, live, game);
        }
    }
}

/// What a tournament does next.
enum Next {
    Wait,
    /// Its schedule is seated: it starts.
    Start,
    Make,
    End(&'static str, String),
}

impl Live {
    /// Entrants who play in person (a person's account) and are at one of the games in play.
    fn people_in_play(&self) -> BTreeSet<usize> {
        self.in_play
            .keys()
            .filter_map(|&n| self.schedule.get(n as usize))
            .flat_map(|g| g.seats.iter().copied())
            .filter(|&e| self.entrants.get(e).is_some_and(|row| row.kind == PERSON))
            .collect()
    }

    fn next(&mut self, now: i64) -> Next {
        if self.row.state == state::ENTRY {
            if now < self.row.starts_at {
                return Next::Wait;
            }
            let (n, seats) = (self.entrants.len(), self.spec.seats as usize);
            if n < seats.max(2) {
                return Next::End(
                    state::CANCELLED,
                    format!("too few entrants: {n} entered, and a table seats {seats}"),
                );
            }
            // A Swiss round's tables differ by a seat at most; the smallest must still be a
            // game these rules play.
            if let Format::Swiss { .. } = self.spec.seating {
                let (sizes, _) = dudo_tournament::schedule::swiss_tables(n, seats);
                let least = sizes.iter().copied().min().unwrap_or(0);
                let min = usize::from(self.spec.rules.players.min);
                if least < min {
                    return Next::End(
                        state::CANCELLED,
                        format!(
                            "{n} entrants at tables of {seats} seat a table of {least}, and these rules need {min}"
                        ),
                    );
                }
            }
            return match self.schedule_more() {
                Ok(_) => Next::Start,
                Err(why) => Next::End(state::CANCELLED, format!("its schedule could not be made: {why}")),
            };
        }
        if self.waiting.is_empty() && self.in_play.is_empty() {
            match self.schedule_more() {
                Ok(true) => {}
                Ok(false) => return Next::End(state::FINISHED, String::new()),
                Err(why) => {
                    return Next::End(state::CANCELLED, format!("its next round could not be seated: {why}"));
                }
            }
        }
        if self.not_before.is_some_and(|t| Instant::now() < t) {
            return Next::Wait;
        }
        self.not_before = None;
        Next::Make
    }
}

/// Makes a game's table on a task of its own; the director hears of it as [`Command::Made`].
fn make(dudo: &Dudo, tx: &mpsc::Sender<Command>, live: &Live, game: Game) {
    let seats: Vec<LadderSeat> = game
        .seats
        .iter()
        .map(|&e| match live.entrants.get(e) {
            Some(row) if row.account.is_empty() => LadderSeat::Bot(row.bot.clone()),
            Some(row) => LadderSeat::Account {
                account: SeatAccount {
                    id: row.account.clone(),
                    kind: if row.kind == "bot" { pb::AccountKind::Bot } else { pb::AccountKind::Person },
                },
                name: row.name.clone(),
            },
            None => LadderSeat::Bot("random".into()),
        })
        .collect();
    let order = ServerTable {
        rules: live.spec.rules.clone(),
        seed: Some(game.seed),
        move_millis: live.spec.move_millis,
        time_bank_millis: live.spec.time_bank_millis,
        // Every seat asked answers before the game goes on (within the move clock): who
        // calls out of turn never depends on whose connection is quicker.
        call_window_millis: 0,
        rating_pool: match live.spec.rating_pool.as_str() {
            "" => String::new(),
            pool => format!("{}{pool}", dudo_store::ladder::POOL_PREFIX),
        },
        bot_check: false,
    };
    let (dudo, tx, tournament, number) = (dudo.clone(), tx.clone(), live.row.id.clone(), game.number);
    tokio::spawn(async move {
        let made = match dudo.make_server_table(order, seats).await {
            Ok(made) => {
                let game_id = crate::table::game_id(&made.table, 1);
                let stored = match dudo.store() {
                    Some(store) => {
                        store.tournament_game_made(&tournament, number, &made.table, &game_id).await
                    }
                    None => Ok(()),
                };
                match stored {
                    Ok(()) => Ok(made),
                    Err(e) => {
                        dudo.close_internal(&made.table, &made.host_token).await;
                        Err(e.to_string())
                    }
                }
            }
            Err(e) => Err(e.message().to_string()),
        };
        let _ = tx.send(Command::Made { tournament, number, made }).await;
    });
}

/// Watches a game's table as a spectator until its end, which is stored before the director
/// hears of it; then the table closes.
fn watch(
    dudo: &Dudo,
    tx: &mpsc::Sender<Command>,
    tournament: &str,
    game: Game,
    made: &Made,
    mut updates: crate::node::UpdateStream,
) {
    let (dudo, tx, tournament) = (dudo.clone(), tx.clone(), tournament.to_string());
    let (table, host_token) = (made.table.clone(), made.host_token.clone());
    tokio::spawn(async move {
        let number = game.number;
        let mut finish: Option<Vec<usize>> = None;
        while let Some(Ok(u)) = updates.next().await {
            let Some(pb::play_update::Update::Event(e)) = u.update else { continue };
            if let Some(pb::event::Kind::GameOver(g)) = e.kind {
                finish = g.standings.iter().map(|&s| game.seats.get(s as usize).copied()).collect();
                break;
            }
        }
        drop(updates);
        if let (Some(f), Some(store)) = (&finish, dudo.store()) {
            // Written before the director counts it: a restart never loses a counted game.
            let mut tries = 0;
            while let Err(e) = store.tournament_game_finished(&tournament, number, f).await {
                tries += 1;
                if tries >= 5 {
                    tracing::warn!(tournament = %tournament, game = number, error = %e, "a game's end could not be stored; it is played again");
                    finish = None;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
        dudo.close_internal(&table, &host_token).await;
        let _ = tx.send(Command::Ended { tournament, number, finish }).await;
    });
}

/// A finished game's entrants from first place to last, from its record: each seat's place,
/// and the entrant the schedule sat there.
fn finish_from_record(summary: &dudo_store::GameSummary, seats: &[usize]) -> Option<Vec<usize>> {
    if summary.players.len() != seats.len() {
        return None;
    }
    let mut by_place: Vec<(u32, usize)> = summary
        .players
        .iter()
        .map(|p| {
            (
                if p.place == 0 { u32::MAX } else { p.place },
                seats.get(p.seat as usize).copied().unwrap_or(usize::MAX),
            )
        })
        .collect();
    by_place.sort();
    let finish: Vec<usize> = by_place.into_iter().map(|(_, e)| e).collect();
    (!finish.contains(&usize::MAX)).then_some(finish)
}

pub(crate) fn now_millis() -> i64 {
    crate::table::unix_millis()
}

pub(crate) fn no_such_tournament(id: &str) -> Status {
    let shown: String = id.chars().take(64).collect();
    refused("no_such_tournament", Status::not_found(format!("no tournament {shown:?}")))
}

fn moving() -> Status {
    refused(
        "tournaments_moving",
        Status::unavailable(
            "the tournaments are moving to another node of the cluster: try again in a moment",
        ),
    )
}

pub(crate) fn state_to_wire(state: &str) -> pb::TournamentState {
    match state {
        state::ENTRY => pb::TournamentState::Entry,
        state::RUNNING => pb::TournamentState::Running,
        state::FINISHED => pb::TournamentState::Finished,
        state::CANCELLED => pb::TournamentState::Cancelled,
        _ => pb::TournamentState::Unspecified,
    }
}

/// Games a tournament's schedule holds for `entered` entrants: none before the start, nor
/// for a field too small to seat a table (it never started).
pub(crate) fn games_of(row: &TournamentRow, spec: &Spec, entered: usize) -> u64 {
    match row.state.as_str() {
        state::ENTRY => 0,
        _ if entered < spec.seats as usize => 0,
        _ => spec.games_for(entered).unwrap_or(0),
    }
}

/// A tournament for the wire; its seed only once it has ended.
pub(crate) fn tournament_to_wire(
    row: &TournamentRow,
    spec: &Spec,
    entrants: &[EntrantRow],
    finished: u64,
) -> pb::Tournament {
    let (format, rounds) = spec.format_to_wire();
    let ended = row.state == state::FINISHED || row.state == state::CANCELLED;
    let salt = dudo_rules::proof::from_hex(&row.salt).unwrap_or_default();
    let games = games_of(row, spec, entrants.len());
    pb::Tournament {
        id: row.id.clone(),
        name: row.name.clone(),
        organiser: row.organiser_name.clone(),
        state: state_to_wire(&row.state) as i32,
        rules_name: spec.rules_name.clone(),
        rules: Some(spec.rules_to_wire()),
        seats: spec.seats,
        format: format as i32,
        deals: spec.deals,
        rounds,
        move_millis: spec.move_millis,
        time_bank_millis: spec.time_bank_millis,
        starts_unix_millis: u64::try_from(row.starts_at).unwrap_or(0),
        house_bots: spec.house_bots.clone(),
        max_entrants: spec.max_entrants,
        tables: spec.tables,
        rating_pool: spec.rating_pool.clone(),
        entrants: entrants
            .iter()
            .map(|e| pb::TournamentEntrant {
                number: e.number,
                name: e.name.clone(),
                kind: match e.kind.as_str() {
                    "bot" => pb::AccountKind::Bot,
                    "person" => pb::AccountKind::Person,
                    _ => pb::AccountKind::None,
                } as i32,
                bot: e.bot.clone(),
            })
            .collect(),
        games,
        finished,
        seed_commitment: dudo_tournament::seed_commitment(row.seed, &salt),
        seed: ended.then_some(row.seed),
        seed_salt: if ended { row.salt.clone() } else { String::new() },
        why: row.why.clone(),
        ended_unix_millis: u64::try_from(row.ended_at).unwrap_or(0),
        entered: entrants.len() as u32,
        seeded: spec.seeded,
        fresh_deals: spec.dice == dudo_tournament::Deals::Fresh,
    }
}
