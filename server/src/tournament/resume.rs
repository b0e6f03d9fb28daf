//! Carrying a running tournament on after a restart (or after the director moved to another
//! node of a cluster), and finding a game's table again when its watch ended early.
//!
//! One table a game, always. A game whose end is stored counts. One whose table was made
//! is looked for where it is now: a restart brings its table back from the journal, and a
//! cluster's node adopts it, so the game is carried on where it was, with the same seats and
//! tokens (see `tables::game_tokens`), never made a second time beside it. Only a table
//! that is gone for good (closed, or never written) is given up: its game is read from its
//! record if it has one, or else played again from its first move on a new table. Every
//! game id a tournament's tables began stays closed until the tournament ends
//! (`tournament_records`), whatever became of its table.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_tournament::Game;
use tokio_stream::StreamExt;

use super::director::Director;
use super::live::{InPlay, Live, Scheduled, Seated, schedule_of};
use super::tables::{close_for_good, game_tokens, watch};
use crate::server_tables::{Found, ServerTables};

/// How long a game's table may be open in the store with no node holding it (a node that
/// could not rebuild it, a journal a later version must read) before its game is played
/// again on a new table: several of a cluster's leases, and more than a restart takes.
const LOST_FOR_GOOD: Duration = Duration::from_secs(60);

impl<T: ServerTables> Director<T> {
    /// Makes a running tournament's schedule again and finds where it was: games whose end
    /// is stored count; one whose record is stored but not its end (the server stopped in
    /// between) is read back from the record; one whose table was made is looked for (it is
    /// carried on there); the rest are made.
    pub(super) async fn resume(
        &self,
        store: &dudo_store::Store,
        live: &mut Live,
    ) -> Result<(), dudo_store::StoreError> {
        let rows = store.tournament_games(&live.row.id, None, u32::MAX).await?;
        let mut ended: HashMap<u32, Vec<usize>> = HashMap::new();
        let mut made: HashMap<u32, (String, String)> = HashMap::new();
        for row in rows {
            match row.finish {
                Some(finish) => {
                    ended.insert(row.number, finish);
                }
                None => {
                    made.insert(row.number, (row.table, row.game));
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
                let Some((_, game)) = made.get(&g.number) else { continue };
                if let Some(record) = store.game(game).await?
                    && let Some(finish) = finish_from_record(&record.summary, &g.seats)
                {
                    store.tournament_game_finished(&live.row.id, g.number, &finish).await?;
                    made.remove(&g.number);
                    ended.insert(g.number, finish);
                    found = true;
                }
            }
            if found {
                continue;
            }
            let now = Instant::now();
            for (g, _) in schedule.iter().zip(&finished).filter(|(_, f)| f.is_none()) {
                match made.remove(&g.number) {
                    Some((table, _)) => {
                        let seated = seated_again(live, g, table);
                        live.in_play.insert(g.number, InPlay { made: Some(seated), lost: Some(now) });
                    }
                    None => {
                        live.waiting.insert(g.number);
                    }
                }
            }
            live.schedule = schedule;
            live.finished = finished;
            // Tables of games that have ended, left open by a stop between a game's end and
            // its table's closing: closed now, for good.
            for (number, table) in store.open_tables_of_tournament(&live.row.id).await? {
                if ended.contains_key(&number) {
                    close_for_good(&self.tables, &live.row, number, &table).await;
                }
            }
            return Ok(());
        }
    }

    /// Looks for the tables of a tournament's games whose watch ended early: one found open
    /// is watched again and its entrants told their seats again; one not held by any node
    /// yet is looked for at the next tick (for at most [`LOST_FOR_GOOD`]); one gone for good
    /// is read from its record or played again.
    pub(super) async fn find_lost(&mut self, id: &str) {
        let Some(live) = self.live.get(id) else { return };
        let lost: Vec<(u32, String, Instant)> = live
            .in_play
            .iter()
            .filter_map(|(&n, p)| Some((n, p.made.as_ref()?.table.clone(), p.lost?)))
            .collect();
        for (number, table, since) in lost {
            let found = self.tables.find_anywhere(&table).await;
            let Some(live) = self.live.get_mut(id) else { return };
            let Some(game) = live.schedule.get(number as usize).cloned() else { continue };
            match found {
                Found::Open(mut updates) => {
                    // A table made but not started when the server stopped: nobody saw its
                    // dice, and nothing would start it. It goes, and the game is made again.
                    let first = tokio::time::timeout(Duration::from_secs(5), updates.next()).await;
                    let Ok(Some(Ok(first))) = first else {
                        // No word from it (a loaded node, a table changing hands): looked
                        // for again at the next tick, never given up on for that.
                        continue;
                    };
                    let unstarted = matches!(
                        &first.update,
                        Some(pb::play_update::Update::Snapshot(s)) if s.view.is_none()
                    );
                    if unstarted {
                        let row = live.row.clone();
                        live.in_play.remove(&number);
                        live.waiting.insert(number);
                        drop(updates);
                        close_for_good(&self.tables, &row, number, &table).await;
                        continue;
                    }
                    let updates: crate::server_tables::UpdateStream =
                        Box::pin(tokio_stream::once(Ok(first)).chain(updates));
                    let Some(in_play) = live.in_play.get_mut(&number) else { continue };
                    in_play.lost = None;
                    let Some(seated) = &live.in_play.get(&number).and_then(|p| p.made.as_ref()) else {
                        continue;
                    };
                    let table = (seated.table.clone(), seated.host_token.clone());
                    live.seated(number, seated);
                    let forfeit = live.forfeit_seats(number);
                    tracing::info!(tournament = %id, game = number, table = %table.0, "a tournament game is carried on at its table");
                    watch(&self.tables, &self.tx, id, game, forfeit, table, updates);
                }
                Found::NotYet if since.elapsed() < LOST_FOR_GOOD => {}
                Found::NotYet | Found::Gone => {
                    let Some(store) = self.tables.store().cloned() else { continue };
                    if matches!(found, Found::NotYet) {
                        // Never to be brought back beside the game's new table.
                        let _ = store.close_table(&table, super::now_millis()).await;
                    }
                    let game_id = crate::table::game_id(&table, 1);
                    let finish = match store.game(&game_id).await {
                        Ok(Some(record)) => finish_from_record(&record.summary, &game.seats),
                        _ => None,
                    };
                    let Some(live) = self.live.get_mut(id) else { return };
                    live.in_play.remove(&number);
                    match finish {
                        Some(finish) if store.tournament_game_finished(id, number, &finish).await.is_ok() => {
                            live.count_finish(number, &table, finish);
                        }
                        _ => {
                            tracing::warn!(tournament = %id, game = number, table = %table, "a tournament game's table is gone; the game is played again on a new one");
                            live.waiting.insert(number);
                        }
                    }
                }
            }
        }
    }
}

/// A game's table as the director knew it, made again from what the store keeps.
fn seated_again(live: &Live, game: &Game, table: String) -> Seated {
    let tokens = game_tokens(&live.row, game.number, game.seats.len());
    Seated {
        table,
        // A house bot's seat has no token to tell.
        tokens: game
            .seats
            .iter()
            .zip(tokens.seats)
            .map(|(&e, t)| t.filter(|_| live.entrants.get(e).is_some_and(|r| !r.account.is_empty())))
            .collect(),
        host_token: tokens.host,
    }
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
