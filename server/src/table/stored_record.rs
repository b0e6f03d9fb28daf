//! A finished game's record as the store keeps it: compact, and exactly the replay it was.
//!
//! A replay (`dudo.v1.Replay`) holds every event of the game beside the seed and the moves
//! that make them: most of its bytes are events the engine makes again from those. The store
//! keeps instead the summary, the rules, the seed and the moves, the events the engine does
//! not make (dice commitments and their salts, clock notices, a stop at a length limit) with
//! their places among the others, each event's time as a step from the one before, and the
//! sequence numbers as the first and where the log skipped. Reading it runs the engine through the moves and puts the events back together.
//! The dice commitments and salts are kept as their places alone: the table drew every salt
//! from its secret and the roll's place in the log (table/proofs.rs), so with the secret
//! kept beside them they are made again from the dice the engine rolls.
//!
//! A record is kept compact only if it reads back as the very replay it came from (checked
//! when it is written); any other is kept whole, so what is read is always what was played.
//! Records written before this format (a whole `Replay`) read as they are: a compact record
//! starts with [`COMPACT`], which no encoded `Replay` can start with, then the size of the
//! whole replay it stands for (8 bytes, little-endian), so a reader knows what reading it
//! will cost from its first bytes ([`whole_size`]), before making it.
//!
//! Making a compact record replays the game twice (to make it, and to check it): a table
//! keeps the whole replay when its game ends and has it made compact off the runtime's
//! threads, when it writes it ([`compact_stored`]).

use std::sync::Arc;

use dudo_proto::{TableEvent, convert, v1 as pb};
use dudo_rules::describe::Narrator;
use dudo_rules::{Event, Game};
use prost::Message;

use super::proofs::DiceProofs;

/// What a compact record starts with: `0xff` is no protobuf field's key (wire type 7), so a
/// whole `Replay` never does.
const COMPACT: &[u8] = b"\xffdudo-record-1\n";

/// A stored record's first bytes that tell its whole size: [`COMPACT`] and the size.
pub const HEAD: usize = COMPACT.len() + 8;

/// The most events a compact record may make when read: a game at the server's length limit
/// has far fewer; a record that claims more is not believed.
const MOST_EVENTS: usize = 1 << 22;

