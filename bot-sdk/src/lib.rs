//! Write a dudo bot in Rust.
//!
//! Implement [`Bot`]: it is shown a [`Turn`] (its dice and view of the table, the rule set,
//! the legal actions, the round's history and the deadline) and answers with an
//! [`Action`]. [`run`] does the rest: it connects, takes a seat by join code, keeps the
//! stream alive through dropped connections (resuming where it was), answers every prompt,
//! checks the server's dice commitments, and returns when the game is over.
//!
//! ```no_run
//! use dudo_bot::{Action, Bot, Turn};
//!
//! struct Cautious;
//! impl Bot for Cautious {
//!     fn act(&mut self, turn: &Turn) -> Action {
//!         match turn.view.current_bid {
//!             Some((_, bid)) if turn.odds(bid).at_least < 0.5 && turn.may_challenge() => turn.challenge(),
//!             _ => turn.least_raise().unwrap_or(turn.any()),
//!         }
//!     }
//! }
//! ```
//!
//! The reference bots (`random`, `odds`, `reader`, which also reads the others' bids as
//! evidence, and `expert`, which plays out its guesses at the hidden dice) are the engine's,
//! usable here through [`builtin`].
#![forbid(unsafe_code)]

mod verify;

use std::time::SystemTime;

pub use dudo_client::{Client, ClientError, SeatKey, TableEvent};
pub use dudo_rules::odds::BidOdds;
pub use dudo_rules::{Action, Bid, Event, EventKind, Legal, RuleSet, View};
pub use verify::{DiceCheck, DiceCheckError};

use dudo_client::Update;

/// What a bot sees when it is asked to move.
pub struct Turn<'a> {
    /// The bot's seat.
    pub seat: usize,
    /// What the seat may know: its dice, everyone's dice counts, the bids of the round.
    pub view: &'a View,
    /// Everything the bot may do now.
    pub legal: &'a Legal,
    pub rules: &'a RuleSet,
    /// Every entry of the table's log this seat has seen, oldest first: the engine's events
    /// ([`TableEvent::Game`]) and the table's own (dice commitments, time-outs).
    pub history: &'a [TableEvent],
    /// When the turn clock runs out, if the table has one: after it the server plays the
    /// seat's default action (and says so with a `turn_timed_out` event).
    pub deadline: Option<SystemTime>,
    /// False when the bot is offered an out-of-turn call (calza, an out-of-sequence dudo).
    pub my_turn: bool,
}

impl Turn<'_> {
    /// The odds that `bid` is true (at least) and exactly right, from this seat's knowledge.
    pub fn odds(&self, bid: Bid) -> BidOdds {
        dudo_rules::odds::bid_odds(self.view, self.rules.dice.faces, bid)
    }

    /// The least legal bid on `face`, if any.
    pub fn min_raise(&self, face: u8) -> Option<Bid> {
        self.legal.min_bid(face)
    }

    /// The least raise on the face this seat's odds favour most, as an action.
    pub fn least_raise(&self) -> Option<Action> {
        self.legal
            .bids
            .iter()
            .map(|r| Bid::new(r.min_quantity, r.face))
            .max_by(|a, b| self.odds(*a).at_least.total_cmp(&self.odds(*b).at_least))
            .map(Action::Bid)
    }

    /// Whether a challenge (dudo) is allowed now.
    pub fn may_challenge(&self) -> bool {
        !self.legal.dudo.is_empty()
    }

    /// A challenge of the last claim.
    pub fn challenge(&self) -> Action {
        Action::Dudo { target: None }
    }

    /// Every legal action (pushes aside).
    pub fn actions(&self) -> Vec<Action> {
        self.legal.actions()
    }

    /// Some legal action: the first of [`Turn::actions`] (a challenge if there is none).
    pub fn any(&self) -> Action {
        self.actions().into_iter().next().unwrap_or(Action::Dudo { target: None })
    }
}

/// A player. Only `act` is required.
pub trait Bot: Send {
    /// The move for this turn. An illegal one is refused by the server with the rule at fault
    /// (see [`Bot::refused`]) and the bot is asked again; after three refusals in a row the
    /// runner plays the first legal action instead.
    fn act(&mut self, turn: &Turn) -> Action;

