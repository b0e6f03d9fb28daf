//! The node: every table this process holds (the registry, by id and by join code), the
//! limits and budgets that keep one client from taking it from the others, the store and the
//! cluster. It composes its parts (the accounts, the ladder, the tournaments' director) and
//! lends those that make tables [`ServerTables`](crate::server_tables::ServerTables)
//! (`lending.rs`), not itself. The gRPC services (`services`) are thin adapters over it; the
//! tables (`table`) sit below it, each a task it talks to over a bounded channel.

pub mod cluster;
mod lending;
pub(crate) mod making;
pub(crate) mod places;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use dudo_proto::v1 as pb;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::StreamExt;

use crate::accounts::AccountSettings;
use crate::budget::Budget;
use crate::convert;
use crate::refusal::{MAX_NAME_FIELD, Refusal, refused};
use crate::status::delivered;
use crate::table::{self, Command, Table, TableError};
use dudo_store::Store;

pub use crate::limits::{DEFAULT_GAME_TIME, DefaultClock, Limits};
pub(crate) use making::NewTable;
pub(crate) use places::{PerIp, StreamSlot, TablePlace};

pub(crate) use crate::server_tables::UpdateStream;

/// How many commands a table's queue holds before senders wait.
pub(crate) const TABLE_QUEUE: usize = 256;

#[derive(Clone)]
pub(crate) struct TableHandle {
    /// Commands are boxed: a channel allocates its first 32 slots at once, and an idle
    /// table's queue then costs 32 pointers, not 32 of the largest command.
    pub(crate) tx: mpsc::Sender<Box<Command>>,
    /// The table's summary, kept current by its task: lists read it without a trip.
    pub(crate) listed: tokio::sync::watch::Receiver<pb::TableSummary>,
    /// A table the server seats itself (a ladder's, a tournament's): never listed.
    pub(crate) hidden: bool,
}

/// Every table, by id and by join code.
#[derive(Default)]
pub(crate) struct Registry {
    /// Ordered by id, so lists page in a stable order.
    pub(crate) tables: std::collections::BTreeMap<String, TableHandle>,
    pub(crate) codes: HashMap<String, String>,
}

/// The node's state, shared by every service: one registry of tables, and what bounds them.
#[derive(Clone, Default)]
pub struct Dudo {
    pub(crate) registry: Arc<Mutex<Registry>>,
    pub(crate) limits: Arc<Limits>,
    pub(crate) per_ip: Arc<Mutex<PerIp>>,
    /// Where tables' journals, finished games and ratings are kept (none: memory only).
    pub(crate) store: Option<Store>,
    /// The operator keeps ratings for ranked tables (`--ranked`).
    pub(crate) ranked: bool,
    /// What clients make the server hold, against `limits.memory_budget`, and each
    /// address's share of it (tables it made, streams it reads, replays).
    pub(crate) budgets: crate::budget::Budgets,
    /// Who may register, and the admin's token (hashed).
    pub(crate) accounts: AccountSettings,
    /// The ladder's matchmaker, when the server runs one.
    pub(crate) ladder: Option<crate::ladder::LadderHandle>,
    /// The tournaments' director, when the server runs tournaments (it keeps records).
    pub(crate) tournaments: Option<crate::tournament::TournamentsHandle>,
    /// How recent a passed bot check an account needs to enter the ladder or a tournament
    /// (`--require-bot-check`; none: no check needed).
    pub(crate) require_bot_check: Option<std::time::Duration>,
    /// The CPU every table's built-in bots may take together.
    pub(crate) bot_cpu: Arc<crate::bot_cpu::BotCpu>,
    /// The addresses a per-address limit refused lately: the connection gate and the call
    /// gate note them, tables read them (a player is not taken out while refused).
    pub(crate) refused: crate::address::Refused,
    /// Each address's open streams, a seat's or not: at the cap a seat's makes room.
    pub(crate) streams: crate::connections::Places,
    /// Which stream is each seat's (or account's) newest: only those are kept at the cap.
    pub(crate) stream_carriers: crate::connections::Carriers,
    /// Set when the server stops: the streams no table owns end, and the ladder seats no one.
    pub(crate) stopping: crate::stopping::Stopping,
    /// Where the server's pages are (`http://HOST:PORT`): tables' links are `BASE/t/CODE`.
    pub(crate) link_base: Arc<str>,
    /// The cluster this node is one of (none: it runs alone).
    pub(crate) cluster: Option<Arc<cluster::Cluster>>,
}

