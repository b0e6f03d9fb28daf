//! The Ladder service: the pools, entering one (a stream of seats and results), the boards
//! and a player's rating history. The matchmaker itself is `crate::ladder`.

use dudo_proto::v1 as pb;
use dudo_proto::v1::ladder_client::LadderClient;
use dudo_proto::v1::ladder_server::Ladder;
use std::time::Instant;
use tonic::{Request, Response, Status};

use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use super::bearer;
use crate::accounts::AccountError;
use crate::table::SeatAccount;

use super::forward::from_peer;
use crate::ladder::{Command, ENTRANT_QUEUE, Entrant};
use crate::node::Dudo;
use crate::status::refused;

/// How long a bot check's claim holds unless renewed: it is renewed every
/// [`CHECK_CLAIM_RENEWED`] while the check runs, so a node that died mid-check leaves its
/// account waiting this long at most.
const CHECK_CLAIM_MILLIS: i64 = 60 * 1000;
const CHECK_CLAIM_RENEWED: std::time::Duration = std::time::Duration::from_secs(20);

/// A ladder entry's stream, as its service answers.
type LadderStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::LadderUpdate, Status>> + Send>>;

type CheckStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::CheckUpdate, Status>> + Send>>;

/// The Ladder service: a thin adapter over the node, which does the work.
pub struct LadderService {
    node: Dudo,
}

impl LadderService {
    pub fn new(node: Dudo) -> LadderService {
        LadderService { node }
    }
}

#[tonic::async_trait]
impl Ladder for LadderService {
    type EnterStream = LadderStream;
    type CheckStream = CheckStream;

    async fn check(&self, request: Request<pb::CheckRequest>) -> Result<Response<Self::CheckStream>, Status> {
        let handle = self.node.ladder_handle()?.clone();
        let token = bearer(&request).ok_or(AccountError::NoToken)?.to_string();
        let account = self.node.accounts().account_of_api_token(&token).await?;
        crate::status::bounded("pool", &request.get_ref().pool, crate::status::MAX_NAME_FIELD)?;
        let store = self.node.records()?.clone();
        let pool = match request.get_ref().pool.trim() {
            "" => handle.pools().first().cloned().ok_or_else(|| {
                refused("no_such_pool", Status::failed_precondition("this server has no pools"))
            })?,
            name => self.node.known_pool(name)?.clone(),
        };
        let slot = self.node.account_stream_slot(request.remote_addr(), &token)?;
        // One check an account at a time, across the cluster: claimed in the database.
        let claim = crate::table::secret();
        let now = crate::table::unix_millis();
        let claimed = store
            .claim_bot_check(&account.id, &claim, now, now.saturating_add(CHECK_CLAIM_MILLIS))
            .await
            .map_err(|e| Status::unavailable(format!("the server's database: {e}")))?;
        if !claimed {
            return Err(refused(
                "check_running",
                Status::failed_precondition("this account's bot check is running already (one at a time)"),
            ));
        }
        let (tx, rx) = mpsc::channel(16);
        let seat = SeatAccount { id: account.id.clone(), kind: crate::accounts::kind_to_wire(account.kind) };
        let dudo = self.node.clone();
        tracing::info!(account = %account.name, pool = %pool.name, "a bot check began");
        tokio::spawn(async move {
            let run = crate::ladder::check::run(dudo, pool, seat, account.name.clone(), tx.clone());
            tokio::pin!(run);
            let mut renew = tokio::time::interval(CHECK_CLAIM_RENEWED);
            renew.tick().await;
            let checked = loop {
                tokio::select! {
                    checked = &mut run => break checked,
                    _ = renew.tick() => {
                        let until = crate::table::unix_millis().saturating_add(CHECK_CLAIM_MILLIS);
                        if let Err(e) = store.renew_bot_check(&account.id, &claim, until).await {
                            tracing::warn!(error = %e, "a bot check's claim could not be renewed");
                        }
                    }
                }
            };
            if let Err(e) = store.release_bot_check(&account.id, &claim).await {
                tracing::warn!(error = %e, "a bot check's claim could not be let go of; it lapses");
            }
            let faults = checked.faults;
            let at = crate::table::unix_millis();
            if let Err(e) = store.record_bot_check(&account.id, at, faults.is_empty(), &faults).await {
                tracing::warn!(error = %e, "a bot check's outcome could not be stored");
            }
            tracing::info!(account = %account.name, passed = faults.is_empty(), "a bot check ended");
            let report = pb::CheckReport {
                passed: faults.is_empty(),
                faults,
                checked_unix_millis: u64::try_from(at).unwrap_or(0),
                prompts_met: checked.met,
                prompts_not_met: checked.not_met,
                actions_played: checked.played,
            };
            let _ =
                tx.send(Ok(pb::CheckUpdate { update: Some(pb::check_update::Update::Report(report)) })).await;
        });
        let updates = ReceiverStream::new(rx).map(|u| u.map_err(Status::from));
        Ok(Response::new(self.node.stopping().ending(super::held(slot, updates))))
    }

