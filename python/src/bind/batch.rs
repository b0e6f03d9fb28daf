//! `Batch`: many games stepped at once from numpy arrays, the GIL released while they play.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;

use super::rules::{RulesArg, check_seats};
use super::{illegal, invalid};
use crate::batch::Batch as EngineBatch;

/// What a step returns: the rewards, shape (games, players), and which games ended.
type Stepped<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<bool>>);

/// Many games stepped at once from numpy arrays, the GIL released while they play.
#[pyclass(module = "dudo._dudo", name = "Batch")]
pub struct Batch {
    batch: EngineBatch,
}

#[pymethods]
impl Batch {
    /// `games` games of `rules` at `players` seats; game k of the run is dealt from
    /// `seed`'s k-th seed, and a finished game is dealt again at once. With
    /// `observations=False` only masks, turns and rewards are kept (faster rollouts).
    #[new]
    #[pyo3(signature = (rules, players = 2, games = 1024, seed = 0, observations = true))]
    fn new(rules: RulesArg, players: usize, games: usize, seed: u64, observations: bool) -> PyResult<Batch> {
        check_seats(players)?;
        let batch = EngineBatch::new(rules.rules()?, players, games, seed, observations).map_err(invalid)?;
        Ok(Batch { batch })
    }

    fn __len__(&self) -> usize {
        self.batch.len()
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.batch.observation().space().size()
    }

    #[getter]
    fn observation_size(&self) -> usize {
        self.batch.observation().len()
    }

    /// Games finished since the batch was made.
    #[getter]
    fn finished(&self) -> u64 {
        self.batch.finished
    }

    /// Per game, the seat to act.
    fn turns<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_slice(py, &self.batch.turns)
    }

    /// Per game, the seat to act's observation: shape (games, observation_size).
    fn observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let n = self.batch.len();
        let len = if self.batch.observations.is_empty() { 0 } else { self.batch.observation().len() };
        PyArray1::from_slice(py, &self.batch.observations).reshape([n, len])
    }

    /// Per game, the seat to act's legal ids: shape (games, num_actions). Made when asked
    /// for (a step's check and `random_actions` need none), with the GIL released.
    fn masks<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let (n, size) = (self.batch.len(), self.batch.observation().space().size());
        let mut masks = vec![false; n * size];
        let batch = &mut self.batch;
        py.detach(|| batch.masks_into(&mut masks));
        PyArray1::from_vec(py, masks).reshape([n, size])
    }

    /// A uniformly random legal id per game.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let mut out = vec![0; self.batch.len()];
        let batch = &mut self.batch;
        py.detach(|| batch.random_actions(&mut out));
        PyArray1::from_vec(py, out)
    }

    /// Plays one id per game (int64, shape (games,)); returns (rewards, done): what each
    /// seat of each game was paid, shape (games, players), and which games ended (they are
    /// dealt again at once). Any illegal id raises `IllegalAction` and no game is played.
    fn step<'py>(&mut self, py: Python<'py>, actions: PyReadonlyArray1<'py, i64>) -> PyResult<Stepped<'py>> {
        let actions = actions.as_slice()?.to_vec();
        let batch = &mut self.batch;
        py.detach(|| batch.step(&actions)).map_err(illegal)?;
        let n = self.batch.len();
        let rewards = PyArray1::from_slice(py, &self.batch.rewards).reshape([n, self.batch.seats()])?;
        Ok((rewards, PyArray1::from_slice(py, &self.batch.done)))
    }

    /// Plays `games` whole games by uniformly random legal ids, the GIL released throughout;
    /// returns how many games finished.
    fn random_playouts(&mut self, py: Python<'_>, games: u64) -> PyResult<u64> {
        let batch = &mut self.batch;
        let target = batch.finished.saturating_add(games);
        let start = batch.finished;
        py.detach(|| {
            let mut actions = vec![0; batch.len()];
            while batch.finished < target {
                batch.random_actions(&mut actions);
                batch.step(&actions)?;
            }
            Ok::<_, crate::batch::StepError>(())
        })
        .map_err(illegal)?;
        Ok(self.batch.finished - start)
    }
}
