//! The Tournaments service: making, listing and showing tournaments, entering one (a stream
//! of seats and results), the standings and the games. The director itself is
//! `crate::tournament`; what these calls read comes from the store, so any node answers them.

use std::collections::HashMap;
use std::sync::Arc;

use dudo_proto::v1 as pb;
use dudo_proto::v1::tournaments_client::TournamentsClient;
use dudo_proto::v1::tournaments_server::Tournaments;
use dudo_store::tournaments::{EntrantRow, ListFilter, TournamentRow};
use rand::Rng;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::bearer;
use super::forward::{forwarded, from_peer};
use crate::accounts::{AccountError, Caller};
use crate::node::Dudo;
use crate::node::cluster::Route;
use crate::status::{MAX_NAME_FIELD, bad_request, bounded, refused};
use crate::table::SeatAccount;
use crate::tournament::spec::{DEFAULT_LEAD_MILLIS, MAX_LEAD_MILLIS, Organisers};
use crate::tournament::{
    Command, ENTRANT_QUEUE, Entering, Spec, View, Views, no_such_tournament, now_millis, schedule_of, state,
    tournament_to_wire,
};

/// Tournaments a list shows by default, and at most.
const LIST: u32 = 50;
const LIST_MAX: u32 = 200;
/// Games a page of `Games` holds by default, and at most.
const GAMES_PAGE: u32 = 500;
const GAMES_PAGE_MAX: u32 = 2_000;

/// Tournaments whose views are kept at once.
const VIEWS_KEPT: usize = 32;

/// How a view may be served: the standings as made up to [`VIEW_FRESH`] ago, whatever ended
/// meanwhile; the games (a schedule a page at a time, for programs following it) as they are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    FreshEnough,
    AsItIs,
}

/// How long a running tournament's standings are served as they were made.
const VIEW_FRESH: std::time::Duration = std::time::Duration::from_secs(1);

pub(crate) type TournamentStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::TournamentUpdate, Status>> + Send>>;

fn store_error(e: dudo_store::StoreError) -> Status {
    Status::unavailable(format!("the server's database: {e}"))
}

/// A tournament's id: ten letters people can read aloud and type.
fn tournament_id() -> String {
    const LETTERS: &[u8] = b"abcdefghjkmnpqrstuvwxyz";
    let mut rng = rand::rng();
    (0..10).map(|_| char::from(LETTERS[rng.random_range(0..LETTERS.len())])).collect()
}

/// House entrants' names: the bot's kind, and "odds-2" for the second of a kind (as `dudo
/// arena` names its entrants, and as an export's verifier knows a built-in bot).
fn house_entrants(bots: &[String], at: i64) -> Vec<EntrantRow> {
    let mut rows: Vec<EntrantRow> = Vec::new();
    for bot in bots {
        let before = rows.iter().filter(|r| r.bot == *bot).count();
        let name = if before == 0 { bot.clone() } else { format!("{bot}-{}", before + 1) };
        rows.push(EntrantRow {
            number: rows.len() as u32,
            account: String::new(),
            name,
            kind: String::new(),
            bot: bot.clone(),
            entered_at: at,
            benched: String::new(),
        });
    }
    rows
}

impl Dudo {
    /// A stored tournament and its settings.
    async fn stored_tournament(&self, id: &str) -> Result<(TournamentRow, Spec), Status> {
        bounded("tournament", id, MAX_NAME_FIELD)?;
        let store = self.records()?;
        let row =
            store.tournament(id.trim()).await.map_err(store_error)?.ok_or_else(|| no_such_tournament(id))?;
        let spec: Spec = serde_json::from_str(&row.spec)
            .map_err(|e| Status::internal(format!("tournament {}: its settings: {e}", row.id)))?;
        Ok((row, spec))
    }

