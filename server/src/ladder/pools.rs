//! The ladder's pools: what a server runs, from a TOML file (`--ladder FILE`) or built in.
//!
//! ```toml
//! [[pool]]
//! name = "fibbing-4"
//! preset = "fibbing"
//! seats = 4
//! move_millis = 10000        # the turn clock (0: none)
//! time_bank_millis = 30000
//! max_games = 4              # games one player may be in at once
//! bots = ["random", "odds", "reader", "expert"]   # built-in bots that fill seats after a wait
//! fill_after_seconds = 20
//! call_window_millis = 1000  # how long a claim waits for calls out of turn
//! bench_after_timeouts = 3   # time-outs (and lapsed call windows) before a player is benched ...
//! bench_minutes = 10         # ... for this long
//! settings = { "dice.faces" = "6" }      # rule settings on top of the preset
//! players = "anyone"         # who may enter: "anyone", "people" or "bots" (account kinds)
//! bot_think_millis = 0       # the built-in bots' pause before each move (0 to 10000)
//! # seed = 7   # every table dealt from this seed: for tests only (players learn the dice)
//! ```

use std::collections::BTreeMap;

use dudo_rules::{RuleSet, presets};
use serde::Deserialize;

use crate::refusal::Refusal;

fn default_max_games() -> u32 {
    4
}
fn default_move_millis() -> u32 {
    10_000
}
fn default_bench_after() -> u32 {
    3
}
fn default_bench_minutes() -> u32 {
    10
}
fn default_fill_after() -> u32 {
    20
}
/// Long enough for a bot across an ocean to answer; far shorter than the move clock, so a
/// seat that never answers holds each claim for a second, not ten.
fn default_call_window() -> u32 {
    1_000
}

/// The longest pause a pool's bots may take before a move, as at a table anyone makes.
const MAX_BOT_THINK_MILLIS: u32 = 10_000;

/// One pool: its rules, its tables' size and clock, and how it treats its players.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    pub name: String,
    pub preset: String,
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
    pub seats: u32,
    #[serde(default = "default_move_millis")]
    pub move_millis: u32,
    #[serde(default)]
    pub time_bank_millis: u32,
    #[serde(default = "default_max_games")]
    pub max_games: u32,
    #[serde(default)]
    pub bots: Vec<String>,
    #[serde(default = "default_fill_after")]
    pub fill_after_seconds: u32,
    /// How long a claim's call window waits for the seats asked (less for a seat past its
    /// patience: see `table::patience::Patience`); a seat that lets the whole of one lapse is
    /// not asked again that game, and the lapse counts towards its bench.
    #[serde(default = "default_call_window")]
    pub call_window_millis: u32,
    #[serde(default = "default_bench_after")]
    pub bench_after_timeouts: u32,
    #[serde(default = "default_bench_minutes")]
    pub bench_minutes: u32,
    /// Deal every table from this seed, its bots seeded as `dudo simulate` seeds its seats:
    /// for tests and reproducible runs only, since players who notice learn the dice.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Who may enter, by account kind.
    #[serde(default)]
    pub players: Players,
    /// How long its built-in bots think before each move: with 0 a game against them ends
    /// within a second, too soon to try a resume or the clock by hand.
    #[serde(default)]
    pub bot_think_millis: u32,
}

/// Who may enter a pool. A people's pool is what the page offers as "Play rated": its
/// clock is a person's, and no bot account sits among them (built-in bots fill its empty
/// seats after the wait, as anywhere).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Players {
    #[default]
    Anyone,
    People,
    Bots,
}

impl Players {
    pub fn as_str(self) -> &'static str {
        match self {
            Players::Anyone => "anyone",
            Players::People => "people",
            Players::Bots => "bots",
        }
    }

    /// Whether a bot account may enter: then, on a server asking for bot checks, every
    /// account entering needs one, whatever kind it says it is (an account's kind is its
    /// own word, and a program may call itself a person).
    pub fn open_to_bots(self) -> bool {
        self != Players::People
    }

    /// Whether an account of `kind` may enter; the refusal's words if not.
    pub fn admit(self, pool: &str, kind: dudo_proto::v1::AccountKind) -> Result<(), String> {
        use dudo_proto::v1::AccountKind;
        match (self, kind) {
            (Players::People, AccountKind::Bot) => {
                Err(format!("pool {pool} is for people: a bot account enters a pool open to bots"))
            }
            (Players::Bots, AccountKind::Person | AccountKind::None) => {
                Err(format!("pool {pool} is for bots: a person plays rated games in a people's pool"))
            }
            _ => Ok(()),
        }
    }
}

impl Pool {
    /// A table of this pool: its rules and clock; its games count for `ladder:POOL`.
    pub(crate) fn server_table(&self) -> Result<crate::server_tables::ServerTable, Refusal> {
        Ok(crate::server_tables::ServerTable {
            id: None,
            rules: self.rules().map_err(Refusal::internal)?,
            seed: self.seed,
            move_millis: self.move_millis,
            time_bank_millis: self.time_bank_millis,
            // Bots compete here: the pool's window, short beside the move clock, and each
            // seat's patience (see `table::patience::Patience`).
            call_window_millis: self.call_window_millis,
            bot_think_millis: self.bot_think_millis,
            rating_pool: format!("{}{}", dudo_store::ladder::POOL_PREFIX, self.name),
            bot_check: false,
            stalling: Default::default(),
            called_off: None,
            tokens: None,
        })
    }