    /// A call out of turn when the table asks (its call window), or `None` to let the claim
    /// pass (the runner then answers `pass_call` for the bot).
    fn interject(&mut self, _turn: &Turn) -> Option<Action> {
        None
    }

    /// Every event the seat sees, as it comes (a round settled, dice lost, ...).
    fn observe(&mut self, _event: &TableEvent) {}

    /// Where the game stands after a move that did not prompt this seat (the server's view:
    /// whose turn it is, the dice counts, the bids).
    fn view(&mut self, _view: &View) {}

    /// The server refused the last action: `code` says why for programs (`bid_not_higher`,
    /// `not_your_turn`, `rate_limited`, … as protocol.md lists them), `reason` for people.
    fn refused(&mut self, _action: Option<&Action>, _code: &str, _reason: &str) {}

    /// The game is over: seats from first place to last.
    fn game_over(&mut self, _standings: &[usize]) {}
}

/// One of the engine's built-in bots as an SDK bot.
pub struct Builtin(Box<dyn dudo_rules::bots::Bot>);

/// The built-in bot called `name` (`random`, `odds`, `reader`, `expert`), its randomness from
/// `seed`.
pub fn builtin(name: &str, seed: u64) -> Option<Builtin> {
    dudo_rules::bots::by_name(name, seed).map(Builtin)
}

/// The built-in bots' names.
pub const BUILTIN: &[&str] = dudo_rules::bots::NAMES;

impl Bot for Builtin {
    fn act(&mut self, turn: &Turn) -> Action {
        self.0.act(turn.rules, turn.view, turn.legal)
    }

    fn interject(&mut self, turn: &Turn) -> Option<Action> {
        self.0.interject(turn.rules, turn.view, turn.legal)
    }
}

/// Why a bot stopped before the end of its game.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("the server's dice did not match its commitment: {0}")]
    Dice(#[from] DiceCheckError),
    #[error("the stream ended before the game did")]
    Ended,
}

/// Where to play.
#[derive(Clone, Debug)]
pub struct Options {
    /// The dudo server: `host:port`, or `https://host:port` for one with TLS (checked against
    /// the system's roots, or the CA certificate `DUDO_CA_CERT` names).
    pub server: String,
    /// The join code (or link, or table id).
    pub table: String,
    /// The bot's name at the table.
    pub name: String,
    /// A seat already held: its token (an arena hands its own seat to an external bot
    /// this way). Then `table` is the table's id and no seat is taken.
    pub token: Option<String>,
    /// The held seat's number, with `token`.
    pub seat: u32,
    /// An account's API token (`dudo account register NAME --bot` prints one): the seat
    /// taken is the account's, under its name (needed at rated tables).
    pub account: Option<String>,
}

impl Options {
    /// From the command line, `PROGRAM HOST:PORT JOINCODE [NAME]`, falling back on the
    /// `DUDO_SERVER` and `DUDO_TABLE` environment variables (and `name`).
    pub fn from_args(name: &str) -> Options {
        let arg = |i: usize, var: &str, default: &str| {
            std::env::args().nth(i).or_else(|| std::env::var(var).ok()).unwrap_or_else(|| default.to_string())
        };
        Options {
            server: arg(1, "DUDO_SERVER", "127.0.0.1:50051"),
            table: arg(2, "DUDO_TABLE", ""),
            name: arg(3, "DUDO_BOT_NAME", name),
            token: std::env::var("DUDO_TOKEN").ok().filter(|t| !t.is_empty()),
            seat: std::env::var("DUDO_SEAT").ok().and_then(|s| s.parse().ok()).unwrap_or(0),
            account: std::env::var("DUDO_API_TOKEN").ok().filter(|t| !t.trim().is_empty()),
        }
    }
}

/// How a game ended for the bot.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub seat: usize,
    /// Seats from first place to last.
    pub standings: Vec<usize>,
    /// Dice commitments the bot checked against the server's reveals.
    pub dice_checked: usize,
}

