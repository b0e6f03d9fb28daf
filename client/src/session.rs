//! A seat's (or a spectator's) stream as a task that reconnects by itself.
//!
//! The task owns the gRPC stream and remembers the last event sequence number it passed on.
//! When the stream fails for a reason that may pass (the server restarting, the network
//! dropping), it waits a little longer each time and opens a new stream with `since`, so the
//! events it passes on have no gaps and no repeats. When the server ends the stream on
//! purpose it says why first ([`Update::Reseated`]: the table was reset, seats renumbered)
//! and the stream's status is ABORTED: the session then reconnects without `since` and gets a
//! fresh snapshot. Refusals that will not pass (a bad token, a table that is gone) end it.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dudo_proto::TableEvent;
use dudo_proto::convert;
use dudo_proto::v1 as pb;
use dudo_proto::v1::play_client::PlayClient;
use dudo_rules::{Action, Legal, RuleSet, View};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;
use tonic::transport::Channel;

use crate::{ClientError, SeatKey, authed};

/// Whose stream a session is.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Seat(Box<SeatKey>),
    Spectator(String),
}

/// A prompt: it is (or may be) your move.
#[derive(Clone, Debug)]
pub struct Prompt {
    pub view: View,
    pub legal: Legal,
    /// When the turn clock runs out, if the table has one.
    pub deadline: Option<SystemTime>,
    /// The last event the prompt knows of: older than an event you have seen means stale.
    pub last_seq: Option<u64>,
    /// Set when the prompt asks for a call out of turn on the last claim (`legal` lists the
    /// calls): answer with one, or [`Session::pass_call`], before this time.
    pub call_window: Option<SystemTime>,
}

/// What goes up the stream: a move, or no call on the last claim, and the prompt (its
/// `last_seq`) it answers, if it answers one.
#[derive(Clone, Debug)]
enum Answer {
    Act(Action, Option<u64>),
    PassCall(Option<u64>),
    NextRound,
    Say(pb::SayRequest),
}

/// Why the server ended a seat's stream on purpose: the seat's number may have changed, so
/// the session comes back from a fresh snapshot (the seat found again from its token); or
/// the seat is gone ([`Reseat::Removed`], [`Reseat::Left`]), and the session ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reseat {
    /// The host reset the table: the game is over, seats that left are gone.
    Reset,
    /// A seat before this one was freed before the start: the seats after it moved down.
    Renumbered,
    /// The host removed this seat: the stream ends, the token no longer answers.
    Removed,
    /// This seat left the table (from another terminal, say): the stream ends.
    Left,
    /// Taken out of the game for being away a whole round, or for letting the clock run out
    /// twice in a row: the stream ends.
    Away,
    /// The host revoked the seat's rejoin link: the session comes back with its token (one a
    /// device took with the link no longer answers, and the session ends).
    Relinked,
    /// A reason this client does not know (a newer server).
    Other,
}

