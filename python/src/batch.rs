//! Many games at once: a training loop's self-play at the engine's speed.
//!
//! [`Batch`] holds `games` games of one rule set and table size. [`Batch::step`] takes one
//! action id per game (for the seat to act in it), checks every one before it plays any, and
//! plays them; a finished game's returns are written to `rewards` and it is dealt again from
//! the run's next seed, so a batch never runs dry. After each step the batch knows, per game,
//! the seat to act, its observation and what it may play; the legal-action masks are written
//! only when asked for ([`Batch::masks`]), since a step's check and a random pick need no mask
//! (the common hand's legal ids are counted and drawn from its bid ranges). Nothing here
//! touches Python, so the bindings run it with the GIL released.

use std::sync::Arc;

use dudo_rules::dice::{DiceSource, nth_seed, seed_from_u64};
use dudo_rules::game::{Discard, Legal, View};
use dudo_rules::space::Observation;
use dudo_rules::view::StartError;
use dudo_rules::{Game, RuleSet};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::play::{returns_into, to_act};

/// The most seats a table may have (the engine's limit on any rule set is lower).
const MOST_SEATS: usize = 64;

/// The most games one batch may hold: its buffers are sized by it.
pub const MAX_GAMES: usize = 1 << 20;

/// The most numbers a batch's observations and masks may hold together (a gigabyte of
/// observations): games × (observation + action ids) is bounded by it, so a large table of
/// many seats refuses a batch rather than abort the process on an allocation.
pub const MAX_CELLS: usize = 1 << 28;

/// Why a step was refused; no game was played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    #[error("actions: {given} given for {games} games")]
    WrongLength { given: usize, games: usize },
    #[error("actions[{game}]: {id} is not an action id (they run from 0 to {size})")]
    NoSuchId { game: usize, id: i64, size: usize },
    #[error("actions[{game}]: {action} is not legal now: {why}")]
    Illegal { game: usize, action: String, why: String },
}

/// Why a batch could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    #[error("games: {0} is not from 1 to {MAX_GAMES}")]
    Games(usize),
    #[error(
        "games: {games} games of {per_game} numbers each (an observation and a mask) is more than {MAX_CELLS}; make fewer"
    )]
    TooBig { games: usize, per_game: usize },
    #[error(transparent)]
    Start(#[from] StartError),
}

/// Many games of one rule set, stepped together.
pub struct Batch {
    observation: Observation,
    seats: usize,
    games: Vec<Game>,
    /// Per game: what the seat to act may do, as the engine says it.
    legal: Vec<Legal>,
    /// The run's seed: game `k` of the run is dealt from `nth_seed(run_seed, k)`.
    run_seed: u64,
    dealt: u64,
    /// Games finished since the batch was made.
    pub finished: u64,
    /// Per game: the seat to act (-1 for none, which a running game never has).
    pub turns: Vec<i64>,
    /// Per game, `observation.len()` each: the seat to act's observation (empty when the
    /// batch does not observe).
    pub observations: Vec<f32>,
    /// Per game, `seats` each: what the last step paid (non-zero only where a game ended).
    pub rewards: Vec<f32>,
    /// Per game: whether the last step ended it (it has been dealt again since).
    pub done: Vec<bool>,
    /// Per game: whether the last step ended it by `max_moves` rather than by its rules.
    pub truncated: Vec<bool>,
    /// A game is stopped after this many moves, ranked as it stands (a table's stop): under
    /// random play the points game can wander for millions of moves.
    max_moves: u64,
    /// Whether observations are written (a rollout that only needs masks and rewards, an
    /// MCTS playout say, runs faster without).
    observing: bool,
    /// `random_actions`' picks.
    rng: Xoshiro256PlusPlus,
    view: View,
    ids: Vec<u32>,
}

impl Batch {
    pub fn new(
        rules: Arc<RuleSet>,
        seats: usize,
        games: usize,
        run_seed: u64,
        observing: bool,
        max_moves: u64,
    ) -> Result<Batch, BatchError> {
        if games == 0 || games > MAX_GAMES {
            return Err(BatchError::Games(games));
        }
        // The first game refuses a table size the rules do not allow, before any buffer is made.
        let (first, _) = Game::start(rules.clone(), seats, seed_from_u64(nth_seed(run_seed, 0)))?;
        let observation = Observation::new(&rules, seats);
        let per_game = observation.len() + observation.space().size();
        if games.saturating_mul(per_game) > MAX_CELLS {
            return Err(BatchError::TooBig { games, per_game });
        }
        let mut batch = Batch {
            seats,
            games: Vec::with_capacity(games),
            legal: vec![Legal::default(); games],
            run_seed,
            dealt: 1,
            finished: 0,
            turns: vec![-1; games],
            observations: vec![0.0; if observing { games * observation.len() } else { 0 }],
            rewards: vec![0.0; games * seats],
            done: vec![false; games],
            truncated: vec![false; games],
            max_moves: max_moves.max(1),
            observing,
            rng: Xoshiro256PlusPlus::seed_from_u64(run_seed ^ 0x5EED),
            view: View::default(),
            ids: Vec::new(),
            observation,
        };
        batch.games.push(first);
        for _ in 1..games {
            let seed = batch.next_seed();
            let (game, _) = Game::start(rules.clone(), seats, seed)?;
            batch.games.push(game);
        }
        for i in 0..games {
            batch.observe(i);
        }
        Ok(batch)
    }

