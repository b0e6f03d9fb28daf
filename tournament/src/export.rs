//! A tournament's export, and its verification without the server.
//!
//! The export holds what anyone needs to check the result: the schedule's inputs, the rules,
//! the entrants, and for every game its place in the schedule, its dice seed, every move, the
//! server's dice commitments and the salts that opened them, and the finish. [`verify`] makes
//! the schedule again from its inputs, plays every game's moves through the engine from its
//! seed, checks every opened commitment against the dice the engine rolled, and counts the
//! standings again: a changed move, die, salt, seat or place fails, named by game and move.
//!
//! What an export cannot show is *when* a commitment was published: that it came before
//! anyone acted on the dice is seen by the players at the table, in their own logs.

use std::sync::Arc;

use dudo_rules::action::{Action, Seat};
use dudo_rules::describe::describe_in;
use dudo_rules::event::{Event, EventKind, Viewer};
use dudo_rules::proof::{self, Step, commitment, from_hex, hex};
use dudo_rules::{Game as Engine, RuleSet, seed_from_u64};
use serde::{Deserialize, Serialize};

use crate::schedule::{self, Deals, Game};
use crate::standings::{self, Finished, Standings};

/// The export's format, first in every file.
pub const FORMAT: &str = "dudo-tournament-v1";
/// Moves one exported game may hold (a server's games stop far sooner): a hostile file
/// cannot make the verifier play for ever.
pub const MAX_MOVES: usize = 100_000;

/// Swiss rounds one export may hold (a field of a thousand needs about ten).
pub const MAX_ROUNDS: u32 = 64;

/// How the tournament seated its entrants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// [`schedule::round_robin`].
    RoundRobin,
    /// [`schedule::swiss_round`], `rounds` of them: round 0 seated by lot, each later round
    /// by the standings of every game before it.
    Swiss { rounds: u32 },
}

/// A whole tournament: its head, and every game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Export {
    #[serde(flatten)]
    pub head: Head,
    pub games: Vec<ExportedGame>,
}

/// All of an export but its games: what a verifier needs before the first game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Head {
    /// [`FORMAT`].
    pub format: String,
    pub name: String,
    pub seating: Format,
    /// The seed every deal is drawn from.
    pub seed: u64,
    pub seats: usize,
    /// Deals in the round robin, or in each Swiss round.
    pub deals: u32,
    #[serde(default)]
    pub dice: Deals,
    pub rules: RuleSet,
    /// The entrants' names; everywhere else an entrant is its place in this list.
    pub entrants: Vec<String>,
    /// The standings as the tournament published them.
    pub standings: Standings,
    /// What shows the seed was fixed before the tournament began: a server's tournament
    /// publishes the commitment when it is made and the salt when it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_proof: Option<SeedProof>,
}

/// A seed's commitment and the salt that opens it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedProof {
    /// [`seed_commitment`] in hex.
    pub commitment: String,
    /// The salt, in hex.
    pub salt: String,
    /// The seed was chosen by the server's admin (for tests and repeated runs), not drawn:
    /// the commitment then shows only that it was fixed at the start.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seeded: bool,
    /// The tournament's id at its server: `dudo tournament verify --server` compares the
    /// proof, the name and `seeded` with what that server published for it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tournament: String,
}

/// SHA-256 of a label, the seed's eight bytes (big-endian) and the salt: published before a
/// tournament's entries are in, so the dice cannot be chosen once the field is known.
pub fn seed_commitment(seed: u64, salt: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"dudo-tournament-seed");
    hash.update(seed.to_be_bytes());
    hash.update(salt);
    dudo_rules::proof::hex(&hash.finalize())
}

/// One game of the tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportedGame {
    /// Its place in the schedule.
    pub schedule: Game,
    /// The server's id of the game (`dudo replay ID` shows it).
    pub id: String,
    /// Who sat in each seat, as the server recorded it.
    pub players: Vec<Player>,
    /// Every move, in order.
    pub moves: Vec<Move>,
    /// The game's events as the server recorded them (every roll, call and reveal, as a
    /// replay shows them): each move must make the very events the record holds for it.
    pub log: Vec<EventKind>,
    /// The server's commitments to each roll, in the order it published them.
    pub committed: Vec<Committed>,
    /// The salts it published with the reveals, and the dice they open.
    pub opened: Vec<Opened>,
    /// The entrants from first place to last.
    pub finish: Vec<usize>,
}

