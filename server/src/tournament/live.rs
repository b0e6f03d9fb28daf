//! A tournament as the director holds it: its settings, entrants and schedule so far, its
//! games in play, and what it does next (start, make games, seat a Swiss's next round, end).

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use dudo_proto::v1 as pb;
use dudo_store::tournaments::{EntrantRow, TournamentRow};
use dudo_tournament::Game;
use dudo_tournament::export::Format;

use super::tables::Faults;
use super::{Spec, Updates, state, update};

/// A game in play: its table, once made.
pub(super) struct InPlay {
    pub(super) made: Option<Seated>,
    /// Since when the director has been looking for its table: its watch ended before its
    /// game did (the table moving to another node), or a restart found it cut off.
    pub(super) lost: Option<Instant>,
}

/// A game's table: its id, each seat's token (none for a house bot) and the host's token.
pub(super) struct Seated {
    pub(super) table: String,
    pub(super) tokens: Vec<Option<String>>,
    pub(super) host_token: String,
}

/// A tournament taking entries or running.
pub(super) struct Live {
    pub(super) row: TournamentRow,
    pub(super) spec: Spec,
    pub(super) entrants: Vec<EntrantRow>,
    /// Each entrant's open stream, by number.
    pub(super) streams: HashMap<u32, Updates>,
    /// The schedule so far: all of a round robin; a Swiss's rounds as they are seated.
    pub(super) schedule: Vec<Game>,
    /// Each scheduled game's entrants from first place to last, once it has ended.
    pub(super) finished: Vec<Option<Vec<usize>>>,
    /// Games to make, lowest number first.
    pub(super) waiting: BTreeSet<u32>,
    pub(super) in_play: HashMap<u32, InPlay>,
    /// No table is made before this, after one could not be.
    pub(super) not_before: Option<Instant>,
    /// Tables that could not be made since one last was.
    pub(super) failures: u32,
    /// Each entrant's lapsed call windows and time-outs so far (since this node took the
    /// tournament on): past the spec's `bench_after`, it is benched.
    pub(super) faults: HashMap<usize, Faults>,
    /// Its share of the games the accounts' tournaments may start (not the admin's).
    pub(super) pace: super::director::Pace,
    /// Set when it ends: a table still being made for it is not started.
    pub(super) called_off: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// An entrant's kind when its account is a person's: it is seated at one game at a time.
pub(super) const PERSON: &str = "person";

impl Live {
    pub(super) fn new(row: TournamentRow, entrants: Vec<EntrantRow>) -> Result<Live, String> {
        let spec: Spec = serde_json::from_str(&row.spec).map_err(|e| format!("its settings: {e}"))?;
        Ok(Live {
            row,
            spec,
            entrants,
            streams: HashMap::new(),
            schedule: Vec::new(),
            finished: Vec::new(),
            waiting: BTreeSet::new(),
            in_play: HashMap::new(),
            not_before: None,
            failures: 0,
            faults: HashMap::new(),
            pace: Default::default(),
            called_off: Default::default(),
        })
    }

    /// The entrants of game `number` that forfeit it (benched), by seat.
    pub(super) fn forfeit_seats(&self, number: u32) -> Vec<usize> {
        let Some(game) = self.schedule.get(number as usize) else { return Vec::new() };
        game.seats
            .iter()
            .enumerate()
            .filter(|&(_, &e)| self.entrants.get(e).is_some_and(|row| !row.benched.is_empty()))
            .map(|(seat, _)| seat)
            .collect()
    }

    /// The entrants of game `number` not asked in call windows (by seat): bots that let one
    /// lapse in an earlier game. Each seat of a deal is asked alike but for what it did
    /// itself, so a staller holds up one game's claims at most (each that was in play when
    /// it first let one lapse), not one a game until its bench.
    pub(super) fn unasked_seats(&self, number: u32) -> Vec<usize> {
        let Some(game) = self.schedule.get(number as usize) else { return Vec::new() };
        game.seats
            .iter()
            .enumerate()
            .filter(|&(_, e)| self.faults.get(e).is_some_and(|f| f.lapses > 0))
            .map(|(seat, _)| seat)
            .collect()
    }