impl Outcome {
    /// The bot's finishing place, from 1.
    pub fn place(&self) -> Option<usize> {
        self.standings.iter().position(|&s| s == self.seat).map(|p| p + 1)
    }
}

/// Asks the bot for its call on `prompt` (or, when `any`, takes the first legal action).
fn ask(
    bot: &mut impl Bot,
    seat: usize,
    prompt: &dudo_client::Prompt,
    rules: &RuleSet,
    history: &[TableEvent],
    any: bool,
) -> Option<Action> {
    let my_turn = prompt.view.turn == Some(seat);
    let turn = Turn {
        seat,
        view: &prompt.view,
        legal: &prompt.legal,
        rules,
        history,
        deadline: prompt.deadline,
        my_turn,
    };
    match (my_turn, any) {
        (true, true) => Some(turn.any()),
        (true, false) => Some(bot.act(&turn)),
        (false, true) => None,
        (false, false) => bot.interject(&turn),
    }
}

/// Connects, joins the table, plays until the game is over, and leaves the stream.
pub async fn run(bot: &mut impl Bot, options: &Options) -> Result<Outcome, BotError> {
    let client = Client::connect(&options.server).await?.with_account(options.account.clone());
    let key = match &options.token {
        Some(token) => client.seat(&options.table, options.seat, token.clone()).await?,
        // An account's seat is under the account's name.
        None if options.account.is_some() => client.join(&options.table, "").await?,
        None => client.join(&options.table, &options.name).await?,
    };
    play(bot, &client, &key).await
}

/// Plays a seat already held (for example one the bot's own program created).
pub async fn play(bot: &mut impl Bot, client: &Client, key: &SeatKey) -> Result<Outcome, BotError> {
    play_thinking(bot, client, key, std::time::Duration::ZERO).await
}

