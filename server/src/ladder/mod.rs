//! The ladder: pools of rated games the server makes itself.
//!
//! A player (an account) enters a pool over one `Ladder.Enter` stream and waits in the
//! pool's queue. The matchmaker ([`Matchmaker`], one task owning every queue) fills tables by
//! rating: players whose ratings lie within a gap that widens the longer they wait, never one
//! account twice at a table; after a while the pool's built-in bots fill the seats nobody
//! takes. A table starts when full. Each player is told its seat's token over its stream and
//! plays over the ordinary Play stream, so every client, the SDK and the Python example play
//! ladder games unchanged.
//!
//! The matchmaker watches each of its tables as a spectator: a time-out counts against the
//! seat's account (too many, and it is benched for a while), and the game's end frees the
//! player's place and is reported to it. The game's record carries `rating_pool` =
//! `ladder:POOL`, and the store rates it (Weng-Lin) in the record's own transaction.

pub mod check;
mod matching;
pub mod pools;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;

use crate::refusal::{Refusal, refused};
use crate::server_tables::{LadderSeat, Made, ServerTables};
use crate::table::SeatAccount;
pub use pools::{Players, Pool};

/// How often the matchmaker looks for tables to make.
pub(crate) const TICK: Duration = Duration::from_millis(250);

/// How often entrants hear where the queue stands, at most (a seat, an end or a bench is
/// told at once).
pub(crate) const QUEUE_NEWS: Duration = Duration::from_secs(1);
/// The rating gap (in mu) a table may span at once, and how much it widens each second of
/// the longest wait among its players.
pub(crate) const GAP: f64 = 3.0;
pub(crate) const GAP_PER_SECOND: f64 = 0.5;
/// Updates waiting for one entrant before the newest are dropped (a seat it never hears of
/// plays on under the clock).
pub(crate) const ENTRANT_QUEUE: usize = 64;

pub(crate) struct Entrant {
    pub(crate) id: u64,
    pub(crate) account: SeatAccount,
    pub(crate) name: String,
    /// The API token it entered with: checked again before each seat, so a token revoked
    /// (or an account suspended) while the stream is open takes no more seats.
    pub(crate) token: String,
    pub(crate) mu: f64,
    pub(crate) score: f64,
    pub(crate) since: Instant,
    pub(crate) wants: u32,
    /// Games still to be dealt on this stream (none: no end); at 0 it takes no more seats,
    /// and its stream ends once its games in play have.
    pub(crate) games_left: Option<u32>,
    pub(crate) tx: mpsc::Sender<Result<pb::LadderUpdate, Refusal>>,
    /// What it was last told of the queue (waiting, playing, rating's bits): the same news
    /// is not sent twice.
    pub(crate) told: std::cell::Cell<Option<(u32, u32, u64)>>,
    /// The addresses it is known by (as the per-address limits count them): where it
    /// entered from, and where its account was registered. A pool of people never seats
    /// two entrants sharing one at a table: one person's second accounts are not players
    /// to win rating from.
    pub(crate) addresses: Vec<String>,
}

impl Entrant {
    /// Whether it and `other` share an address (see [`Entrant::addresses`]).
    pub(crate) fn shares_an_address(&self, other: &Entrant) -> bool {
        self.addresses.iter().any(|a| other.addresses.contains(a))
    }
}

/// An entrant chosen for a table: its account is kept with it, because the entrant may leave
/// the queue while the table is made, and the game it counts for must still be let go of.
#[derive(Clone, Debug)]
pub(crate) struct Chosen {
    entrant: u64,
    account: String,
    name: String,
}

/// An entrant who may take a seat now: where it is in its pool's queue, and how many games
/// it has in play.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ready {
    index: usize,
    playing: u32,
}

pub(crate) struct Game {
    pool: usize,
    /// The account at each seat, and the seat's token; none for a bot.
    seats: Vec<Option<(String, String)>>,
}