    /// Counts a game's faults against its entrants; returns those now past the bench, with
    /// why (each once: an entrant benched already is not again).
    pub(super) fn count_faults(&mut self, faults: &[(usize, Faults)]) -> Vec<(usize, String)> {
        let mut benched = Vec::new();
        let limit = self.spec.bench_after();
        for &(entrant, f) in faults {
            let Some(row) = self.entrants.get(entrant) else { continue };
            // A person lets a window close to say no (as at a game night); a bot can always
            // answer. Only a bot's lapses are faults, and only a bot goes unasked for them.
            let bot = row.kind == "bot";
            let total = self.faults.entry(entrant).or_default();
            total.lapses += if bot { f.lapses } else { 0 };
            total.timeouts += f.timeouts;
            let playing =
                self.entrants.get(entrant).is_some_and(|e| e.benched.is_empty() && !e.account.is_empty());
            if playing && limit > 0 && total.total() >= limit {
                let why = format!(
                    "benched after {} lapsed call window(s) and {} time-out(s): its later games are forfeit",
                    total.lapses, total.timeouts
                );
                benched.push((entrant, why));
            }
        }
        benched
    }

    /// Seats the next part of the schedule (all of a round robin, a Swiss's next round) if
    /// every game so far has ended and there is one; whether it did.
    pub(super) fn schedule_more(&mut self) -> Result<bool, String> {
        let more = next_games(&self.spec, self.entrants.len(), self.row.seed, &self.schedule, &self.finished)
            .map_err(|e| e.to_string())?;
        if more.is_empty() {
            return Ok(false);
        }
        for g in &more {
            self.waiting.insert(g.number);
        }
        self.finished.extend(more.iter().map(|_| None));
        self.schedule.extend(more);
        Ok(true)
    }

    pub(super) fn tell(&self, entrant: usize, u: pb::tournament_update::Update) {
        if let Some(tx) = u32::try_from(entrant).ok().and_then(|e| self.streams.get(&e)) {
            let _ = tx.try_send(update(u));
        }
    }

    /// Game `number` ended (at `table`) with `finish`: it counts, and its entrants are told.
    pub(super) fn count_finish(&mut self, number: u32, table: &str, finish: Vec<usize>) {
        for (place, &entrant) in finish.iter().enumerate() {
            let ended = pb::TournamentGameEnded {
                game: crate::table::game_id(table, 1),
                table: table.to_string(),
                number,
                place: place as u32 + 1,
            };
            self.tell(entrant, pb::tournament_update::Update::Ended(ended));
        }
        if let Some(slot) = self.finished.get_mut(number as usize) {
            *slot = Some(finish);
        }
    }

    /// Tells each entrant of game `number` where it sits (again, after a restart).
    pub(super) fn seated(&self, number: u32, made: &Seated) {
        for (entrant, seated) in self.seats_at(number, made) {
            self.tell(entrant, pb::tournament_update::Update::Seated(seated));
        }
    }

    /// Each account's seat at game `number` (made at `made`), with its entrant.
    pub(super) fn seats_at<'a>(
        &'a self,
        number: u32,
        made: &'a Seated,
    ) -> impl Iterator<Item = (usize, pb::TournamentSeated)> + 'a {
        let seats = self.schedule.get(number as usize).map(|g| g.seats.as_slice()).unwrap_or_default();
        seats.iter().zip(&made.tokens).enumerate().filter_map(move |(seat, (&entrant, token))| {
            let seated = pb::TournamentSeated {
                table: made.table.clone(),
                seat: seat as u32,
                token: token.clone()?,
                game: crate::table::game_id(&made.table, 1),
                number,
            };
            Some((entrant, seated))
        })
    }
}

/// Every game ended so far, in schedule order.
pub(crate) fn finishes(schedule: &[Game], finished: &[Option<Vec<usize>>]) -> Vec<dudo_tournament::Finished> {
    schedule
        .iter()
        .zip(finished)
        .filter_map(|(g, f)| {
            f.as_ref().map(|f| dudo_tournament::Finished { deal: g.deal, finish: f.clone() })
        })
        .collect()
}