    fn next_seed(&mut self) -> dudo_rules::Seed {
        let seed = seed_from_u64(nth_seed(self.run_seed, self.dealt));
        self.dealt += 1;
        seed
    }

    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    pub fn seats(&self) -> usize {
        self.seats
    }

    pub fn observation(&self) -> &Observation {
        &self.observation
    }

    pub fn game(&self, i: usize) -> Option<&Game> {
        self.games.get(i)
    }

    /// Whether the seat to act in game `i` may play `id`.
    fn allows(&mut self, i: usize, id: usize) -> bool {
        let Ok(seat) = usize::try_from(self.turns[i]) else { return false };
        let space = self.observation.space();
        if space.needs_view(id) {
            self.games[i].view_into(Some(seat), &mut self.view);
        }
        space.allows(id, &self.games[i], seat, &self.view, &self.legal[i])
    }

    /// Plays `actions[i]` in game `i`, for each game; refuses them all, playing none, if any
    /// is not an id the seat to act may play.
    pub fn step(&mut self, actions: &[i64]) -> Result<(), StepError> {
        let games = self.games.len();
        if actions.len() != games {
            return Err(StepError::WrongLength { given: actions.len(), games });
        }
        let size = self.observation.space().size();
        for (i, &id) in actions.iter().enumerate() {
            let legal = usize::try_from(id).ok().filter(|&id| id < size).ok_or(StepError::NoSuchId {
                game: i,
                id,
                size: size.saturating_sub(1),
            })?;
            if !self.allows(i, legal) {
                let (action, why) = self.why_illegal(i, legal);
                return Err(StepError::Illegal { game: i, action, why });
            }
        }
        self.rewards.iter_mut().for_each(|r| *r = 0.0);
        for (i, &id) in actions.iter().enumerate() {
            self.done[i] = false;
            self.truncated[i] = false;
            let Some(seat) = to_act(&self.games[i]) else { continue };
            let space = self.observation.space();
            // Only a push reads the view (for the dice it shows).
            if space.is_push(id as usize) {
                self.games[i].view_into(Some(seat), &mut self.view);
            }
            let Some(action) = space.action(id as usize, &self.view) else { continue };
            // Checked above, by what the engine said this seat may do.
            if self.games[i].apply_into(seat, &action, &mut Discard).is_err() {
                continue;
            }
            if !self.games[i].is_over() && self.games[i].moves() >= self.max_moves {
                self.games[i].stop();
                self.truncated[i] = true;
            }
            if self.games[i].is_over() {
                let mut paid = [0.0f64; MOST_SEATS];
                let paid = &mut paid[..self.seats.min(MOST_SEATS)];
                returns_into(&self.games[i], paid);
                for (r, p) in self.rewards[i * self.seats..(i + 1) * self.seats].iter_mut().zip(paid.iter()) {
                    *r = *p as f32;
                }
                self.done[i] = true;
                self.finished += 1;
                let seed = self.next_seed();
                self.games[i].restart(DiceSource::new(seed), &mut Discard);
            }
            self.observe(i);
        }
        Ok(())
    }

    fn why_illegal(&mut self, i: usize, id: usize) -> (String, String) {
        let game = &self.games[i];
        let Some(seat) = to_act(game) else { return (format!("id {id}"), "the game is over".into()) };
        game.view_into(Some(seat), &mut self.view);
        match self.observation.space().action(id, &self.view) {
            Some(action) => {
                let why = game.check(seat, &action).err().map_or_else(
                    || "it has no id of its own here (see the action space's push)".to_string(),
                    |e| e.to_string(),
                );
                (action.to_string(), why)
            }
            None => (format!("id {id}"), "no such action".into()),
        }
    }

    /// Learns game `i`'s seat to act and what it may do, and writes its observation.
    fn observe(&mut self, i: usize) {
        let game = &self.games[i];
        let len = if self.observing { self.observation.len() } else { 0 };
        let obs = &mut self.observations[i * len..(i + 1) * len];
        match to_act(game) {
            Some(seat) => {
                self.turns[i] = seat as i64;
                game.legal_into(seat, &mut self.legal[i]);
                if self.observing {
                    game.view_into(Some(seat), &mut self.view);
                    self.observation.write(&self.view, obs);
                }
            }
            None => {
                self.turns[i] = -1;
                self.legal[i] = Legal::default();
                obs.iter_mut().for_each(|x| *x = 0.0);
            }
        }
    }

