//! Making a table: a player's (within the server's and the address's limits, its creator
//! seated or made a host without a seat) or the ladder's (its seats taken in order and
//! started), each under a join code no other table answers to, its task spawned and
//! registered.

use std::sync::Arc;

use dudo_proto::v1 as pb;
use tokio::sync::mpsc;

use super::{Dudo, TABLE_QUEUE, TableHandle, TablePlace, join_code};
use crate::refusal::{Refusal, bad_request};
use crate::server_tables::{LadderSeat, Made, ServerTable};
use crate::table::{self, Command, Table, TableError};

/// A table the Lobby service has checked, for the node to make (`Dudo::make_table`).
pub(crate) struct NewTable {
    pub(crate) rules: dudo_rules::RuleSet,
    pub(crate) seats: usize,
    pub(crate) seed: Option<u64>,
    pub(crate) pacing: table::Pacing,
    /// "", "ranked" or "arena", as asked: whether this server keeps it is the node's to say.
    pub(crate) rating_pool: String,
    /// The creator hosts without a seat.
    pub(crate) host_only: bool,
    /// Spectators may chat.
    pub(crate) spectators_chat: bool,
    /// The creator's seat name, and account if it has one.
    pub(crate) name: String,
    pub(crate) account: Option<table::SeatAccount>,
}

impl Dudo {
    /// Starts a table's task and registers it; it leaves the registry (and its creator's
    /// count) when it ends.
    pub(crate) fn spawn_table(
        &self,
        table: Table,
        id: String,
        code: String,
        place: Option<TablePlace>,
    ) -> Result<TableHandle, Refusal> {
        self.spawn_table_as(table, id, code, place, false)
    }

    /// [`Dudo::spawn_table`]; a `hidden` table (one the server seats itself) is not listed
    /// and answers to no join code, so nobody can sit down at it while it is being made.
    pub(crate) fn spawn_table_as(
        &self,
        table: Table,
        id: String,
        code: String,
        place: Option<TablePlace>,
        hidden: bool,
    ) -> Result<TableHandle, Refusal> {
        let mut table = table;
        table.watch_refusals(self.refused.clone());
        let (tx, rx) = mpsc::channel(TABLE_QUEUE);
        let (listed_tx, listed) = tokio::sync::watch::channel(table.summary());
        let handle = TableHandle { tx, listed, hidden };
        let cluster = self.cluster.clone();
        let forget = move |id: &str| {
            if let Some(c) = &cluster {
                c.forget(id);
            }
        };
        // Registered before its task starts, so a task that ends at once is also unregistered.
        {
            let mut registry = self.registry.lock().map_err(|_| Refusal::internal("registry poisoned"))?;
            // Checked again here, under the lock: every way a table is made (the ladder's
            // too) counts against the server's limit.
            if registry.tables.len() >= self.limits.max_tables {
                forget(&id);
                return Err(crate::refusal::refused(
                    "server_full",
                    Refusal::resource_exhausted(format!(
                        "the server holds {} tables, its limit",
                        self.limits.max_tables
                    )),
                ));
            }
            registry.tables.insert(id.clone(), handle.clone());
            if !hidden {
                registry.codes.insert(code.clone(), id.clone());
            }
        }
        let (registry, idle) = (Arc::clone(&self.registry), self.limits.idle_table);
        let span = tracing::info_span!("table", table = %id);
        let node = self.clone();
        tokio::spawn(tracing::Instrument::instrument(
            async move {
                let ended = table.run(rx, listed_tx, idle).await;
                // In a cluster, a table this node could not save is let go: another node
                // rebuilds it from its journal (all anyone was told).
                let handed_on = ended == table::Ended::Unsaved && node.release_unsaved(&id).await;
                forget(&id);
                // Closed (idle, or by its host): the table leaves the registry and the limits.
                // One that could not save stays listed, answering UNAVAILABLE, so its players
                // keep their seats for when the server restarts and brings it back.
                if (ended != table::Ended::Unsaved || handed_on)
                    && let Ok(mut r) = registry.lock()
                {
                    r.tables.remove(&id);
                    if r.codes.get(&code) == Some(&id) {
                        r.codes.remove(&code);
                    }
                }
                // Its creator's place is given back.
                drop(place);
            },
            span,
        ));
        Ok(handle)
    }

    /// A place among the tables `ip` may create, or why there is none.
    pub(crate) fn table_place(&self, ip: Option<std::net::IpAddr>) -> Result<Option<TablePlace>, Refusal> {
        let Some(ip) = ip else { return Ok(None) };
        let mut counts = self.per_ip.lock().map_err(|_| Refusal::internal("limits poisoned"))?;
        let n = counts.tables.entry(ip).or_default();
        if *n >= self.limits.max_tables_per_ip {
            return Err(crate::refusal::refused(
                "too_many_tables",
                Refusal::resource_exhausted(format!(
                    "at most {} tables per address",
                    self.limits.max_tables_per_ip
                )),
            ));
        }
        *n += 1;
        Ok(Some(TablePlace { per_ip: Arc::clone(&self.per_ip), ip }))
    }

