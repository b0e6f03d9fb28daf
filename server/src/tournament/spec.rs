//! A tournament's settings: what an organiser asks for, checked once into a [`Spec`] that is
//! stored with the tournament and never changes after; and what the server allows
//! ([`Settings`], from `dudo-server`'s flags).

use dudo_proto::convert;
use dudo_proto::v1 as pb;
use dudo_rules::{RuleSet, presets};
use dudo_tournament::export::Format;
use dudo_tournament::schedule;
use serde::{Deserialize, Serialize};

use crate::refusal::{MAX_NAME_FIELD, Refusal, bad_request, bounded, check_settings};

/// The longest tournament name, in characters.
pub const MAX_NAME: usize = 64;
/// House bots one tournament may enter.
pub const MAX_HOUSE_BOTS: usize = 64;
/// How far ahead a tournament may be set to start: a month.
pub const MAX_LEAD_MILLIS: u64 = 31 * 24 * 60 * 60 * 1000;
/// The move clock when the request and its pool give none.
pub const DEFAULT_MOVE_MILLIS: u32 = 10_000;
/// When a tournament starts if the request gives no time: a minute for entries.
pub const DEFAULT_LEAD_MILLIS: u64 = 60_000;
/// The call window when the request and its pool give none: as long as a ladder's, far
/// shorter than a move clock, so one entrant that never answers cannot make a game drag.
pub const DEFAULT_CALL_WINDOW_MILLIS: u32 = 1_000;
/// Lapsed call windows and time-outs before an entrant is benched, when the request says 0.
pub const DEFAULT_BENCH_AFTER: u32 = 3;
/// The most faults a tournament may allow before benching.
pub const MAX_BENCH_AFTER: u32 = 1_000;

/// Who may organise tournaments on this server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Organisers {
    /// The admin only (with the admin token).
    #[default]
    Admin,
    /// Any account.
    Anyone,
}

/// What the server allows tournaments (`dudo-server --tournaments`, `--max-tournament-*`).
#[derive(Clone, Debug)]
pub struct Settings {
    pub organisers: Organisers,
    /// Entrants one tournament may have (house bots included).
    pub max_entrants: u32,
    /// Tournaments one organiser may have taking entries or running at once.
    pub per_organiser: u32,
    /// Tournaments one account, or one address, may make in an hour (the admin's are not
    /// counted).
    pub per_hour: u32,
    /// Games one tournament may have in play at once, and one organiser's tournaments
    /// together.
    pub max_tables: u32,
    /// Games every tournament together may have in play at once: tournament play's share of
    /// the server, whatever the number of organisers.
    pub max_tables_all: u32,
    /// Games the accounts' tournaments together may start in a minute (the admin's are not
    /// counted): games of house bots alone would otherwise run flat out, a record each.
    pub games_per_minute: u32,
    /// Games one tournament's schedule may hold (its export grows with them).
    pub max_games: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            organisers: Organisers::Admin,
            max_entrants: 256,
            per_organiser: 2,
            per_hour: 10,
            max_tables: 16,
            max_tables_all: 64,
            games_per_minute: 600,
            max_games: 50_000,
        }
    }
}

/// A number the request may leave at 0 for the server's `limit`, and may not set above it.
fn up_to(field: &str, asked: u32, limit: u32, what: &str) -> Result<u32, Refusal> {
    match asked {
        0 => Ok(limit),
        n if n > limit => {
            Err(bad_request(format!("{field}: this server allows at most {limit} {what}, not {n}")))
        }
        n => Ok(n),
    }
}

/// A tournament's settings, as checked and stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// The pool's or preset's name the rules came from.
    pub rules_name: String,
    pub rules: RuleSet,
    pub seats: u32,
    pub seating: Format,
    /// Round robin: deals in all; Swiss: deals each table plays a round.
    pub deals: u32,
    pub move_millis: u32,
    pub time_bank_millis: u32,
    pub house_bots: Vec<String>,
    pub max_entrants: u32,
    /// Games in play at once.
    pub tables: u32,
    /// A ladder pool the games count for too ("" for none).
    pub rating_pool: String,
    /// The seed was the admin's, not drawn by the server.
    #[serde(default)]
    pub seeded: bool,
    /// Duplicate deals, or dice of its own for every game.
    #[serde(default)]
    pub dice: dudo_tournament::Deals,
    /// How long each claim waits for calls out of turn (0 in a tournament stored before
    /// there was a window: [`DEFAULT_CALL_WINDOW_MILLIS`]).
    #[serde(default)]
    pub call_window_millis: u32,
    /// Lapsed windows and time-outs after which an entrant is benched (0 stored before
    /// there was a bench: [`DEFAULT_BENCH_AFTER`]).
    #[serde(default)]
    pub bench_after: u32,
}

