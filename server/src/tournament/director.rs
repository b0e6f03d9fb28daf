//! The director: the one task that owns every tournament taking entries or running. Each
//! tick it starts the tournaments whose time has come and makes their next games; it hears
//! of each game's table made and of each game's end, and ends a tournament after its last.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use dudo_proto::v1 as pb;
use dudo_store::tournaments::TournamentRow;
use tokio::sync::mpsc;

use super::live::{InPlay, Live, Next, Seated};
use super::tables::{Watched, close_for_good, make, watch};
use super::wire::tournament_to_wire;
use super::{Command, GIVE_UP_AFTER, RETRY, Settings, TICK, moving, now_millis, state, update};
use crate::server_tables::{Made, ServerTables};

/// The task that owns every tournament taking entries or running.
pub(crate) struct Director<T> {
    /// Where its games' tables are made, found and closed.
    pub(super) tables: T,
    pub(super) live: HashMap<String, Live>,
    /// The store's tournaments have been read (again after this node took the job back).
    pub(super) loaded: bool,
    pub(super) tx: mpsc::Sender<Command>,
    pub(super) settings: Arc<Settings>,
}

/// A token bucket of games: what one account's tournament may start now, at its share of
/// `Settings::games_per_minute` (a few at once, then an even pace).
#[derive(Debug)]
pub(super) struct Pace {
    tokens: f64,
    at: Instant,
}

/// Games one tournament may start at once from its bucket.
const PACE_BURST: f64 = 4.0;

impl Default for Pace {
    fn default() -> Pace {
        Pace { tokens: PACE_BURST, at: Instant::now() }
    }
}

impl Pace {
    /// The games it lets start now, refilled at `per_minute`.
    fn room(&mut self, per_minute: f64) -> usize {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * per_minute / 60.0).min(PACE_BURST);
        self.at = now;
        self.tokens.max(0.0) as usize
    }

    fn take(&mut self) {
        self.tokens -= 1.0;
    }
}

impl<T: ServerTables> Director<T> {
    pub(super) fn new(tables: T, tx: mpsc::Sender<Command>, settings: Arc<Settings>) -> Director<T> {
        Director { tables, live: HashMap::new(), loaded: false, tx, settings }
    }

    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
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
    pub(super) fn here(&self) -> bool {
        self.tables.runs_ladder_here()
    }

    async fn tick(&mut self) {
        if self.tables.stopping().is_stopping() {
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
            self.find_lost(&id).await;
            self.advance(&id).await;
        }
    }

    /// Reads every tournament taking entries or running from the store.
    async fn load(&mut self) -> Result<(), dudo_store::StoreError> {
        let Some(store) = self.tables.store().cloned() else { return Ok(()) };
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
                let entrants = match self.tables.store() {
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
            Command::Made { tournament, number, made } => self.made(&tournament, number, made).await,
            Command::Ended { tournament, number, watched } => {
                self.ended(&tournament, number, watched).await;
                // The next game now, not at the next tick: a field of quick bots would
                // otherwise wait on the clock between games.
                if !self.tables.stopping().is_stopping() {
                    self.advance(&tournament).await;
                }
            }
        }
    }