/// What a session hands its owner, in the engine's types.
// A few updates a second, each moved once: boxing the large variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Update {
    /// Where the game stands (first on a new connection). `view` is `None` before the start.
    Snapshot {
        last_seq: Option<u64>,
        view: Option<View>,
        table: pb::TableInfo,
        rules: Arc<RuleSet>,
        /// The seat's number now, on a seat's stream (it moves down when a seat before it is
        /// freed before the start).
        seat: Option<usize>,
    },
    /// Who sits at the table, and under which rules, changed.
    Table {
        table: pb::TableInfo,
        rules: Arc<RuleSet>,
    },
    /// One entry of the table's log: the engine's event, or the table's own (dice
    /// commitments and salts, the turn clock running out).
    Event {
        seq: u64,
        event: TableEvent,
        /// The event in words, as the server's engine says it to this stream (empty from a
        /// server older than the words).
        text: String,
    },
    Prompt(Prompt),
    /// Where the game stands once an input (a move, a time-out, a seat leaving) has been
    /// played out: whose turn it is, the dice counts, the bids, as the server's engine has
    /// them. Sent to every stream but the seats that get a prompt (a prompt carries the same
    /// view). Show it; never work it out from the events.
    Turn {
        view: View,
        /// The last event the view includes.
        last_seq: Option<u64>,
        /// When the turn clock runs out for the seat whose turn it is, if the table has one.
        deadline: Option<SystemTime>,
        /// While the last claim's call window is open: when it closes.
        call_window: Option<SystemTime>,
        /// After a showdown, while the next round waits: when it goes on by itself. Show the
        /// reveal until then; [`Session::next_round`] says this seat has seen it.
        next_round: Option<SystemTime>,
        /// The seats that have said "next".
        ready: Vec<usize>,
    },
    /// A line of the table's talk: chat, a reaction, or the table's own news (who sat down,
    /// the rules changed, the game paused). Not a game event.
    Line(pb::TableLine),
    /// The story so far, once after a new stream's snapshot: this game's events the seat may
    /// see (each already in the snapshot's view: show them as the log, never apply them),
    /// and the table's last lines of talk ([`in_order`] puts them together as they happened).
    Story {
        events: Vec<(u64, TableEvent, String)>,
        lines: Vec<pb::TableLine>,
    },
    /// An action was refused; the game is unchanged. `reason` is for people and names the
    /// rule at fault; `code` is for programs (`bid_not_higher`, `not_your_turn`,
    /// `rate_limited`, …; protocol.md lists them): branch on it, never on `reason`.
    Rejected {
        action: Option<Action>,
        reason: String,
        code: String,
        /// With `rate_limited`: when the seat may call again. A seat the table was waiting
        /// for is prompted again then, so there is nothing to resend.
        retry_after: Option<Duration>,
    },
    /// Your move clock is running low: it runs out at `deadline`, when your seat's default
    /// action is played for you. The prompt you hold still stands. Sent once a turn.
    ClockWarning {
        deadline: SystemTime,
        left: Duration,
    },
    /// The server is ending the stream on purpose, and why. The session comes back by
    /// itself from a fresh snapshot (no [`Update::Reconnecting`] for it), then says
    /// [`Update::Reconnected`].
    Reseated(Reseat),
    /// The connection dropped; the session is trying again after `retry_in`.
    Reconnecting {
        error: String,
        retry_in: Duration,
        /// The server's `dudo-code` for ending the stream, if it gave one: `table_moved`
        /// says the table is moving to another node of a cluster (a drain, a hand-over), not
        /// that the connection was lost.
        code: Option<String>,
    },
    /// Connected again, resuming after the last event passed on.
    Reconnected,
}

/// A seat's stream. Dropping it closes the stream.
pub struct Session {
    updates: mpsc::Receiver<Result<Update, ClientError>>,
    actions: mpsc::Sender<Answer>,
}

impl Session {
    /// The next update; `None` once the session has ended. An `Err` is why it ended.
    pub async fn next(&mut self) -> Option<Result<Update, ClientError>> {
        self.updates.recv().await
    }

    /// Sends an action for the seat. A refusal comes back as [`Update::Rejected`].
    pub async fn act(&self, action: Action) -> Result<(), ClientError> {
        self.actions.send(Answer::Act(action, None)).await.map_err(|_| ClientError::Closed)
    }

    /// Sends `action` as the answer to `prompt`: if the game has moved on by the time it
    /// arrives (another seat's call won), it is refused as `stale_prompt` rather than played
    /// in a position it was not meant for, and a fresh prompt follows. What bots should use.
    pub async fn answer(&self, prompt: &Prompt, action: Action) -> Result<(), ClientError> {
        self.actions.send(Answer::Act(action, prompt.last_seq)).await.map_err(|_| ClientError::Closed)
    }

    /// No call on the last claim: the answer to a prompt with a call window.
    pub async fn pass_call(&self, prompt: &Prompt) -> Result<(), ClientError> {
        self.actions.send(Answer::PassCall(prompt.last_seq)).await.map_err(|_| ClientError::Closed)
    }

    /// "Next": this seat has seen the reveal ([`Update::Turn`]'s `next_round`).
    pub async fn next_round(&self) -> Result<(), ClientError> {
        self.actions.send(Answer::NextRound).await.map_err(|_| ClientError::Closed)
    }

    /// Says a line at the table (or, with `reaction`, a quick reaction and no text). A
    /// refusal comes back as [`Update::Rejected`] with its code (`chat_rate_limited`, …).
    pub async fn say(&self, text: &str, reaction: pb::Reaction) -> Result<(), ClientError> {
        let said = pb::SayRequest { text: text.to_string(), reaction: reaction as i32, ..Default::default() };
        self.actions.send(Answer::Say(said)).await.map_err(|_| ClientError::Closed)
    }
}

/// How long a session keeps trying to reconnect before it gives up.
const GIVE_UP_AFTER: Duration = Duration::from_secs(120);
/// The longest wait between tries while the table moves to another node (`table_moved`).
const TABLE_MOVING_RETRY: Duration = Duration::from_millis(400);

