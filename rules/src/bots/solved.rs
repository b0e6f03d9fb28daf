//! The expert's play where the game is solved: two players with one die each.
//!
//! `bots/solved/PRESET.bin` holds a preset's solved mixed strategy ([`crate::solve`]'s CFR+,
//! made by `cargo run --release -p dudo-rules --example solve`): for each die and each
//! sequence of bids its own play can meet, how often to make each move. A table whose rules
//! play another one-die game (a preset with a rule changed, rules of its own) has that game
//! solved the first time one of its positions is met, and kept for the process's life
//! ([`KEPT`] games at most; [`solved_for`]): CFR+ is deterministic, so a seeded table plays the
//! same moves whether its game was solved for it or found kept. Where a table's position is a
//! solved game (two players are left with a die each, and the moves allowed are the game's)
//! the expert plays by it, which no player can exploit by more than the game's NashConv;
//! everywhere else it searches.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rand::Rng;

use crate::action::Action;
use crate::game::{Legal, Phase, View};
use crate::presets;
use crate::ruleset::RuleSet;
use crate::solve::{InfoKey, Move, Solver, Table, Tree, encode, play_of};

/// The shipped tables, by preset.
const SHIPPED: &[(&str, &[u8])] = &[
    ("fibbing", include_bytes!("solved/fibbing.bin")),
    ("openspiel", include_bytes!("solved/openspiel.bin")),
    ("wikipedia-classic", include_bytes!("solved/wikipedia-classic.bin")),
    ("west-coast", include_bytes!("solved/west-coast.bin")),
    ("snyd", include_bytes!("solved/snyd.bin")),
    ("variable", include_bytes!("solved/variable.bin")),
];

/// Moves the average strategy plays less often than this are left out of a table (the
/// shipped ones were made with the same floor).
pub const FLOOR: f64 = 1e-3;
/// The most nodes of a game solved where it is met: the biggest shipped game (west-coast's)
/// has 721,188. Walking and solving one this size takes some seconds, once a process.
pub const SOLVED_HERE_NODES: usize = 1_000_000;
/// CFR+ iterations for a game solved where it is met (the shipped tables had 2,000): a
/// six-faced one-die game is within NashConv 0.002 after these (0.006 after 50, 0.0004 after
/// 200; the tests measure it), against the 0.01 the expert is held to, in about 0.7 s.
pub const SOLVED_HERE_ITERATIONS: u32 = 100;
/// After a solve, the next waits this many times as long as it took: however many new games
/// tables bring (a client could make table after table of rules no table ships), solving
/// takes at most a fifth of one core. A table that must wait plays the same moves, later.
const SOLVING_REST: u32 = 4;
/// The most games solved where they were met that a process keeps, the oldest let go first
/// (each some tens of kilobytes; a game let go is solved again, to the same table, if met again).
pub const KEPT: usize = 16;

/// One game's table, read.
pub struct Solved {
    /// The preset whose table was shipped, or `None` for a game solved where it was met.
    pub preset: Option<&'static str>,
    /// The game's rules as [`play_of`] sees them: a table plays this game when its own match.
    play: RuleSet,
    faces: u8,
    rows: HashMap<InfoKey, Vec<(Move, u16)>>,
}

impl Solved {
    fn of(preset: Option<&'static str>, play: RuleSet, table: Table) -> Solved {
        Solved { preset, play, faces: table.faces, rows: table.rows.into_iter().collect() }
    }
}

/// Every shipped table, read once (a file that does not read is left out, and the tests say so).
pub fn tables() -> &'static [Arc<Solved>] {
    static TABLES: OnceLock<Vec<Arc<Solved>>> = OnceLock::new();
    TABLES.get_or_init(|| {
        SHIPPED
            .iter()
            .filter_map(|&(preset, bytes)| {
                let table = Table::from_bytes(bytes)?;
                let rules = presets::by_name(preset)?;
                Some(Arc::new(Solved::of(Some(preset), play_of(&rules), table)))
            })
            .collect()
    })
}

/// A game being solved or solved where it was met, or found not solvable here (`None`).
type Kept = Arc<OnceLock<Option<Arc<Solved>>>>;