    pub(crate) fn game_length(&self) -> table::GameLength {
        table::GameLength {
            max_moves: self.limits.max_game_moves,
            max_millis: self
                .limits
                .max_game_time
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            max_bytes: self.limits.max_game_bytes,
            max_journal_entries: self.limits.max_journal_entries,
        }
    }

    /// Makes a table the Lobby service has checked, and seats its creator (or makes them a
    /// host without a seat): within the server's and the address's limits, its rating pool
    /// one this server keeps, under a join code no other table answers to.
    pub(crate) async fn make_table(
        &self,
        new: NewTable,
        ip: Option<std::net::IpAddr>,
    ) -> Result<pb::Joined, Refusal> {
        let budget = self.budget_for(ip);
        self.budget_room(&budget)?;
        {
            let registry = self.registry.lock().map_err(|_| Refusal::internal("registry poisoned"))?;
            if registry.tables.len() >= self.limits.max_tables {
                return Err(crate::refusal::refused(
                    "server_full",
                    Refusal::resource_exhausted(format!(
                        "the server holds {} tables, its limit",
                        self.limits.max_tables
                    )),
                ));
            }
        }
        // Taken now, checked and counted in one step: creations at once cannot all pass the
        // check; a refusal below gives it back.
        let place = self.table_place(ip)?;
        if new.seats > self.limits.max_seats {
            return Err(bad_request(format!("seats: at most {} at this server", self.limits.max_seats)));
        }
        if self.store.as_ref().is_some_and(|s| s.access() == dudo_store::Access::Reader) {
            return Err(Refusal::failed_precondition("this server only reads records; it holds no tables"));
        }
        let rating_pool = match new.rating_pool.as_str() {
            "" => String::new(),
            "ranked" if !self.ranked => {
                return Err(Refusal::failed_precondition(
                    "rating_pool: this server keeps no ranked ratings (its operator can start it with --ranked)",
                ));
            }
            _ if self.store.is_none() => {
                return Err(Refusal::failed_precondition(
                    "rating_pool: this server keeps no records, so no ratings (it runs with --db none)",
                ));
            }
            // Refused before a table is made for it (the table would refuse the seat).
            "ranked" if new.account.is_none() && !new.host_only => {
                return Err(Refusal::from(TableError::AccountRequired));
            }
            // A seeded table deals what its creator can deal again at a table of its own:
            // at a ranked table that would be reading the other players' dice.
            "ranked" if new.seed.is_some() => {
                return Err(bad_request(
                    "seed: a ranked table deals from the server's randomness (a seed would let its creator know the dice)",
                ));
            }
            pool @ ("ranked" | "arena") => pool.to_string(),
            other => {
                return Err(bad_request(format!(
                    "rating_pool: \"ranked\", \"arena\" or empty, not {other:?}"
                )));
            }
        };
        if !table::journals_faithfully(&new.rules) {
            return Err(Refusal::internal(
                "rules: this rule set cannot be saved faithfully (a server bug; please report it)",
            ));
        }
        let id = table::secret();
        let code = self.free_join_code().await?;
        // A host-only creator gets a host's token and no seat.
        let host_token = new.host_only.then(table::secret);
        let NewTable { rules, seats, seed, pacing, name, account, spectators_chat, .. } = new;
        let table = self.new_table(
            rules,
            table::core::Setup {
                id: id.clone(),
                code: code.clone(),
                capacity: seats,
                seed,
                pacing,
                rate: self.limits.actions_per_second,
                rating_pool,
                journalled: false,
                length: self.game_length(),
                budget,
                host_token: host_token.as_deref().map(table::seats::token_hash),
                stalling: Default::default(),
                hidden: false,
                spectators_chat,
            },
        );
        let handle = self.spawn_table(table, id, code, place)?;
        let (seat, token, info, seated) = match host_token {
            Some(token) => (0, token, self.info(&handle).await?, false),
            None => {
                let (seat, token, info) = self
                    .command(&handle, |reply| Command::Join { name, account, token: None, reply })
                    .await?;
                (seat, token, info, true)
            }
        };
        Ok(pb::Joined { table: Some(info), seat: seat as u32, token, seated })
    }

