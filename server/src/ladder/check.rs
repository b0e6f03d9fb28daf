//! The bot check: a short, scripted series of games that puts an account's bot through what
//! ranked play will ask of it, and reports what it did wrong.
//!
//! Each step is a table the server hosts, on the pool's rules and seats, the bot at one seat
//! and the server's odds bots at the others, with a short move clock and call window:
//! 1. a whole game: every prompt the rules raise (its moves, the call window, a clock
//!    warning on its first timed move), played again up to [`WHOLE_GAMES`] times until every
//!    kind of prompt any seat met has come to the bot too;
//! 2. its stream dropped in the middle of a game: it must resume and play on;
//! 3. the table reset in the middle of a game: it must come back with its token (no
//!    `since`) and play the new game.
//!
//! The server watches each table as a spectator (time-outs, lapsed call windows, the end)
//! and asks the table how the bot's seat behaved (its refused calls by code, and whether its
//! stream was still open a while after the game ended, and which kinds of prompt it met and
//! action it played). No fault in any step is a pass, stored with the account for
//! `--require-bot-check`. A kind of prompt the games never brought to the bot is named in the
//! report, not held against it: the check cannot choose the dice.

use std::collections::BTreeSet;
use std::time::Duration;

use dudo_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;

use super::Pool;
use crate::refusal::Refusal;
use crate::server_tables::{LadderSeat, ServerTable, ServerTables};
use crate::table::offers::{CLOCK_WARNING, SeatOffers};
use crate::table::{Command, SeatAccount, SeatConduct};

/// The check's move clock: short, so a bot that misses prompts is seen within the check.
pub(crate) const MOVE_MILLIS: u32 = 5_000;
/// Its call window: every window lasts all of it at a check's table (no patience), so it
/// leaves room for a bot on a loaded machine; one that never answers still lets it lapse.
pub(crate) const CALL_WINDOW_MILLIS: u32 = 3_000;
/// The longest a step's game may take.
const GAME_TIME: Duration = Duration::from_secs(240);
/// How long after the end a bot's stream may stay open.
const AFTER_OVER: Duration = Duration::from_secs(3);
/// Time-outs with no stream open after which the bot is taken to have left.
const GONE_AFTER: u32 = 3;
/// Whole games the first step plays at most, waiting for the bot to meet every kind of
/// prompt the games raise.
const WHOLE_GAMES: usize = 6;
/// How long after a drop or a reset a refused call is not held against the bot.
const FORGIVEN: Duration = Duration::from_secs(1);
/// Events of a step's game before its trial (a drop, a reset): the bot has moved or been
/// prompted by then.
const TRIAL_AFTER_EVENTS: usize = 6;

/// What a step puts the bot through besides its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trial {
    /// Its first timed move is warned that its clock runs low, whatever is left.
    Warning,
    /// Its stream is cut, as a network would.
    Drop,
    /// The host resets the table and starts it again.
    Reset,
}

const STEPS: [(&str, Trial); 3] = [
    ("a whole game: every prompt the rules raise, the call window, a clock warning, the end", Trial::Warning),
    ("its stream dropped in the middle of a game: it must resume with `since` and play on", Trial::Drop),
    (
        "the table reset in the middle of a game: it must come back with its token and play the new game",
        Trial::Reset,
    ),
];

pub(crate) type CheckUpdates = mpsc::Sender<Result<pb::CheckUpdate, Refusal>>;

fn update(u: pb::check_update::Update) -> Result<pb::CheckUpdate, Refusal> {
    Ok(pb::CheckUpdate { update: Some(u) })
}

/// What a check found.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    pub(crate) faults: Vec<String>,
    /// Kinds of prompt the bot met, and those other seats met but it never did.
    pub(crate) met: Vec<String>,
    pub(crate) not_met: Vec<String>,
    /// Kinds of action it played.
    pub(crate) played: Vec<String>,
}

