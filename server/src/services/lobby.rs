//! The Lobby service: making, finding, joining, hosting and closing tables. Each call
//! checks its request, then asks the node (and through it the table's task).

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::lobby_server::Lobby;
use dudo_rules::game::seats_allowed;
use dudo_rules::presets;
use tonic::{Request, Response, Status};

use super::forward::{ForTable, copy, forwarded};
use super::token_of;
use crate::convert;
use crate::node::{DefaultClock, Dudo, NewTable};
use crate::status::{MAX_NAME_FIELD, bad_request, bounded, check_settings, status};
use crate::table::{self, Command};

/// Tables a list page holds unless asked for fewer, and at most.
const LIST_PAGE: usize = 50;
const LIST_PAGE_MAX: usize = 200;

/// A bot that thinks longer than this only stalls its table.
const MAX_BOT_THINK_MILLIS: u32 = 10_000;
/// Bots that pause (rather than move at once) pause at least this long: a table of bots a
/// millisecond apart would only burn the server.
const MIN_BOT_THINK_MILLIS: u32 = 10;
/// A call window for people: long enough to see the claim and decide.
const DEFAULT_CALL_WINDOW_MILLIS: u32 = 3_000;
const MIN_CALL_WINDOW_MILLIS: u32 = 100;
const MAX_CALL_WINDOW_MILLIS: u32 = 60_000;
/// The shortest move clock: shorter than a network round trip is no clock for people.
const MIN_MOVE_MILLIS: u32 = 100;
/// The longest move clock or time bank: a day.
const MAX_CLOCK_MILLIS: u32 = 86_400_000;

/// The Lobby service: a thin adapter over the node, which does the work.
pub struct LobbyService {
    node: Dudo,
}

impl LobbyService {
    pub fn new(node: Dudo) -> LobbyService {
        LobbyService { node }
    }

    /// A call on a table by the caller's token (the host's or a seat's, as the table checks):
    /// the table as the command left it.
    async fn by_token(
        &self,
        request: Request<pb::TableRef>,
        command: impl FnOnce(String, table::Answer) -> Command + Send,
    ) -> Result<Response<pb::TableInfo>, Status> {
        self.node
            .at_table(request, |request| async move {
                let token = token_of(&request)?;
                let handle = self.node.find(&request.get_ref().table)?;
                Ok(Response::new(self.node.command(&handle, |reply| command(token, reply)).await?))
            })
            .await
    }

    /// The host's call on one of the table's seats (remove, revoke its link, mute).
    async fn on_seat<R: ForSeat>(
        &self,
        request: Request<R>,
        command: impl FnOnce(String, usize, table::Answer) -> Command + Send,
    ) -> Result<Response<pb::TableInfo>, Status> {
        self.node
            .at_table(request, |request| async move {
                let token = token_of(&request)?;
                let handle = self.node.find(request.get_ref().table())?;
                let seat = usize::try_from(request.get_ref().seat())
                    .map_err(|_| bad_request("seat: out of range"))?;
                Ok(Response::new(self.node.command(&handle, |reply| command(token, seat, reply)).await?))
            })
            .await
    }
}

/// A request naming one seat of a table.
trait ForSeat: ForTable + prost::Message + Send + Sync + 'static {
    fn seat(&self) -> u32;
}

impl ForSeat for pb::RemovePlayerRequest {
    fn seat(&self) -> u32 {
        self.seat
    }
}

impl ForSeat for pb::MuteSeatRequest {
    fn seat(&self) -> u32 {
        self.seat
    }
}