/// A join code: six letters people can read aloud.
pub(crate) fn join_code() -> String {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";
    // From random bytes, not from a hex secret's characters (which would reach only a few letters).
    let bytes: [u8; 6] = rand::Rng::random(&mut rand::rng());
    bytes.iter().map(|&b| char::from(LETTERS[usize::from(b) % LETTERS.len()])).collect()
}

impl Dudo {
    pub fn new(limits: Limits) -> Dudo {
        let budget = Budget::new(limits.memory_budget);
        let bot_cpu = crate::bot_cpu::BotCpu::new(limits.bot_cpu);
        let budgets = crate::budget::Budgets::new(budget, limits.memory_per_address);
        Dudo { limits: Arc::new(limits), budgets, bot_cpu, ..Dudo::default() }
    }

    /// Tables' links start with `base` (`http://HOST:PORT`, as people reach the server).
    pub fn with_link_base(mut self, base: &str) -> Dudo {
        self.link_base = Arc::from(base.trim_end_matches('/'));
        self
    }

    /// With these account settings (registration, the admin token).
    pub fn with_accounts(mut self, accounts: AccountSettings) -> Dudo {
        self.accounts = accounts;
        self
    }

    /// The accounts, as the account calls read them.
    pub(crate) fn accounts(&self) -> crate::accounts::Accounts<'_> {
        crate::accounts::Accounts { settings: &self.accounts, store: self.store.as_ref() }
    }

    /// Runs a ladder of `pools` (its matchmaker starts now).
    pub fn with_ladder(mut self, pools: Vec<crate::ladder::Pool>) -> Dudo {
        self.ladder = Some(crate::ladder::start(self.clone(), pools));
        self
    }

    pub(crate) fn stopping(&self) -> &crate::stopping::Stopping {
        &self.stopping
    }

    /// Runs tournaments (their director starts now), as `settings` allow.
    pub fn with_tournaments(mut self, settings: crate::tournament::Settings) -> Dudo {
        self.tournaments = Some(crate::tournament::start(self.clone(), settings));
        self
    }

    /// Asks for a passed bot check within `within` before ranked play.
    pub fn with_bot_check(mut self, within: Option<std::time::Duration>) -> Dudo {
        self.require_bot_check = within;
        self
    }

    /// Refuses an account whose bot has not passed a check recently enough, when the server
    /// asks for one.
    pub(crate) async fn bot_check_passed(&self, account: &str) -> Result<(), Refusal> {
        let (Some(within), Some(store)) = (self.require_bot_check, self.store()) else { return Ok(()) };
        let last = store
            .last_passed_bot_check(account)
            .await
            .map_err(|e| Refusal::unavailable(format!("the server's database: {e}")))?;
        let since =
            crate::table::unix_millis().saturating_sub(i64::try_from(within.as_millis()).unwrap_or(i64::MAX));
        if last.is_some_and(|at| at >= since) {
            return Ok(());
        }
        let days = within.as_secs() / 86_400;
        Err(crate::refusal::refused(
            "bot_check_required",
            Refusal::failed_precondition(format!(
                "this server asks for a passed bot check within {days} day(s) before ranked play: `dudo bot check --bot COMMAND` (docs/bots.md)"
            )),
        ))
    }

    pub(crate) fn tournaments(&self) -> Result<&crate::tournament::TournamentsHandle, Refusal> {
        self.tournaments.as_ref().ok_or_else(|| {
            crate::refusal::refused(
                "no_tournaments",
                Refusal::failed_precondition(
                    "this server runs no tournaments: it keeps no records (--db none)",
                ),
            )
        })
    }

    pub(crate) fn ladder(&self) -> Option<&crate::ladder::LadderHandle> {
        self.ladder.as_ref()
    }

    /// A pool this server's ladder runs, or `no_such_pool` naming the ones it does.
    pub(crate) fn known_pool(&self, pool: &str) -> Result<&crate::ladder::Pool, Refusal> {
        let handle = self.ladder_handle()?;
        if let Some(found) = handle.pools().iter().find(|p| p.name == pool) {
            return Ok(found);
        }
        let shown: String = pool.chars().take(64).collect();
        let names: Vec<&str> = handle.pools().iter().map(|p| p.name.as_str()).collect();
        Err(refused(
            "no_such_pool",
            Refusal::not_found(format!("no pool {shown:?}; the pools are {}", names.join(", "))),
        ))
    }

    pub(crate) fn ladder_handle(&self) -> Result<&crate::ladder::LadderHandle, Refusal> {
        self.ladder().ok_or_else(|| {
            refused(
                "no_ladder",
                Refusal::failed_precondition("this server runs no ladder: it keeps no records (--db none)"),
            )
        })
    }

    /// The server's own spectator stream of a table (the ladder watches its tables so).
    pub(crate) async fn watch_internal(&self, table: &str) -> Result<UpdateStream, Refusal> {
        self.stream(table, None, None, None).await
    }

    /// Closes a table the server made (a ladder table, once its game is recorded).
    pub(crate) async fn close_internal(&self, table: &str, host_token: &str) {
        if let Ok(handle) = self.find(table) {
            let token = host_token.to_string();
            let _ = self.command(&handle, |reply| Command::Close { token, reply }).await;
        }
    }

    /// Keeps tables, finished games and ratings in `store`; `ranked`: tables may ask for
    /// ranked ratings.
    pub fn with_store(mut self, store: Option<Store>, ranked: bool) -> Dudo {
        self.store = store;
        self.ranked = ranked;
        self
    }

    /// The store, or why there is none: what every call that reads or keeps records asks.
    pub(crate) fn records(&self) -> Result<&Store, Refusal> {
        self.store().ok_or_else(|| {
            Refusal::failed_precondition("this server keeps no records: it was started with --db none")
        })
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// Brings back every table the store holds that was still open, as it was; returns how
    /// many. A table that had been idle for longer than the idle limit when the server
    /// stopped is closed instead (the server would have closed it had it kept running; the
    /// time the server was down does not count); one whose journal cannot be replayed is
    /// left in the database as it is, with an error logged.
    pub async fn recover(&self) -> Result<usize, dudo_store::StoreError> {
        let Some(store) = &self.store else { return Ok(0) };
        let now = table::unix_millis();
        let idle = i64::try_from(self.limits.idle_table.as_millis()).unwrap_or(i64::MAX);
        let open = store.open_tables().await?;
        // The last moment the stopped server is known to have been running.
        let alive = open.iter().filter_map(|t| t.entries.last()).map(|e| e.at).max().unwrap_or(now);
        let mut recovered = 0;
        for open in open {
            let id = open.id.clone();
            let last = open.entries.last().map_or(0, |e| e.at);
            if alive.saturating_sub(last) > idle {
                tracing::info!(table = %id, "not recovered: idle since before the restart");
                store.close_table(&id, now).await?;
                continue;
            }
            match Table::recover(
                open,
                store.clone(),
                self.limits.table_moves_per_second,
                self.game_length(),
                Arc::clone(self.budgets.server()),
                self.bot_cpu.table_share(),
                Arc::clone(&self.link_base),
                None,
            ) {
                Ok(table) => {
                    let (code, hidden) = (table.info().join_code, table.hidden());
                    match self.spawn_table_as(table, id.clone(), code, None, hidden) {
                        Ok(_) => recovered += 1,
                        Err(e) => tracing::error!(table = %id, error = %e, "could not register the table"),
                    }
                }
                Err(e) => {
                    // Left open in the database, not closed: a later version may read it.
                    tracing::error!(table = %id, error = %e, "could not recover the table; left as it is");
                }
            }
        }
        Ok(recovered)
    }

    /// The server's memory budget, for what else holds client-made bytes (replays).
    pub fn budget(&self) -> &Arc<Budget> {
        self.budgets.server()
    }

    /// The budget what `ip` makes the server hold counts against: its share of the
    /// server's (the server's own for an unknown address, or with no shares).
    pub(crate) fn budget_for(&self, ip: Option<std::net::IpAddr>) -> Arc<Budget> {
        self.budgets.for_address(ip)
    }

    /// The budgets, for what admits connections and calls before they reach the node.
    pub fn budgets(&self) -> &crate::budget::Budgets {
        &self.budgets
    }

    /// Refuses new work while `budget` (or the server's) holds as much as it allows.
    pub(crate) fn budget_room(&self, budget: &Budget) -> Result<(), Refusal> {
        if budget.full() {
            return Err(Refusal::from(TableError::ServerBusy));
        }
        Ok(())
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The addresses refused lately (see [`crate::address::Refused`]), shared.
    pub fn refused(&self) -> crate::address::Refused {
        self.refused.clone()
    }

    /// Tells every table the server is stopping, so their streams end and the transport
    /// can finish.
    pub async fn close_all(&self) {
        self.stopping.stop();
        if self.cluster.is_some() {
            // A cluster's node hands its tables to the others instead.
            self.drain().await;
            return;
        }
        let handles: Vec<TableHandle> = match self.registry.lock() {
            Ok(r) => r.tables.values().cloned().collect(),
            Err(_) => return,
        };
        for h in handles {
            let _ = self.ask(&h, |reply| Command::Shutdown { reply }).await;
        }
    }

    pub(crate) fn find(&self, table: &str) -> Result<TableHandle, Refusal> {
        let key = table_key(table);
        let registry = self.registry.lock().map_err(|_| Refusal::internal("registry poisoned"))?;
        let id = registry.codes.get(&key.to_ascii_uppercase()).cloned().unwrap_or_else(|| key.to_string());
        registry.tables.get(&id).cloned().ok_or_else(|| {
            // Echoed cut short: an error's text travels in a header of bounded size.
            // Never the fragment: a seat link's secret is there.
            let shown: String =
                table.split('#').next().unwrap_or_default().chars().take(MAX_NAME_FIELD).collect();
            refused("no_such_table", Refusal::not_found(format!("no table {shown:?}")))
        })
    }

    pub(crate) async fn ask<T>(
        &self,
        handle: &TableHandle,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, Refusal> {
        // In a cluster a table's task ends when the table moves to another node: the caller
        // tries again and finds it there.
        let closed = || match self.cluster {
            Some(_) => cluster::changing_hands(),
            None => Refusal::unavailable("the table has closed"),
        };
        let (reply, answer) = oneshot::channel();
        handle.tx.send(Box::new(command(reply))).await.map_err(|_| closed())?;
        answer.await.map_err(|_| closed())
    }

    /// Asks a table something it may refuse; a refusal becomes its status here.
    pub(crate) async fn command<T>(
        &self,
        handle: &TableHandle,
        command: impl FnOnce(table::Answer<T>) -> Command,
    ) -> Result<T, Refusal> {
        self.ask(handle, command).await?.map_err(Refusal::from)
    }

    /// Plays `wire` for the seat holding `token` (none: it lets the claim pass): the one path
    /// of `Act` and `Play` actions.
    pub(crate) async fn act_on(
        &self,
        handle: &TableHandle,
        token: &str,
        wire: Option<&pb::Action>,
        answers: Option<u64>,
    ) -> Result<(), Refusal> {
        let action = wire
            .map(|wire| {
                convert::action_from_wire(wire)
                    .map_err(|e| refused("bad_action", Refusal::invalid_argument(e.to_string())))
            })
            .transpose()?;
        let token = token.to_string();
        let answers = answers.map(Some);
        self.command(handle, |reply| Command::Act { token, action, answers, reply }).await
    }

    /// A chat line or reaction at the table, from `token`'s seat or (none) a spectator: the
    /// lines of `ip` (whichever tables and seats it speaks at) are bounded first.
    pub(crate) async fn say(
        &self,
        handle: &TableHandle,
        token: Option<String>,
        said: pb::SayRequest,
        ip: Option<std::net::IpAddr>,
    ) -> Result<(), Refusal> {
        if let Some(ip) = ip {
            let mut counts = self.per_ip.lock().map_err(|_| Refusal::internal("limits poisoned"))?;
            counts.chat_line(ip, std::time::Instant::now()).map_err(|wait| {
                let limit = crate::table::talk::TalkLimit::Address;
                Refusal::from(TableError::ChatRateLimited { limit, retry_after_millis: wait })
            })?;
        }
        let pb::SayRequest { text, reaction, name, .. } = said;
        self.command(handle, |reply| Command::Say { token, name, from: ip, text, reaction, reply }).await
    }

    /// One seat left by `ip` (Leave), counted where the client's call
    /// arrived (a forwarded call was counted at the node it came to, by its true address).
    pub(crate) fn leave_seat(&self, ip: Option<std::net::IpAddr>) -> Result<(), Refusal> {
        let per_minute = self.limits.leaves_per_minute;
        let Some(ip) = ip.filter(|_| per_minute > 0) else { return Ok(()) };
        let mut counts = self.per_ip.lock().map_err(|_| Refusal::internal("limits poisoned"))?;
        counts.leave_seat(ip, std::time::Instant::now(), per_minute).map_err(|wait| {
            Refusal::from(TableError::LeavesTooOften { per_minute, retry_after_millis: wait })
        })
    }

    /// The leave [`Dudo::leave_seat`] counted for `ip` was refused: it is not counted, so
    /// calls that free no seat (a wrong token, a table that is not there) cannot spend a
    /// shared address's leaves.
    pub(crate) fn leave_not_made(&self, ip: Option<std::net::IpAddr>) {
        if let (Some(ip), Ok(mut counts)) = (ip, self.per_ip.lock()) {
            counts.leave_not_made(ip);
        }
    }

    /// "Next" after a showdown, from `token`'s seat.
    pub(crate) async fn next_round(&self, handle: &TableHandle, token: &str) -> Result<(), Refusal> {
        let token = token.to_string();
        self.command(handle, |reply| Command::NextRound { token, reply }).await
    }

    /// After a refused answer up a seat's stream, the prompt to send that stream again if the
    /// seat may still act, so a bot that waits for prompts never waits for the clock. Only
    /// after a refusal the table made (one it paces: past the seat's rate, `rate_limited`,
    /// and it prompts again once the seat may move); not for a message that never reached it
    /// (`bad_action`, `bad_request`: the client's bug, the prompt it holds still stands), nor
    /// for an answer to a prompt the game has moved past (the fresh one went out as it moved).
    pub(crate) async fn prompt_after_refusal(
        &self,
        handle: &TableHandle,
        token: &str,
        code: &str,
    ) -> Option<pb::PlayUpdate> {
        let not_again = ["rate_limited", "stale_prompt", "call_window_closed", "bad_action", "bad_request"];
        if not_again.contains(&code) {
            return None;
        }
        let token = token.to_string();
        self.ask(handle, |reply| Command::PromptAgain { token, reply }).await.ok().flatten()
    }

    pub(crate) async fn info(&self, handle: &TableHandle) -> Result<pb::TableInfo, Refusal> {
        self.ask(handle, |reply| Command::Info { reply }).await
    }

    pub(crate) async fn stream(
        &self,
        table: &str,
        token: Option<String>,
        since: Option<u64>,
        reader: Option<std::net::IpAddr>,
    ) -> Result<UpdateStream, Refusal> {
        let handle = self.find(table)?;
        let budget = self.budget_for(reader);
        self.budget_room(&budget)?;
        let (tx, rx) = table::stream_channel(Arc::clone(&budget));
        let seat_token = token.clone();
        self.command(&handle, |reply| Command::Subscribe { token, since, tx, from: reader, reply }).await?;
        // A seat's window prompt tells the table when it was handed to the stream (now, as
        // the transport takes it), so time the server spent delivering it is not the seat's.
        let table_tx = handle.tx.clone();
        let rx = rx.map(move |delivery| {
            if let (Some(token), table::Delivery::Update(update)) = (&seat_token, &delivery)
                && let Some(pb::play_update::Update::Prompt(prompt)) = &update.update
                && prompt.call_window_unix_millis.is_some()
                && let Some(answers) = prompt.last_seq
            {
                let at = tokio::time::Instant::now();
                // Never waits: a table too busy to take the word times the window as before.
                let _ =
                    table_tx.try_send(Box::new(Command::PromptWritten { token: token.clone(), answers, at }));
            }
            delivery
        });
        // A stream the table let go of without saying why (every other end is said) fell
        // too far behind, or found no room in a full memory budget: its reader is told
        // which (judged when the stream ends), and resumes from a snapshot.
        let why = tokio_stream::iter([()]).map(move |()| {
            Err(crate::status::status(if budget.full() {
                TableError::ServerBusy
            } else {
                TableError::TooFarBehind
            }))
        });
        let updates = rx.map(delivered).chain(why);
        Ok(Box::pin(updates))
    }
}

/// What names a table in a request: its id, its join code, or a link to it (the browser
/// table's `http(s)://HOST:PORT/t/CODE`, or an older `dudo://join/CODE`).
pub fn table_key(table: &str) -> &str {
    match dudo_proto::link::parse(table) {
        Some(link) => link.code,
        // A fragment is never part of a code (and a seat link's secret is in it).
        None => table.split('#').next().unwrap_or_default().trim().trim_start_matches("dudo://join/"),
    }
}

#[cfg(test)]
mod tests {
    /// A large answer holds its size from its reader's share until it is dropped (sent), and
    /// an answer the share cannot hold is refused `server_busy`.
    #[tokio::test]
    async fn a_large_answer_holds_its_size_until_sent() {
        use dudo_proto::v1 as pb;
        let limits = super::Limits { memory_per_address: 1024 * 1024, ..super::Limits::default() };
        let dudo = super::Dudo::new(limits);
        let reader = Some(std::net::IpAddr::from([127, 0, 0, 9]));
        let game = |i: usize| pb::GameSummary { id: format!("{i:0>200}"), ..Default::default() };
        let answer = |n: usize| pb::ListGamesResponse { games: (0..n).map(game).collect() };
        let used = || dudo.budget_for(reader).used();
        let held = dudo.answer_held(answer(1000), reader).unwrap();
        assert!(used() >= 200 * 1000, "{}", used());
        // Another like it does not fit the 1 MiB share while the first is unsent.
        let refused = dudo.answer_held(answer(2000), reader).unwrap_err();
        assert_eq!(
            refused.metadata().get(crate::status::CODE_KEY).and_then(|c| c.to_str().ok()),
            Some("server_busy")
        );
        drop(held);
        assert_eq!(used(), 0);
    }

    #[test]
    fn a_table_is_named_by_its_code_or_a_link() {
        use super::table_key;
        assert_eq!(table_key("http://h:1/t/AAAAAA?next=/t/BBBBBB"), "AAAAAA");
        assert_eq!(table_key(" dudo://join/CCCCCC "), "CCCCCC");
        assert_eq!(table_key("DDDDDD"), "DDDDDD");
    }
}