pub(crate) enum Command {
    Enter {
        pool: String,
        entrant: Entrant,
        reply: tokio::sync::oneshot::Sender<Result<(), Refusal>>,
    },
    Made {
        pool: usize,
        made: Result<Made, String>,
        /// Each seat's entrant (none for a bot), as it was when the table was chosen.
        seated: Vec<Option<Chosen>>,
    },
    /// An account's rating in a pool, as the store has it after a game.
    Rated {
        pool: usize,
        account: String,
        mu: f64,
        score: f64,
    },
    /// Entrants whose token no longer answers: their streams end with `why`.
    Refused {
        pool: usize,
        entrants: Vec<Chosen>,
        why: Refusal,
    },
    TimedOut {
        table: String,
        seat: usize,
    },
    Finished {
        table: String,
        standings: Vec<usize>,
    },
}

/// The ladder's handle: the pools and the matchmaker's queue.
#[derive(Clone)]
pub struct LadderHandle {
    pub(crate) pools: std::sync::Arc<Vec<Pool>>,
    pub(crate) tx: mpsc::Sender<Command>,
}

impl LadderHandle {
    pub fn pools(&self) -> &[Pool] {
        &self.pools
    }
}

/// The task that owns every pool's queue.
pub(crate) struct Matchmaker<T> {
    /// Where its tables are made.
    tables: T,
    pools: std::sync::Arc<Vec<Pool>>,
    queues: Vec<Vec<Entrant>>,
    games: HashMap<String, Game>,
    /// Games in play per pool and account, kept across the account's streams: one that
    /// enters again finds its games still counted (and is told their seats again).
    playing: Vec<HashMap<String, u32>>,
    /// Accounts benched, until when.
    benched: HashMap<String, Instant>,
    /// Time-outs since each account was last benched.
    timeouts: HashMap<String, u32>,
    /// Pools whose queue changed since every entrant was last told where it stands: told
    /// once a [`QUEUE_NEWS`], not once a change (a thousand entrants and ninety games ending
    /// a second made 90,000 updates a second).
    queue_changed: Vec<bool>,
    /// When the queues' news is next told.
    news_due: Instant,
    tx: mpsc::Sender<Command>,
}

/// Starts the matchmaker for `pools`.
pub(crate) fn start<T: ServerTables>(tables: T, pools: Vec<Pool>) -> LadderHandle {
    let (tx, rx) = mpsc::channel(1024);
    let pools = std::sync::Arc::new(pools);
    let queues = pools.iter().map(|_| Vec::new()).collect();
    let matchmaker = Matchmaker {
        tables,
        pools: std::sync::Arc::clone(&pools),
        queues,
        games: HashMap::new(),
        playing: pools.iter().map(|_| HashMap::new()).collect(),
        benched: HashMap::new(),
        timeouts: HashMap::new(),
        queue_changed: vec![false; pools.len()],
        news_due: Instant::now(),
        tx: tx.clone(),
    };
    tokio::spawn(matchmaker.run(rx));
    LadderHandle { pools, tx }
}

pub(crate) fn update(u: pb::ladder_update::Update) -> Result<pb::LadderUpdate, Refusal> {
    Ok(pb::LadderUpdate { update: Some(u) })
}

pub(crate) fn unix_millis_at(at: Instant) -> u64 {
    let now = crate::table::unix_millis();
    let ahead = at.saturating_duration_since(Instant::now()).as_millis();
    u64::try_from(now).unwrap_or(0).saturating_add(u64::try_from(ahead).unwrap_or(0))
}