impl Spec {
    /// Checks a request against the rules, the server's settings and its ladder's pools.
    pub(crate) fn from_request(
        req: &pb::CreateTournamentRequest,
        settings: &Settings,
        pools: &[crate::ladder::Pool],
    ) -> Result<Spec, Refusal> {
        bounded("name", &req.name, MAX_NAME)?;
        if req.name.trim().is_empty() {
            return Err(bad_request("name: a tournament needs a name"));
        }
        if let Err(c) = crate::table::seats::plain_text(&req.name) {
            return Err(bad_request(format!(
                "name: it holds the invisible character U+{:04X}; names are plain text on one line",
                u32::from(c)
            )));
        }
        bounded("pool", &req.pool, MAX_NAME_FIELD)?;
        bounded("preset", &req.preset, MAX_NAME_FIELD)?;
        bounded("rating_pool", &req.rating_pool, MAX_NAME_FIELD)?;
        check_settings(req.settings.iter().map(|s| (s.path.as_str(), s.value.as_str())))?;
        let pool_named = |name: &str| {
            pools.iter().find(|p| p.name == name).ok_or_else(|| {
                let names: Vec<&str> = pools.iter().map(|p| p.name.as_str()).collect();
                bad_request(format!("pool: no pool {name:?}; the pools are {}", names.join(", ")))
            })
        };
        let pool = match req.pool.trim() {
            "" => None,
            name => Some(pool_named(name)?),
        };
        let (rules_name, mut rules) = match (pool, req.preset.trim()) {
            (Some(_), preset) if !preset.is_empty() => {
                return Err(bad_request("preset: give a pool or a preset, not both"));
            }
            (Some(p), _) => (p.name.clone(), p.rules().map_err(bad_request)?),
            (None, preset) => {
                let preset = if preset.is_empty() { "fibbing" } else { preset };
                let rules = presets::by_name(preset).ok_or_else(|| {
                    bad_request(format!(
                        "preset: no preset {preset:?}; the presets are {}",
                        presets::NAMES.join(", ")
                    ))
                })?;
                (preset.to_string(), rules)
            }
        };
        for s in &req.settings {
            rules = presets::with_setting(rules, &s.path, &s.value)
                .map_err(|e| bad_request(format!("settings: {e}")))?;
        }
        let seats = match (req.seats, pool) {
            (0, Some(p)) => p.seats,
            (0, None) => u32::from(rules.players.min).max(2),
            (n, _) => n,
        };
        let (min, max) = (u32::from(rules.players.min), u32::from(rules.players.max));
        if seats < 2 || !(min..=max).contains(&seats) || seats as usize > schedule::MAX_SEATS {
            return Err(bad_request(format!("seats: these rules seat {min} to {max}, not {seats}")));
        }
        let seating = match pb::TournamentFormat::try_from(req.format) {
            Ok(pb::TournamentFormat::Unspecified | pb::TournamentFormat::RoundRobin) if req.rounds != 0 => {
                return Err(bad_request(
                    "rounds: a round robin has no rounds; rounds are the Swiss format's",
                ));
            }
            Ok(pb::TournamentFormat::Unspecified | pb::TournamentFormat::RoundRobin) => Format::RoundRobin,
            Ok(pb::TournamentFormat::Swiss) => {
                if !(1..=dudo_tournament::export::MAX_ROUNDS).contains(&req.rounds) {
                    return Err(bad_request(format!(
                        "rounds: a Swiss tournament plays 1 to {} rounds, not {}",
                        dudo_tournament::export::MAX_ROUNDS,
                        req.rounds
                    )));
                }
                Format::Swiss { rounds: req.rounds }
            }
            Err(_) => return Err(bad_request(format!("format: no format {}", req.format))),
        };
        if !(1..=schedule::MAX_DEALS).contains(&req.deals) {
            return Err(bad_request(format!("deals: 1 to {}, not {}", schedule::MAX_DEALS, req.deals)));
        }
        let move_millis = match (req.move_millis, pool) {
            (0, Some(p)) if p.move_millis > 0 => p.move_millis,
            (0, _) => DEFAULT_MOVE_MILLIS,
            (n, _) => n,
        };
        // Every tournament has a clock: a seat whose entrant is away is played by it.
        if !(100..=600_000).contains(&move_millis) {
            return Err(bad_request(format!("move_millis: 100 to 600000, not {move_millis}")));
        }
        let time_bank_millis = match (req.time_bank_millis, pool) {
            (0, Some(p)) => p.time_bank_millis,
            (n, _) => n,
        };
        if time_bank_millis > 3_600_000 {
            return Err(bad_request(format!("time_bank_millis: at most 3600000, not {time_bank_millis}")));
        }
        // Unset: the pool's window or the default, within the move clock.
        let call_window_millis = match (req.call_window_millis, pool) {
            (0, Some(p)) => p.call_window_millis.min(move_millis),
            (0, None) => DEFAULT_CALL_WINDOW_MILLIS.min(move_millis),
            (n, _) => n,
        };
        if call_window_millis < 100 || call_window_millis > move_millis {
            return Err(bad_request(format!(
                "call_window_millis: 100 to the move clock's {move_millis}, not {call_window_millis}"
            )));
        }
        let bench_after = match req.bench_after {
            0 => DEFAULT_BENCH_AFTER,
            n if n > MAX_BENCH_AFTER => {
                return Err(bad_request(format!("bench_after: 1 to {MAX_BENCH_AFTER}, not {n}")));
            }
            n => n,
        };
        if req.house_bots.len() > MAX_HOUSE_BOTS {
            return Err(bad_request(format!("house_bots: at most {MAX_HOUSE_BOTS}")));
        }
        if let Some(bot) = req.house_bots.iter().find(|b| !dudo_rules::bots::NAMES.contains(&b.as_str())) {
            let shown: String = bot.chars().take(32).collect();
            return Err(bad_request(format!(
                "house_bots: no bot {shown:?}; the bots are {}",
                dudo_rules::bots::NAMES.join(", ")
            )));
        }
        let max_entrants =
            up_to("max_entrants", req.max_entrants, settings.max_entrants, "entrants a tournament")?;
        if (max_entrants as usize) < seats as usize {
            return Err(bad_request(format!(
                "max_entrants: {max_entrants} is fewer than a table's {seats} seats"
            )));
        }
        if req.house_bots.len() > max_entrants as usize {
            return Err(bad_request(format!(
                "max_entrants: {max_entrants} is fewer than the {} house bots",
                req.house_bots.len()
            )));
        }
        let tables = up_to("tables", req.tables, settings.max_tables, "games of a tournament at once")?;
        let rating_pool = req.rating_pool.trim().to_string();
        if !rating_pool.is_empty() && matches!(seating, Format::Swiss { .. }) {
            return Err(bad_request(
                "rating_pool: a Swiss round may seat tables smaller than the pool's; only a round robin counts for a pool",
            ));
        }
        if !rating_pool.is_empty() {
            let p = pool_named(&rating_pool)
                .map_err(|_| bad_request(format!("rating_pool: no ladder pool {rating_pool:?}")))?;
            let same_rules = p.rules().map(|r| r == rules).unwrap_or(false);
            if !same_rules || p.seats != seats {
                return Err(bad_request(format!(
                    "rating_pool: pool {} plays other rules or seats than this tournament; its games would not be comparable",
                    p.name
                )));
            }
        }
        let spec = Spec {
            rules_name,
            rules,
            seats,
            seating,
            deals: req.deals,
            move_millis,
            time_bank_millis,
            house_bots: req.house_bots.clone(),
            max_entrants,
            tables,
            rating_pool,
            seeded: req.seed.is_some(),
            dice: if req.fresh_deals {
                dudo_tournament::Deals::Fresh
            } else {
                dudo_tournament::Deals::Duplicate
            },
            call_window_millis,
            bench_after,
        };
        // The largest field it may have must schedule within the server's limit: said now, not
        // when entries close. A round robin's games grow as the field's line-ups do, so an
        // unset max_entrants becomes the largest field the limit allows.
        let fits = |n: u32| spec.games_for(n as usize).is_ok_and(|g| g <= settings.max_games);
        let largest = (seats..=max_entrants).rev().find(|&n| fits(n));
        let mut spec = spec;
        match largest {
            Some(n) if n == max_entrants => {}
            Some(n) if req.max_entrants == 0 && n as usize >= req.house_bots.len().max(2) => {
                spec.max_entrants = n
            }
            Some(n) => {
                return Err(bad_request(format!(
                    "max_entrants: {max_entrants} entrants would schedule more than this server's {} games a tournament; at most {n} with these deals and seats",
                    settings.max_games
                )));
            }
            None => {
                return Err(bad_request(format!(
                    "deals: {} deals schedule more than this server's {} games a tournament even for {seats} entrants",
                    req.deals, settings.max_games
                )));
            }
        }
        Ok(spec)
    }