    /// Game `i`'s legal ids, into `self.ids`.
    fn list(&mut self, i: usize) {
        self.ids.clear();
        let Ok(seat) = usize::try_from(self.turns[i]) else { return };
        let (game, space) = (&self.games[i], self.observation.space());
        if space.has_push() {
            game.view_into(Some(seat), &mut self.view);
        }
        let mut legal = std::mem::take(&mut self.legal[i]);
        space.legal_ids_into(game, seat, &self.view, &mut legal, &mut self.ids);
        self.legal[i] = legal;
    }

    /// Writes every game's legal-action mask into `out` (games × the space's size).
    pub fn masks_into(&mut self, out: &mut [bool]) {
        let size = self.observation.space().size();
        out.iter_mut().for_each(|m| *m = false);
        for i in 0..self.games.len() {
            self.list(i);
            for &id in &self.ids {
                if let Some(m) = out.get_mut(i * size + id as usize) {
                    *m = true;
                }
            }
        }
    }

    /// A uniformly random legal id for each game, into `out` (-1 where a game has none).
    pub fn random_actions(&mut self, out: &mut [i64]) {
        for (i, slot) in out.iter_mut().enumerate().take(self.games.len()) {
            let space = self.observation.space();
            *slot = match space.count(&self.legal[i]) {
                Some(0) => -1,
                Some(n) => {
                    let k = self.rng.random_range(0..n);
                    space.nth(&self.legal[i], k).map_or(-1, |id| id as i64)
                }
                None => {
                    self.list(i);
                    match self.ids.len() {
                        0 => -1,
                        n => i64::from(self.ids[self.rng.random_range(0..n)]),
                    }
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dudo_rules::presets;

    #[test]
    fn random_playouts_finish_games_and_pay_zero_sum() {
        let rules = Arc::new(presets::openspiel());
        let mut batch = Batch::new(rules, 2, 16, 7, true, 10_000).expect("a batch");
        let mut actions = vec![0; 16];
        let mut paid = 0.0;
        while batch.finished < 100 {
            batch.random_actions(&mut actions);
            batch.step(&actions).expect("legal ids");
            for i in 0..16 {
                let r = &batch.rewards[i * 2..i * 2 + 2];
                assert_eq!(r[0] + r[1], 0.0);
                if batch.done[i] {
                    paid += r[0].abs();
                }
            }
        }
        assert!(paid >= 100.0);
    }

    /// Random picks are legal ids, in every family of game, and the masks are theirs.
    #[test]
    fn picks_and_masks_agree_in_every_preset() {
        for name in dudo_rules::presets::NAMES {
            let Some(rules) = presets::by_name(name) else { continue };
            let seats = usize::from(rules.players.min.max(2)).min(3);
            let mut batch = Batch::new(Arc::new(rules), seats, 8, 3, true, 10_000).expect("a batch");
            let size = batch.observation().space().size();
            let mut actions = vec![0; 8];
            let mut masks = vec![false; 8 * size];
            for _ in 0..40 {
                batch.random_actions(&mut actions);
                batch.masks_into(&mut masks);
                for (i, &id) in actions.iter().enumerate() {
                    assert!(masks[i * size + id as usize], "{name}: game {i}'s pick {id} is in its mask");
                }
                batch.step(&actions).expect("legal ids");
            }
        }
    }

    /// The points game under random play would wander for millions of moves: it is stopped.
    #[test]
    fn a_game_past_max_moves_is_stopped_and_ranked() {
        let rules = Arc::new(presets::by_name("points").expect("a preset"));
        let mut batch = Batch::new(rules, 3, 4, 1, false, 50).expect("a batch");
        let mut actions = vec![0; 4];
        for _ in 0..60 {
            batch.random_actions(&mut actions);
            batch.step(&actions).expect("legal ids");
        }
        assert!(batch.finished >= 4, "every game was stopped by its 50th move");
        assert!(batch.truncated.len() == 4);
    }

    #[test]
    fn a_bad_id_refuses_the_whole_step() {
        let rules = Arc::new(presets::openspiel());
        let mut batch = Batch::new(rules, 2, 3, 1, true, 10_000).expect("a batch");
        let before: Vec<u64> = (0..3).map(|i| batch.game(i).map_or(0, |g| g.moves())).collect();
        let mut actions = vec![0; 3];
        batch.random_actions(&mut actions);
        actions[2] = 60; // a challenge with no bid to challenge
        let err = batch.step(&actions).expect_err("refused");
        assert!(matches!(err, StepError::Illegal { game: 2, .. }), "{err}");
        let after: Vec<u64> = (0..3).map(|i| batch.game(i).map_or(0, |g| g.moves())).collect();
        assert_eq!(before, after, "no game was played");
        assert!(matches!(batch.step(&[0, 0]), Err(StepError::WrongLength { .. })));
        assert!(matches!(batch.step(&[0, 0, 9999]), Err(StepError::NoSuchId { .. })));
    }
}