pub(crate) fn open(play: PlayClient<Channel>, target: Target, since: Option<u64>) -> Session {
    let (updates_tx, updates) = mpsc::channel(256);
    let (actions, actions_rx) = mpsc::channel::<Answer>(16);
    tokio::spawn(run(play, target, since, updates_tx, actions_rx));
    Session { updates, actions }
}

/// Whether a failed stream is worth opening again, and how.
enum Retry {
    /// After the last event passed on.
    Resume,
    /// From a fresh snapshot (the server ended the stream on purpose).
    Fresh,
    Never,
}

fn retry_for(status: &tonic::Status) -> Retry {
    match status.code() {
        // Aborted: the server ended the stream on purpose (reset, seats renumbered).
        // ResourceExhausted: more was due than a stream may hold ("too far behind": a resume
        // from too far back, a reader that fell behind), or a limit was hit; a fresh
        // snapshot serves either way.
        Code::Aborted | Code::ResourceExhausted => Retry::Fresh,
        _ if crate::dropped(status) => Retry::Resume,
        _ => Retry::Never,
    }
}

struct Stream {
    since: Option<u64>,
    rules: Option<Arc<RuleSet>>,
    /// The wire form `rules` was read from: a table update with the same rules (most are)
    /// is not read again.
    rules_wire: Option<pb::RuleSet>,
    /// The server said it is ending the stream on purpose ([`Update::Reseated`]).
    reseated: bool,
}

async fn run(
    mut play: PlayClient<Channel>,
    target: Target,
    since: Option<u64>,
    updates: mpsc::Sender<Result<Update, ClientError>>,
    mut actions: mpsc::Receiver<Answer>,
) {
    let mut state = Stream { since, rules: None, rules_wire: None, reseated: false };
    let mut backoff = Duration::from_millis(100);
    let mut failing_since: Option<tokio::time::Instant> = None;
    let mut reconnecting = false;
    loop {
        let status = match connect(&mut play, &target, state.since).await {
            Ok((mut incoming, outgoing)) => {
                if reconnecting && updates.send(Ok(Update::Reconnected)).await.is_err() {
                    return;
                }
                match pump(&mut incoming, outgoing, &mut actions, &updates, &mut state).await {
                    Ok(status) => {
                        // Delivered something: the connection worked, so start backing off afresh.
                        backoff = Duration::from_millis(100);
                        failing_since = None;
                        status
                    }
                    Err(Stop) => return,
                }
            }
            Err(status) => status,
        };
        // Told why the stream ends: the owner knows it comes straight back, afresh.
        let reseated = std::mem::take(&mut state.reseated);
        match retry_for(&status) {
            Retry::Never => {
                let _ = updates.send(Err(ClientError::Refused { status })).await;
                return;
            }
            Retry::Fresh => state.since = None,
            Retry::Resume if reseated => state.since = None,
            Retry::Resume => {}
        }
        let started = *failing_since.get_or_insert_with(tokio::time::Instant::now);
        if started.elapsed() > GIVE_UP_AFTER {
            let _ = updates.send(Err(ClientError::Refused { status })).await;
            return;
        }
        if !reseated {
            let code = status.metadata().get("dudo-code").and_then(|c| c.to_str().ok()).map(str::to_string);
            let notice =
                Update::Reconnecting { error: status.message().to_string(), retry_in: backoff, code };
            if updates.send(Ok(notice)).await.is_err() {
                return;
            }
        }
        reconnecting = true;
        tokio::time::sleep(backoff).await;
        // A table changing hands has a new owner within a moment (a failover, a drain): tried
        // again soon, not at the backoff a server restarting earns.
        let moving = status.metadata().get("dudo-code").is_some_and(|c| c == "table_moved");
        backoff = (backoff * 2).min(if moving { TABLE_MOVING_RETRY } else { Duration::from_secs(5) });
    }
}

/// The owner dropped the session.
struct Stop;

type Incoming = tonic::Streaming<pb::PlayUpdate>;