    /// Games the schedule holds for a field of `entrants`.
    pub fn games_for(&self, entrants: usize) -> Result<u64, schedule::ScheduleError> {
        let seats = self.seats as usize;
        match self.seating {
            Format::RoundRobin => schedule::round_robin_games(entrants.max(seats), seats, self.deals),
            Format::Swiss { rounds } => {
                Ok(schedule::swiss_round_games(entrants.max(seats), seats, self.deals)?
                    .saturating_mul(u64::from(rounds)))
            }
        }
    }

    /// How long each claim waits for calls out of turn.
    pub fn call_window(&self) -> u32 {
        match self.call_window_millis {
            0 => DEFAULT_CALL_WINDOW_MILLIS.min(self.move_millis),
            n => n,
        }
    }

    /// Lapsed windows and time-outs after which an entrant is benched.
    pub fn bench_after(&self) -> u32 {
        match self.bench_after {
            0 => DEFAULT_BENCH_AFTER,
            n => n,
        }
    }

    /// The format and its rounds, for the wire.
    pub fn format_to_wire(&self) -> (pb::TournamentFormat, u32) {
        match self.seating {
            Format::RoundRobin => (pb::TournamentFormat::RoundRobin, 0),
            Format::Swiss { rounds } => (pb::TournamentFormat::Swiss, rounds),
        }
    }

    pub fn rules_to_wire(&self) -> pb::RuleSet {
        convert::rules_to_wire(&self.rules)
    }
}