    /// A game's table was made (or could not be).
    async fn made(&mut self, tournament: &str, number: u32, made: Result<Made, String>) {
        let Some(live) = self.live.get_mut(tournament) else {
            // Cancelled meanwhile: the table goes.
            if let Ok(made) = made {
                self.tables.close(&made.table, &made.host_token).await;
            }
            return;
        };
        match made {
            Ok(mut made) => {
                live.failures = 0;
                let seated = Seated { table: made.table, tokens: made.tokens, host_token: made.host_token };
                live.seated(number, &seated);
                if let (Some(game), Some(updates)) =
                    (live.schedule.get(number as usize).cloned(), made.updates.take())
                {
                    let forfeit = live.forfeit_seats(number);
                    let table = (seated.table.clone(), seated.host_token.clone());
                    watch(&self.tables, &self.tx, tournament, game, forfeit, table, updates);
                }
                live.in_play.insert(number, InPlay { made: Some(seated), lost: None });
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
                    let why =
                        format!("its games could not be made ({} tries in a row): {why}", live.failures);
                    if let Err(e) = self.end(tournament, state::CANCELLED, &why).await {
                        tracing::warn!(tournament = %tournament, error = %e, "a tournament could not be cancelled");
                    }
                }
            }
        }
    }

    /// A game's watch ended: at the game's end (counted, its entrants told), or before it
    /// (its table is looked for again). Either way its entrants' faults are counted, and one
    /// past the tournament's bench is benched.
    async fn ended(&mut self, tournament: &str, number: u32, watched: Watched) {
        let Some(live) = self.live.get_mut(tournament) else { return };
        let benched = live.count_faults(&watched.faults);
        let Some(finish) = watched.finish else {
            if let Some(in_play) = live.in_play.get_mut(&number) {
                in_play.lost.get_or_insert_with(Instant::now);
            }
            return self.bench(tournament, benched).await;
        };
        let table = live.in_play.remove(&number).and_then(|p| p.made).map(|m| m.table).unwrap_or_default();
        live.count_finish(number, &table, finish);
        self.bench(tournament, benched).await;
    }

    /// Benches entrants for stalling: stored, said in the standings and to the entrant; the
    /// games made after this are forfeit for it.
    async fn bench(&mut self, tournament: &str, benched: Vec<(usize, String)>) {
        let Some(live) = self.live.get_mut(tournament) else { return };
        for (entrant, why) in benched {
            if let Some(store) = self.tables.store()
                && let Err(e) = store.bench_entrant(tournament, entrant as u32, &why).await
            {
                tracing::warn!(tournament = %tournament, entrant, error = %e, "an entrant's bench could not be stored");
            }
            if let Some(row) = live.entrants.get_mut(entrant) {
                tracing::info!(tournament = %tournament, entrant = %row.name, why = %why, "an entrant is benched");
                row.benched = why;
            }
        }
    }

    /// Ends a tournament: stored as `state`, its games in play closed, its entrants told.
    pub(super) async fn end(
        &mut self,
        tournament: &str,
        state: &str,
        why: &str,
    ) -> Result<TournamentRow, dudo_store::StoreError> {
        let Some(store) = self.tables.store().cloned() else {
            return Err(dudo_store::StoreError::ReadOnly);
        };
        // Tables still being made for it are not started from now on.
        if let Some(live) = self.live.get(tournament) {
            live.called_off.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        let at = now_millis();
        if let Err(e) = store.set_tournament_state(tournament, state, at, why).await {
            if let Some(live) = self.live.get(tournament) {
                live.called_off.store(false, std::sync::atomic::Ordering::SeqCst);
            }
            return Err(e);
        }
        let Some(mut live) = self.live.remove(tournament) else {
            return store.tournament(tournament).await?.ok_or(dudo_store::StoreError::ReadOnly);
        };
        (live.row.state, live.row.ended_at, live.row.why) = (state.to_string(), at, why.to_string());
        for in_play in live.in_play.values() {
            if let Some(made) = &in_play.made {
                self.tables.close_anywhere(&made.table, &made.host_token).await;
            }
        }
        // Every table of it still open anywhere (one a stop left behind) closes for good
        // before its seed is shown.
        match store.open_tables_of_tournament(tournament).await {
            Ok(open) => {
                for (number, table) in open {
                    close_for_good(&self.tables, &live.row, number, &table).await;
                }
            }
            Err(e) => {
                tracing::warn!(tournament = %tournament, error = %e, "a tournament's open tables could not be read")
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
                let stored = match self.tables.store() {
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
    /// (a person plays one game at a time; a bot, any number). Within tournament play's share
    /// of the server: every tournament's tables together, an organiser's tournaments'
    /// together, and (for the accounts' tournaments, not the admin's) the games started a
    /// minute (see [`Settings`]).
    fn make_more(&mut self, id: &str) {
        let Some(organiser) = self.live.get(id).map(|l| l.row.organiser.clone()) else { return };
        let in_play_all: usize = self.live.values().map(|l| l.in_play.len()).sum();
        let in_play_organiser: usize =
            self.live.values().filter(|l| l.row.organiser == organiser).map(|l| l.in_play.len()).sum();
        let mut room = (self.settings.max_tables_all as usize)
            .saturating_sub(in_play_all)
            .min((self.settings.max_tables as usize).saturating_sub(in_play_organiser));
        // The admin's games are not paced: its tournaments are the operator's own. The
        // accounts' tournaments with games to make share the pace evenly.
        let paced = !organiser.is_empty();
        let sharing = self
            .live
            .values()
            .filter(|l| !l.row.organiser.is_empty() && l.row.state == state::RUNNING && !l.waiting.is_empty())
            .count()
            .max(1);
        let share = f64::from(self.settings.games_per_minute) / sharing as f64;
        let Some(live) = self.live.get_mut(id) else { return };
        if paced {
            room = room.min(live.pace.room(share));
        }
        while room > 0 && live.in_play.len() < live.spec.tables as usize {
            let busy = live.people_in_play();
            let free = |n: &u32| {
                live.schedule.get(*n as usize).is_none_or(|g| g.seats.iter().all(|e| !busy.contains(e)))
            };
            let Some(number) = live.waiting.iter().copied().find(free) else { return };
            live.waiting.remove(&number);
            let Some(game) = live.schedule.get(number as usize).cloned() else { continue };
            live.in_play.insert(number, InPlay { made: None, lost: None });
            make(&self.tables, &self.tx, live, game);
            room -= 1;
            if paced {
                live.pace.take();
            }
        }
    }
}