#[tonic::async_trait]
impl Lobby for LobbyService {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<pb::Joined>, Status> {
        // In a cluster, a node with fewer tables makes it (served here if it cannot be reached).
        if let Some(peer) = self.node.placement(forwarded(&request)).await {
            match LobbyClient::new(peer).create_table(self.node.onward(copy(&request))).await {
                Err(e)
                    if e.code() == tonic::Code::Unavailable
                        && e.metadata().get(crate::status::CODE_KEY).is_none() =>
                {
                    tracing::warn!(error = %e, "the node with fewest tables did not answer; the table is made here");
                }
                answered => return answered,
            }
        }
        let ip = super::client_ip(&request);
        table::seats::seat_name(&request.get_ref().name).map_err(status)?;
        let (name, account) =
            self.node.accounts().seat_account(super::bearer(&request), &request.get_ref().name).await?;
        let req = request.into_inner();
        bounded("preset", &req.preset, MAX_NAME_FIELD)?;
        bounded("rating_pool", &req.rating_pool, MAX_NAME_FIELD)?;
        if let Some(rules) = &req.rules {
            bounded("rules.name", &rules.name, MAX_NAME_FIELD)?;
        }
        check_settings(req.settings.iter().map(|s| (s.path.as_str(), s.value.as_str())))?;
        let mut rules = match &req.rules {
            Some(_) if !req.preset.is_empty() => {
                return Err(bad_request("rules: give a preset or a whole rule set, not both"));
            }
            Some(wire) => {
                let rules = convert::rules_from_wire(wire).map_err(|e| bad_request(format!("rules: {e}")))?;
                rules.validate().map_err(|e| bad_request(format!("rules: {e}")))?;
                rules
            }
            None => {
                let preset = if req.preset.is_empty() { "fibbing" } else { req.preset.as_str() };
                presets::by_name(preset).ok_or_else(|| {
                    bad_request(format!(
                        "preset: no preset {preset:?}; the presets are {}",
                        presets::NAMES.join(", ")
                    ))
                })?
            }
        };
        for setting in &req.settings {
            rules = presets::with_setting(rules, &setting.path, &setting.value)
                .map_err(|e| bad_request(e.to_string()))?;
        }
        let seats = if req.seats == 0 { u32::from(rules.players.min) } else { req.seats };
        if seats < u32::from(rules.players.min) || seats > u32::from(rules.players.max) {
            let allowed = seats_allowed(usize::from(rules.players.min), usize::from(rules.players.max));
            return Err(bad_request(format!("seats: this rule set seats {allowed}, not {seats}")));
        }
        let pacing = pacing(&req, self.node.limits.default_clock)?;
        let new = NewTable {
            rules,
            seats: seats as usize,
            seed: req.seed,
            pacing,
            rating_pool: req.rating_pool.trim().to_string(),
            host_only: req.host_only,
            spectators_chat: req.spectators_chat,
            name,
            account,
        };
        Ok(Response::new(self.node.make_table(new, ip).await?))
    }