async fn connect(
    play: &mut PlayClient<Channel>,
    target: &Target,
    since: Option<u64>,
) -> Result<(Incoming, Option<mpsc::Sender<pb::PlayRequest>>), tonic::Status> {
    match target {
        Target::Seat(key) => {
            let (tx, rx) = mpsc::channel(16);
            let hello = pb::Hello { table: key.table.clone(), since };
            let first =
                pb::PlayRequest { request: Some(pb::play_request::Request::Hello(hello)), answers: None };
            tx.send(first).await.map_err(|_| tonic::Status::cancelled("closed"))?;
            let request = authed(key, ReceiverStream::new(rx))
                .map_err(|_| tonic::Status::unauthenticated("the seat token is not valid metadata"))?;
            Ok((play.play(request).await?.into_inner(), Some(tx)))
        }
        Target::Spectator(table) => {
            let request = pb::WatchRequest { table: table.clone(), since };
            Ok((play.watch(request).await?.into_inner(), None))
        }
    }
}

/// Passes updates on and actions up until the stream fails; returns why it failed.
async fn pump(
    incoming: &mut Incoming,
    outgoing: Option<mpsc::Sender<pb::PlayRequest>>,
    actions: &mut mpsc::Receiver<Answer>,
    updates: &mpsc::Sender<Result<Update, ClientError>>,
    state: &mut Stream,
) -> Result<tonic::Status, Stop> {
    let mut actions_open = outgoing.is_some();
    loop {
        tokio::select! {
            message = incoming.message() => {
                let update = match message {
                    Ok(Some(u)) => u,
                    Ok(None) => return Ok(tonic::Status::unavailable("the server ended the stream")),
                    Err(status) => return Ok(status),
                };
                let Some(update) = read(update, state) else { continue };
                let update = update.map_err(ClientError::from);
                let failed = update.is_err();
                if updates.send(update).await.is_err() {
                    return Err(Stop);
                }
                if failed {
                    // A server this client cannot understand: say so and stop.
                    return Err(Stop);
                }
            }
            action = actions.recv(), if actions_open => match (action, &outgoing) {
                (Some(answer), Some(out)) => {
                    let (request, answers) = match answer {
                        Answer::Act(action, answers) => {
                            (pb::play_request::Request::Action(convert::action_to_wire(&action)), answers)
                        }
                        Answer::PassCall(answers) => (pb::play_request::Request::PassCall(pb::PassCall {}), answers),
                        Answer::NextRound => (pb::play_request::Request::NextRound(pb::NextRound {}), None),
                        Answer::Say(said) => (pb::play_request::Request::Say(said), None),
                    };
                    let request = pb::PlayRequest { request: Some(request), answers };
                    if out.send(request).await.is_err() {
                        return Ok(tonic::Status::unavailable("the stream closed"));
                    }
                }
                // The owner dropped the session: close the stream.
                _ => actions_open = false,
            },
            () = updates.closed() => return Err(Stop),
        }
    }
}