/// The solved game `rules` play when two players are left with a die each: a shipped table,
/// or the game solved now (once a process: a second table asking while it is solved waits
/// for the same answer) and kept. `None` where the one-die game is not solvable
/// ([`crate::solve::Unsolvable`]) or bigger than [`SOLVED_HERE_NODES`].
pub fn solved_for(rules: &RuleSet) -> Option<Arc<Solved>> {
    let play = play_of(rules);
    if let Some(shipped) = tables().iter().find(|s| s.play == play) {
        return Some(Arc::clone(shipped));
    }
    static KEPT_HERE: Mutex<VecDeque<(RuleSet, Kept)>> = Mutex::new(VecDeque::new());
    let cell = {
        let mut kept = KEPT_HERE.lock().unwrap_or_else(PoisonError::into_inner);
        match kept.iter().find(|(p, _)| *p == play) {
            Some((_, cell)) => Arc::clone(cell),
            None => {
                if kept.len() >= KEPT {
                    kept.pop_front();
                }
                let cell = Kept::default();
                kept.push_back((play.clone(), Arc::clone(&cell)));
                cell
            }
        }
    };
    // Solved outside the lock: other games' tables are not held up by this one's.
    cell.get_or_init(|| solve_here(rules, play)).clone()
}

/// `rules`' one-die game solved by CFR+ ([`SOLVED_HERE_ITERATIONS`]), if it is small enough:
/// one solve at a time, each after the rest the last one earned ([`SOLVING_REST`]).
fn solve_here(rules: &RuleSet, play: RuleSet) -> Option<Arc<Solved>> {
    static NEXT_SOLVE: Mutex<Option<Instant>> = Mutex::new(None);
    let mut next = NEXT_SOLVE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(at) = *next {
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
    }
    let started = Instant::now();
    let solved = Tree::within(rules, SOLVED_HERE_NODES).ok().map(|tree| {
        let average = Solver::new(&tree).run(SOLVED_HERE_ITERATIONS).average();
        Arc::new(Solved::of(None, play, tree.table(&average, FLOOR)))
    });
    let took = started.elapsed();
    *next = Some(Instant::now() + took * SOLVING_REST);
    SOLVING_HERE.with(|spent| spent.set(spent.get() + took));
    solved
}