    /// Makes a table the server hosts without a seat (a ladder's or a tournament's), seats
    /// `seats` in their order and starts its game.
    pub(crate) async fn make_server_table(
        &self,
        order: ServerTable,
        seats: Vec<LadderSeat>,
    ) -> Result<Made, Refusal> {
        if self.stopping.is_stopping() {
            return Err(Refusal::unavailable("the server is shutting down"));
        }
        self.budget_room(self.budgets.server())?;
        let id = order.id.unwrap_or_else(table::secret);
        let code = self.free_join_code().await?;
        let (host_token, mut seat_tokens) = match order.tokens {
            Some(given) => (given.host, given.seats),
            None => (table::secret(), Vec::new()),
        };
        let clock = (order.move_millis > 0).then(|| {
            table::Clock::new(
                std::time::Duration::from_millis(order.move_millis.into()),
                std::time::Duration::from_millis(order.time_bank_millis.into()),
            )
        });
        let table = self.new_table(
            order.rules,
            table::core::Setup {
                id: id.clone(),
                code: code.clone(),
                capacity: seats.len(),
                seed: order.seed,
                pacing: table::Pacing {
                    clock,
                    bot_pause: std::time::Duration::from_millis(order.bot_think_millis.into()),
                    call_window_millis: order.call_window_millis,
                    // A ladder's, tournament's or bot check's seats are programs: no wait.
                    reveal_pause_millis: 0,
                },
                rate: self.limits.actions_per_second,
                rating_pool: order.rating_pool,
                journalled: false,
                length: self.game_length(),
                budget: Arc::clone(self.budgets.server()),
                host_token: Some(table::seats::token_hash(&host_token)),
                stalling: order.stalling,
                hidden: true,
                spectators_chat: false,
            },
        );
        let table = if order.bot_check { table.for_bot_check() } else { table };
        let handle = self.spawn_table_as(table, id.clone(), code, None, true)?;
        // Seats with no token given draw their own.
        seat_tokens.resize_with(seats.len(), || None);
        let seats = seats.into_iter().zip(seat_tokens).collect();
        match self.seat_and_start(&handle, &id, &host_token, seats, order.called_off.as_deref()).await {
            Ok(made) => Ok(made),
            Err(e) => {
                // A table that could not be seated or started is closed, not left to hold a
                // place among the server's tables.
                self.close_internal(&id, &host_token).await;
                Err(e)
            }
        }
    }

    async fn seat_and_start(
        &self,
        handle: &TableHandle,
        id: &str,
        host_token: &str,
        seats: Vec<(LadderSeat, Option<String>)>,
        called_off: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<Made, Refusal> {
        let handle = handle.clone();
        let (id, host_token) = (id.to_string(), host_token.to_string());
        let mut tokens = Vec::new();
        for (seat, token) in seats {
            match seat {
                LadderSeat::Account { account, name } => {
                    let (_, token, _) = self
                        .command(&handle, |reply| Command::Join {
                            name,
                            account: Some(account),
                            token,
                            reply,
                        })
                        .await?;
                    tokens.push(Some(token));
                }
                LadderSeat::Bot(bot) => {
                    let token = host_token.clone();
                    self.command(&handle, |reply| Command::AddBot { token, bot, reply }).await?;
                    tokens.push(None);
                }
            }
        }
        // Watched before it starts: see `Made::updates`.
        let updates = self.watch_internal(&id).await?;
        if called_off.is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst)) {
            return Err(Refusal::aborted("called off while its table was made"));
        }
        let token = host_token.clone();
        self.command(&handle, |reply| Command::Start { token, reply }).await?;
        Ok(Made { table: id, tokens, host_token, updates: Some(updates) })
    }

    /// A join code no table answers to, of this node or (in a cluster) any other (drawn
    /// again while one does).
    async fn free_join_code(&self) -> Result<String, Refusal> {
        let mut code = join_code();
        for _ in 0..16 {
            let here = self
                .registry
                .lock()
                .map_err(|_| Refusal::internal("registry poisoned"))?
                .codes
                .contains_key(&code);
            let elsewhere = match (&self.cluster, &self.store) {
                (Some(_), Some(store)) if !here => {
                    store.code_in_use(&code).await.map_err(|e| Refusal::unavailable(e.to_string()))?
                }
                _ => false,
            };
            if !here && !elsewhere {
                break;
            }
            code = join_code();
        }
        Ok(code)
    }

    /// A table with its own setup and what every table of this node shares: the table's
    /// move rate, the store, a share of the bots' CPU, the link base.
    fn new_table(&self, rules: dudo_rules::RuleSet, own: table::core::Setup) -> Table {
        let lease = self.first_lease(&own.id);
        Table::new(
            rules,
            table::Setup {
                table: own,
                table_rate: self.limits.table_moves_per_second,
                store: self.store.clone(),
                bot_cpu: self.bot_cpu.table_share(),
                link_base: Arc::clone(&self.link_base),
                lease,
            },
        )
    }
}