/// Why a stored record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("it does not decode: {0}")]
    Decode(#[from] prost::DecodeError),
    #[error("its {0} cannot be read: {1}")]
    Field(&'static str, String),
    #[error("its moves do not replay: {0}")]
    Moves(String),
}

/// The stored form: a replay less what the engine makes again.
#[derive(Clone, PartialEq, prost::Message)]
struct CompactReplay {
    #[prost(message, optional, tag = "1")]
    summary: Option<pb::GameSummary>,
    #[prost(message, optional, tag = "2")]
    rules: Option<pb::RuleSet>,
    #[prost(bytes = "vec", tag = "3")]
    seed: Vec<u8>,
    #[prost(message, repeated, tag = "4")]
    moves: Vec<pb::GameMove>,
    /// The events the engine does not make, without their sequence numbers...
    #[prost(message, repeated, tag = "5")]
    table_events: Vec<pb::Event>,
    /// ...and the place of each among all the game's events.
    #[prost(uint32, repeated, tag = "6")]
    table_event_places: Vec<u32>,
    /// The first event's sequence number; each after it is one more than the one before...
    #[prost(uint64, tag = "7")]
    first_seq: u64,
    /// ...but where the log skipped some: pairs of an event's place and its step from the
    /// one before.
    #[prost(uint64, repeated, tag = "10")]
    seq_jumps: Vec<u64>,
    /// Each event's time less the one before's (the first: less the game's start), in ms.
    #[prost(sint64, repeated, tag = "8")]
    time_steps: Vec<i64>,
    /// The table's dice secret, when the commitments and salts are kept as places alone
    /// (with no commitments and no salts in them).
    #[prost(bytes = "vec", tag = "9")]
    dice_secret: Vec<u8>,
}

/// The bytes to store for `replay`, played at a table whose dice secret is `dice_secret`:
/// compact when that reads back as `replay` exactly (with the proofs made again, or else
/// kept), else the whole replay.
pub fn encode(replay: &pb::Replay, dice_secret: [u8; 32]) -> Vec<u8> {
    let exact = |compact: &CompactReplay| expand(compact).is_ok_and(|back| back == *replay);
    let compact = [Some(dice_secret), None]
        .into_iter()
        .filter_map(|secret| compact(replay, secret))
        .find(|compact| exact(compact));
    let Some(compact) = compact else {
        metrics::counter!("dudo_records_kept_whole_total").increment(1);
        return replay.encode_to_vec();
    };
    let mut out = Vec::with_capacity(HEAD + compact.encoded_len());
    out.extend_from_slice(COMPACT);
    out.extend_from_slice(&(replay.encoded_len() as u64).to_le_bytes());
    compact.encode(&mut out).map_or_else(|_| replay.encode_to_vec(), |()| out)
}

/// A whole replay's bytes (as a table keeps them when its game ends) made compact, as
/// [`encode`] does; bytes that are not a replay are kept as they are.
pub fn compact_stored(whole: &[u8], dice_secret: [u8; 32]) -> Vec<u8> {
    match pb::Replay::decode(whole) {
        Ok(replay) if !is_compact(whole) => encode(&replay, dice_secret),
        _ => whole.to_vec(),
    }
}

/// The size of the whole replay a stored record holds, from its first [`HEAD`] bytes and its
/// stored size: what reading it makes.
pub fn whole_size(head: &[u8], stored: usize) -> usize {
    match head.strip_prefix(COMPACT).and_then(|size| size.get(..8)) {
        Some(size) => {
            let mut le = [0u8; 8];
            le.copy_from_slice(size);
            usize::try_from(u64::from_le_bytes(le)).unwrap_or(usize::MAX)
        }
        None => stored,
    }
}

/// The replay a stored record holds, whichever way it was stored.
pub fn decode(stored: &[u8]) -> Result<pb::Replay, RecordError> {
    match stored.strip_prefix(COMPACT) {
        Some(sized) => {
            let compact = sized.get(8..).ok_or(RecordError::Field("size", "cut short".into()))?;
            expand(&CompactReplay::decode(compact)?)
        }
        None => {
            let mut replay = pb::Replay::decode(stored)?;
            // A record kept whole from before events had words: they are said now.
            if replay.events.iter().any(|e| e.text.is_empty()) {
                let rules = replay.rules.as_ref().map(convert::rules_from_wire).transpose();
                let rules = rules.map_err(|e| RecordError::Field("rules", e.to_string()))?;
                let names: Vec<String> =
                    replay.summary.iter().flat_map(|s| &s.players).map(|p| p.name.clone()).collect();
                say_again(&mut replay.events, &rules.unwrap_or_default(), &names);
            }
            Ok(replay)
        }
    }
}

/// Each event's words, said again as the table said them as it logged them.
fn say_again(events: &mut [pb::Event], rules: &dudo_rules::RuleSet, names: &[String]) {
    let mut narrator = Narrator::for_rules(rules);
    let hand_game = rules.family.hand_game();
    for event in events {
        if let Ok((_, said)) = convert::event_from_wire(event) {
            event.text = said.words(&mut narrator, names, hand_game);
        }
    }
}

/// Whether `stored` is in the compact form.
pub fn is_compact(stored: &[u8]) -> bool {
    stored.starts_with(COMPACT)
}

/// `replay` less what the engine makes again; the proofs kept as places alone with
/// `dice_secret`, or whole without.
fn compact(replay: &pb::Replay, dice_secret: Option<[u8; 32]>) -> Option<CompactReplay> {
    let started = i64::try_from(replay.summary.as_ref()?.started_unix_millis).ok()?;
    if replay.event_unix_millis.len() != replay.events.len() {
        return None;
    }
    let mut compact = CompactReplay {
        summary: replay.summary.clone(),
        rules: replay.rules.clone(),
        seed: replay.seed.clone(),
        moves: replay.moves.clone(),
        dice_secret: dice_secret.map(Vec::from).unwrap_or_default(),
        ..CompactReplay::default()
    };
    let mut at = started;
    compact.first_seq = replay.events.first().map_or(0, |e| e.seq);
    for (place, (event, &time)) in replay.events.iter().zip(&replay.event_unix_millis).enumerate() {
        if let Some(before) = place.checked_sub(1).map(|p| replay.events[p].seq) {
            let step = event.seq.checked_sub(before)?;
            if step != 1 {
                compact.seq_jumps.extend([u64::try_from(place).ok()?, step]);
            }
        }
        let time = i64::try_from(time).ok()?;
        compact.time_steps.push(time.checked_sub(at)?);
        at = time;
        let kept = match convert::event_from_wire(event) {
            Ok((_, TableEvent::Game(_))) => continue,
            Ok((_, TableEvent::DiceCommitted { round, .. })) if dice_secret.is_some() => {
                convert::event_to_wire(
                    0,
                    &TableEvent::DiceCommitted { round, commitments: vec![], table: String::new() },
                )
            }
            Ok((_, TableEvent::DiceSalts { round, .. })) if dice_secret.is_some() => {
                convert::event_to_wire(0, &TableEvent::DiceSalts { round, salts: vec![] })
            }
            _ => pb::Event { seq: 0, ..event.clone() },
        };
        compact.table_events.push(kept);
        compact.table_event_places.push(u32::try_from(place).ok()?);
    }
    Some(compact)
}

fn expand(compact: &CompactReplay) -> Result<pb::Replay, RecordError> {
    let count = compact.time_steps.len();
    if count > MOST_EVENTS {
        return Err(RecordError::Field("events", format!("{count} times")));
    }
    if !compact.seq_jumps.len().is_multiple_of(2) {
        return Err(RecordError::Field("sequence numbers", "a jump without its step".into()));
    }
    if compact.table_events.len() != compact.table_event_places.len() {
        return Err(RecordError::Field("table events", "places and events differ in number".into()));
    }
    let wire_rules = compact.rules.as_ref().ok_or(RecordError::Field("rules", "missing".into()))?;
    let rules =
        convert::rules_from_wire(wire_rules).map_err(|e| RecordError::Field("rules", e.to_string()))?;
    let seed: dudo_rules::Seed =
        compact.seed.as_slice().try_into().map_err(|_| RecordError::Field("seed", "not 32 bytes".into()))?;
    let summary = compact.summary.as_ref().ok_or(RecordError::Field("summary", "missing".into()))?;
    let moves_error = |e: dudo_rules::RuleError| RecordError::Moves(e.to_string());
    let (mut game, mut made) = Game::start(Arc::new(rules), summary.players.len(), seed)
        .map_err(|e| RecordError::Field("rules", e.to_string()))?;
    for m in &compact.moves {
        let seat = m.seat as usize;
        made.extend(
            match &m.action {
                None => game.remove(seat),
                Some(wire) => {
                    let action =
                        convert::action_from_wire(wire).map_err(|e| RecordError::Moves(e.to_string()))?;
                    game.apply(seat, &action)
                }
            }
            .map_err(moves_error)?,
        );
        if made.len() > MOST_EVENTS {
            return Err(RecordError::Field("moves", "too many events".into()));
        }
    }
    // A game the table stopped at a length limit ends with the engine's stop.
    let stopped = compact
        .table_events
        .iter()
        .any(|e| matches!(convert::event_from_wire(e), Ok((_, TableEvent::GameStopped { .. }))));
    if stopped && !game.is_over() {
        made.extend(game.stop());
    }
    if made.len() + compact.table_events.len() != count {
        return Err(RecordError::Moves(format!(
            "they make {} events with the table's {}, not {count}",
            made.len(),
            compact.table_events.len()
        )));
    }
    let mut proofs = match compact.dice_secret.as_slice() {
        [] => None,
        secret => Some(Proofs {
            proofs: DiceProofs::new(
                secret.try_into().map_err(|_| RecordError::Field("dice secret", "not 32 bytes".into()))?,
            ),
            salts_due: None,
        }),
    };
    let started = i64::try_from(summary.started_unix_millis).unwrap_or(0);
    let mut engine = made.into_iter();
    let mut table = compact.table_events.iter().zip(&compact.table_event_places).peekable();
    let (mut events, mut times) = (Vec::with_capacity(count), Vec::with_capacity(count));
    let mut jumps = compact.seq_jumps.chunks_exact(2).map(|j| (j[0], j[1])).peekable();
    let (mut seq, mut at) = (compact.first_seq, started);
    for (place, &time_step) in compact.time_steps.iter().enumerate() {
        if place > 0 {
            let step = match jumps.next_if(|&(at, _)| usize::try_from(at).is_ok_and(|at| at == place)) {
                Some((_, step)) => step,
                None => 1,
            };
            seq = seq.checked_add(step).ok_or(RecordError::Field("sequence numbers", "overflow".into()))?;
        }
        at = at.checked_add(time_step).ok_or(RecordError::Field("times", "overflow".into()))?;
        times.push(u64::try_from(at).map_err(|_| RecordError::Field("times", "before 1970".into()))?);
        let event = match table.next_if(|(_, p)| usize::try_from(**p).is_ok_and(|p| p == place)) {
            Some((kept, _)) => match proofs.as_mut().map(|p| p.remade(kept)).transpose()?.flatten() {
                Some(remade) => convert::event_to_wire(seq, &remade),
                None => pb::Event { seq, ..kept.clone() },
            },
            None => {
                let made = engine.next().ok_or(RecordError::Moves("too few events".into()))?;
                if let Some(proofs) = proofs.as_mut() {
                    proofs.saw(&made, seq);
                }
                convert::event_to_wire(seq, &TableEvent::Game(made))
            }
        };
        events.push(event);
    }
    // The words each event was sent with, said again as the table said them.
    let names: Vec<String> = summary.players.iter().map(|p| p.name.clone()).collect();
    say_again(&mut events, game.rules(), &names);
    Ok(pb::Replay {
        summary: compact.summary.clone(),
        rules: compact.rules.clone(),
        events,
        event_unix_millis: times,
        seed: compact.seed.clone(),
        moves: compact.moves.clone(),
        // Said by the History service as it answers (the record does not keep it).
        tournament: String::new(),
    })
}

/// The table's dice proofs, made again as the events go by: what the table did as it logged
/// them (table/core's `publish`), with each roll's place in the log its sequence number.
struct Proofs {
    proofs: DiceProofs,
    /// The salts the last reveal opened, for the event that publishes them.
    salts_due: Option<TableEvent>,
}

impl Proofs {
    fn saw(&mut self, event: &Event, seq: u64) {
        // Commitments a new round's start logs before it were kept at their own place (and
        // made there): nothing is left for it to log here.
        let _ = self.proofs.before(event, seq);
        if let Some(salts) = self.proofs.after(event) {
            self.salts_due = Some(salts);
        }
    }

    /// The proof `kept` stands for, made again; none for an event kept whole (which still
    /// takes its place in the proofs' order).
    fn remade(&mut self, kept: &pb::Event) -> Result<Option<TableEvent>, RecordError> {
        let missing =
            |what: &str| RecordError::Moves(format!("the dice make no {what} where the record has them"));
        match convert::event_from_wire(kept) {
            Ok((_, TableEvent::DiceCommitted { commitments, .. })) => {
                let made = self.proofs.commitments();
                match commitments.is_empty() {
                    true => made.map(Some).ok_or_else(|| missing("commitments")),
                    false => Ok(None),
                }
            }
            Ok((_, TableEvent::DiceSalts { salts, .. })) => {
                let due = self.salts_due.take();
                match salts.is_empty() {
                    true => due.map(Some).ok_or_else(|| missing("salts")),
                    false => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }
}
