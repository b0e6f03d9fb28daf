//! The expert's play where the game is solved: two players with one die each.
//!
//! `bots/solved/PRESET.bin` holds a preset's solved mixed strategy ([`crate::solve`]'s CFR+,
//! made by `cargo run --release -p dudo-rules --example solve`): for each die and each
//! sequence of bids its own play can meet, how often to make each move. Where a table's
//! position is that game (its rules play as the preset's, two players are left with a die
//! each, and the moves allowed are the table's moves) the expert plays by it, which no player
//! can exploit by more than the table's NashConv; everywhere else it searches.

use std::collections::HashMap;
use std::sync::OnceLock;

use rand::Rng;

use crate::action::Action;
use crate::game::{Legal, Phase, View};
use crate::presets;
use crate::ruleset::RuleSet;
use crate::solve::{InfoKey, Move, Table, encode, play_of};

/// The shipped tables, by preset.
const SHIPPED: &[(&str, &[u8])] = &[
    ("fibbing", include_bytes!("solved/fibbing.bin")),
    ("openspiel", include_bytes!("solved/openspiel.bin")),
    ("wikipedia-classic", include_bytes!("solved/wikipedia-classic.bin")),
    ("west-coast", include_bytes!("solved/west-coast.bin")),
    ("snyd", include_bytes!("solved/snyd.bin")),
    ("variable", include_bytes!("solved/variable.bin")),
];

/// One preset's table, read.
pub struct Solved {
    pub preset: &'static str,
    /// The preset's rules as [`play_of`] sees them: a table plays this game when its own match.
    play: RuleSet,
    faces: u8,
    rows: HashMap<InfoKey, Vec<(Move, u16)>>,
}

/// Every shipped table, read once (a file that does not read is left out, and the tests say so).
pub fn tables() -> &'static [Solved] {
    static TABLES: OnceLock<Vec<Solved>> = OnceLock::new();
    TABLES.get_or_init(|| {
        SHIPPED
            .iter()
            .filter_map(|&(preset, bytes)| {
                let table = Table::from_bytes(bytes)?;
                let rules = presets::by_name(preset)?;
                Some(Solved {
                    preset,
                    play: play_of(&rules),
                    faces: table.faces,
                    rows: table.rows.into_iter().collect(),
                })
            })
            .collect()
    })
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
    let play = play_of(rules);
    let solved = tables().iter().find(|s| s.play == play)?;
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

/// Whether `rules` (a preset's, say) play a game a shipped table solves.
pub fn solves(rules: &RuleSet) -> Option<&'static str> {
    let play = play_of(rules);
    tables().iter().find(|s| s.play == play).map(|s| s.preset)
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
            let rules = presets::by_name(solved.preset).expect("a preset");
            let tree = Tree::new(&rules).expect("a solvable preset");
            let table = Table { faces: solved.faces, rows: solved.rows.clone().into_iter().collect() };
            let strategy = tree.with_table(&table, tree.uniform()).expect("the table fits the tree");
            let nash_conv = tree.nash_conv(&strategy);
            assert!(nash_conv <= 0.001, "{}: NashConv {nash_conv}", solved.preset);
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
        // Two dice against one, or a rule changed: not the solved game.
        let bigger =
            Game::start_with(Arc::new(presets::fibbing()), 2, DiceSource::new([1; 32]), Some(vec![2, 1]))
                .expect("a game")
                .0;
        let seat = bigger.turn().expect("a turn");
        assert!(policy(bigger.rules(), &bigger.view(seat), &bigger.legal(seat)).is_none());
        let mut changed = presets::fibbing();
        changed.bidding = crate::ruleset::BiddingSystem::MoreDice;
        let game = last_round(changed, [3, 5]);
        let seat = game.turn().expect("a turn");
        assert!(policy(game.rules(), &game.view(seat), &game.legal(seat)).is_none());
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
