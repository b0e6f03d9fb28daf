//! The History service: finished games and ratings from the store.
//!
//! Only finished games are in the store's game records (a table writes one when its game
//! ends), so nothing here can show a game in progress to anyone. A replay shows what the
//! "replay" audience may see: every hidden fact (all the dice), nothing seat-private (what one
//! seat saw under a cup before a re-roll stays unseen, as at the table).

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::history_server::History;
use dudo_rules::Viewer;
use dudo_store::GameFilter;
use prost::Message;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::budget::Held;
use crate::convert;
use crate::node::{Dudo, UpdateStream};
use crate::status::{MAX_NAME_FIELD, bad_request, bounded, refused, status};
use crate::table::TableError;
use crate::table::record::summary_to_wire;
use crate::table::stored_record;

/// The largest stored record `GetReplay` answers in one message (a long game of six); a
/// larger one is streamed by `WatchReplay`. An answer waits whole in the transport until
/// the client reads it, outside the memory budget, so it is kept small.
const MAX_ONE_REPLY: usize = 64 * 1024;

/// Replays being made from their records at once, server-wide (each runs its game through
/// the engine on a blocking thread): one, so replays never take more than a core from play.
static REPLAYS_MADE_AT_ONCE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// The longest pause a replay stream makes, whatever the original pause was.
const MAX_PAUSE: Duration = Duration::from_secs(5);

fn store_error(e: dudo_store::StoreError) -> Status {
    tracing::error!(error = %e, "history query failed");
    Status::unavailable(format!("the server's database: {e}"))
}

impl Dudo {
    /// A finished game's replay, with only what a replay may show, and the memory budget it
    /// holds while it is read: the stored record and six times the whole replay it makes (the
    /// replay and its decoded form), counted against `reader`'s share.
    async fn replay(
        &self,
        game: &str,
        reader: Option<std::net::IpAddr>,
        one_reply: bool,
    ) -> Result<(pb::Replay, Held), Status> {
        let store = self.records()?;
        let budget = self.budget_for(reader);
        self.budget_room(&budget)?;
        let not_found = || {
            // Echoed cut short: an error's text travels in a header of bounded size.
            let shown: String = game.chars().take(64).collect();
            let trimmed = game.trim();
            // A table's id (32 hex digits) is not a game's: say what a game's id looks like.
            let why = if trimmed.len() == 32 && trimmed.bytes().all(|b| b.is_ascii_hexdigit()) {
                format!(
                    "that is a table's id; its games are {}-1, {}-2, … (`dudo history` lists them)",
                    &trimmed[..16],
                    &trimmed[..16]
                )
            } else {
                "games in progress are not replayed, nor games a reset cut short".to_string()
            };
            crate::status::refused(
                "no_such_game",
                Status::not_found(format!("no finished game {shown:?} ({why})")),
            )
        };
        // The rotations of a tournament's deal play the same dice: a record read while its
        // tournament runs would show cups another game still hides.
        if let Some(tournament) = store.tournament_of_game(game.trim()).await.map_err(store_error)? {
            return Err(refused(
                "tournament_running",
                Status::failed_precondition(format!(
                    "game {} is tournament {tournament}'s, which is still on: its record opens when the tournament ends (another game may be playing the same dice)",
                    game.trim()
                )),
            ));
        }
        // Judged by its size before it is read: a refusal costs the server next to nothing. A
        // compact record says in its first bytes how large the replay it makes is.
        let (stored, head) = store
            .record_head(game.trim(), stored_record::HEAD)
            .await
            .map_err(store_error)?
            .ok_or_else(not_found)?;
        let size = stored_record::whole_size(&head, stored);
        let too_large = |bytes: usize| {
            let shown: String = game.trim().chars().take(64).collect();
            refused(
                "replay_too_large",
                Status::failed_precondition(format!(
                    "game {shown}: its record is {} KiB, more than one answer carries ({} KiB): WatchReplay streams it",
                    bytes / 1024,
                    MAX_ONE_REPLY / 1024
                )),
            )
        };
        if one_reply && size > MAX_ONE_REPLY {
            return Err(too_large(size));
        }
        // Making a replay runs the game through the engine: one at a time for the whole
        // server, whoever asks. The turn and the memory are held by the work itself, so a
        // caller that gives up does not free them for another while it goes on; a caller
        // waiting its turn holds no memory yet.
        let turn = REPLAYS_MADE_AT_ONCE.acquire().await.map_err(|_| status(TableError::ServerBusy))?;
        // The stored record and the replay made from it (about five times its encoded size).
        let held = budget
            .hold(size.saturating_mul(6).saturating_add(stored))
            .ok_or_else(|| status(TableError::ServerBusy))?;
        let found = store.game(game.trim()).await.map_err(store_error)?.ok_or_else(not_found)?;
        let record = found.record;
        let made = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            (stored_record::decode(&record), held)
        });
        let (decoded, held) = made
            .await
            .map_err(|e| Status::internal(format!("game {game}: reading its record failed: {e}")))?;
        let mut replay =
            decoded.map_err(|e| Status::internal(format!("game {game}: its record cannot be read: {e}")))?;
        let mut events = Vec::with_capacity(replay.events.len());
        let mut times = Vec::with_capacity(replay.events.len());
        for (i, wire) in replay.events.into_iter().enumerate() {
            let shown = convert::event_from_wire(&wire).is_ok_and(|(_, e)| e.admits(Viewer::Replay, true));
            if shown {
                times.push(replay.event_unix_millis.get(i).copied().unwrap_or(0));
                events.push(wire);
            }
        }
        replay.events = events;
        replay.event_unix_millis = times;
        replay.tournament =
            store.tournament_of_record(game.trim()).await.map_err(store_error)?.unwrap_or_default();
        if one_reply && replay.encoded_len() > MAX_ONE_REPLY {
            return Err(too_large(replay.encoded_len()));
        }
        Ok((replay, held))
    }
}