/// Runs the check for `account` on `pool`, telling `tx`.
pub(crate) async fn run<T: ServerTables>(
    tables: T,
    pool: Pool,
    account: SeatAccount,
    name: String,
    tx: CheckUpdates,
) -> Checked {
    let mut faults = Vec::new();
    let mut offers = Kinds::default();
    let seats = pool.seats.max(2) as usize;
    for (i, (what, trial)) in STEPS.iter().enumerate() {
        if tx.is_closed() {
            break;
        }
        let step = pb::CheckStep { number: i as u32 + 1, steps: STEPS.len() as u32, what: what.to_string() };
        if tx.send(update(pb::check_update::Update::Step(step))).await.is_err() {
            faults.push("the check's stream closed before its end".to_string());
            return Checked { faults, ..Checked::default() };
        }
        // The bot sits in a different seat each game. A whole game is played again (up to
        // WHOLE_GAMES) until every kind of prompt a seat met has come to the bot: whether it
        // answers a call window, say, is half of what the check is for.
        let mut game = 0;
        loop {
            game += 1;
            let at = (i + game - 1) % seats;
            let played = one_step(&tables, &pool, &account, &name, at, *trial, &tx).await;
            let failed = !played.faults.is_empty();
            faults.extend(played.faults.into_iter().map(|f| format!("step {} ({what}): {f}", i + 1)));
            offers.add(&played.offers);
            let whole = *trial == Trial::Warning;
            if !whole || failed || offers.all_met() || game >= WHOLE_GAMES || tx.is_closed() {
                break;
            }
        }
    }
    // Left before its end: steps not played are not passed.
    if tx.is_closed() {
        faults.push("the check was left before its end (its stream closed)".to_string());
    }
    Checked { faults, met: offers.met(), not_met: offers.not_met(), played: offers.played() }
}

/// The kinds of prompt and action over the check's games.
#[derive(Default)]
struct Kinds {
    met: BTreeSet<&'static str>,
    any: BTreeSet<&'static str>,
    played: BTreeSet<&'static str>,
}

impl Kinds {
    fn add(&mut self, offers: &SeatOffers) {
        self.met.extend(&offers.offered);
        self.any.extend(&offers.offered_any);
        self.played.extend(&offers.played);
    }

    /// Whether every kind some seat met has come to the bot (a clock warning comes to it
    /// alone, once).
    fn all_met(&self) -> bool {
        self.any.iter().all(|k| self.met.contains(k))
    }

    fn met(&self) -> Vec<String> {
        self.met.iter().map(|k| k.to_string()).collect()
    }

    fn not_met(&self) -> Vec<String> {
        self.any.difference(&self.met).map(|k| k.to_string()).collect()
    }

    fn played(&self) -> Vec<String> {
        self.played.iter().map(|k| k.to_string()).collect()
    }
}

/// What one step's game showed: the bot's faults, and the kinds of prompt it and every
/// seat met.
struct Played {
    faults: Vec<String>,
    offers: SeatOffers,
}

