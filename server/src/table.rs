//! One table: a task that owns its game and its event log.
//!
//! Sessions send the task [`Command`]s over a bounded channel and get replies on oneshot
//! channels; each subscriber (a seat's stream or a spectator's) has its own bounded channel.
//! A subscriber that cannot keep up is dropped (it resumes from its last sequence number), so
//! no client can slow the table. The log holds every event with its audience; what a stream
//! carries is the log filtered by what its viewer may see.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dudo_proto::v1 as pb;
use dudo_rules::bots::{self, Bot};
use dudo_rules::{Action, Audience, Event, EventKind, Game, RuleSet, Seat, Viewer, seed_from_u64};
use rand::Rng;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tonic::Status;

use crate::convert;

/// What a subscriber's channel carries.
pub type Update = Result<pb::PlayUpdate, Status>;

/// How many updates a subscriber may have waiting before it is dropped.
const SUBSCRIBER_BUFFER: usize = 1024;

/// What a session asks of a table.
pub enum Command {
    Join {
        name: String,
        reply: oneshot::Sender<Result<(usize, String), Status>>,
    },
    AddBot {
        token: String,
        bot: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Start {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Info {
        reply: oneshot::Sender<pb::TableInfo>,
    },
    Subscribe {
        token: Option<String>,
        since: Option<u64>,
        tx: mpsc::Sender<Update>,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Act {
        token: String,
        action: Action,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    ChangeSettings {
        token: String,
        settings: Vec<(String, String)>,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Remove {
        token: String,
        seat: Seat,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Reset {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Leave {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    /// The host closes the table for good: streams end, the table leaves the server.
    Close {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    /// The server is stopping: tell every stream and close it.
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

struct SeatSlot {
    name: String,
    token: String,
    bot: Option<(String, Box<dyn Bot>)>,
    /// Left or removed during a game: out for good, gone at the next reset.
    left: bool,
}

struct Subscriber {
    viewer: Viewer,
    tx: mpsc::Sender<Update>,
}

/// The state the table task owns.
pub struct Table {
    id: String,
    code: String,
    rules: Arc<RuleSet>,
    /// Seats the table was created with.
    capacity: usize,
    seed: Option<u64>,
    seats: Vec<SeatSlot>,
    host: usize,
    game: Option<Game>,
    /// Every event, in order; an event's sequence number is its index.
    log: Vec<Event>,
    /// Where the current game's events begin: a reset renumbers seats, so a replay must never
    /// reach an earlier game (a seat's old number may have held someone else's dice).
    log_start: usize,
    subscribers: Vec<Subscriber>,
    /// The table as last announced to the streams, so only changes are sent.
    announced: Option<pb::TableInfo>,
    /// The host closed the table: the task ends after this command.
    closed: bool,
    /// The turn clock: time per move, if the table has one.
    clock: Option<Clock>,
    /// How long bots wait before moving (zero: they move at once, in one go).
    bot_pause: Duration,
    /// The bot move waiting out `bot_pause`: when, who, what, and the log length it was
    /// chosen at (a move chosen before anything else happened is stale and chosen again).
    bot_due: Option<BotMove>,
    /// Whose turn the clock is timing, and since when.
    timing: Option<(Seat, Instant)>,
    /// The round the last commitments were for.
    round: u32,
    /// The salts and dice behind this round's commitments, to publish with the reveal.
    salts: Vec<(Seat, String, Vec<u8>)>,
    /// Calls each seat may make a second, and each seat's bucket of calls left.
    rate: u32,
    buckets: Vec<(f64, Instant)>,
}

/// How a table is paced: its turn clock and how long its bots think.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub clock: Option<Clock>,
    pub bot_pause: Duration,
}

/// A bot's move, chosen and waiting for its time.
struct BotMove {
    due: Instant,
    seat: Seat,
    action: Action,
    at_log_len: usize,
}

/// A table's turn clock.
#[derive(Clone, Debug)]
pub struct Clock {
    pub per_move: Duration,
    /// What each seat has left of its time bank.
    pub banks: Vec<Duration>,
    pub bank: Duration,
}

impl Clock {
    pub fn new(per_move: Duration, bank: Duration) -> Clock {
        Clock { per_move, banks: Vec::new(), bank }
    }

    fn bank_of(&self, seat: Seat) -> Duration {
        self.banks.get(seat).copied().unwrap_or(self.bank)
    }
}

/// Names for built-in bots, so a table reads like a table of people.
const BOT_NAMES: &[&str] = &[
    "Alba", "Bruno", "Carmen", "Diego", "Elena", "Felipe", "Gloria", "Hugo", "Ines", "Jorge", "Lucia",
    "Mateo", "Nuria", "Oscar", "Paz", "Quique", "Rosa", "Sergio", "Tere", "Ulises", "Vera", "Xavi", "Yago",
    "Zoe",
];

/// The first free name for a bot, marked with its kind: "Carmen (odds bot)".
fn bot_name(kind: &str, seats: &[SeatSlot]) -> String {
    let taken = |n: &str| seats.iter().any(|s| s.name == n);
    let named = BOT_NAMES.iter().map(|n| format!("{n} ({kind} bot)")).find(|n| !taken(n));
    named.unwrap_or_else(|| format!("{kind} bot {}", seats.len()))
}

/// A random secret, 128 bits, as hex.
pub fn secret() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Table {
    pub fn new(
        id: String,
        code: String,
        rules: RuleSet,
        capacity: usize,
        seed: Option<u64>,
        pacing: Pacing,
        rate: u32,
    ) -> Table {
        Table {
            rate,
            buckets: Vec::new(),
            clock: pacing.clock,
            bot_pause: pacing.bot_pause,
            bot_due: None,
            timing: None,
            round: 0,
            salts: Vec::new(),
            id,
            code,
            rules: Arc::new(rules),
            capacity,
            seed,
            seats: Vec::new(),
            host: 0,
            game: None,
            log: Vec::new(),
            log_start: 0,
            subscribers: Vec::new(),
            announced: None,
            closed: false,
        }
    }

    /// Runs the table until every handle to it is gone, or until it has been idle for `idle`:
    /// no call reached it and no stream was open on it all that time. An abandoned table
    /// would otherwise hold its log and its place under the table limits for ever.
    pub async fn run(mut self, mut commands: mpsc::Receiver<Command>, idle: Duration) {
        metrics::gauge!("dudo_tables").increment(1.0);
        tracing::info!(code = %self.code, "table opened");
        let mut last_call = Instant::now();
        loop {
            let deadline = self.deadline();
            let bot_due = self.bot_due.as_ref().map(|b| b.due);
            tokio::select! {
                command = commands.recv() => match command {
                    Some(c) => {
                        last_call = Instant::now();
                        self.handle(c);
                        if self.closed {
                            tracing::info!("table closed by its host");
                            break;
                        }
                    }
                    None => break,
                },
                () = sleep_until(deadline), if deadline.is_some() => self.time_out(),
                () = sleep_until(bot_due), if bot_due.is_some() => self.bot_moves(),
                () = tokio::time::sleep_until(last_call + idle) => {
                    self.subscribers.retain(|s| !s.tx.is_closed());
                    if self.subscribers.is_empty() {
                        tracing::info!("table closed after {}s idle", idle.as_secs());
                        break;
                    }
                    // Someone is watching: the table is in use.
                    last_call = Instant::now();
                }
            }
        }
        metrics::gauge!("dudo_tables").decrement(1.0);
        metrics::gauge!("dudo_seats").decrement(self.seats.len() as f64);
    }

    /// When the clock runs out for the seat it is timing.
    fn deadline(&self) -> Option<Instant> {
        let (clock, (seat, since)) = (self.clock.as_ref()?, self.timing?);
        Some(since + clock.per_move + clock.bank_of(seat))
    }

    /// Starts timing the person whose turn it now is (bots need no clock).
    fn restart_clock(&mut self) {
        let turn = self.game.as_ref().filter(|g| !g.is_over()).and_then(Game::turn);
        let person = turn.filter(|&t| self.seats.get(t).is_some_and(|s| s.bot.is_none()));
        let now = Instant::now();
        // Spend the bank of the seat that just moved by what it used past its move time.
        if let (Some(clock), Some((seat, since))) = (self.clock.as_mut(), self.timing) {
            let over = now.saturating_duration_since(since).saturating_sub(clock.per_move);
            let bank = clock.bank_of(seat).saturating_sub(over);
            if clock.banks.len() <= seat {
                let fresh = clock.bank;
                clock.banks.resize(seat + 1, fresh);
            }
            clock.banks[seat] = bank;
        }
        self.timing = person.map(|p| (p, now));
    }

    /// The clock ran out: the seat's default action is played for it, and the log says so.
    fn time_out(&mut self) {
        let Some((seat, _)) = self.timing.take() else { return };
        let Some(game) = self.game.as_mut() else { return };
        let Some(action) = game.default_action(seat) else { return };
        if let Some(clock) = self.clock.as_mut() {
            if clock.banks.len() <= seat {
                let fresh = clock.bank;
                clock.banks.resize(seat + 1, fresh);
            }
            clock.banks[seat] = Duration::ZERO;
        }
        let announce = Event {
            audience: dudo_rules::Audience::Everyone,
            kind: dudo_rules::EventKind::TurnTimedOut { seat, action: action.clone() },
        };
        let Ok(events) = game.apply(seat, &action) else { return };
        self.publish(vec![announce]);
        self.publish(events);
        self.after_move();
    }

    fn handle(&mut self, command: Command) {
        let may_change_table = matches!(
            command,
            Command::Join { .. }
                | Command::AddBot { .. }
                | Command::Start { .. }
                | Command::ChangeSettings { .. }
                | Command::Remove { .. }
                | Command::Reset { .. }
                | Command::Leave { .. }
        );
        self.obey(command);
        if may_change_table {
            self.announce_table();
        }
    }

    /// Tells every stream who sits at the table now, if that changed.
    fn announce_table(&mut self) {
        let info = self.info();
        if self.announced.as_ref() == Some(&info) {
            return;
        }
        let update = pb::PlayUpdate { update: Some(pb::play_update::Update::Table(info.clone())) };
        self.announced = Some(info);
        self.subscribers.retain(|s| s.tx.try_send(Ok(update.clone())).is_ok());
    }

    fn obey(&mut self, command: Command) {
        match command {
            Command::Join { name, reply } => {
                let _ = reply.send(self.join(name, None));
            }
            Command::AddBot { token, bot, reply } => {
                let result = self.host_only(&token).and_then(|_| {
                    // A seeded table's bots are seeded from it too, so the whole game replays.
                    let seed = match self.seed {
                        Some(s) => s ^ (self.seats.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        None => rand::rng().random(),
                    };
                    let brain = bots::by_name(&bot, seed).ok_or_else(|| {
                        Status::invalid_argument(format!(
                            "no bot {bot:?}; the bots are {}",
                            bots::NAMES.join(", ")
                        ))
                    })?;
                    let name = bot_name(&bot, &self.seats);
                    self.join(name, Some((bot, brain))).map(|_| ())
                });
                let _ = reply.send(result);
            }
            Command::Start { token, reply } => {
                let result = self.host_only(&token).and_then(|_| self.start());
                let _ = reply.send(result);
            }
            Command::Info { reply } => {
                let _ = reply.send(self.info());
            }
            Command::Subscribe { token, since, tx, reply } => {
                let result = self.subscribe(token, since, tx);
                let _ = reply.send(result);
            }
            Command::Act { token, action, reply } => {
                let result = self.act(&token, action);
                let _ = reply.send(result);
            }
            Command::ChangeSettings { token, settings, reply } => {
                let result = self.host_only(&token).and_then(|_| self.change_settings(&settings));
                let _ = reply.send(result);
            }
            Command::Remove { token, seat, reply } => {
                let result = self.host_only(&token).and_then(|_| self.remove(seat));
                let _ = reply.send(result);
            }
            Command::Reset { token, reply } => {
                let result = self.host_only(&token).map(|_| {
                    self.game = None;
                    self.timing = None;
                    self.log_start = self.log.len();
                    self.salts.clear();
                    // Seats that left are gone; the rest (renumbered) play the next game, with
                    // full time banks.
                    let host_token = self.seats.get(self.host).map(|s| s.token.clone());
                    let before = self.seats.len();
                    self.seats.retain(|s| !s.left);
                    metrics::gauge!("dudo_seats").decrement((before - self.seats.len()) as f64);
                    self.host =
                        self.seats.iter().position(|s| Some(&s.token) == host_token.as_ref()).unwrap_or(0);
                    if let Some(clock) = self.clock.as_mut() {
                        clock.banks.clear();
                    }
                    self.drop_seat_streams("the table was reset: reconnect with your token");
                });
                let _ = reply.send(result);
            }
            Command::Leave { token, reply } => {
                let result = self.seat_of(&token).and_then(|seat| self.remove(seat));
                let _ = reply.send(result);
            }
            Command::Close { token, reply } => {
                let result = self.host_only(&token).map(|_| {
                    self.closed = true;
                    // Streams end now, with a reason: nothing more will come.
                    for s in self.subscribers.drain(..) {
                        let _ = s.tx.try_send(Err(Status::not_found("the host closed the table")));
                    }
                });
                let _ = reply.send(result);
            }
            Command::Shutdown { reply } => {
                for s in self.subscribers.drain(..) {
                    let _ = s.tx.try_send(Err(Status::unavailable("the server is shutting down")));
                }
                let _ = reply.send(());
            }
        }
    }

    fn seat_of(&self, token: &str) -> Result<Seat, Status> {
        self.seats
            .iter()
            .position(|s| s.bot.is_none() && s.token == token)
            .ok_or_else(|| Status::unauthenticated("no seat at this table has that token"))
    }

    fn host_only(&self, token: &str) -> Result<(), Status> {
        let seat = self.seat_of(token)?;
        if seat != self.host {
            return Err(Status::permission_denied("only the host may do that"));
        }
        Ok(())
    }

    fn join(&mut self, name: String, bot: Option<(String, Box<dyn Bot>)>) -> Result<(usize, String), Status> {
        if self.game.is_some() {
            return Err(Status::failed_precondition("the game has started; nobody joins now"));
        }
        if self.seats.len() >= self.capacity {
            return Err(Status::resource_exhausted(format!("the table's {} seats are taken", self.capacity)));
        }
        let name = name.trim().chars().take(32).collect::<String>();
        let name = if name.is_empty() { format!("Player {}", self.seats.len() + 1) } else { name };
        let token = secret();
        self.seats.push(SeatSlot { name, token: token.clone(), bot, left: false });
        metrics::gauge!("dudo_seats").increment(1.0);
        Ok((self.seats.len() - 1, token))
    }

    /// Ends every seat's stream with a reason (spectators keep watching).
    fn drop_seat_streams(&mut self, why: &str) {
        self.subscribers.retain(|s| {
            if matches!(s.viewer, Viewer::Spectator) {
                return true;
            }
            let _ = s.tx.try_send(Err(Status::aborted(why.to_string())));
            false
        });
    }

    fn change_settings(&mut self, settings: &[(String, String)]) -> Result<(), Status> {
        if self.game.is_some() {
            return Err(Status::failed_precondition("settings change only before the game starts"));
        }
        let mut rules = (*self.rules).clone();
        for (path, value) in settings {
            rules = dudo_rules::presets::with_setting(rules, path, value)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
        }
        if self.capacity < usize::from(rules.players.min) || self.capacity > usize::from(rules.players.max) {
            return Err(Status::invalid_argument(format!(
                "players: the table has {} seats; these rules seat {} to {}",
                self.capacity, rules.players.min, rules.players.max
            )));
        }
        self.rules = Arc::new(rules);
        Ok(())
    }

    /// Takes a seat out: before the start it frees the seat; during a game the engine allows
    /// it only before the first call of a round, and the seat finishes below those still in.
    fn remove(&mut self, seat: Seat) -> Result<(), Status> {
        if seat >= self.seats.len() {
            return Err(Status::invalid_argument(format!("seat: there is no seat {seat}")));
        }
        match self.game.as_mut() {
            None => {
                if seat == self.host {
                    return Err(Status::failed_precondition(
                        "the host cannot leave a table that has not started",
                    ));
                }
                self.seats.remove(seat);
                metrics::gauge!("dudo_seats").decrement(1.0);
                if self.host > seat {
                    self.host -= 1;
                }
                // Seats after it move down: every seat's stream must reconnect with its token
                // (which finds its new number), so no stream carries another seat's dice.
                self.drop_seat_streams("the seats were renumbered: reconnect with your token");
                Ok(())
            }
            Some(game) => {
                let events = game.remove(seat).map_err(|e| Status::failed_precondition(e.to_string()))?;
                // No rejoin: the token no longer answers, and a bot no longer plays.
                if let Some(slot) = self.seats.get_mut(seat) {
                    slot.token = secret();
                    slot.bot = None;
                    slot.left = true;
                }
                self.publish(events);
                self.after_move();
                Ok(())
            }
        }
    }

    fn start(&mut self) -> Result<(), Status> {
        if self.game.is_some() {
            return Err(Status::failed_precondition("the game has already started"));
        }
        let seed = match self.seed {
            Some(s) => seed_from_u64(s),
            None => rand::rng().random(),
        };
        let (game, events) = Game::start(Arc::clone(&self.rules), self.seats.len(), seed)
            .map_err(|e| Status::failed_precondition(e.to_string()))?;
        self.game = Some(game);
        self.publish(events);
        self.after_move();
        Ok(())
    }

    /// A token bucket per seat: `rate` calls a second, bursts of twice that.
    fn take_call(&mut self, seat: Seat) -> Result<(), Status> {
        let rate = f64::from(self.rate.max(1));
        let now = Instant::now();
        if self.buckets.len() <= seat {
            self.buckets.resize(seat + 1, (rate * 2.0, now));
        }
        let (tokens, last) = &mut self.buckets[seat];
        *tokens = (*tokens + now.saturating_duration_since(*last).as_secs_f64() * rate).min(rate * 2.0);
        *last = now;
        if *tokens < 1.0 {
            return Err(Status::resource_exhausted(format!(
                "slow down: at most {} calls a second",
                self.rate
            )));
        }
        *tokens -= 1.0;
        Ok(())
    }

    fn act(&mut self, token: &str, action: Action) -> Result<(), Status> {
        let started = Instant::now();
        let seat = self.seat_of(token)?;
        let _span = tracing::debug_span!("act", seat).entered();
        self.take_call(seat)?;
        let game =
            self.game.as_mut().ok_or_else(|| Status::failed_precondition("the game has not started"))?;
        let events = game.apply(seat, &action).map_err(|e| {
            metrics::counter!("dudo_rejections_total", "reason" => e.reason()).increment(1);
            Status::failed_precondition(e.to_string())
        })?;
        self.publish(events);
        self.after_move();
        metrics::counter!("dudo_actions_total").increment(1);
        // From the command reaching the table to its events in every subscriber's channel.
        metrics::histogram!("dudo_action_seconds").record(started.elapsed().as_secs_f64());
        Ok(())
    }

    /// After any move: the built-in bots move (at once, or one at a time after their pause),
    /// then the clock times whoever must move and the people who may act are prompted.
    fn after_move(&mut self) {
        self.bot_due = None;
        if self.bot_pause.is_zero() {
            // Each bot move raises a bid or ends a round, so this ends; the bound is for bugs.
            for _ in 0..100_000 {
                let Some((seat, action)) = self.bot_choice() else { break };
                if !self.play_bot(seat, &action) {
                    break;
                }
            }
        } else if let Some((seat, action)) = self.bot_choice() {
            self.bot_due = Some(BotMove {
                due: Instant::now() + self.bot_pause,
                seat,
                action,
                at_log_len: self.log.len(),
            });
        }
        // A move was made: the clock times whoever must move now (a reconnect does not reset it).
        self.restart_clock();
        self.prompt();
    }

    /// A paused bot's time has come: it moves if nothing happened since it chose.
    fn bot_moves(&mut self) {
        let Some(due) = self.bot_due.take() else { return };
        if due.at_log_len == self.log.len() {
            self.play_bot(due.seat, &due.action);
        }
        self.after_move();
    }

    /// The first bot that wants to move now, and its move: the bot whose turn it is, or one
    /// calling out of turn.
    fn bot_choice(&mut self) -> Option<(Seat, Action)> {
        let game = self.game.as_ref()?;
        for seat in game.seats_to_ask().collect::<Vec<_>>() {
            let Some((_, bot)) = self.seats.get_mut(seat).and_then(|s| s.bot.as_mut()) else { continue };
            let (view, legal) = (game.view(seat), game.legal(seat));
            let offer = if Some(seat) == game.turn() {
                Some(bot.act(game.rules(), &view, &legal))
            } else {
                bot.interject(game.rules(), &view, &legal)
            };
            if let Some(action) = offer {
                return Some((seat, action));
            }
        }
        None
    }

    /// Plays a bot's move; false if nothing happened.
    fn play_bot(&mut self, seat: Seat, action: &Action) -> bool {
        let Some(game) = self.game.as_mut() else { return false };
        match game.apply(seat, action).or_else(|_| match game.default_action(seat) {
            // A bot's refused move is replaced by the seat's default, never a stall.
            Some(fallback) => game.apply(seat, &fallback),
            None => Ok(Vec::new()),
        }) {
            Ok(events) if !events.is_empty() => {
                self.publish(events);
                true
            }
            _ => false,
        }
    }

    /// Tells every person who may act now what they see and may do.
    fn prompt(&mut self) {
        let Some(game) = &self.game else { return };
        let people: Vec<Seat> = game.seats_to_ask().collect();
        for seat in people {
            let Some(update) = self.prompt_for(seat) else { continue };
            self.subscribers
                .retain(|s| s.viewer != Viewer::Seat(seat) || s.tx.try_send(Ok(update.clone())).is_ok());
        }
    }

    /// The prompt for `seat`, if it is a person's seat that may act now.
    fn prompt_for(&self, seat: Seat) -> Option<pb::PlayUpdate> {
        let game = self.game.as_ref()?;
        if !game.seats_to_ask().any(|s| s == seat)
            || self.seats.get(seat).is_none_or(|slot| slot.bot.is_some())
        {
            return None;
        }
        let deadline = self.deadline().filter(|_| Some(seat) == game.turn()).map(|d| {
            let left = d.saturating_duration_since(Instant::now());
            let at = SystemTime::now() + left;
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        });
        Some(pb::PlayUpdate {
            update: Some(pb::play_update::Update::Prompt(pb::Prompt {
                view: Some(convert::view_to_wire(&game.view(seat))),
                legal: Some(convert::legal_to_wire(&game.legal(seat))),
                deadline_unix_millis: deadline,
                last_seq: (self.log.len() as u64).checked_sub(1),
            })),
        })
    }

    /// Appends events to the log and sends each subscriber what it may see. Every roll the
    /// engine reports is committed to (verifiable dice): the commitments follow the batch,
    /// the salts follow the reveal.
    ///
    /// Individual-hand games commit to the cup each time a seat looks under it, and open only
    /// the last of those at the reveal: the cup that was lifted. Opening the earlier ones would
    /// tell everyone what was under the cup before a re-roll, which the table game never shows.
    fn publish(&mut self, events: Vec<Event>) {
        let mut commitments: Vec<(Seat, String)> = Vec::new();
        for event in events {
            match &event.kind {
                EventKind::RoundStarted { round, .. } | EventKind::HandStarted { hand: round, .. } => {
                    // A batch may end one round and open the next: each round's commitments
                    // carry their own round number.
                    self.commit(&mut commitments);
                    self.round = *round;
                    self.salts.clear();
                }
                EventKind::DiceRolled { seat, dice } if matches!(event.audience, Audience::Hidden { .. }) => {
                    let dice: Vec<u8> = dice.iter().flatten().copied().collect();
                    let salt: [u8; 16] = rand::rng().random();
                    commitments.push((*seat, hex(&commitment(self.round, *seat, &dice, &salt))));
                    self.salts.push((*seat, hex(&salt), dice));
                }
                EventKind::HandSeen { seat, dice } => {
                    let salt: [u8; 16] = rand::rng().random();
                    commitments.push((*seat, hex(&commitment(self.round, *seat, dice, &salt))));
                    self.salts = vec![(*seat, hex(&salt), dice.clone())];
                }
                _ => {}
            }
            let revealed =
                matches!(event.kind, EventKind::DiceRevealed { .. } | EventKind::HandRevealed { .. });
            self.append(event);
            if revealed && !self.salts.is_empty() {
                let salts = std::mem::take(&mut self.salts);
                self.append(Event {
                    audience: Audience::Everyone,
                    kind: EventKind::DiceSalts { round: self.round, salts },
                });
            }
        }
        self.commit(&mut commitments);
    }

    /// Publishes the commitments gathered so far, for the current round.
    fn commit(&mut self, commitments: &mut Vec<(Seat, String)>) {
        if commitments.is_empty() {
            return;
        }
        let commitments = std::mem::take(commitments);
        let mut table = Sha256::new();
        for (_, h) in &commitments {
            table.update(h.as_bytes());
        }
        let table = hex(&table.finalize());
        self.append(Event {
            audience: Audience::Everyone,
            kind: EventKind::DiceCommitted { round: self.round, commitments, table },
        });
    }

    fn append(&mut self, event: Event) {
        let over = self.game.as_ref().is_some_and(Game::is_over);
        let seq = self.log.len() as u64;
        let wire = convert::event_to_wire(seq, &event);
        self.subscribers.retain(|s| {
            if !event.audience.admits(s.viewer, over) {
                return true;
            }
            let update = pb::PlayUpdate { update: Some(pb::play_update::Update::Event(wire.clone())) };
            // A full channel drops the subscriber; it resumes from its sequence number.
            s.tx.try_send(Ok(update)).is_ok()
        });
        self.log.push(event);
    }

    fn subscribe(
        &mut self,
        token: Option<String>,
        since: Option<u64>,
        tx: mpsc::Sender<Update>,
    ) -> Result<(), Status> {
        let viewer = match &token {
            Some(t) => Viewer::Seat(self.seat_of(t)?),
            None => Viewer::Spectator,
        };
        let over = self.game.as_ref().is_some_and(Game::is_over);
        match since {
            // Resuming: the table as it is now, then every event after `since` this viewer
            // may see, nothing twice.
            Some(since) => {
                let table = pb::PlayUpdate { update: Some(pb::play_update::Update::Table(self.info())) };
                tx.try_send(Ok(table)).map_err(|_| Status::resource_exhausted("subscriber buffer full"))?;
                for (seq, event) in
                    self.log.iter().enumerate().skip(
                        usize::try_from(since).unwrap_or(usize::MAX).saturating_add(1).max(self.log_start),
                    )
                {
                    if event.audience.admits(viewer, over) {
                        let update = pb::PlayUpdate {
                            update: Some(pb::play_update::Update::Event(convert::event_to_wire(
                                seq as u64, event,
                            ))),
                        };
                        tx.try_send(Ok(update))
                            .map_err(|_| Status::resource_exhausted("too much to replay at once"))?;
                    }
                }
            }
            // A new connection: a snapshot of what this viewer may know.
            None => {
                let view = self.game.as_ref().map(|g| match viewer {
                    Viewer::Seat(s) => convert::view_to_wire(&g.view(s)),
                    _ => convert::view_to_wire(&g.spectator_view()),
                });
                let snapshot = pb::Snapshot {
                    last_seq: (self.log.len() as u64).checked_sub(1),
                    view,
                    table: Some(self.info()),
                };
                let update = pb::PlayUpdate { update: Some(pb::play_update::Update::Snapshot(snapshot)) };
                tx.try_send(Ok(update)).map_err(|_| Status::resource_exhausted("subscriber buffer full"))?;
            }
        }
        // A seat that may act is asked on its new stream; its other streams were asked already.
        if let Viewer::Seat(seat) = viewer
            && let Some(prompt) = self.prompt_for(seat)
        {
            tx.try_send(Ok(prompt)).map_err(|_| Status::resource_exhausted("subscriber buffer full"))?;
        }
        self.subscribers.push(Subscriber { viewer, tx });
        Ok(())
    }

    pub fn info(&self) -> pb::TableInfo {
        let state = match &self.game {
            None => pb::TableState::Waiting,
            Some(g) if g.is_over() => pb::TableState::Over,
            Some(_) => pb::TableState::Playing,
        };
        pb::TableInfo {
            id: self.id.clone(),
            join_code: self.code.clone(),
            link: format!("dudo://join/{}", self.code),
            rules: Some(convert::rules_to_wire(&self.rules)),
            seats: u32::try_from(self.capacity).unwrap_or(u32::MAX),
            players: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| pb::SeatInfo {
                    seat: u32::try_from(i).unwrap_or(u32::MAX),
                    name: s.name.clone(),
                    bot: s.bot.as_ref().map(|b| b.0.clone()).unwrap_or_default(),
                })
                .collect(),
            host: u32::try_from(self.host).unwrap_or(0),
            state: state as i32,
        }
    }
}

/// SHA-256 of `"dudo-v1" ‖ round ‖ seat ‖ dice ‖ salt`, numbers as big-endian u32.
pub fn commitment(round: u32, seat: Seat, dice: &[u8], salt: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"dudo-v1");
    h.update(round.to_be_bytes());
    h.update(u32::try_from(seat).unwrap_or(u32::MAX).to_be_bytes());
    h.update(dice);
    h.update(salt);
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// A channel for a new subscriber.
pub fn subscriber_channel() -> (mpsc::Sender<Update>, mpsc::Receiver<Update>) {
    mpsc::channel(SUBSCRIBER_BUFFER)
}