/// The games to seat after `schedule` once all of it has ended: the whole round robin at
/// first, a Swiss's next round (by the standings so far) until its rounds are played; none
/// when the schedule is whole or games are still to end.
pub(crate) fn next_games(
    spec: &Spec,
    entrants: usize,
    seed: u64,
    schedule: &[Game],
    finished: &[Option<Vec<usize>>],
) -> Result<Vec<Game>, dudo_tournament::ScheduleError> {
    use dudo_tournament::schedule;
    if finished.iter().any(Option::is_none) {
        return Ok(Vec::new());
    }
    let seats = spec.seats as usize;
    let kind = spec.dice;
    match spec.seating {
        Format::RoundRobin if schedule.is_empty() => {
            schedule::round_robin(entrants, seats, spec.deals, seed, kind)
        }
        Format::RoundRobin => Ok(Vec::new()),
        Format::Swiss { rounds } => {
            let played = schedule.last().map_or(0, |g| g.round + 1);
            if played >= rounds {
                return Ok(Vec::new());
            }
            let done = finishes(schedule, finished);
            schedule::swiss_round_after(entrants, seats, spec.deals, played, &done, seed, kind)
        }
    }
}

/// A schedule as far as it is seated, and each game's end so far (by number).
#[derive(Default)]
pub(crate) struct Scheduled {
    pub(crate) games: Vec<Game>,
    pub(crate) finished: Vec<Option<Vec<usize>>>,
}

/// The whole schedule as far as `finished` (by game number) lets it be seated: what the
/// service shows and counts standings by, made again from the store.
pub(crate) fn schedule_of(
    spec: &Spec,
    entrants: usize,
    seed: u64,
    ended: &HashMap<u32, Vec<usize>>,
) -> Result<Scheduled, dudo_tournament::ScheduleError> {
    let mut schedule: Vec<Game> = Vec::new();
    let mut finished: Vec<Option<Vec<usize>>> = Vec::new();
    loop {
        let more = next_games(spec, entrants, seed, &schedule, &finished)?;
        if more.is_empty() {
            return Ok(Scheduled { games: schedule, finished });
        }
        finished.extend(more.iter().map(|g| ended.get(&g.number).cloned()));
        schedule.extend(more);
    }
}

/// What a tournament does next.
pub(super) enum Next {
    Wait,
    /// Its schedule is seated: it starts.
    Start,
    Make,
    End(&'static str, String),
}

impl Live {
    /// Entrants who play in person (a person's account) and are at one of the games in play.
    pub(super) fn people_in_play(&self) -> BTreeSet<usize> {
        self.in_play
            .keys()
            .filter_map(|&n| self.schedule.get(n as usize))
            .flat_map(|g| g.seats.iter().copied())
            .filter(|&e| self.entrants.get(e).is_some_and(|row| row.kind == PERSON))
            .collect()
    }

    pub(super) fn next(&mut self, now: i64) -> Next {
        if self.row.state == state::ENTRY {
            if now < self.row.starts_at {
                return Next::Wait;
            }
            let (n, seats) = (self.entrants.len(), self.spec.seats as usize);
            if n < seats.max(2) {
                return Next::End(
                    state::CANCELLED,
                    format!("too few entrants: {n} entered, and a table seats {seats}"),
                );
            }
            // A Swiss round's tables differ by a seat at most; the smallest must still be a
            // game these rules play.
            if let Format::Swiss { .. } = self.spec.seating {
                let (sizes, _) = dudo_tournament::schedule::swiss_tables(n, seats);
                let least = sizes.iter().copied().min().unwrap_or(0);
                let min = usize::from(self.spec.rules.players.min);
                if least < min {
                    return Next::End(
                        state::CANCELLED,
                        format!(
                            "{n} entrants at tables of {seats} seat a table of {least}, and these rules need {min}"
                        ),
                    );
                }
            }
            return match self.schedule_more() {
                Ok(_) => Next::Start,
                Err(why) => Next::End(state::CANCELLED, format!("its schedule could not be made: {why}")),
            };
        }
        if self.waiting.is_empty() && self.in_play.is_empty() {
            match self.schedule_more() {
                Ok(true) => {}
                Ok(false) => return Next::End(state::FINISHED, String::new()),
                Err(why) => {
                    return Next::End(state::CANCELLED, format!("its next round could not be seated: {why}"));
                }
            }
        }
        if self.not_before.is_some_and(|t| Instant::now() < t) {
            return Next::Wait;
        }
        self.not_before = None;
        Next::Make
    }
}