impl<T: ServerTables> Matchmaker<T> {
    pub(crate) async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        let mut tick = tokio::time::interval(TICK);
        loop {
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => self.handle(command),
                    None => return,
                },
                _ = tick.tick() => self.match_all(),
            }
        }
    }

    pub(crate) fn handle(&mut self, command: Command) {
        match command {
            Command::Enter { pool, mut entrant, reply } => {
                let Some(p) = self.pools.iter().position(|p| p.name == pool) else {
                    let _ = reply
                        .send(Err(refused("no_such_pool", Refusal::not_found(format!("no pool {pool:?}")))));
                    return;
                };
                let queue = &mut self.queues[p];
                queue.retain(|e| !e.tx.is_closed());
                if queue.iter().any(|e| e.account.id == entrant.account.id) {
                    let _ = reply.send(Err(refused(
                        "already_entered",
                        Refusal::failed_precondition(
                            "this account is in the pool already (one stream a pool)",
                        ),
                    )));
                    return;
                }
                // Back after its stream dropped: the games it is still seated at are said again,
                // so a bot that restarts picks them up. Each counts against the games this
                // stream asks for, as `dudo ladder --games` counts it: a game finished after a
                // restart is one of the games played (all are said, even past the count).
                for (table, game) in self.games.iter().filter(|(_, g)| g.pool == p) {
                    for (seat, at) in game.seats.iter().enumerate() {
                        let Some((account, token)) = at else { continue };
                        if *account == entrant.account.id {
                            if let Some(left) = entrant.games_left.as_mut() {
                                *left = left.saturating_sub(1);
                            }
                            let seated = pb::LadderSeated {
                                pool: self.pools[p].name.clone(),
                                table: table.clone(),
                                seat: u32::try_from(seat).unwrap_or(u32::MAX),
                                token: token.clone(),
                                game: crate::table::game_id(table, 1),
                            };
                            let _ = entrant.tx.try_send(update(pb::ladder_update::Update::Seated(seated)));
                        }
                    }
                }
                if let Some(until) = self.benched.get(&entrant.account.id) {
                    let benched = pb::LadderBenched {
                        until_unix_millis: unix_millis_at(*until),
                        why: "still benched for time-outs".into(),
                    };
                    let _ = entrant.tx.try_send(update(pb::ladder_update::Update::Benched(benched)));
                }
                let id = entrant.id;
                self.queues[p].push(entrant);
                let _ = reply.send(Ok(()));
                // The newcomer hears where it stands now; the others at the next tick.
                self.tell_queue_to(p, |e| e.id == id);
                self.queue_changed[p] = true;
            }
            Command::Made { pool, made, seated } => match made {
                Ok(made) => {
                    // By account, whether or not its entrant is still queued: an entrant that
                    // left meanwhile still has this game in play, and hears of it on entering
                    // again.
                    let seats: Vec<Option<(String, String)>> = seated
                        .iter()
                        .zip(&made.tokens)
                        .map(|(c, token)| c.as_ref().map(|c| c.account.clone()).zip(token.clone()))
                        .collect();
                    for (seat, (chosen, token)) in seated.iter().zip(&made.tokens).enumerate() {
                        let (Some(chosen), Some(token)) = (chosen, token) else { continue };
                        // Its entrant, or the account's stream now if it entered again while
                        // the table was made (the new stream was told only of games made): the
                        // game then counts against the games that stream asked for.
                        let queue = &mut self.queues[pool];
                        let chosen_one =
                            queue.iter().position(|x| x.id == chosen.entrant && !x.tx.is_closed());
                        let again = || {
                            queue.iter().rposition(|x| x.account.id == chosen.account && !x.tx.is_closed())
                        };
                        let told = chosen_one.or_else(again);
                        if let Some(e) = told.and_then(|i| queue.get_mut(i)) {
                            if chosen_one.is_none()
                                && let Some(left) = e.games_left.as_mut()
                            {
                                *left = left.saturating_sub(1);
                            }
                            let seated = pb::LadderSeated {
                                pool: self.pools[pool].name.clone(),
                                table: made.table.clone(),
                                seat: u32::try_from(seat).unwrap_or(u32::MAX),
                                token: token.clone(),
                                // A ladder table plays one game.
                                game: crate::table::game_id(&made.table, 1),
                            };
                            let _ = e.tx.try_send(update(pb::ladder_update::Update::Seated(seated)));
                        }
                    }
                    let players: Vec<(String, String)> =
                        seated.iter().flatten().map(|c| (c.account.clone(), c.name.clone())).collect();
                    self.games.insert(made.table.clone(), Game { pool, seats });
                    self.watch(pool, players, made);
                    let seated: Vec<u64> = seated.iter().flatten().map(|c| c.entrant).collect();
                    self.tell_queue_to(pool, |e| seated.contains(&e.id));
                    // Fewer wait now: the others hear it at the next news.
                    self.queue_changed[pool] = true;
                }
                Err(why) => {
                    tracing::warn!(error = %why, "a ladder table could not be made");
                    for chosen in seated.into_iter().flatten() {
                        self.game_done(pool, &chosen.account);
                        // Not dealt after all: still owed.
                        let entrant = self.queues[pool].iter_mut().find(|e| e.id == chosen.entrant);
                        if let Some(left) = entrant.and_then(|e| e.games_left.as_mut()) {
                            *left += 1;
                        }
                    }
                }
            },
            Command::Rated { pool, account, mu, score } => {
                for e in self.queues[pool].iter_mut().filter(|e| e.account.id == account) {
                    (e.mu, e.score) = (mu, score);
                }
            }
            Command::Refused { pool, entrants, why } => {
                for chosen in entrants {
                    self.game_done(pool, &chosen.account);
                    let Some(i) = self.queues[pool].iter().position(|x| x.id == chosen.entrant) else {
                        continue;
                    };
                    let e = self.queues[pool].remove(i);
                    let _ = e.tx.try_send(Err(why.clone()));
                }
                self.queue_changed[pool] = true;
            }
            Command::TimedOut { table, seat } => {
                let Some(game) = self.games.get(&table) else { return };
                let Some(Some((account, _))) = game.seats.get(seat) else { return };
                // Time-outs while benched (a bot that died keeps timing out its games) do not
                // bench it again: the bench runs from the time-out that earned it.
                if self.benched.contains_key(account) {
                    return;
                }
                let pool = &self.pools[game.pool];
                let n = self.timeouts.entry(account.clone()).or_default();
                *n += 1;
                if *n >= pool.bench_after_timeouts {
                    self.timeouts.remove(account);
                    let until = Instant::now() + Duration::from_secs(u64::from(pool.bench_minutes) * 60);
                    self.benched.insert(account.clone(), until);
                    let why = format!("{} time-outs or lapsed call windows", pool.bench_after_timeouts);
                    tracing::info!(account = %account, "benched from the ladder");
                    for queue in &self.queues {
                        for e in queue.iter().filter(|e| e.account.id == *account) {
                            let benched = pb::LadderBenched {
                                until_unix_millis: unix_millis_at(until),
                                why: why.clone(),
                            };
                            let _ = e.tx.try_send(update(pb::ladder_update::Update::Benched(benched)));
                        }
                    }
                }
            }
            Command::Finished { table, standings } => {
                let Some(game) = self.games.remove(&table) else { return };
                for (seat, at) in game.seats.iter().enumerate() {
                    let Some((account, _)) = at else { continue };
                    self.game_done(game.pool, account);
                    let open = self.queues[game.pool].iter_mut().filter(|x| !x.tx.is_closed());
                    if let Some(e) = open.filter(|x| x.account.id == *account).last() {
                        e.since = Instant::now();
                        let place = standings.iter().position(|&s| s == seat).map_or(0, |p| p + 1);
                        let ended = pb::LadderGameEnded {
                            table: table.clone(),
                            place: u32::try_from(place).unwrap_or(0),
                            game: crate::table::game_id(&table, 1),
                        };
                        let _ = e.tx.try_send(update(pb::ladder_update::Update::Ended(ended)));
                    }
                    // Its games in all dealt and ended: the stream ends (its sender dropped).
                    let playing = self.playing(game.pool, account);
                    self.queues[game.pool]
                        .retain(|e| !(e.account.id == *account && e.games_left == Some(0) && playing == 0));
                }
                self.queue_changed[game.pool] = true;
            }
        }
    }

    /// Whether `e` waits for a seat: fewer games in play than it wants at once, and games
    /// left to deal.
    pub(crate) fn wants_a_seat(&self, pool: usize, e: &Entrant) -> bool {
        self.playing(pool, &e.account.id) < e.wants && e.games_left != Some(0)
    }

    /// Games `account` has in play in `pool`.
    pub(crate) fn playing(&self, pool: usize, account: &str) -> u32 {
        self.playing.get(pool).and_then(|p| p.get(account)).copied().unwrap_or(0)
    }

    /// One of `account`'s games in `pool` ended (or was never made).
    pub(crate) fn game_done(&mut self, pool: usize, account: &str) {
        let Some(playing) = self.playing.get_mut(pool) else { return };
        if let Some(n) = playing.get_mut(account) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                playing.remove(account);
            }
        }
    }

    /// Tells every entrant of a pool where the queue stands.
    pub(crate) fn tell_queue(&self, pool: usize) {
        self.tell_queue_to(pool, |_| true);
    }

    /// Tells the entrants of a pool that `to` picks where the queue stands. A queue update
    /// is news, not a duty: it is left out for an entrant whose updates are backing up, so
    /// it never crowds out a seat, an end or a bench.
    pub(crate) fn tell_queue_to(&self, pool: usize, to: impl Fn(&Entrant) -> bool) {
        let queue = &self.queues[pool];
        let waiting =
            u32::try_from(queue.iter().filter(|e| self.wants_a_seat(pool, e)).count()).unwrap_or(u32::MAX);
        for e in queue.iter().filter(|e| to(e) && e.tx.capacity() > ENTRANT_QUEUE / 2) {
            let playing = self.playing(pool, &e.account.id);
            let news = Some((waiting, playing, e.score.to_bits()));
            if e.told.get() == news {
                continue;
            }
            let queued =
                pb::LadderQueued { pool: self.pools[pool].name.clone(), waiting, playing, rating: e.score };
            if e.tx.try_send(update(pb::ladder_update::Update::Queued(queued))).is_ok() {
                e.told.set(news);
            }
        }
    }

    /// Watches a ladder table as a spectator: its time-outs and its end, then its players'
    /// (account id, name) new ratings, which the store wrote with the game's record before
    /// the end was sent.
    pub(crate) fn watch(&self, pool: usize, players: Vec<(String, String)>, mut made: Made) {
        let (tables, tx) = (self.tables.clone(), self.tx.clone());
        let pool_name = self.pools[pool].name.clone();
        tokio::spawn(async move {
            let Some(mut updates) = made.updates.take() else {
                return;
            };
            while let Some(Ok(u)) = updates.next().await {
                let Some(pb::play_update::Update::Event(e)) = u.update else { continue };
                match e.kind {
                    Some(pb::event::Kind::TurnTimedOut(t)) => {
                        let command = Command::TimedOut { table: made.table.clone(), seat: t.seat as usize };
                        let _ = tx.send(command).await;
                    }
                    // A lapsed call window counts towards the bench like a time-out.
                    Some(pb::event::Kind::CallWindowLapsed(l)) => {
                        for &seat in &l.seats {
                            let command =
                                Command::TimedOut { table: made.table.clone(), seat: seat as usize };
                            let _ = tx.send(command).await;
                        }
                    }
                    Some(pb::event::Kind::GameOver(g)) => {
                        let standings = g.standings.iter().map(|&s| s as usize).collect();
                        let _ = tx.send(Command::Finished { table: made.table.clone(), standings }).await;
                        // The game is recorded (the record was written with its last move):
                        // the table leaves the server.
                        tables.close(&made.table, &made.host_token).await;
                        if let Some(store) = tables.store() {
                            for (account, name) in &players {
                                if let Ok(Some(r)) = store.ladder_rating(&pool_name, name).await {
                                    let (account, mu, score) = (account.clone(), r.mu, r.score());
                                    let _ = tx.send(Command::Rated { pool, account, mu, score }).await;
                                }
                            }
                        }
                        return;
                    }
                    _ => {}
                }
            }
            // The stream ended without a game_over (the table closed or fell behind): the
            // players' places are freed all the same.
            let _ = tx.send(Command::Finished { table: made.table.clone(), standings: Vec::new() }).await;
        });
    }
}