    async fn join_table(
        &self,
        request: Request<pb::JoinTableRequest>,
    ) -> Result<Response<pb::Joined>, Status> {
        self.node
            .at_table(request, |request| async move {
                // A seat's rejoin link: the seat it is for, on this device. The whole link
                // pasted as the table carries its secret too: it takes the seat back, as it
                // would in a browser, rather than a seat of its own.
                let asked = request.get_ref();
                let pasted = dudo_proto::link::rejoin(&asked.table).map(str::to_string);
                if pasted.as_ref().is_some_and(|p| !asked.rejoin.is_empty() && *p != asked.rejoin) {
                    return Err(bad_request(
                        "rejoin: the link given as table carries another secret; give one",
                    ));
                }
                if let Some(secret) = pasted.or_else(|| Some(asked.rejoin.clone()).filter(|r| !r.is_empty()))
                {
                    let req = request.into_inner();
                    bounded("rejoin", &secret, MAX_NAME_FIELD)?;
                    let handle = self.node.find(&req.table)?;
                    let (seat, token, info) =
                        self.node.command(&handle, |reply| Command::Rejoin { secret, reply }).await?;
                    return Ok(Response::new(pb::Joined {
                        table: Some(info),
                        seat: u32::try_from(seat).unwrap_or(u32::MAX),
                        token,
                        seated: true,
                    }));
                }
                let (name, account) = self
                    .node
                    .accounts()
                    .seat_account(super::bearer(&request), &request.get_ref().name)
                    .await?;
                let handle = self.node.find(&request.get_ref().table)?;
                let (seat, token, info) = self
                    .node
                    .command(&handle, |reply| Command::Join { name, account, token: None, reply })
                    .await?;
                Ok(Response::new(pb::Joined { table: Some(info), seat: seat as u32, token, seated: true }))
            })
            .await
    }

    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let req = request.get_ref();
        bounded("page_token", &req.page_token, MAX_NAME_FIELD)?;
        let size = match req.page_size {
            0 => LIST_PAGE,
            n => (n as usize).min(LIST_PAGE_MAX),
        };
        let mut page = self.node.tables_here(&req.page_token, size)?;
        if forwarded(&request) {
            return Ok(Response::new(page));
        }
        // In a cluster, each other node's page after the same token: the first `size` of them
        // all are the cluster's page.
        let mut asks = tokio::task::JoinSet::new();
        for peer in self.node.other_nodes().await {
            let request = self.node.onward(copy(&request));
            asks.spawn(async move {
                let mut lobby = LobbyClient::new(peer);
                let answer =
                    tokio::time::timeout(std::time::Duration::from_secs(2), lobby.list_tables(request));
                // A node that does not answer in time is left out of this page.
                answer.await.ok().and_then(Result::ok).map(Response::into_inner)
            });
        }
        let mut more = !page.next_page_token.is_empty();
        for other in asks.join_all().await.into_iter().flatten() {
            more |= !other.next_page_token.is_empty();
            page.tables.extend(other.tables.into_iter().take(size));
        }
        page.tables.sort_by(|a, b| a.id.cmp(&b.id));
        page.tables.dedup_by(|a, b| a.id == b.id);
        more |= page.tables.len() > size;
        page.tables.truncate(size);
        page.next_page_token = match (more, page.tables.last()) {
            (true, Some(last)) => last.id.clone(),
            _ => String::new(),
        };
        Ok(Response::new(page))
    }

    async fn add_bot(&self, request: Request<pb::AddBotRequest>) -> Result<Response<pb::TableInfo>, Status> {
        self.node
            .at_table(request, |request| async move {
                let token = token_of(&request)?;
                let req = request.into_inner();
                bounded("bot", &req.bot, MAX_NAME_FIELD)?;
                let handle = self.node.find(&req.table)?;
                let info = self
                    .node
                    .command(&handle, |reply| Command::AddBot { token, bot: req.bot, reply })
                    .await?;
                Ok(Response::new(info))
            })
            .await
    }

    async fn start_game(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        self.by_token(request, |token, reply| Command::Start { token, reply }).await
    }

    async fn get_table(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        self.node
            .at_table(request, |request| async move {
                let handle = self.node.find(&request.get_ref().table)?;
                Ok(Response::new(self.node.info(&handle).await?))
            })
            .await
    }

    async fn change_settings(
        &self,
        request: Request<pb::ChangeSettingsRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        self.node
            .at_table(request, |request| async move {
                let token = token_of(&request)?;
                let req = request.into_inner();
                let handle = self.node.find(&req.table)?;
                check_settings(req.settings.iter().map(|s| (s.path.as_str(), s.value.as_str())))?;
                let settings = req.settings.into_iter().map(|s| (s.path, s.value)).collect();
                let info = self
                    .node
                    .command(&handle, |reply| Command::ChangeSettings { token, settings, reply })
                    .await?;
                Ok(Response::new(info))
            })
            .await
    }

    async fn remove_player(
        &self,
        request: Request<pb::RemovePlayerRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        self.on_seat(request, |token, seat, reply| Command::Remove { token, seat, reply }).await
    }

    async fn reset_table(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        self.by_token(request, |token, reply| Command::Reset { token, reply }).await
    }

    async fn leave(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        let counted = (!forwarded(&request)).then(|| super::client_ip(&request));
        if let Some(ip) = counted {
            self.node.leave_seat(ip)?;
        }
        let left = self.by_token(request, |token, reply| Command::Leave { token, reply }).await;
        if let (Some(ip), Err(_)) = (counted, &left) {
            self.node.leave_not_made(ip);
        }
        left
    }

    async fn close_table(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        self.by_token(request, |token, reply| Command::Close { token, reply }).await
    }

    async fn pause_game(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        self.by_token(request, |token, reply| Command::Pause { token, reply }).await
    }

    async fn resume_game(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        self.by_token(request, |token, reply| Command::Resume { token, reply }).await
    }

    async fn seat_link(
        &self,
        request: Request<pb::TableRef>,
    ) -> Result<Response<pb::SeatLinkResponse>, Status> {
        self.node
            .at_table(request, |request| async move {
                let token = token_of(&request)?;
                let handle = self.node.find(&request.get_ref().table)?;
                let info = self.node.info(&handle).await?;
                let rejoin = self.node.command(&handle, |reply| Command::SeatLink { token, reply }).await?;
                // The page's own address for the table, the secret in its fragment: a browser
                // never sends a fragment to any server.
                Ok(Response::new(pb::SeatLinkResponse {
                    link: format!("{}#rejoin={rejoin}", info.link),
                    rejoin,
                }))
            })
            .await
    }

    async fn revoke_seat_link(
        &self,
        request: Request<pb::RemovePlayerRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        self.on_seat(request, |token, seat, reply| Command::RevokeLink { token, seat, reply }).await
    }

    async fn mute_seat(
        &self,
        request: Request<pb::MuteSeatRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        let muted = request.get_ref().muted;
        self.on_seat(request, |token, seat, reply| Command::Mute { token, seat, muted, reply }).await
    }

    async fn describe_rules(&self, request: Request<pb::RuleSet>) -> Result<Response<pb::RuleNotes>, Status> {
        // Nothing of a table's: any node answers, and the words are made from the rules alone.
        let rules = convert::rules_from_wire(request.get_ref()).map_err(|e| bad_request(e.to_string()))?;
        Ok(Response::new(pb::RuleNotes { notes: convert::how_to_play_to_wire(&rules) }))
    }

    async fn list_presets(
        &self,
        _: Request<pb::ListPresetsRequest>,
    ) -> Result<Response<pb::ListPresetsResponse>, Status> {
        // The same for every call, for the life of the server: made once.
        static PRESETS: std::sync::OnceLock<pb::ListPresetsResponse> = std::sync::OnceLock::new();
        let presets = PRESETS.get_or_init(|| {
            let presets = dudo_rules::presets::NAMES
                .iter()
                .filter_map(|&name| {
                    let rules = dudo_rules::presets::by_name(name)?;
                    Some(pb::Preset {
                        name: name.to_string(),
                        summary: dudo_rules::presets::summary(name).to_string(),
                        rules: Some(convert::rules_to_wire(&rules)),
                        title: dudo_rules::presets::title(name).to_string(),
                        how_to_play: convert::how_to_play_to_wire(&rules),
                    })
                })
                .collect();
            pb::ListPresetsResponse { presets }
        });
        Ok(Response::new(presets.clone()))
    }
}