impl ExportedGame {
    /// Its deal and finish, as the standings count them.
    pub fn finished(&self) -> Finished {
        Finished { deal: self.schedule.deal, finish: self.finish.clone() }
    }
}

/// A seat's player as the server recorded it: its name, and the built-in bot's kind if it
/// was one. An entrant is a built-in bot when its name is the kind (`odds`, or `odds-2` for
/// a second one); otherwise it is the player of that name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bot: String,
}

impl Player {
    /// Whether this is the player the entrant called `entrant` would be.
    pub fn plays_as(&self, entrant: &str) -> bool {
        if self.bot.is_empty() {
            return self.name == entrant;
        }
        entrant == self.bot
            || entrant
                .strip_prefix(self.bot.as_str())
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }
}

/// A move: the seat's action, or none when the seat left the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub seat: Seat,
    pub action: Option<Action>,
}

/// A commitment to one roll: SHA-256 (hex) of `"dudo-v1" ‖ round ‖ seat ‖ dice ‖ salt`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Committed {
    pub round: u32,
    pub seat: Seat,
    pub commitment: String,
}

/// A published salt (hex) and the dice it opens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opened {
    pub round: u32,
    pub seat: Seat,
    pub salt: String,
    pub dice: Vec<u8>,
}

/// What is wrong with an export: the game (its number in the schedule) and what.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VerifyError {
    #[error("format: {0:?} is not {FORMAT}")]
    Format(String),
    #[error("rules: {0}")]
    Rules(String),
    #[error("seed_proof: {0}")]
    Seed(String),
    #[error("seating: from 1 to {MAX_ROUNDS} Swiss rounds, not {0}")]
    Rounds(u32),
    #[error("schedule: {0}")]
    Schedule(#[from] schedule::ScheduleError),
    #[error("games: the schedule has {scheduled} games, the export {exported}")]
    Games { scheduled: usize, exported: usize },
    #[error("game {game}: {why}")]
    Game { game: usize, why: String },
    #[error("game {game}, move {number} ({player} at seat {seat}: {action}): {why}")]
    Move { game: usize, number: usize, seat: Seat, player: String, action: String, why: String },
    #[error("standings: {0}")]
    Standings(String),
}

/// Entrant `e`'s name, for a message (a file may name an entrant it does not list).
fn entrant_name(entrants: &[String], e: usize) -> String {
    entrants.get(e).cloned().unwrap_or_else(|| format!("entrant {e}"))
}

fn game_error(game: usize, why: impl Into<String>) -> VerifyError {
    VerifyError::Game { game, why: why.into() }
}

/// Checks `export` through and through; its standings, counted again, if it holds.
pub fn verify(export: &Export) -> Result<Standings, VerifyError> {
    let mut verifier = Verifier::new(&export.head)?;
    // A file holding other than the schedule's count is refused before any game is played.
    if verifier.scheduled != export.games.len() as u64 {
        return Err(VerifyError::Games {
            scheduled: verifier.scheduled as usize,
            exported: export.games.len(),
        });
    }
    for game in &export.games {
        verifier.game(game)?;
    }
    verifier.finish()
}

/// An export checked a game at a time, in the schedule's order, so a file need not be held
/// whole (the layout module reads one a game to a line). [`verify`] is this over a whole
/// export.
pub struct Verifier<'h> {
    head: &'h Head,
    rules: Arc<RuleSet>,
    /// Games the schedule holds.
    pub scheduled: u64,
    /// The schedule's games still to come: all of a round robin, a Swiss round's.
    upcoming: std::collections::VecDeque<Game>,
    /// Swiss rounds made so far.
    rounds: u32,
    finishes: Vec<Finished>,
    /// Moves replayed and salts opened so far, for the report.
    pub moves: usize,
    pub opened: usize,
}