    /// The pool's rule set: its preset with its settings.
    pub fn rules(&self) -> Result<RuleSet, String> {
        let mut rules = presets::by_name(&self.preset)
            .ok_or_else(|| format!("pool {}: no preset {:?}", self.name, self.preset))?;
        for (path, value) in &self.settings {
            rules =
                presets::with_setting(rules, path, value).map_err(|e| format!("pool {}: {e}", self.name))?;
        }
        Ok(rules)
    }

    /// What the matchmaker checks a pool against before serving it.
    fn check(&self) -> Result<(), String> {
        let rules = self.rules()?;
        let (min, max) = (u32::from(rules.players.min), u32::from(rules.players.max));
        if self.seats < 2 || !(min..=max).contains(&self.seats) {
            return Err(format!(
                "pool {}: seats: these rules seat {min} to {max}, not {}",
                self.name, self.seats
            ));
        }
        if self.name.is_empty() || self.name.len() > 64 || !self.name.chars().all(|c| c.is_ascii_graphic()) {
            return Err(format!("pool {:?}: a name of 1 to 64 visible ASCII characters", self.name));
        }
        if !(1..=16).contains(&self.max_games) {
            return Err(format!("pool {}: max_games: 1 to 16", self.name));
        }
        if self.move_millis != 0 && !(100..=86_400_000).contains(&self.move_millis) {
            return Err(format!("pool {}: move_millis: 0 or 100 to 86400000", self.name));
        }
        if !(100..=60_000).contains(&self.call_window_millis) {
            return Err(format!("pool {}: call_window_millis: 100 to 60000", self.name));
        }
        if self.bot_think_millis > MAX_BOT_THINK_MILLIS {
            return Err(format!("pool {}: bot_think_millis: 0 to {MAX_BOT_THINK_MILLIS}", self.name));
        }
        if let Some(bot) = self.bots.iter().find(|b| !dudo_rules::bots::NAMES.contains(&b.as_str())) {
            return Err(format!(
                "pool {}: no bot {bot:?}; the bots are {}",
                self.name,
                dudo_rules::bots::NAMES.join(", ")
            ));
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    pool: Vec<Pool>,
}

/// The pools a server runs when given none: four-seat fibbing and two-seat Perudo.
pub fn builtin() -> Vec<Pool> {
    let pool = |name: &str, preset: &str, seats| Pool {
        name: name.into(),
        preset: preset.into(),
        settings: BTreeMap::new(),
        seats,
        move_millis: default_move_millis(),
        time_bank_millis: 30_000,
        max_games: default_max_games(),
        bots: vec!["random".into(), "odds".into(), "reader".into(), "expert".into()],
        fill_after_seconds: default_fill_after(),
        call_window_millis: default_call_window(),
        bench_after_timeouts: default_bench_after(),
        bench_minutes: default_bench_minutes(),
        seed: None,
        players: Players::Anyone,
        bot_think_millis: 0,
    };
    // People play at a person's pace: a minute a move, and a longer wait for others.
    let people = Pool {
        move_millis: 60_000,
        time_bank_millis: 60_000,
        call_window_millis: 3_000,
        fill_after_seconds: 30,
        max_games: 1,
        players: Players::People,
        ..pool("people-fibbing-4", "fibbing", 4)
    };
    vec![pool("fibbing-4", "fibbing", 4), pool("perudo-jonti-2", "perudo-jonti", 2), people]
}

/// Pools from a TOML file's text, each checked.
pub fn parse(text: &str) -> Result<Vec<Pool>, String> {
    let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut names = std::collections::HashSet::new();
    for pool in &file.pool {
        pool.check()?;
        if !names.insert(pool.name.clone()) {
            return Err(format!("pool {}: named twice", pool.name));
        }
    }
    Ok(file.pool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_pools_hold_together_and_a_file_is_checked() {
        for pool in builtin() {
            pool.check().unwrap();
        }
        let file = |body: &str| format!("[[pool]]\nname = \"p\"\n{body}\n");
        let pools =
            parse(&file("preset = \"perudo-jonti\"\nseats = 3\nsettings = { \"dice.faces\" = \"8\" }"))
                .unwrap();
        assert_eq!(pools[0].rules().unwrap().dice.faces, 8);
        assert!(parse(&file("preset = \"fibbing\"\nseats = 40")).unwrap_err().contains("seats"));
        assert!(parse(&file("preset = \"nope\"\nseats = 2")).unwrap_err().contains("preset"));
        assert!(parse(&file("preset = \"fibbing\"\nseats = 2\nbots = [\"god\"]")).is_err());
        let slow = parse(&file("preset = \"fibbing\"\nseats = 2\nbot_think_millis = 400")).unwrap();
        assert_eq!(slow[0].bot_think_millis, 400);
        let sleepy = parse(&file("preset = \"fibbing\"\nseats = 2\nbot_think_millis = 60000"));
        assert!(sleepy.unwrap_err().contains("bot_think_millis: 0 to 10000"));
    }
}