    /// A tournament's schedule as far as it is seated, each game's end and id, and the
    /// standings: made once for each state of the tournament's games (kept while no game is
    /// made or ends), and one at a time, so a crowd asking for a large tournament's
    /// standings waits its turn instead of taking every core.
    async fn tournament_view(
        &self,
        row: &TournamentRow,
        spec: &Spec,
        entrants: usize,
        read: Read,
    ) -> Result<Arc<View>, Status> {
        let store = self.records()?;
        let handle = self.tournaments()?.clone();
        if row.state == state::ENTRY || entrants == 0 {
            return Ok(Arc::new(View::default()));
        }
        let fresh = |views: &Views| {
            views
                .get(&row.id)
                .filter(|((state, _), v)| {
                    *state == row.state && v.made.is_some_and(|m| m.elapsed() < VIEW_FRESH)
                })
                .map(|(_, v)| Arc::clone(v))
        };
        if read == Read::FreshEnough
            && let Some(view) = handle.views.lock().ok().and_then(|v| fresh(&v))
        {
            return Ok(view);
        }
        let progress = store.tournament_progress(&row.id).await.map_err(store_error)?;
        let key = (row.state.clone(), progress);
        let cached =
            |views: &Views| views.get(&row.id).filter(|(k, _)| *k == key).map(|(_, v)| Arc::clone(v));
        if let Some(view) = handle.views.lock().ok().and_then(|v| cached(&v)) {
            return Ok(view);
        }
        let _turn =
            handle.work.acquire().await.map_err(|_| Status::unavailable("the tournaments have stopped"))?;
        if let Some(view) = handle.views.lock().ok().and_then(|v| cached(&v)) {
            return Ok(view);
        }
        let rows = store.tournament_games(&row.id, None, u32::MAX).await.map_err(store_error)?;
        let mut ended = HashMap::new();
        let mut ids = HashMap::new();
        for r in rows {
            if let Some(f) = r.finish {
                ended.insert(r.number, f);
            }
            ids.insert(r.number, r.game);
        }
        let (spec, seed, id) = (spec.clone(), row.seed, row.id.clone());
        // Pure work, up to a large schedule's: off the runtime's threads.
        let view = tokio::task::spawn_blocking(move || -> Result<View, String> {
            let scheduled = schedule_of(&spec, entrants, seed, &ended).map_err(|e| e.to_string())?;
            let done = crate::tournament::finishes(&scheduled.games, &scheduled.finished);
            let standings =
                dudo_tournament::standings::standings(entrants, &done).map_err(|e| e.to_string())?;
            let made = Some(std::time::Instant::now());
            Ok(View { scheduled, ids, standings, finished: done.len() as u64, made })
        })
        .await
        .map_err(|_| Status::internal("the schedule could not be made"))?
        .map_err(|e| Status::internal(format!("tournament {id}: {e}")))?;
        let view = Arc::new(view);
        if let Ok(mut views) = handle.views.lock() {
            // A few tournaments' views are kept: the ones being asked about.
            if views.len() >= VIEWS_KEPT {
                views.clear();
            }
            views.insert(row.id.clone(), (key, Arc::clone(&view)));
        }
        Ok(view)
    }

    /// Where a call for the director goes: this node, or the one holding the ladder's job.
    async fn director(&self, forwarded: bool) -> Result<Option<tonic::transport::Channel>, Status> {
        Ok(match self.route_ladder(forwarded).await? {
            Route::Here => None,
            Route::There(peer) => Some(peer),
        })
    }
}

/// A list request's filter, checked: each field bounded, the cursor one this server gave.
fn list_filter(req: &pb::ListTournamentsRequest) -> Result<ListFilter, Status> {
    bounded("organiser", &req.organiser, MAX_NAME_FIELD)?;
    bounded("name", &req.name, crate::tournament::spec::MAX_NAME)?;
    bounded("after", &req.after, 128)?;
    if req.states.len() > 4 {
        return Err(bad_request("states: at most the 4 states"));
    }
    let mut states = Vec::new();
    for &s in &req.states {
        let name = match pb::TournamentState::try_from(s) {
            Ok(pb::TournamentState::Entry) => state::ENTRY,
            Ok(pb::TournamentState::Running) => state::RUNNING,
            Ok(pb::TournamentState::Finished) => state::FINISHED,
            Ok(pb::TournamentState::Cancelled) => state::CANCELLED,
            _ => return Err(bad_request(format!("states: no state {s}"))),
        };
        states.push(name.to_string());
    }
    let organiser = match req.organiser.trim() {
        "" => None,
        // The admin organises under no account's name.
        name if name.eq_ignore_ascii_case("admin") => Some(String::new()),
        name => Some(name.to_string()),
    };
    let name = Some(req.name.trim().to_string()).filter(|n| !n.is_empty());
    let after = match req.after.trim() {
        "" => None,
        cursor => {
            let parsed =
                cursor.split_once('.').and_then(|(at, id)| Some((at.parse::<i64>().ok()?, id.to_string())));
            Some(parsed.ok_or_else(|| bad_request("after: not a cursor (a list's `next`: TIME.ID)"))?)
        }
    };
    Ok(ListFilter { states, organiser, name, after })
}