/// One step's game; what the bot did wrong in it.
async fn one_step<T: ServerTables>(
    tables: &T,
    pool: &Pool,
    account: &SeatAccount,
    name: &str,
    at: usize,
    trial: Trial,
    tx: &CheckUpdates,
) -> Played {
    let failed = |why: String| Played { faults: vec![why], offers: SeatOffers::default() };
    let rules = match pool.rules() {
        Ok(rules) => rules,
        Err(e) => return failed(format!("the pool's rules: {e}")),
    };
    let seats: Vec<LadderSeat> = (0..pool.seats.max(2) as usize)
        .map(|s| match s == at {
            true => LadderSeat::Account { account: account.clone(), name: name.to_string() },
            false => LadderSeat::Bot("odds".into()),
        })
        .collect();
    let order = ServerTable {
        id: None,
        rules,
        seed: None,
        move_millis: MOVE_MILLIS,
        time_bank_millis: 0,
        call_window_millis: CALL_WINDOW_MILLIS,
        bot_think_millis: 0,
        rating_pool: String::new(),
        bot_check: true,
        stalling: Default::default(),
        called_off: None,
        tokens: None,
    };
    let mut made = match tables.make(order, seats).await {
        Ok(made) => made,
        Err(e) => return failed(format!("its table could not be made: {}", e.message())),
    };
    let Some(token) = made.tokens.get(at).cloned().flatten() else {
        tables.close(&made.table, &made.host_token).await;
        return failed("its seat could not be taken".into());
    };
    let seated = pb::LadderSeated {
        pool: pool.name.clone(),
        table: made.table.clone(),
        seat: at as u32,
        token,
        game: crate::table::game_id(&made.table, 1),
    };
    let _ = tx.send(update(pb::check_update::Update::Seated(seated))).await;
    let Some(mut updates) = made.updates.take() else {
        return failed("its table could not be watched".into());
    };
    if trial == Trial::Warning {
        let _ = tables.ask_at(&made.table, |reply| Command::WarnSoon { seat: at, reply }).await;
    }
    let (mut timeouts, mut lapsed, mut events, mut tried, mut over) = (0u32, 0u32, 0usize, false, false);
    let mut forgiven: Vec<(&'static str, u32)> = Vec::new();
    let mut gone = false;
    let deadline = tokio::time::Instant::now() + GAME_TIME;
    let mut look = tokio::time::interval(Duration::from_millis(200));
    while !over {
        tokio::select! {
            u = updates.next() => {
                let Some(Ok(u)) = u else { break };
                let Some(pb::play_update::Update::Event(e)) = u.update else { continue };
                events += 1;
                match e.kind {
                    Some(pb::event::Kind::TurnTimedOut(t)) if t.seat as usize == at => {
                        timeouts += 1;
                        // A bot that has left plays no more: the step ends rather than run
                        // the whole game on the clock.
                        if timeouts >= GONE_AFTER && conduct(tables, &made.table, at).await.is_some_and(|c| c.streams == 0) {
                            gone = true;
                            break;
                        }
                    }
                    Some(pb::event::Kind::CallWindowLapsed(l)) if l.seats.contains(&(at as u32)) => lapsed += 1,
                    Some(pb::event::Kind::GameOver(_)) => over = true,
                    _ => {}
                }
                // The trial comes once the game is under way and the bot is connected (a
                // game of bots can be over within a second: asked at each event, not on a
                // timer).
                if matches!(trial, Trial::Drop | Trial::Reset) && !tried && !over && events >= TRIAL_AFTER_EVENTS
                    && conduct(tables, &made.table, at).await.is_some_and(|c| c.streams > 0)
                {
                    tried = true;
                    // A call in flight as the stream drops or the table resets may be
                    // refused through no fault of the bot's: what is refused in the moment
                    // around it is forgiven.
                    let before = conduct(tables, &made.table, at).await.unwrap_or_default();
                    try_it(tables, &made.table, &made.host_token, at, trial).await;
                    tokio::time::sleep(FORGIVEN).await;
                    let after = conduct(tables, &made.table, at).await.unwrap_or_default();
                    forgiven = difference(&after.refused, &before.refused);
                }
            }
            _ = look.tick() => {
                // Past its time, or nobody is listening for the report any more.
                if tokio::time::Instant::now() >= deadline || tx.is_closed() {
                    break;
                }
            }
        }
    }
    drop(updates);
    let mut faults = Vec::new();
    // Asked now, before the table moves on: whether the bot had been warned when it left.
    let warned =
        conduct(tables, &made.table, at).await.is_some_and(|c| c.offers.offered.contains(&CLOCK_WARNING));
    if gone {
        let after = match trial == Trial::Warning && warned {
            true => " (after a clock warning: the prompt it holds still stands, a bot answers it)",
            false => "",
        };
        faults.push(format!(
            "it left its seat{after}: its stream closed, and the clock played its turn {timeouts} times before the step gave up"
        ));
    } else if !over && !tx.is_closed() {
        faults.push(format!("the game did not end within {} s", GAME_TIME.as_secs()));
    }
    if matches!(trial, Trial::Drop | Trial::Reset) && !tried {
        faults.push("the bot never connected to its seat, so it could not be tried".into());
    }
    // A bot that left is one fault, not two: its turns after it went are the clock's.
    if timeouts > 0 && !gone {
        let after = match trial == Trial::Warning && warned {
            true => {
                " (it was sent a clock warning on its first timed move: the prompt it holds still stands)"
            }
            false => "",
        };
        faults.push(format!(
            "the move clock ({} s) ran out on its turn {timeouts} time(s){after}: a prompt missed, or answered after the clock",
            MOVE_MILLIS / 1000
        ));
    }
    if lapsed > 0 {
        faults.push(format!(
            "{lapsed} call window(s) lapsed without its answer: a prompt with call_window_unix_millis wants a call or pass_call"
        ));
    }
    if over {
        // Its stream a while after the end: a bot that ignores game_over keeps it open.
        tokio::time::sleep(AFTER_OVER).await;
    }
    let mut offers = SeatOffers::default();
    if let Some(c) = conduct(tables, &made.table, at).await {
        offers = c.offers;
        if over && c.streams > 0 {
            faults.push(format!(
                "its stream was still open {} s after game_over: a bot stops playing at the game's end",
                AFTER_OVER.as_secs()
            ));
        }
        let refused = difference(&c.refused, &forgiven);
        // One answer the game moved on from as it travelled is a race a good bot meets now
        // and then (a call out of turn won first); more, or any after the clock ran out, is
        // a bot answering late or with an old `answers`.
        let raced = |&&(code, n): &&(&str, u32)| {
            matches!(code, "stale_prompt" | "call_window_closed") && n == 1 && timeouts == 0
        };
        faults.extend(refused.iter().filter(|r| !raced(r)).map(|&(code, n)| refusal(code, n, timeouts)));
    }
    tables.close(&made.table, &made.host_token).await;
    Played { faults, offers }
}

/// Refusals in `all` beyond those in `less`, by code.
fn difference(all: &[(&'static str, u32)], less: &[(&'static str, u32)]) -> Vec<(&'static str, u32)> {
    all.iter()
        .map(|&(code, n)| (code, n.saturating_sub(less.iter().find(|(c, _)| *c == code).map_or(0, |l| l.1))))
        .filter(|&(_, n)| n > 0)
        .collect()
}

/// What a refused call says of the bot.
fn refusal(code: &str, n: u32, timeouts: u32) -> String {
    match code {
        "stale_prompt" => format!(
            "{n} answer(s) refused as stale_prompt: sent after the game had moved on (after the clock, or with an old `answers`)"
        ),
        "not_your_turn" if timeouts > 0 => {
            format!("{n} move(s) refused as not_your_turn after its clock ran out: answered after the clock")
        }
        "not_started" => format!(
            "{n} call(s) refused as not_started: it acted when no game was in play (after game_over?)"
        ),
        "rate_limited" => format!("{n} call(s) refused as rate_limited: faster than the table allows"),
        "already_answered" | "call_window_closed" | "no_call_window" => {
            format!("{n} call window answer(s) refused as {code}")
        }
        _ => format!("{n} illegal move(s), refused as {code}"),
    }
}

async fn conduct<T: ServerTables>(tables: &T, table: &str, seat: usize) -> Option<SeatConduct> {
    tables.ask_at(table, |reply| Command::Conduct { seat, reply }).await.ok()
}

async fn try_it<T: ServerTables>(tables: &T, table: &str, host_token: &str, seat: usize, trial: Trial) {
    match trial {
        Trial::Warning => {}
        Trial::Drop => {
            let _ = tables.ask_at(table, |reply| Command::DropSeat { seat, reply }).await;
        }
        Trial::Reset => {
            let token = host_token.to_string();
            let _ = tables.command_at(table, |reply| Command::Reset { token, reply }).await;
            let token = host_token.to_string();
            let _ = tables.command_at(table, |reply| Command::Start { token, reply }).await;
        }
    }
}
