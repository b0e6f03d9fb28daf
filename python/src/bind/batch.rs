//! `Batch`: many games stepped at once from numpy arrays, the GIL released while they play.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::rules::{RulesArg, check_seats};
use super::{illegal, invalid};
use crate::batch::Batch as EngineBatch;

/// A step's action ids: a 1-D numpy array of int64 or int32 (JAX's), or a list of ints.
/// Anything else is refused naming what it was (a float array, say), not with the
/// extraction's account of every form it tried.
fn ids_of(actions: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(a) = actions.extract::<PyReadonlyArray1<'_, i64>>() {
        return Ok(a.as_array().iter().copied().collect());
    }
    if let Ok(a) = actions.extract::<PyReadonlyArray1<'_, i32>>() {
        return Ok(a.as_array().iter().map(|&x| i64::from(x)).collect());
    }
    if !actions.is_instance_of::<pyo3::types::PyString>()
        && let Ok(v) = actions.extract::<Vec<i64>>()
    {
        return Ok(v);
    }
    let what = match (actions.getattr("dtype"), actions.getattr("shape")) {
        (Ok(dtype), Ok(shape)) => format!("an array of {} of shape {}", dtype.str()?, shape.str()?),
        _ => format!("a {}", actions.get_type().name()?),
    };
    Err(PyTypeError::new_err(format!(
        "actions: one id per game, as a 1-D array of int64 or int32 or a list of ints (below 2**63), not {what}"
    )))
}

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
    /// `seed`'s k-th seed (as `dudo simulate --seed` deals its games), and a finished game is
    /// dealt again at once. With `observations=False` no observations are written (faster
    /// rollouts). A game still going after `max_moves` moves is stopped and ranked as it
    /// stands (`truncated()` says which).
    #[new]
    #[pyo3(signature = (rules, players = 2, games = 1024, seed = 0, observations = true, max_moves = 10_000))]
    fn new(
        rules: RulesArg,
        players: usize,
        games: usize,
        seed: u64,
        observations: bool,
        max_moves: u64,
    ) -> PyResult<Batch> {
        check_seats(players)?;
        let batch = EngineBatch::new(rules.rules()?, players, games, seed, observations, max_moves)
            .map_err(invalid)?;
        Ok(Batch { batch })
    }

    /// Per game: whether the last step ended it by `max_moves` rather than by its rules.
    fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, &self.batch.truncated)
    }

    /// The observation's blocks: (name, offset, length, meaning).
    fn observation_blocks(&self) -> Vec<(&'static str, usize, usize, &'static str)> {
        self.batch.observation().blocks().iter().map(|b| (b.name, b.offset, b.len, b.meaning)).collect()
    }

    fn __len__(&self) -> usize {
        self.batch.len()
    }

    /// How many action ids the rule set has at this table.
    #[getter]
    fn num_actions(&self) -> usize {
        self.batch.observation().space().size()
    }

    /// The length of an observation.
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
        if self.batch.observations.is_empty() {
            return Err(PyValueError::new_err("observations: this batch was made with observations=False"));
        }
        let (n, len) = (self.batch.len(), self.batch.observation().len());
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
    fn step<'py>(&mut self, py: Python<'py>, actions: &Bound<'py, PyAny>) -> PyResult<Stepped<'py>> {
        let actions = ids_of(actions)?;
        let batch = &mut self.batch;
        py.detach(|| batch.step(&actions)).map_err(illegal)?;
        let n = self.batch.len();
        let rewards = PyArray1::from_slice(py, &self.batch.rewards).reshape([n, self.batch.seats()])?;
        Ok((rewards, PyArray1::from_slice(py, &self.batch.done)))
    }

    /// Plays uniformly random legal ids until at least `games` more games have finished,
    /// the GIL released while they play (Ctrl-C is heard between stretches of some 16,000
    /// moves); returns how many finished. The batch's games move together, so a few more
    /// than `games` may finish on the last step.
    fn random_playouts(&mut self, py: Python<'_>, games: u64) -> PyResult<u64> {
        let start = self.batch.finished;
        let target = start.saturating_add(games);
        let mut actions = vec![0; self.batch.len()];
        // Steps per stretch without the GIL: some 16,000 games. moves.
        let stretch = (16_384 / self.batch.len()).max(1);
        while self.batch.finished < target {
            let batch = &mut self.batch;
            py.detach(|| {
                for _ in 0..stretch {
                    if batch.finished >= target {
                        break;
                    }
                    batch.random_actions(&mut actions);
                    batch.step(&actions)?;
                }
                Ok::<_, crate::batch::StepError>(())
            })
            .map_err(illegal)?;
            py.check_signals()?;
        }
        Ok(self.batch.finished - start)
    }
}