impl<'h> Verifier<'h> {
    /// Checks the head (format, rules, the schedule's size) and makes the schedule's first
    /// games. Counted before made: a small file must not make a schedule of a million games.
    pub fn new(head: &'h Head) -> Result<Verifier<'h>, VerifyError> {
        if head.format != FORMAT {
            return Err(VerifyError::Format(head.format.clone()));
        }
        head.rules.validate().map_err(|e| VerifyError::Rules(e.to_string()))?;
        if let Some(proof) = &head.seed_proof {
            let salt = dudo_rules::proof::from_hex(&proof.salt)
                .ok_or_else(|| VerifyError::Seed("the salt is not hex".into()))?;
            if seed_commitment(head.seed, &salt) != proof.commitment.to_ascii_lowercase() {
                return Err(VerifyError::Seed(format!(
                    "seed {} with this salt is not the published commitment {}",
                    head.seed, proof.commitment
                )));
            }
        }
        let entrants = head.entrants.len();
        let (scheduled, upcoming) = match head.seating {
            Format::RoundRobin => (
                schedule::round_robin_games(entrants, head.seats, head.deals)?,
                schedule::round_robin(entrants, head.seats, head.deals, head.seed, head.dice)?,
            ),
            Format::Swiss { rounds } if rounds == 0 || rounds > MAX_ROUNDS => {
                return Err(VerifyError::Rounds(rounds));
            }
            Format::Swiss { rounds } => {
                let per_round = schedule::swiss_round_games(entrants, head.seats, head.deals)?;
                let first = schedule::swiss_round_after(
                    entrants,
                    head.seats,
                    head.deals,
                    0,
                    &[],
                    head.seed,
                    head.dice,
                )?;
                (per_round.saturating_mul(u64::from(rounds)), first)
            }
        };
        Ok(Verifier {
            head,
            rules: Arc::new(head.rules.clone()),
            scheduled,
            upcoming: upcoming.into(),
            rounds: 1,
            finishes: Vec::new(),
            moves: 0,
            opened: 0,
        })
    }

    /// The next game of the file.
    pub fn game(&mut self, game: &ExportedGame) -> Result<(), VerifyError> {
        let number = self.finishes.len();
        if self.upcoming.is_empty()
            && let Format::Swiss { rounds } = self.head.seating
            && self.rounds < rounds
        {
            // A Swiss round is seated by the standings of every game before it.
            let h = self.head;
            let round = schedule::swiss_round_after(
                h.entrants.len(),
                h.seats,
                h.deals,
                self.rounds,
                &self.finishes,
                h.seed,
                h.dice,
            )?;
            self.upcoming = round.into();
            self.rounds += 1;
        }
        let Some(scheduled) = self.upcoming.pop_front() else {
            return Err(VerifyError::Games { scheduled: number, exported: number + 1 });
        };
        if game.schedule != scheduled {
            return Err(game_error(
                number,
                schedule_difference(&game.schedule, &scheduled, &self.head.entrants),
            ));
        }
        verify_game(number, game, &self.rules, &self.head.entrants)?;
        self.moves += game.moves.len();
        self.opened += game.opened.len();
        self.finishes.push(game.finished());
        Ok(())
    }

    /// After the last game: every scheduled game seen, and the standings counted again the
    /// published ones.
    pub fn finish(self) -> Result<Standings, VerifyError> {
        if self.finishes.len() as u64 != self.scheduled {
            return Err(VerifyError::Games {
                scheduled: self.scheduled as usize,
                exported: self.finishes.len(),
            });
        }
        let counted = standings::standings(self.head.entrants.len(), &self.finishes)
            .map_err(|e| VerifyError::Standings(e.to_string()))?;
        if let Some(why) = counted.difference(&self.head.standings) {
            let entrants = &self.head.entrants;
            let name = |e: usize| entrant_name(entrants, e);
            return Err(VerifyError::Standings(format!(
                "the published standings are not the games': {}",
                why.say(name)
            )));
        }
        Ok(counted)
    }
}

/// What differs between a game's place in the export and in the schedule made again.
fn schedule_difference(game: &Game, scheduled: &Game, entrants: &[String]) -> String {
    let names = |seats: &[usize]| -> String {
        let named: Vec<String> = seats.iter().map(|&e| entrant_name(entrants, e)).collect();
        named.join(", ")
    };
    let mut differs = Vec::new();
    if game.number != scheduled.number {
        differs.push(format!("number {} (the schedule's {})", game.number, scheduled.number));
    }
    if (game.round, game.table, game.deal) != (scheduled.round, scheduled.table, scheduled.deal) {
        differs.push(format!(
            "round {}, table {}, deal {} (the schedule's round {}, table {}, deal {})",
            game.round, game.table, game.deal, scheduled.round, scheduled.table, scheduled.deal
        ));
    }
    if game.seed != scheduled.seed {
        differs.push(format!("dice seed {} (the schedule's {})", game.seed, scheduled.seed));
    }
    if game.seats != scheduled.seats {
        differs.push(format!(
            "seats {} (the schedule seats {})",
            names(&game.seats),
            names(&scheduled.seats)
        ));
    }
    format!("it is not the schedule's game {}: {}", scheduled.number, differs.join("; "))
}

/// Whether `made` (what the engine made, as a replay shows it) is the log's next events from
/// `*at`; moves `*at` past them. `Some(why)` if not.
fn same_as_logged(
    made: &[Event],
    log: &[EventKind],
    at: &mut usize,
    say: &dyn Fn(&EventKind) -> String,
) -> Option<String> {
    for e in made.iter().filter(|e| e.audience.admits(Viewer::Replay, true)) {
        match log.get(*at) {
            Some(recorded) if *recorded == e.kind => *at += 1,
            Some(recorded) => {
                return Some(format!("the move makes {}, the log records {}", say(&e.kind), say(recorded)));
            }
            None => return Some(format!("the move makes {}, past the log's end", say(&e.kind))),
        }
    }
    None
}

/// One game: its moves through the engine, its commitments against the engine's dice, its
/// finish against the engine's.
fn verify_game(
    number: usize,
    game: &ExportedGame,
    rules: &Arc<RuleSet>,
    entrants: &[String],
) -> Result<(), VerifyError> {
    let seats = game.schedule.seats.len();
    if game.moves.len() > MAX_MOVES {
        return Err(game_error(number, format!("{} moves, more than {MAX_MOVES}", game.moves.len())));
    }
    if game.players.len() != seats {
        return Err(game_error(number, format!("{} players recorded for {seats} seats", game.players.len())));
    }
    for (seat, (player, &entrant)) in game.players.iter().zip(&game.schedule.seats).enumerate() {
        let name = entrants.get(entrant).map_or("", String::as_str);
        if !player.plays_as(name) {
            let who =
                if player.bot.is_empty() { player.name.clone() } else { format!("a {} bot", player.bot) };
            return Err(game_error(
                number,
                format!("seat {seat}: the record seats {who} where the schedule seats {name}"),
            ));
        }
    }
    // A tournament's table plays one game, dealt from the schedule's seed.
    let (mut engine, mut events) = Engine::start(Arc::clone(rules), seats, seed_from_u64(game.schedule.seed))
        .map_err(|e| game_error(number, e.to_string()))?;
    // The record's events, matched as the engine makes them again: the deal first.
    let mut logged = 0;
    // Events said as a replay says them, seats by entrant name.
    let names: Vec<String> = game.schedule.seats.iter().map(|&e| entrant_name(entrants, e)).collect();
    let hand = rules.family.hand_game();
    let say = |kind: &EventKind| format!("\"{}\"", describe_in(kind, &names, hand));
    if let Some(why) = same_as_logged(&events, &game.log, &mut logged, &say) {
        return Err(game_error(number, format!("the deal and the game's log disagree: {why}")));
    }
    for (i, m) in game.moves.iter().enumerate() {
        let made = match &m.action {
            Some(action) => engine.apply(m.seat, action),
            None => engine.remove(m.seat),
        };
        let action = m.action.as_ref().map_or_else(|| "leaves".to_string(), ToString::to_string);
        let fault = |why: String| VerifyError::Move {
            game: number,
            number: i,
            seat: m.seat,
            player: names.get(m.seat).cloned().unwrap_or_else(|| "nobody".into()),
            action: action.clone(),
            why,
        };
        let made = made.map_err(|e| fault(format!("the engine refuses it: {e}")))?;
        if let Some(why) = same_as_logged(&made, &game.log, &mut logged, &say) {
            return Err(fault(format!("the move and the game's log disagree: {why}")));
        }
        events.extend(made);
    }
    if logged != game.log.len() {
        return Err(game_error(
            number,
            format!("the record holds {} events after its last move", game.log.len() - logged),
        ));
    }
    if !engine.is_over() {
        return Err(game_error(number, format!("its {} moves do not finish the game", game.moves.len())));
    }
    // Every roll the engine made, as the table commits to them, and which of them the table
    // opens, as it opens them (`proof::step`, the rule the server's proofs follow).
    let (mut round, mut rolls, mut to_open, mut opens) = (0, Vec::new(), Vec::new(), Vec::new());
    for step in events.iter().filter_map(proof::step) {
        match step {
            Step::Round(r) => {
                round = r;
                to_open.clear();
            }
            Step::Reveal => opens.append(&mut to_open),
            Step::Cup { .. } | Step::Look { .. } => {
                if let Some((seat, dice, replaces)) = step.roll() {
                    if replaces {
                        to_open.clear();
                    }
                    to_open.push(rolls.len());
                    rolls.push((round, seat, dice));
                }
            }
        }
    }
    if game.committed.len() != rolls.len() {
        return Err(game_error(
            number,
            format!("{} commitments for the engine's {} rolls", game.committed.len(), rolls.len()),
        ));
    }
    for (i, (c, (r, seat, _))) in game.committed.iter().zip(&rolls).enumerate() {
        if (c.round, c.seat) != (*r, *seat) {
            return Err(game_error(
                number,
                format!(
                    "commitment {i} is for round {} seat {}; the engine's roll {i} is round {r} seat {seat}",
                    c.round, c.seat
                ),
            ));
        }
    }
    // Exactly the rolls the server opens, each once, in order.
    if game.opened.len() != opens.len() {
        return Err(game_error(
            number,
            format!("{} salts opened where the reveals open {} rolls", game.opened.len(), opens.len()),
        ));
    }
    for (o, &which) in game.opened.iter().zip(&opens) {
        let (r, seat, dice) = &rolls[which];
        let at = format!("round {} seat {}", o.round, o.seat);
        if (o.round, o.seat) != (*r, *seat) {
            return Err(game_error(
                number,
                format!("{at}: the salt opened here is for round {r} seat {seat}'s roll"),
            ));
        }
        let salt =
            from_hex(&o.salt).ok_or_else(|| game_error(number, format!("{at}: the salt is not hex")))?;
        if game.committed[which].commitment != hex(&commitment(o.round, o.seat, &o.dice, &salt)) {
            return Err(game_error(
                number,
                format!("{at}: the salt and dice {:?} do not open the seat's commitment", o.dice),
            ));
        }
        if *dice != o.dice {
            return Err(game_error(
                number,
                format!("{at}: the opened dice {:?} are not the engine's {dice:?}", o.dice),
            ));
        }
    }
    let finish: Vec<usize> =
        engine.standings().iter().filter_map(|&s| game.schedule.seats.get(s).copied()).collect();
    if finish != game.finish {
        return Err(game_error(
            number,
            format!("the engine finishes it {finish:?}, the export says {:?}", game.finish),
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use dudo_rules::{bots, presets};

    /// Entrant e plays the built-in bot KINDS[e % 3].
    const KINDS: [&str; 3] = ["random", "odds", "reader"];

    /// One scheduled game played through the engine, with commitments made as a table makes
    /// them (a salt per roll) and every one opened.
    fn play(rules: &RuleSet, scheduled: Game) -> ExportedGame {
        let (mut engine, mut events) =
            Engine::start(rules.clone(), scheduled.seats.len(), seed_from_u64(scheduled.seed))
                .unwrap_or_else(|e| panic!("{e}"));
        let mut players: Vec<Box<dyn bots::Bot>> = scheduled
            .seats
            .iter()
            .enumerate()
            .filter_map(|(s, &e)| bots::by_name(KINDS[e % 3], bots::seat_seed(scheduled.seed, s)))
            .collect();
        let mut moves = Vec::new();
        let mut log: Vec<EventKind> = Vec::new();
        while let Some(seat) = engine.turn().filter(|_| !engine.is_over()) {
            let action = players[seat].act(engine.rules(), &engine.view(seat), &engine.legal(seat));
            events.extend(engine.apply(seat, &action).unwrap_or_default());
            moves.push(Move { seat, action: Some(action) });
        }
        // As the table's proofs do (`proof::step`): commit to each roll with a salt of its
        // own; at a reveal, open the round's rolls still unopened.
        let (mut committed, mut opened, mut pending, mut round) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for step in events.iter().filter_map(proof::step) {
            match step {
                Step::Round(r) => {
                    round = r;
                    pending.clear();
                }
                Step::Reveal => opened.append(&mut pending),
                Step::Cup { .. } | Step::Look { .. } => {
                    let Some((seat, dice, replaces)) = step.roll() else { continue };
                    let salt = [committed.len() as u8, 7, 7];
                    let commitment = hex(&commitment(round, seat, &dice, &salt));
                    committed.push(Committed { round, seat, commitment });
                    if replaces {
                        pending.clear();
                    }
                    pending.push(Opened { round, seat, salt: hex(&salt), dice });
                }
            }
        }
        log.extend(events.iter().filter(|e| e.audience.admits(Viewer::Replay, true)).map(|e| e.kind.clone()));
        let finish = engine.standings().iter().map(|&s| scheduled.seats[s]).collect();
        let players = scheduled
            .seats
            .iter()
            .map(|&e| Player { name: format!("seat of {e}"), bot: KINDS[e % 3].into() })
            .collect();
        ExportedGame {
            players,
            id: format!("g{}", scheduled.number),
            schedule: scheduled,
            moves,
            log,
            committed,
            opened,
            finish,
        }
    }

    /// A round robin of random, odds and reader on `preset`, exported (the layout's tests
    /// write it out too).
    pub(crate) fn tournament(preset: &str) -> Export {
        let rules = presets::by_name(preset).unwrap_or_default();
        let games = schedule::round_robin(3, 3, 4, 9, Deals::Duplicate).unwrap_or_default();
        let exported: Vec<ExportedGame> = games.into_iter().map(|g| play(&rules, g)).collect();
        let entrants = KINDS.iter().map(|k| k.to_string()).collect();
        export_of("test", Format::RoundRobin, 9, 4, rules, entrants, exported)
    }

    /// An export of `games` at tables of three, its standings counted from them.
    fn export_of(
        name: &str,
        seating: Format,
        seed: u64,
        deals: u32,
        rules: RuleSet,
        entrants: Vec<String>,
        games: Vec<ExportedGame>,
    ) -> Export {
        let finished: Vec<Finished> = games.iter().map(ExportedGame::finished).collect();
        let standings = standings::standings(entrants.len(), &finished).unwrap_or_default();
        let dice = Deals::Duplicate;
        let head = Head {
            format: FORMAT.into(),
            name: name.into(),
            seating,
            seed,
            seats: 3,
            deals,
            dice,
            rules,
            entrants,
            standings,
            seed_proof: None,
        };
        Export { head, games }
    }

    #[test]
    fn a_seed_proof_opens_only_with_its_own_seed_and_salt() {
        let mut head = tournament("perudo").head;
        let salt = [7u8; 16];
        let commitment = seed_commitment(head.seed, &salt);
        head.seed_proof = Some(SeedProof {
            commitment: commitment.clone(),
            salt: dudo_rules::proof::hex(&salt),
            seeded: false,
            tournament: String::new(),
        });
        assert!(Verifier::new(&head).is_ok());
        let other = Head { seed: head.seed + 1, ..head.clone() };
        assert!(matches!(Verifier::new(&other), Err(VerifyError::Seed(_))));
        let mut wrong_salt = head.clone();
        wrong_salt.seed_proof = Some(SeedProof {
            commitment,
            salt: dudo_rules::proof::hex(&[8u8; 16]),
            seeded: false,
            tournament: String::new(),
        });
        assert!(matches!(Verifier::new(&wrong_salt), Err(VerifyError::Seed(_))));
    }

    /// Two Swiss rounds of six entrants at tables of three: round 1 seated by round 0's
    /// standings.
    fn swiss() -> Export {
        let rules = presets::by_name("fibbing").unwrap_or_default();
        let mut games: Vec<ExportedGame> = Vec::new();
        let mut order = schedule::by_lot(6, 5);
        for round in 0..2 {
            let first = games.len() as u32;
            let scheduled =
                schedule::swiss_round(&order, 3, 3, round, first, 5, Deals::Duplicate).unwrap_or_default();
            games.extend(scheduled.into_iter().map(|g| play(&rules, g)));
            let finished: Vec<Finished> = games.iter().map(ExportedGame::finished).collect();
            order = standings::order(6, &finished).unwrap_or_default();
        }
        let entrants = (0..6).map(|e| format!("{}-{}", KINDS[e % 3], e / 3 + 1)).collect();
        export_of("swiss", Format::Swiss { rounds: 2 }, 5, 3, rules, entrants, games)
    }

    #[test]
    fn a_swiss_export_verifies_and_a_round_seated_otherwise_does_not() {
        let export = swiss();
        assert_eq!(
            export.games.len(),
            2 * 2 * 3 * 3,
            "two rounds of two tables, three rotations, three deals"
        );
        assert_eq!(verify(&export), Ok(export.head.standings.clone()));
        // Round 1's first table seated as if by lot again: not what round 0's standings say.
        let mut reseated = export.clone();
        let first = reseated.games.iter().position(|g| g.schedule.round == 1).unwrap_or_default();
        reseated.games[first].schedule.seats.reverse();
        let why = verify(&reseated).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(why.starts_with(&format!("game {first}: it is not the schedule's game")), "{why}");
        // A file claiming a million rounds is refused; one claiming more rounds than it holds
        // games is a short schedule, not a long computation.
        let mut many = export.clone();
        many.head.seating = Format::Swiss { rounds: 1_000_000 };
        assert_eq!(verify(&many), Err(VerifyError::Rounds(1_000_000)));
        many.head.seating = Format::Swiss { rounds: 64 };
        assert!(matches!(verify(&many), Err(VerifyError::Games { .. })), "{:?}", verify(&many));
        many.head.seating = Format::Swiss { rounds: 0 };
        assert_eq!(verify(&many), Err(VerifyError::Rounds(0)));
    }

    #[test]
    fn a_changed_move_die_salt_or_place_is_named() {
        let export = tournament("fibbing");
        let fails = |change: &dyn Fn(&mut Export), says: &str| {
            let mut tampered = export.clone();
            change(&mut tampered);
            let why = verify(&tampered).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(why.contains(says), "{says:?} not in {why:?}");
        };
        // The first bid of game 2 made far too high: the engine refuses it.
        fails(
            &|e| {
                let m = e.games[2].moves.iter_mut().find(|m| matches!(m.action, Some(Action::Bid(_))));
                if let Some(Move { action: Some(Action::Bid(bid)), .. }) = m {
                    bid.quantity += 40;
                }
            },
            "game 2, move 0",
        );
        // Every bid of game 6 one higher in turn, each still legal: the record names it.
        let bids: Vec<usize> = export.games[6]
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m.action, Some(Action::Bid(_))))
            .map(|(i, _)| i)
            .collect();
        assert!(!bids.is_empty());
        for i in bids {
            let mut tampered = export.clone();
            if let Some(Action::Bid(bid)) = &mut tampered.games[6].moves[i].action {
                bid.quantity += 1;
            }
            let why = verify(&tampered).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(why.starts_with(&format!("game 6, move {i} ")), "move {i}: {why}");
        }
        fails(
            &|e| {
                e.games[8].log.pop();
            },
            "game 8",
        );
        fails(
            &|e| e.games[1].opened[0].dice[0] = e.games[1].opened[0].dice[0] % 6 + 1,
            "game 1: round 1 seat 0",
        );
        fails(&|e| e.games[3].opened[2].salt = "00".into(), "do not open the seat's commitment");
        fails(&|e| e.games[3].opened.clear(), "salts opened where the reveals open");
        fails(
            &|e| {
                let first = e.games[3].opened[0].clone();
                e.games[3].opened[1] = first;
            },
            "game 3: round 1 seat ",
        );
        fails(&|e| e.games[4].finish.swap(0, 1), "game 4: the engine finishes it");
        fails(&|e| e.games[5].schedule.seed ^= 1, "game 5: it is not the schedule's game 5");
        fails(&|e| e.games[0].committed.pop().map_or((), drop), "game 0: ");
        fails(&|e| e.head.standings.entrants.swap(0, 1), "standings:");
        fails(&|e| e.head.format = "other".into(), "format:");
        // The entrants' names swapped: the records seat other bots where they sat.
        fails(&|e| e.head.entrants.swap(1, 2), "the record seats a ");
        fails(&|e| e.games.truncate(3), "games: the schedule has 12 games, the export 3");
    }
}