/// The History service: a thin adapter over the node, which does the work.
pub struct HistoryService {
    node: Dudo,
}

impl HistoryService {
    pub fn new(node: Dudo) -> HistoryService {
        HistoryService { node }
    }
}

#[tonic::async_trait]
impl History for HistoryService {
    type WatchReplayStream = UpdateStream;

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        let reader = super::client_ip(&request);
        let req = request.into_inner();
        bounded("player", &req.player, MAX_NAME_FIELD)?;
        bounded("preset", &req.preset, MAX_NAME_FIELD)?;
        bounded("account", &req.account, MAX_NAME_FIELD)?;
        let millis = |t: Option<u64>, name: &str| {
            t.map(|t| i64::try_from(t).map_err(|_| bad_request(format!("{name}: out of range")))).transpose()
        };
        let filter = GameFilter {
            player: req.player.trim().to_string(),
            preset: req.preset.trim().to_string(),
            since: millis(req.since_unix_millis, "since_unix_millis")?,
            until: millis(req.until_unix_millis, "until_unix_millis")?,
            limit: req.limit,
            account: req.account.trim().to_string(),
        };
        let games = self.node.records()?.games(&filter).await.map_err(store_error)?;
        self.node
            .answer_held(pb::ListGamesResponse { games: games.iter().map(summary_to_wire).collect() }, reader)
    }

    async fn get_replay(&self, request: Request<pb::GameRef>) -> Result<Response<pb::Replay>, Status> {
        let reader = super::client_ip(&request);
        let (replay, _held) = self.node.replay(&request.get_ref().game, reader, true).await?;
        self.node.answer_held(replay, reader)
    }

    async fn watch_replay(
        &self,
        request: Request<pb::WatchReplayRequest>,
    ) -> Result<Response<Self::WatchReplayStream>, Status> {
        let slot = self.node.stream_slot(request.remote_addr())?;
        let reader = super::client_ip(&request);
        let req = request.into_inner();
        let speed = if req.speed == 0.0 { 1.0 } else { req.speed };
        if !(0.01..=1_000_000.0).contains(&speed) {
            return Err(bad_request(format!("speed: from 0.01 to 1000000, not {}", req.speed)));
        }
        let (replay, held) = self.node.replay(&req.game, reader, false).await?;
        let summary = replay.summary.clone().unwrap_or_default();
        let table = pb::TableInfo {
            id: summary.table_id.clone(),
            rules: replay.rules.clone(),
            seats: u32::try_from(summary.players.len()).unwrap_or(u32::MAX),
            players: summary
                .players
                .iter()
                .map(|p| pb::SeatInfo {
                    seat: p.seat,
                    name: p.name.clone(),
                    bot: p.bot.clone(),
                    account: p.account,
                    ..pb::SeatInfo::default()
                })
                .collect(),
            state: pb::TableState::Playing as i32,
            ..pb::TableInfo::default()
        };
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(async move {
            let _held = held;
            let update = |u| Ok(pb::PlayUpdate { update: Some(u) });
            if tx.send(update(pb::play_update::Update::Table(Box::new(table)))).await.is_err() {
                return;
            }
            // Each event is due at its time in the game, scaled; a wait under a millisecond
            // (the timer's grain) is not taken, so a fast replay comes as fast as it is read.
            let mut due = tokio::time::Instant::now();
            let mut last: Option<u64> = None;
            for (event, at) in replay.events.into_iter().zip(replay.event_unix_millis) {
                if let Some(before) = last {
                    let gap = Duration::try_from_secs_f64(at.saturating_sub(before) as f64 / 1000.0 / speed)
                        .map_or(MAX_PAUSE, |gap| gap.min(MAX_PAUSE));
                    due += gap;
                    let now = tokio::time::Instant::now();
                    if due > now + Duration::from_millis(1) {
                        tokio::time::sleep_until(due).await;
                    } else if due < now {
                        // Behind (the reader was slow): no catching up in a burst later.
                        due = now;
                    }
                }
                last = Some(at);
                if tx.send(update(pb::play_update::Update::Event(event))).await.is_err() {
                    return;
                }
            }
        });
        Ok(Response::new(self.node.stopping().ending(super::held(slot, ReceiverStream::new(rx)))))
    }

    async fn list_ratings(
        &self,
        request: Request<pb::ListRatingsRequest>,
    ) -> Result<Response<pb::ListRatingsResponse>, Status> {
        bounded("pool", &request.get_ref().pool, MAX_NAME_FIELD)?;
        let ratings =
            self.node.records()?.ratings(request.get_ref().pool.trim()).await.map_err(store_error)?;
        Ok(Response::new(pb::ListRatingsResponse {
            ratings: ratings
                .into_iter()
                .map(|r| pb::Rating {
                    pool: r.pool,
                    name: r.name,
                    rating: r.rating,
                    games: u64::try_from(r.games).unwrap_or(0),
                    wins: u64::try_from(r.wins).unwrap_or(0),
                })
                .collect(),
        }))
    }
}