    async fn list_pools(
        &self,
        _: Request<pb::ListPoolsRequest>,
    ) -> Result<Response<pb::ListPoolsResponse>, Status> {
        let handle = self.node.ladder_handle()?;
        let pools = handle
            .pools()
            .iter()
            .map(|p| pb::LadderPool {
                name: p.name.clone(),
                rules: p.preset.clone(),
                seats: p.seats,
                move_millis: p.move_millis,
                max_games: p.max_games,
                bots: p.bots.clone(),
                call_window_millis: p.call_window_millis,
                time_bank_millis: p.time_bank_millis,
                fill_after_seconds: p.fill_after_seconds,
                bench_after_timeouts: p.bench_after_timeouts,
                bench_minutes: p.bench_minutes,
                players: p.players.as_str().into(),
                bot_think_millis: p.bot_think_millis,
            })
            .collect();
        Ok(Response::new(pb::ListPoolsResponse { pools }))
    }

    async fn enter(&self, request: Request<pb::EnterRequest>) -> Result<Response<Self::EnterStream>, Status> {
        let handle = self.node.ladder_handle()?.clone();
        let token = bearer(&request).ok_or(AccountError::NoToken)?.to_string();
        crate::status::bounded("pool", &request.get_ref().pool, crate::status::MAX_NAME_FIELD)?;
        let account = self.node.accounts().account_of_api_token(&token).await?;
        let slot = self.node.account_stream_slot(request.remote_addr(), &token)?;
        if let crate::node::cluster::Route::There(peer) =
            self.node.route_ladder(super::forward::forwarded(&request)).await?
        {
            let updates = LadderClient::new(peer)
                .enter(self.node.onward(request))
                .await
                .map_err(from_peer)?
                .into_inner();
            return Ok(Response::new(self.node.stopping().ending(super::held(slot, updates))));
        }
        let entered_from = request.remote_addr().map(|a| crate::address::of(a.ip()).to_string());
        let req = request.into_inner();
        let pool = self.node.known_pool(req.pool.trim())?;
        let kind = crate::accounts::kind_to_wire(account.kind);
        pool.players
            .admit(&pool.name, kind)
            .map_err(|why| refused("wrong_pool", Status::failed_precondition(why)))?;
        // Wherever bots may play, the check is asked of every account: a kind is declared.
        if pool.players.open_to_bots() {
            self.node.bot_check_passed(&account.id).await?;
        }
        let wants = if req.at_once == 0 { 1 } else { req.at_once };
        if wants > pool.max_games {
            return Err(refused(
                "bad_request",
                Status::invalid_argument(format!(
                    "at_once: at most {} at once in {}",
                    pool.max_games, pool.name
                )),
            ));
        }
        let store = self.node.records()?;
        let rating = store
            .ladder_rating(&pool.name, &account.name)
            .await
            .map_err(|e| Status::unavailable(format!("the server's database: {e}")))?;
        let (mu, score) = rating.map_or((25.0, 0.0), |r| (r.mu, r.score()));
        let (tx, rx) = mpsc::channel(ENTRANT_QUEUE);
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let entrant = Entrant {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            account: SeatAccount {
                id: account.id.clone(),
                kind: crate::accounts::kind_to_wire(account.kind),
            },
            name: account.name.clone(),
            token,
            mu,
            score,
            since: Instant::now(),
            wants,
            games_left: (req.games > 0).then_some(req.games),
            tx,
            told: std::cell::Cell::new(None),
            addresses: entered_from.into_iter().chain(account.registered_from.clone()).collect(),
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        handle
            .tx
            .send(Command::Enter { pool: pool.name.clone(), entrant, reply })
            .await
            .map_err(|_| Status::unavailable("the ladder has stopped"))?;
        answer.await.map_err(|_| Status::unavailable("the ladder has stopped"))??;
        tracing::info!(account = %account.name, pool = %pool.name, games = wants, "entered the ladder");
        let updates = ReceiverStream::new(rx).map(|u| u.map_err(Status::from));
        Ok(Response::new(self.node.stopping().ending(super::held(slot, updates))))
    }

    async fn leaderboard(
        &self,
        request: Request<pb::LeaderboardRequest>,
    ) -> Result<Response<pb::LeaderboardResponse>, Status> {
        let store = self.node.records()?;
        let reader = super::client_ip(&request);
        let req = request.into_inner();
        crate::status::bounded("pool", &req.pool, crate::status::MAX_NAME_FIELD)?;
        self.node.known_pool(req.pool.trim())?;
        let board = store
            .leaderboard(req.pool.trim(), req.limit)
            .await
            .map_err(|e| Status::unavailable(format!("the server's database: {e}")))?;
        let places = dudo_store::ladder::places(&board);
        let entries = board.iter().zip(places).map(|(rating, place)| entry_of(rating, place)).collect();
        self.node.answer_held(pb::LeaderboardResponse { entries }, reader)
    }

    async fn rating_history(
        &self,
        request: Request<pb::RatingHistoryRequest>,
    ) -> Result<Response<pb::RatingHistoryResponse>, Status> {
        let store = self.node.records()?;
        let reader = super::client_ip(&request);
        let req = request.into_inner();
        crate::status::bounded("pool", &req.pool, crate::status::MAX_NAME_FIELD)?;
        crate::status::bounded("name", &req.name, crate::status::MAX_NAME_FIELD)?;
        self.node.known_pool(req.pool.trim())?;
        let points = store
            .rating_history(req.pool.trim(), req.name.trim(), req.limit)
            .await
            .map_err(|e| Status::unavailable(format!("the server's database: {e}")))?;
        let points = points
            .into_iter()
            .map(|p| pb::RatingPoint {
                game: p.game,
                mu: p.mu,
                sigma: p.sigma,
                place: u32::try_from(p.place).unwrap_or(0),
                unix_millis: u64::try_from(p.at).unwrap_or(0),
            })
            .collect();
        self.node.answer_held(pb::RatingHistoryResponse { points }, reader)
    }
}

fn entry_of(r: &dudo_store::ladder::LadderRating, place: u32) -> pb::LeaderboardEntry {
    pb::LeaderboardEntry {
        name: r.name.clone(),
        kind: match r.kind.as_str() {
            "bot" => pb::AccountKind::Bot,
            "person" => pb::AccountKind::Person,
            _ => pb::AccountKind::None,
        } as i32,
        mu: r.mu,
        sigma: r.sigma,
        score: r.score(),
        games: u64::try_from(r.games).unwrap_or(0),
        wins: u64::try_from(r.wins).unwrap_or(0),
        provisional: r.games < dudo_store::ladder::SETTLED_AFTER,
        place,
    }
}