/// [`play`], the bot pausing `think` before each move of its own (not before its answers
/// in call windows, which have a time of their own): a game slow enough to follow, or to
/// try a resume or the clock by hand (`dudo ladder --bot-think-ms`).
pub async fn play_thinking(
    bot: &mut impl Bot,
    client: &Client,
    key: &SeatKey,
    think: std::time::Duration,
) -> Result<Outcome, BotError> {
    let mut session = client.play(key, None);
    // The seat's number as the server last showed it: seats are renumbered when someone
    // leaves before the start or at a reset, and views say which is ours.
    let mut seat = key.seat as usize;
    let mut history: Vec<TableEvent> = Vec::new();
    let mut rules = dudo_client::rules_of(&key.info).ok();
    let mut checker = DiceCheck::default();
    let mut last_seq: Option<u64> = None;
    // The prompt in force, and how often the bot's answers to it were refused.
    let mut current: Option<dudo_client::Prompt> = None;
    let mut refusals = 0u32;
    // The prompt already answered (its last_seq): a reconnect repeats it, and it must not be
    // answered twice.
    let mut answered: Option<Option<u64>> = None;
    while let Some(update) = session.next().await {
        match update? {
            Update::Snapshot { rules: r, last_seq: l, view, .. } => {
                rules = Some((*r).clone());
                last_seq = l;
                if let Some(s) = view.and_then(|v| v.seat) {
                    seat = s;
                }
                // A fresh snapshot (after a reset): what came before is another game.
                history.clear();
                checker = DiceCheck::default();
            }
            Update::Table { rules: r, .. } => rules = Some((*r).clone()),
            Update::Event { seq, event, .. } => {
                last_seq = Some(seq);
                answered = None;
                current = None;
                if matches!(event.game(), Some(EventKind::GameStarted { .. })) {
                    history.clear();
                }
                checker.see(&event, rules.as_ref())?;
                bot.observe(&event);
                if let Some(EventKind::GameOver { standings, .. }) = event.game() {
                    bot.game_over(standings);
                    return Ok(Outcome {
                        seat,
                        standings: standings.clone(),
                        dice_checked: checker.checked(),
                    });
                }
                history.push(event);
            }
            Update::Prompt(p) => {
                // A prompt older than an event already seen is stale: a fresh one follows.
                if p.last_seq.is_some_and(|l| last_seq.is_some_and(|s| l < s)) || answered == Some(p.last_seq)
                {
                    continue;
                }
                if let Some(s) = p.view.seat {
                    seat = s;
                }
                // The same prompt again after a refusal: after three, any legal action, so
                // the table never waits on a bot that keeps choosing what is not allowed.
                if current.as_ref().is_none_or(|c| c.last_seq != p.last_seq) {
                    refusals = 0;
                }
                let Some(rules) = &rules else { continue };
                if !think.is_zero() && p.call_window.is_none() {
                    tokio::time::sleep(think).await;
                }
                match ask(bot, seat, &p, rules, &history, refusals >= 3) {
                    Some(action) => {
                        answered = Some(p.last_seq);
                        session.answer(&p, action).await?;
                    }
                    // Asked in a call window and no call: say so, or the window waits for
                    // this bot until it closes.
                    None if p.call_window.is_some() => {
                        answered = Some(p.last_seq);
                        session.pass_call(&p).await?;
                    }
                    None => {}
                }
                current = Some(p);
            }
            // Another seat's move played out: the server's view of where the game stands.
            Update::Turn { view, next_round, ready, .. } => {
                if let Some(s) = view.seat {
                    seat = s;
                }
                // After a showdown at a table with people, the next round waits for everyone
                // there to say "next": a bot has seen the reveal at once.
                if next_round.is_some() && !ready.contains(&seat) {
                    session.next_round().await?;
                }
                bot.view(&view);
            }
            // A stream opened mid-game: what was played before is the bot's history too.
            Update::Story { events, .. } => {
                history.extend(events.into_iter().map(|(_, event, _)| event));
            }
            // Talk at the table: nothing a bot plays by.
            Update::Line(_) => {}
            Update::Rejected { action, reason, code, .. } => {
                bot.refused(action.as_ref(), &code, &reason);
                // The server prompts again at once after a refused answer (after one too fast
                // for the table's pace, once the seat may move), and that prompt is answered
                // as any other. An answer to a position the game has moved past (another
                // seat's call won, the window closed) is not asked again: the fresh prompt
                // went out as the game moved.
                if !matches!(code.as_str(), "stale_prompt" | "call_window_closed") {
                    answered = None;
                    refusals += u32::from(code != "rate_limited");
                }
                // A message the server could not read as a move brings no prompt: the bot is
                // asked again here (any legal move after three).
                if matches!(code.as_str(), "bad_action" | "bad_request")
                    && let (Some(p), Some(rules)) = (&current, &rules)
                    && let Some(action) = ask(bot, seat, p, rules, &history, refusals >= 3)
                {
                    answered = Some(p.last_seq);
                    session.answer(p, action).await?;
                }
            }
            // Back on a new stream: an answer sent just before the connection dropped may
            // never have arrived, so the prompt repeated now is answered again (one that did
            // arrive moved the game on, and its repeat would be refused as `stale_prompt`).
            Update::Reconnected => answered = None,
            // The session comes back by itself (from a fresh snapshot after a reseat).
            Update::Reseated(_) | Update::Reconnecting { .. } => {}
            // The bot answers its prompt as it would have; nothing to do but not stop.
            Update::ClockWarning { .. } => {}
        }
    }
    Err(BotError::Ended)
}

/// How a ladder session went: the places of the games it played.
#[derive(Clone, Debug, Default)]
pub struct LadderRun {
    pub places: Vec<u32>,
}

/// How long `ladder` keeps entering again while the ladder cannot be reached.
const LADDER_GIVE_UP_AFTER: std::time::Duration = std::time::Duration::from_secs(120);