thread_local! {
    /// The time this thread has spent solving games where they were met.
    static SOLVING_HERE: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// The time this thread has spent solving games where they were met ([`solved_for`]): a
/// server charges its tables' bots for their thinking, but not for a solve, which is paced
/// for the whole process and serves every table of its rules after.
pub fn solving_time_here() -> Duration {
    SOLVING_HERE.with(std::cell::Cell::get)
}

/// The solved strategy's moves here and how likely each is, if `view` is at a solved game.
pub fn policy(rules: &RuleSet, view: &View, legal: &Legal) -> Option<Vec<(Action, f64)>> {
    let in_play: Vec<_> = view.players.iter().filter(|p| p.place.is_none()).collect();
    if view.phase != Phase::Bidding
        || view.hand.is_some()
        || !view.palifico.is_empty()
        || in_play.len() != 2
        || in_play.iter().any(|p| p.dice != 1 || !p.pushed.is_empty())
    {
        return None;
    }
    let solved = solved_for(rules)?;
    let row = solved.rows.get(&InfoKey::of(view, solved.faces)?)?;
    // The moves must be the table's: anything else is a game the table was not solved for.
    let actions = legal.actions();
    if legal.push
        || actions.len() != row.len()
        || actions.iter().zip(row).any(|(a, &(m, _))| encode(a, solved.faces) != Some(m))
    {
        return None;
    }
    let total: f64 = row.iter().map(|&(_, w)| f64::from(w)).sum();
    Some(actions.into_iter().zip(row).map(|(a, &(_, w))| (a, f64::from(w) / total)).collect())
}

/// A move drawn from the solved strategy, if `view` is at a solved game.
pub(super) fn solved_move(rng: &mut impl Rng, rules: &RuleSet, view: &View, legal: &Legal) -> Option<Action> {
    let moves = policy(rules, view, legal)?;
    let mut r: f64 = rng.random();
    for (action, p) in &moves {
        if r < *p {
            return Some(action.clone());
        }
        r -= p;
    }
    moves.into_iter().rev().find(|(_, p)| *p > 0.0).map(|(a, _)| a)
}

/// The preset whose shipped table plays `rules`' one-die game, if one does.
pub fn solves(rules: &RuleSet) -> Option<&'static str> {
    let play = play_of(rules);
    tables().iter().find(|s| s.play == play).and_then(|s| s.preset)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bots::{Bot, ExpertBot};
    use crate::dice::DiceSource;
    use crate::game::Game;
    use crate::solve::Tree;

    #[test]
    fn every_shipped_table_is_near_equilibrium_in_its_presets_own_game() {
        assert_eq!(tables().len(), SHIPPED.len(), "a shipped table did not read");
        for solved in tables() {
            let preset = solved.preset.expect("a shipped table's preset");
            let rules = presets::by_name(preset).expect("a preset");
            let tree = Tree::new(&rules).expect("a solvable preset");
            let table = Table { faces: solved.faces, rows: solved.rows.clone().into_iter().collect() };
            let strategy = tree.with_table(&table, tree.uniform()).expect("the table fits the tree");
            let nash_conv = tree.nash_conv(&strategy);
            assert!(nash_conv <= 0.001, "{preset}: NashConv {nash_conv}");
        }
    }

    #[test]
    fn every_preset_with_a_small_one_die_game_has_a_table() {
        for &name in presets::NAMES {
            let rules = presets::by_name(name).expect("a preset");
            let solvable = Tree::new(&rules).is_ok();
            assert_eq!(solves(&rules).is_some(), solvable, "{name}");
        }
    }

    /// A one-die game no shipped table plays (a preset with no wild face, as a table may set
    /// it) is solved where it is met, near equilibrium, and kept: asked again, the same table.
    #[test]
    fn a_one_die_game_no_table_ships_is_solved_where_it_is_met() {
        let rules = presets::with_setting(presets::fibbing(), "wilds", "none").expect("a setting");
        assert!(solves(&rules).is_none(), "a shipped table plays it");
        let solved = solved_for(&rules).expect("solvable");
        assert!(solved.preset.is_none());
        let tree = Tree::new(&rules).expect("a small game");
        let table = Table { faces: solved.faces, rows: solved.rows.clone().into_iter().collect() };
        let strategy = tree.with_table(&table, tree.uniform()).expect("the table fits the tree");
        let nash_conv = tree.nash_conv(&strategy);
        assert!(nash_conv <= 0.005, "NashConv {nash_conv}");
        let again = solved_for(&rules).expect("kept");
        assert!(Arc::ptr_eq(&solved, &again), "solved twice");
        // And a table of those rules at its last round plays by it.
        let game = last_round(rules, [3, 5]);
        let seat = game.turn().expect("a turn");
        assert!(policy(game.rules(), &game.view(seat), &game.legal(seat)).is_some());
        // Nine faces: too big to solve at a table, so searched.
        let big = presets::with_setting(presets::fibbing(), "dice.faces", "9").expect("a setting");
        assert!(solved_for(&big).is_none());
    }

    /// Two players left with a die each, in a game of `rules` that began with more.
    fn last_round(rules: RuleSet, cups: [u8; 2]) -> Game {
        let script = vec![[vec![cups[0]]].into(), [vec![cups[1]]].into()];
        let dice = DiceSource::with_script([7; 32], script);
        Game::start_with(Arc::new(rules), 2, dice, Some(vec![1, 1])).expect("a game").0
    }

    #[test]
    fn a_five_dice_games_last_round_is_played_by_the_table_and_a_bigger_one_is_not() {
        let game = last_round(presets::fibbing(), [3, 5]);
        let seat = game.turn().expect("a turn");
        let (view, legal) = (game.view(seat), game.legal(seat));
        let moves = policy(game.rules(), &view, &legal).expect("the solved game");
        assert!((moves.iter().map(|(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-9);
        // The expert plays only moves the table plays.
        for seed in 0..20 {
            let action = ExpertBot::new(seed).act(game.rules(), &view, &legal);
            assert!(moves.iter().any(|(a, p)| *a == action && *p > 0.0), "{action:?} not in {moves:?}");
        }
        // Two dice against one: not a solved game.
        let bigger =
            Game::start_with(Arc::new(presets::fibbing()), 2, DiceSource::new([1; 32]), Some(vec![2, 1]))
                .expect("a game")
                .0;
        let seat = bigger.turn().expect("a turn");
        assert!(policy(bigger.rules(), &bigger.view(seat), &bigger.legal(seat)).is_none());
        // A rule changed: not the shipped table's game (it is solved where it is met).
        let mut changed = presets::fibbing();
        changed.bidding = crate::ruleset::BiddingSystem::MoreDice;
        assert!(solves(&changed).is_none());
    }

    #[test]
    fn the_expert_mixes_its_openings_as_the_table_does() {
        let game = last_round(presets::openspiel(), [4, 2]);
        let seat = game.turn().expect("a turn");
        let (view, legal) = (game.view(seat), game.legal(seat));
        let moves = policy(game.rules(), &view, &legal).expect("the solved game");
        let played: Vec<Action> =
            (0..2_000).map(|seed| ExpertBot::new(seed).act(game.rules(), &view, &legal)).collect();
        for (action, p) in &moves {
            let share = played.iter().filter(|a| *a == action).count() as f64 / played.len() as f64;
            // Four standard errors of 2,000 draws.
            let band = 4.0 * (p * (1.0 - p) / 2_000.0).sqrt() + 1e-9;
            assert!((share - p).abs() <= band, "{action:?}: played {share}, table {p}");
        }
        assert!(moves.iter().filter(|(_, p)| *p > 0.05).count() >= 2, "a mixed opening: {moves:?}");
    }
}