impl Dudo {
    /// The waiting tables this node holds, a page of `size` after `page_token` (by id).
    fn tables_here(&self, page_token: &str, size: usize) -> Result<pb::ListTablesResponse, Status> {
        let registry = self.registry.lock().map_err(|_| Status::internal("registry poisoned"))?;
        let from = match page_token {
            "" => std::ops::Bound::Unbounded,
            token => std::ops::Bound::Excluded(token.to_string()),
        };
        let mut tables = Vec::with_capacity(size);
        let mut next_page_token = String::new();
        for (id, handle) in registry.tables.range::<String, _>((from, std::ops::Bound::Unbounded)) {
            let summary = handle.listed.borrow();
            if summary.state != pb::TableState::Waiting as i32 || handle.hidden {
                continue;
            }
            if tables.len() == size {
                next_page_token = tables.last().map(|t: &pb::TableSummary| t.id.clone()).unwrap_or_default();
                break;
            }
            debug_assert_eq!(&summary.id, id);
            tables.push(summary.clone());
        }
        Ok(pb::ListTablesResponse { tables, next_page_token })
    }
}

/// A new table's pacing, from the request: its move clock, its bots' pauses and its call
/// window, each checked against its bounds.
fn pacing(req: &pb::CreateTableRequest, default: DefaultClock) -> Result<table::Pacing, Status> {
    // No clock asked for: the server's game-night clock (a player who walks away must not
    // hold the game up for ever); 0: none, chosen.
    let (move_millis, bank_millis) = match req.move_millis {
        None if req.time_bank_millis == 0 => (default.move_millis, default.bank_millis),
        None => (default.move_millis, req.time_bank_millis),
        Some(ms) => (ms, req.time_bank_millis),
    };
    let clock = (move_millis > 0).then(|| {
        table::Clock::new(
            std::time::Duration::from_millis(move_millis.into()),
            std::time::Duration::from_millis(bank_millis.into()),
        )
    });
    if req.bot_think_millis > MAX_BOT_THINK_MILLIS
        || (req.bot_think_millis > 0 && req.bot_think_millis < MIN_BOT_THINK_MILLIS)
    {
        return Err(bad_request(format!(
            "bot_think_millis: 0 (at once) or from {MIN_BOT_THINK_MILLIS} to {MAX_BOT_THINK_MILLIS}, not {}",
            req.bot_think_millis
        )));
    }
    if move_millis > 0 && !(MIN_MOVE_MILLIS..=MAX_CLOCK_MILLIS).contains(&move_millis) {
        return Err(bad_request(format!(
            "move_millis: 0 (no clock) or from {MIN_MOVE_MILLIS} to {MAX_CLOCK_MILLIS}, not {move_millis}"
        )));
    }
    if req.time_bank_millis > MAX_CLOCK_MILLIS {
        return Err(bad_request(format!(
            "time_bank_millis: at most {MAX_CLOCK_MILLIS}, not {}",
            req.time_bank_millis
        )));
    }
    let call_window_millis = req.call_window_millis.unwrap_or(DEFAULT_CALL_WINDOW_MILLIS);
    if call_window_millis > 0
        && !(MIN_CALL_WINDOW_MILLIS..=MAX_CALL_WINDOW_MILLIS).contains(&call_window_millis)
    {
        return Err(bad_request(format!(
            "call_window_millis: 0 (until all have answered) or from {MIN_CALL_WINDOW_MILLIS} to {MAX_CALL_WINDOW_MILLIS}, not {call_window_millis}"
        )));
    }
    // The server's default is held to the same bound: a flag set too high cannot refuse every table.
    let reveal_pause_millis = req
        .reveal_pause_millis
        .unwrap_or(default.reveal_pause_millis.min(table::pause::LONGEST_REVEAL_MILLIS));
    if reveal_pause_millis > table::pause::LONGEST_REVEAL_MILLIS {
        return Err(bad_request(format!(
            "reveal_pause_millis: 0 (at once) to {}, not {reveal_pause_millis}",
            table::pause::LONGEST_REVEAL_MILLIS
        )));
    }
    Ok(table::Pacing {
        clock,
        bot_pause: std::time::Duration::from_millis(req.bot_think_millis.into()),
        call_window_millis,
        reveal_pause_millis,
    })
}