/// Plays `games` ladder games in `pool` as the account of `client` (made with
/// [`Client::with_account`]), `at_once` at a time, each with a fresh bot from `make_bot`
/// (given a seed): the one call a ladder bot needs. Returns once `games` have ended.
///
/// The ladder follows its node: when the server drops the entry (its node died or drained,
/// `ladder_moving`) it enters again, and the games in play go on (their tables move on their
/// own, and each bot's session reconnects). A game's end counts when the ladder says it, or
/// when its bot sees it (the ladder's new node knows nothing of games seated before). A game
/// whose bot panics counts as ended with no place (0), and the panic is printed.
pub async fn ladder<B, F>(
    client: &Client,
    pool: &str,
    at_once: u32,
    games: usize,
    make_bot: F,
) -> Result<LadderRun, BotError>
where
    B: Bot + 'static,
    F: Fn(u64) -> B,
{
    use dudo_client::dudo_proto::v1 as pb;
    let mut run = LadderRun::default();
    let mut seed = 0u64;
    // Each game's table while in play; a bot that finishes says so with its place.
    let mut in_play = std::collections::HashSet::new();
    let (ended_tx, mut ended) = tokio::sync::mpsc::channel::<(String, Option<usize>)>(64);
    let mut failing_since: Option<tokio::time::Instant> = None;
    let mut pause = std::time::Duration::from_millis(100);
    while run.places.len() < games {
        // As many games seated as asked for: out of the queue (no more are dealt), and the
        // ones in play seen to their end.
        if run.places.len() + in_play.len() >= games {
            if let Some((table, place)) = ended.recv().await
                && in_play.remove(&table)
            {
                run.places.push(place.map_or(0, |p| u32::try_from(p).unwrap_or(0)));
            }
            continue;
        }
        // Games still to deal: the server seats no more than that, so none is dealt as the
        // stream closes (a seat nobody plays, whose time-outs would bench the account).
        let to_deal = u32::try_from(games - run.places.len() - in_play.len()).unwrap_or(0);
        let mut updates = match client.enter(pool, at_once, to_deal).await {
            Ok(updates) => updates,
            Err(ClientError::Refused { status }) if dudo_client::dropped(&status) => {
                let since = *failing_since.get_or_insert_with(tokio::time::Instant::now);
                if since.elapsed() > LADDER_GIVE_UP_AFTER {
                    return Err(ClientError::Refused { status }.into());
                }
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(2));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        while run.places.len() + in_play.len() < games {
            let update = tokio::select! {
                update = updates.message() => update,
                Some((table, place)) = ended.recv() => {
                    if in_play.remove(&table) {
                        run.places.push(place.map_or(0, |p| u32::try_from(p).unwrap_or(0)));
                    }
                    continue;
                }
            };
            let update = match update {
                Ok(Some(update)) => update,
                // Dropped (or ended) by the server: enter again, wherever the ladder is now.
                Ok(None) => break,
                Err(status) if dudo_client::dropped(&status) => break,
                Err(status) => return Err(ClientError::from(status).into()),
            };
            (failing_since, pause) = (None, std::time::Duration::from_millis(100));
            match update.update {
                Some(pb::ladder_update::Update::Seated(s)) => {
                    if !in_play.insert(s.table.clone()) {
                        continue;
                    }
                    seed += 1;
                    let mut bot = make_bot(seed);
                    let (client, key) = (client.clone(), SeatKey::saved(s.table, s.seat, s.token));
                    let ended = ended_tx.clone();
                    tokio::spawn(async move {
                        let table = key.table.clone();
                        // The game in a task of its own, so a bot that panics ends its game
                        // here (with no place) rather than leave `ladder` waiting for it.
                        let game = tokio::spawn(async move { play(&mut bot, &client, &key).await });
                        let place = match game.await {
                            Ok(Ok(outcome)) => outcome.place(),
                            Ok(Err(e)) => {
                                eprintln!("dudo-bot: a ladder game failed: {e}");
                                None
                            }
                            Err(e) => {
                                eprintln!("dudo-bot: the bot panicked in a ladder game: {e}");
                                None
                            }
                        };
                        let _ = ended.send((table, place)).await;
                    });
                }
                Some(pb::ladder_update::Update::Ended(e)) if in_play.remove(&e.table) => {
                    run.places.push(e.place);
                }
                Some(pb::ladder_update::Update::Benched(b)) => {
                    eprintln!("dudo-bot: benched until {} ms: {}", b.until_unix_millis, b.why);
                }
                _ => {}
            }
        }
        if run.places.len() + in_play.len() < games {
            failing_since.get_or_insert_with(tokio::time::Instant::now);
        }
    }
    Ok(run)
}