/// One wire update in the engine's types; `None` for an empty message.
fn read(update: pb::PlayUpdate, state: &mut Stream) -> Option<Result<Update, convert::ConvertError>> {
    use pb::play_update::Update as U;
    fn rules_of(info: &pb::TableInfo, state: &mut Stream) -> Result<Arc<RuleSet>, convert::ConvertError> {
        if let Some(known) =
            state.rules.as_ref().filter(|_| info.rules.is_some() && state.rules_wire == info.rules)
        {
            return Ok(Arc::clone(known));
        }
        let rules = Arc::new(crate::rules_of(info)?);
        state.rules_wire.clone_from(&info.rules);
        state.rules = Some(Arc::clone(&rules));
        Ok(rules)
    }
    let update = update.update?;
    let result = (|| {
        Ok(match update {
            U::Snapshot(s) => {
                let table = s.table.unwrap_or_default();
                let rules = rules_of(&table, state)?;
                state.since = s.last_seq;
                let view = s.view.as_ref().map(convert::view_from_wire).transpose()?;
                let seat = s.seat.map(|n| n as usize);
                Update::Snapshot { last_seq: s.last_seq, view, table, rules, seat }
            }
            U::Table(table) => {
                let rules = rules_of(&table, state)?;
                Update::Table { table: *table, rules }
            }
            U::Event(e) => {
                let (seq, event) = convert::event_from_wire(&e)?;
                state.since = Some(state.since.map_or(seq, |s| s.max(seq)));
                Update::Event { seq, event, text: e.text }
            }
            U::Prompt(p) => {
                let rules = state.rules.clone().ok_or(convert::ConvertError {
                    field: "prompt".into(),
                    problem: "came before the table's rules".into(),
                })?;
                let view = convert::view_from_wire(p.view.as_ref().ok_or(convert::ConvertError {
                    field: "prompt.view".into(),
                    problem: "missing".into(),
                })?)?;
                let legal = convert::legal_from_wire(&p.legal.unwrap_or_default(), &rules)?;
                let deadline =
                    p.deadline_unix_millis.map(|ms| SystemTime::UNIX_EPOCH + Duration::from_millis(ms));
                let call_window =
                    p.call_window_unix_millis.map(|ms| SystemTime::UNIX_EPOCH + Duration::from_millis(ms));
                Update::Prompt(Prompt { view, legal, deadline, last_seq: p.last_seq, call_window })
            }
            U::Turn(t) => {
                let view = convert::view_from_wire(t.view.as_ref().ok_or(convert::ConvertError {
                    field: "turn.view".into(),
                    problem: "missing".into(),
                })?)?;
                let at = |ms: u64| SystemTime::UNIX_EPOCH + Duration::from_millis(ms);
                let (deadline, call_window) =
                    (t.deadline_unix_millis.map(at), t.call_window_unix_millis.map(at));
                let next_round = t.next_round_unix_millis.map(at);
                let ready = t.ready.iter().map(|&s| s as usize).collect();
                Update::Turn { view, last_seq: t.last_seq, deadline, call_window, next_round, ready }
            }
            U::Line(line) => Update::Line(line),
            U::Story(story) => {
                let mut events = Vec::with_capacity(story.events.len());
                for e in &story.events {
                    let (seq, event) = convert::event_from_wire(e)?;
                    events.push((seq, event, e.text.clone()));
                }
                Update::Story { events, lines: story.lines }
            }
            U::Rejected(r) => Update::Rejected {
                action: r.action.as_ref().and_then(|a| convert::action_from_wire(a).ok()),
                reason: r.reason,
                code: r.code,
                retry_after: r.retry_after_millis.map(Duration::from_millis),
            },
            U::ClockWarning(w) => Update::ClockWarning {
                deadline: SystemTime::UNIX_EPOCH + Duration::from_millis(w.deadline_unix_millis),
                left: Duration::from_millis(w.left_millis),
            },
            U::Reseated(r) => {
                use pb::reseated::Why;
                // Whatever comes next, this stream's `since` belongs to a seat that may not be ours.
                state.since = None;
                state.reseated = true;
                Update::Reseated(match Why::try_from(r.why) {
                    Ok(Why::Reset) => Reseat::Reset,
                    Ok(Why::Renumbered) => Reseat::Renumbered,
                    Ok(Why::Removed) => Reseat::Removed,
                    Ok(Why::Left) => Reseat::Left,
                    Ok(Why::Away) => Reseat::Away,
                    Ok(Why::Relinked) => Reseat::Relinked,
                    Ok(Why::Unspecified) | Err(_) => Reseat::Other,
                })
            }
        })
    })();
    Some(result)
}

/// One entry of the story so far, in the order it happened.
#[derive(Debug, PartialEq)]
pub enum Told<'a> {
    /// A game event: its sequence number, the event and its words.
    Event(&'a (u64, TableEvent, String)),
    Line(&'a pb::TableLine),
}

/// The story's events and lines as they happened: each line after the event it was said
/// after (its `after_seq`).
pub fn in_order<'a>(events: &'a [(u64, TableEvent, String)], lines: &'a [pb::TableLine]) -> Vec<Told<'a>> {
    let mut told = Vec::with_capacity(events.len() + lines.len());
    let mut lines = lines.iter().peekable();
    for event in events {
        while let Some(line) = lines.next_if(|l| l.after_seq < event.0) {
            told.push(Told::Line(line));
        }
        told.push(Told::Event(event));
    }
    told.extend(lines.map(Told::Line));
    told
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_story_reads_in_the_order_it_happened() {
        let event = |seq: u64| {
            (seq, TableEvent::CallWindowLapsed { seats: vec![], cut_short: vec![] }, format!("event {seq}"))
        };
        let line = |after_seq: u64| pb::TableLine {
            after_seq,
            text: format!("after {after_seq}"),
            ..Default::default()
        };
        let events = [event(1), event(2), event(3)];
        let lines = [line(0), line(2), line(2), line(9)];
        let said: Vec<String> = in_order(&events, &lines)
            .into_iter()
            .map(|t| match t {
                Told::Event((_, _, text)) => text.clone(),
                Told::Line(l) => l.text.clone(),
            })
            .collect();
        assert_eq!(said, ["after 0", "event 1", "event 2", "after 2", "after 2", "event 3", "after 9"]);
    }
}