/// The Tournaments service: a thin adapter over the node, which does the work.
pub struct TournamentsService {
    node: Dudo,
}

impl TournamentsService {
    pub fn new(node: Dudo) -> TournamentsService {
        TournamentsService { node }
    }
}

#[tonic::async_trait]
impl Tournaments for TournamentsService {
    type EnterStream = TournamentStream;

    async fn create(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::Tournament>, Status> {
        let handle = self.node.tournaments()?.clone();
        let caller = self.node.accounts().caller(super::bearer(&request)).await?;
        let director = self.node.director(forwarded(&request)).await?;
        self.node
            .served(director, request, |request| async move {
        let (organiser, organiser_name) = match &caller {
            // No account's name: an account called "admin" is not the admin.
            Caller::Admin => (String::new(), String::new()),
            Caller::Account(_) if handle.settings.organisers == Organisers::Admin => {
                return Err(refused(
                    "not_admin",
                    Status::permission_denied(
                        "only the server's admin may make tournaments here (its operator can allow any account: dudo-server --tournaments anyone)",
                    ),
                ));
            }
            Caller::Account(a) => (a.id.clone(), a.name.clone()),
        };
        let store = self.node.records()?;
        let pools = self.node.ladder().map(|l| l.pools().to_vec()).unwrap_or_default();
        let ip = super::client_ip(&request);
        let req = request.into_inner();
        if !req.rating_pool.trim().is_empty() && !matches!(caller, Caller::Admin) {
            // Games an organiser seats against the house bots of its choice would be ratings
            // it chose too.
            return Err(refused(
                "not_admin",
                Status::permission_denied(
                    "rating_pool: only the server's admin may count a tournament for a ladder pool",
                ),
            ));
        }
        let spec = Spec::from_request(&req, &handle.settings, &pools)?;
        // An organiser's count of open tournaments and its new one are one step.
        let _making = handle.making.lock().await;
        let now = now_millis();
        let starts_at = match req.starts_unix_millis {
            0 => now.saturating_add(DEFAULT_LEAD_MILLIS as i64),
            at => {
                let at = i64::try_from(at).unwrap_or(i64::MAX);
                if at < now - 60_000 || at > now.saturating_add(MAX_LEAD_MILLIS as i64) {
                    return Err(bad_request(format!(
                        "starts_unix_millis: from now to {} days ahead",
                        MAX_LEAD_MILLIS / 86_400_000
                    )));
                }
                at
            }
        };
        if req.seed.is_some() && !matches!(caller, Caller::Admin) {
            return Err(refused(
                "not_admin",
                Status::permission_denied("seed: only the server's admin may choose a tournament's seed"),
            ));
        }
        if !organiser.is_empty() {
            let per_hour = handle.settings.per_hour;
            let too_many = |who: &str| {
                crate::refusal::refused(
                    "too_many_tournaments",
                    crate::refusal::Refusal::resource_exhausted(format!(
                        "{who} may make {per_hour} tournaments an hour here; try again later"
                    )),
                )
            };
            let hour_ago = now.saturating_sub(3_600_000);
            let made = store.tournaments_made_since(&organiser, hour_ago).await.map_err(store_error)?;
            if made >= u64::from(per_hour) {
                return Err(too_many("an account").into());
            }
            let open = store.open_tournaments_of(&organiser).await.map_err(store_error)?;
            if open >= u64::from(handle.settings.per_organiser) {
                return Err(refused(
                    "too_many_tournaments",
                    Status::resource_exhausted(format!(
                        "an organiser may have {} tournaments taking entries or running at once; wait for one to end or cancel one",
                        handle.settings.per_organiser
                    )),
                ));
            }
            // Counted last, when nothing else refuses it (and given back if the store does).
            if let Err(wait) = handle.made_by_address.count(ip, per_hour) {
                // The address's hour ends after `wait`: said as a rate limit's wait is.
                let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
                return Err(too_many("an address").retry_after(millis).into());
            }
        }
        let (seed, salt): (u64, [u8; 16]) = {
            let mut rng = rand::rng();
            (req.seed.unwrap_or_else(|| rng.random()), rng.random())
        };
        let spec_text = serde_json::to_string(&spec).map_err(|e| Status::internal(e.to_string()))?;
        let mut row = TournamentRow {
            id: tournament_id(),
            name: req.name.trim().to_string(),
            organiser,
            organiser_name,
            spec: spec_text,
            state: state::ENTRY.into(),
            seed,
            salt: dudo_rules::proof::hex(&salt),
            created_at: now,
            starts_at,
            ended_at: 0,
            why: String::new(),
            seat_key: crate::table::secret(),
        };
        let house = house_entrants(&spec.house_bots, now);
        if let Err(e) = store.create_tournament(&row, &house).await {
            // Ten letters drawn again: two alike is next to impossible, but not an error.
            row.id = tournament_id();
            if store.create_tournament(&row, &house).await.is_err() {
                if !row.organiser.is_empty() {
                    handle.made_by_address.uncount(ip);
                }
                return Err(store_error(e));
            }
        }
        tracing::info!(tournament = %row.id, name = %row.name, organiser = %row.organiser_name, "a tournament was made");
        let shown = tournament_to_wire(&row, &spec, &house, 0);
        let _ = handle.tx.send(Command::Created { row }).await;
        Ok(Response::new(shown))
            })
            .await
    }

    async fn list(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let store = self.node.records()?;
        let req = request.into_inner();
        let limit = match req.limit {
            0 => LIST,
            n => n.min(LIST_MAX),
        };
        let filter = list_filter(&req)?;
        // One query, its counts with it: a list is anyone's to ask for.
        // One more than the page: whether there is a next one.
        let mut listed = store.tournaments(&filter, limit + 1).await.map_err(store_error)?;
        let more = listed.len() > limit as usize;
        listed.truncate(limit as usize);
        let next = match listed.last() {
            Some(last) if more => format!("{}.{}", last.row.created_at, last.row.id),
            _ => String::new(),
        };
        let mut tournaments = Vec::with_capacity(listed.len());
        for l in listed {
            let Ok(spec) = serde_json::from_str::<Spec>(&l.row.spec) else { continue };
            // A list says how many entered (`entered`); `Show` says who.
            let mut t = tournament_to_wire(&l.row, &spec, &[], l.finished);
            t.entered = u32::try_from(l.entered).unwrap_or(u32::MAX);
            t.games = crate::tournament::games_of(&l.row, &spec, l.entered as usize);
            tournaments.push(t);
        }
        Ok(Response::new(pb::ListTournamentsResponse { tournaments, next }))
    }

    async fn show(&self, request: Request<pb::TournamentRef>) -> Result<Response<pb::Tournament>, Status> {
        let (row, spec) = self.node.stored_tournament(&request.get_ref().tournament).await?;
        let store = self.node.records()?;
        let entrants = store.entrants(&row.id).await.map_err(store_error)?;
        let finished = store.tournament_finished_games(&row.id).await.map_err(store_error)?;
        Ok(Response::new(tournament_to_wire(&row, &spec, &entrants, finished)))
    }

    async fn enter(
        &self,
        request: Request<pb::TournamentRef>,
    ) -> Result<Response<Self::EnterStream>, Status> {
        let handle = self.node.tournaments()?.clone();
        let token = bearer(&request).ok_or(AccountError::NoToken)?.to_string();
        if self.node.accounts().settings.is_admin(Some(&token)) {
            return Err(refused(
                "not_an_account",
                Status::permission_denied(
                    "the admin does not enter tournaments: enter with an account's API token",
                ),
            ));
        }
        let account = self.node.accounts().account_of_api_token(&token).await?;
        bounded("tournament", &request.get_ref().tournament, MAX_NAME_FIELD)?;
        let slot = self.node.account_stream_slot(request.remote_addr(), &token)?;
        if let Some(peer) = self.node.director(forwarded(&request)).await? {
            let updates = TournamentsClient::new(peer)
                .enter(self.node.onward(request))
                .await
                .map_err(from_peer)?
                .into_inner();
            return Ok(Response::new(self.node.stopping().ending(super::held(slot, updates))));
        }
        self.node.bot_check_passed(&account.id).await?;
        let tournament = request.into_inner().tournament.trim().to_string();
        let (tx, rx) = mpsc::channel(ENTRANT_QUEUE);
        let entering = Entering {
            account: SeatAccount {
                id: account.id.clone(),
                kind: crate::accounts::kind_to_wire(account.kind),
            },
            name: account.name.clone(),
            tx,
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        handle
            .tx
            .send(Command::Enter { tournament: tournament.clone(), entering, reply })
            .await
            .map_err(|_| Status::unavailable("the tournaments have stopped"))?;
        answer.await.map_err(|_| Status::unavailable("the tournaments have stopped"))??;
        tracing::info!(account = %account.name, tournament = %tournament, "entered a tournament");
        let updates = ReceiverStream::new(rx).map(|u| u.map_err(Status::from));
        Ok(Response::new(self.node.stopping().ending(super::held(slot, updates))))
    }

    async fn standings(
        &self,
        request: Request<pb::TournamentRef>,
    ) -> Result<Response<pb::TournamentStandings>, Status> {
        // One address's readers wait behind each other, not in front of everyone.
        let _turn = self.node.tournaments()?.readers.turn(super::client_ip(&request)).await?;
        let (row, spec) = self.node.stored_tournament(&request.get_ref().tournament).await?;
        let store = self.node.records()?;
        let entrants = store.entrants(&row.id).await.map_err(store_error)?;
        let view = self.node.tournament_view(&row, &spec, entrants.len(), Read::FreshEnough).await?;
        let (standings, games) = (&view.standings, view.finished);
        let name = |e: usize| entrants.get(e).map(|r| r.name.clone()).unwrap_or_default();
        let mut reply = dudo_proto::convert::standings_to_wire(standings, games, name);
        for standing in &mut reply.entrants {
            if let Some(row) = entrants.get(standing.entrant as usize) {
                standing.benched.clone_from(&row.benched);
            }
        }
        Ok(Response::new(reply))
    }

    async fn games(
        &self,
        request: Request<pb::TournamentGamesRequest>,
    ) -> Result<Response<pb::TournamentGamesResponse>, Status> {
        let _turn = self.node.tournaments()?.readers.turn(super::client_ip(&request)).await?;
        let (row, spec) = self.node.stored_tournament(&request.get_ref().tournament).await?;
        let store = self.node.records()?;
        let entrants = store.entrants(&row.id).await.map_err(store_error)?;
        let view = self.node.tournament_view(&row, &spec, entrants.len(), Read::AsItIs).await?;
        let (schedule, finished, ids) = (&view.scheduled.games, &view.scheduled.finished, &view.ids);
        let req = request.into_inner();
        let limit = match req.limit {
            0 => GAMES_PAGE,
            n => n.min(GAMES_PAGE_MAX),
        } as usize;
        let ended = row.state == state::FINISHED || row.state == state::CANCELLED;
        let from = req.after.map_or(0, |a| a as usize + 1);
        let games = schedule
            .iter()
            .zip(finished)
            .skip(from)
            .take(limit)
            .map(|(g, f)| pb::TournamentGame {
                number: g.number,
                round: g.round,
                table_number: g.table,
                deal: g.deal,
                seats: g.seats.iter().map(|&e| e as u32).collect(),
                seed: ended.then_some(g.seed),
                game: ids.get(&g.number).cloned().unwrap_or_default(),
                finish: f.iter().flatten().map(|&e| e as u32).collect(),
            })
            .collect();
        Ok(Response::new(pb::TournamentGamesResponse { games }))
    }

    async fn cancel(&self, request: Request<pb::TournamentRef>) -> Result<Response<pb::Tournament>, Status> {
        let handle = self.node.tournaments()?.clone();
        let caller = self.node.accounts().caller(super::bearer(&request)).await?;
        bounded("tournament", &request.get_ref().tournament, MAX_NAME_FIELD)?;
        let director = self.node.director(forwarded(&request)).await?;
        self.node
            .served(director, request, |request| async move {
                let by = match caller {
                    Caller::Admin => None,
                    Caller::Account(a) => Some(a.id),
                };
                let tournament = request.into_inner().tournament.trim().to_string();
                let (reply, answer) = tokio::sync::oneshot::channel();
                handle
                    .tx
                    .send(Command::Cancel { tournament, by, reply })
                    .await
                    .map_err(|_| Status::unavailable("the tournaments have stopped"))?;
                let row = answer.await.map_err(|_| Status::unavailable("the tournaments have stopped"))??;
                let (row, spec) = self.node.stored_tournament(&row.id).await?;
                let store = self.node.records()?;
                let entrants = store.entrants(&row.id).await.map_err(store_error)?;
                let finished = store.tournament_finished_games(&row.id).await.map_err(store_error)?;
                Ok(Response::new(tournament_to_wire(&row, &spec, &entrants, finished)))
            })
            .await
    }
}
