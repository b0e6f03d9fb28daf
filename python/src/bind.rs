//! The Python classes of `dudo._dudo`: `RuleSet`, `Action`, `Game`, `Bot` and `Batch`.
//!
//! Views, events and rule sets cross as the dicts and lists their JSON would be (the shapes
//! `dudo script` prints), so Python reads what every other client of dudo reads. Refused
//! input raises `IllegalAction` (an action the rules refuse, naming the rule) or
//! `InvalidRules` (a rule set, naming the field), both `ValueError`s, and leaves the game as
//! it was.

use std::sync::Arc;

use dudo_rules::bots::{self, Bot as EngineBot};
use dudo_rules::dice::{Seed, seed_from_u64};
use dudo_rules::event::{Event, Viewer};
use dudo_rules::game::{Legal, View};
use dudo_rules::presets::{self, RulesSpec};
use dudo_rules::space::Observation;
use dudo_rules::{Action as EngineAction, Game as EngineGame, RuleSet as EngineRules, Seat};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use pythonize::pythonize;

use crate::batch::Batch as EngineBatch;
use crate::play;

create_exception!(
    _dudo,
    IllegalAction,
    PyValueError,
    "An action the rules refuse; the message names the rule."
);
create_exception!(
    _dudo,
    InvalidRules,
    PyValueError,
    "A rule set that is not valid; the message names the field."
);

/// The most seats a game may have here: the engine's own limit on any table.
const MAX_SEATS: usize = 64;

fn invalid(e: impl std::fmt::Display) -> PyErr {
    InvalidRules::new_err(e.to_string())
}

fn illegal(e: impl std::fmt::Display) -> PyErr {
    IllegalAction::new_err(e.to_string())
}

fn seed_of(seed: u64) -> Seed {
    seed_from_u64(seed)
}

/// A complete, validated rule set.
#[pyclass(module = "dudo._dudo", name = "RuleSet", frozen, from_py_object)]
#[derive(Clone)]
pub struct RuleSet {
    rules: Arc<EngineRules>,
}

fn resolve(value: serde_json::Value) -> PyResult<RuleSet> {
    let spec: RulesSpec = serde_json::from_value(value).map_err(invalid)?;
    let rules = spec.resolve().map_err(invalid)?;
    Ok(RuleSet { rules: Arc::new(rules) })
}

#[pymethods]
impl RuleSet {
    /// A preset by name (`dudo.presets()` lists them), with `field=value` settings applied in
    /// order, as `dudo rules --set` reads them: `RuleSet("fibbing", {"dice.start": "3"})`.
    #[new]
    #[pyo3(signature = (preset = "fibbing", settings = None))]
    fn new(preset: &str, settings: Option<Vec<(String, String)>>) -> PyResult<RuleSet> {
        let mut rules = presets::by_name(preset).ok_or_else(|| {
            invalid(format!("preset: no preset {preset:?}; the presets are {}", presets::NAMES.join(", ")))
        })?;
        for (path, value) in settings.unwrap_or_default() {
            rules = presets::with_setting(rules, &path, &value).map_err(invalid)?;
        }
        Ok(RuleSet { rules: Arc::new(rules) })
    }

    /// A rule set from JSON: a preset's name, or `{"preset": ..., fields...}`, or every field.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<RuleSet> {
        resolve(serde_json::from_str(text).map_err(invalid)?)
    }

    /// A rule set from TOML, as `dudo rules --format toml` prints one (`preset = "..."`
    /// with overridden fields works too).
    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<RuleSet> {
        resolve(toml::from_str(text).map_err(invalid)?)
    }

    /// This rule set with one more setting: `rules.with_setting("dice.faces", "8")`.
    fn with_setting(&self, path: &str, value: &str) -> PyResult<RuleSet> {
        let rules = presets::with_setting((*self.rules).clone(), path, value).map_err(invalid)?;
        Ok(RuleSet { rules: Arc::new(rules) })
    }

    #[getter]
    fn name(&self) -> &str {
        &self.rules.name
    }

    /// The fewest and most seats the rules allow.
    #[getter]
    fn players(&self) -> (u8, u8) {
        (self.rules.players.min, self.rules.players.max)
    }

    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&*self.rules).map_err(invalid)
    }

    /// Every field, as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pythonize(py, &*self.rules)?)
    }

    fn __copy__(&self) -> RuleSet {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> RuleSet {
        self.clone()
    }

    fn __eq__(&self, other: &RuleSet) -> bool {
        self.rules == other.rules
    }

    fn __repr__(&self) -> String {
        format!("RuleSet({:?})", self.rules.name)
    }
}

/// The names of the presets.
#[pyfunction]
#[pyo3(name = "presets")]
fn preset_names() -> Vec<&'static str> {
    presets::NAMES.to_vec()
}

/// One move by one seat.
#[pyclass(module = "dudo._dudo", name = "Action", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Action {
    action: EngineAction,
}

#[pymethods]
impl Action {
    /// An action from what a player would type ("3 5s", "dudo", "calza", "pass").
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Action> {
        Ok(Action { action: dudo_rules::parse_call(text).map_err(illegal)? })
    }

    /// `bid`, `push`, `pass`, `dudo`, `calza`, `watch`, `accept`, `roll`, `claim`, `dog's life`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.action.kind()
    }

    /// The action's fields, as its JSON would be.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(pythonize(py, &self.action)?)
    }

    fn __str__(&self) -> String {
        self.action.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Action({:?})", self.action.to_string())
    }
}

/// What `Game.apply` and the policies take: an `Action`, an action id, or a typed call.
#[derive(FromPyObject)]
enum ActionArg {
    Action(Action),
    Id(i64),
    Call(String),
}

/// What a rule set is given as: a `RuleSet` or a preset's name.
#[derive(FromPyObject)]
enum RulesArg {
    Set(RuleSet),
    Name(String),
}

impl RulesArg {
    fn rules(self) -> PyResult<Arc<EngineRules>> {
        match self {
            RulesArg::Set(r) => Ok(r.rules),
            RulesArg::Name(name) => Ok(RuleSet::new(&name, None)?.rules),
        }
    }
}

fn check_seats(seats: usize) -> PyResult<()> {
    if seats == 0 || seats > MAX_SEATS {
        return Err(invalid(format!("players: {seats} is not from 1 to {MAX_SEATS}")));
    }
    Ok(())
}

/// One game: the engine's own, played the way a table plays it.
#[pyclass(module = "dudo._dudo", name = "Game")]
#[derive(Clone)]
pub struct Game {
    game: EngineGame,
    observation: Arc<Observation>,
    /// Every event so far, each with its audience.
    events: Vec<Event>,
}

impl Game {
    fn seat_or_turn(&self, seat: Option<usize>) -> PyResult<Seat> {
        match seat {
            Some(s) if s < self.game.seats() => Ok(s),
            Some(s) => Err(PyIndexError::new_err(format!(
                "seat: {s} is not a seat of this game (0 to {})",
                self.game.seats() - 1
            ))),
            None => play::to_act(&self.game).ok_or_else(|| illegal("the game is over: nobody is to act")),
        }
    }

    fn action_of(&self, arg: ActionArg, seat: Seat) -> PyResult<EngineAction> {
        match arg {
            ActionArg::Action(a) => Ok(a.action),
            ActionArg::Id(id) => {
                let view = self.game.view(seat);
                usize::try_from(id).ok().and_then(|id| self.observation.space().action(id, &view)).ok_or_else(
                    || {
                        illegal(format!(
                            "action: {id} is not an action id (0 to {})",
                            self.observation.space().size() - 1
                        ))
                    },
                )
            }
            ActionArg::Call(text) => match self.game.rules().family.hand_game() {
                None => self.game.legal(seat).parse_call(&text).map_err(illegal),
                Some(kind) => {
                    let previous = self.game.view(seat).hand.and_then(|h| h.claim).map(|c| c.1);
                    dudo_rules::action::parse_hand_call(kind, &text, previous.as_ref()).map_err(illegal)
                }
            },
        }
    }

    fn events_for<'py>(
        &self,
        py: Python<'py>,
        events: &[Event],
        seat: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let over = self.game.is_over();
        let shown: Vec<&Event> =
            events.iter().filter(|e| seat.is_none_or(|s| e.audience.admits(Viewer::Seat(s), over))).collect();
        let list = PyList::empty(py);
        for e in shown {
            list.append(pythonize(py, e)?)?;
        }
        Ok(list)
    }
}

#[pymethods]
impl Game {
    /// A game of `rules` (a `RuleSet` or a preset's name) at `players` seats, its dice from
    /// `seed`: the same seed deals the same dice as `dudo script` and a table seeded alike.
    #[new]
    #[pyo3(signature = (rules = RulesArg::Name("fibbing".into()), players = 2, seed = 0))]
    fn new(rules: RulesArg, players: usize, seed: u64) -> PyResult<Game> {
        check_seats(players)?;
        let rules = rules.rules()?;
        let observation = Arc::new(Observation::new(&rules, players));
        let (game, events) = EngineGame::start(rules, players, seed_of(seed)).map_err(invalid)?;
        Ok(Game { game, observation, events })
    }

    /// A game whose first round's cups are given (one list of faces per seat), every other
    /// roll from `seed`: what makes a roll a chance node of its own (the OpenSpiel game).
    #[staticmethod]
    #[pyo3(signature = (rules, players, cups, seed = 0))]
    fn dealt(rules: RulesArg, players: usize, cups: Vec<Vec<u8>>, seed: u64) -> PyResult<Game> {
        check_seats(players)?;
        let rules = rules.rules()?;
        let observation = Arc::new(Observation::new(&rules, players));
        let (game, events) = play::start_dealt(rules, players, seed_of(seed), &cups).map_err(invalid)?;
        let mut game = Game { game, observation, events };
        if let Some(m) = game.game.dice_source_mut().take_mismatch() {
            return Err(illegal(format!("cups: {m}")));
        }
        Ok(game)
    }

    #[getter]
    fn rules(&self) -> RuleSet {
        RuleSet { rules: self.game.rules_arc().clone() }
    }

    #[getter]
    fn players(&self) -> usize {
        self.game.seats()
    }

    /// The seat to act, or `None` once the game is over.
    #[getter]
    fn turn(&self) -> Option<usize> {
        play::to_act(&self.game)
    }

    #[getter]
    fn round(&self) -> u32 {
        self.game.round()
    }

    /// Actions played so far.
    #[getter]
    fn moves(&self) -> u64 {
        self.game.moves()
    }

    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// Seats from first place to last (so far, before the end).
    fn standings(&self) -> Vec<usize> {
        self.game.standings()
    }

    /// Each seat's return: +1 to the winner, -1 shared by the others; zeros before the end.
    fn returns(&self) -> Vec<f32> {
        let mut r = vec![0.0; self.game.seats()];
        play::returns_into(&self.game, &mut r);
        r
    }

    /// The actions `seat` (default: the seat to act) may play now, pushes as the action
    /// space makes them.
    #[pyo3(signature = (seat = None))]
    fn legal_actions(&self, seat: Option<usize>) -> PyResult<Vec<Action>> {
        let seat = self.seat_or_turn(seat)?;
        let view = self.game.view(seat);
        let space = self.observation.space();
        Ok(space
            .legal_ids(&self.game, seat)
            .into_iter()
            .filter_map(|id| space.action(id, &view))
            .map(|action| Action { action })
            .collect())
    }

    /// The ids of `legal_actions`, in increasing order.
    #[pyo3(signature = (seat = None))]
    fn legal_action_ids(&self, seat: Option<usize>) -> PyResult<Vec<usize>> {
        let seat = self.seat_or_turn(seat)?;
        Ok(self.observation.space().legal_ids(&self.game, seat))
    }

    /// A bool per action id: which `seat` may play now.
    #[pyo3(signature = (seat = None))]
    fn action_mask<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let mut mask = vec![false; self.observation.space().size()];
        if let Ok(seat) = self.seat_or_turn(seat) {
            let view = self.game.view(seat);
            self.observation.space().mask_into(&self.game, seat, &view, &mut Legal::default(), &mut mask);
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// How many action ids the rule set has at this table.
    #[getter]
    fn num_actions(&self) -> usize {
        self.observation.space().size()
    }

    /// The id of `action` as `seat` (default: the seat to act) would play it, if it has one.
    #[pyo3(signature = (action, seat = None))]
    fn action_id(&self, action: ActionArg, seat: Option<usize>) -> PyResult<Option<usize>> {
        let seat = self.seat_or_turn(seat)?;
        let action = self.action_of(action, seat)?;
        Ok(self.observation.space().id(&action, &self.game.view(seat)))
    }

    /// The `Action` an id, a call or an `Action` means for `seat`.
    #[pyo3(signature = (action, seat = None))]
    fn action(&self, action: ActionArg, seat: Option<usize>) -> PyResult<Action> {
        let seat = self.seat_or_turn(seat)?;
        Ok(Action { action: self.action_of(action, seat)? })
    }

    /// Plays `action` (an `Action`, an id or a typed call) for `seat` (default: the seat to
    /// act) and returns the events it caused. `cups` gives the next round's cups when the
    /// action ends a round (`cups_after` says how many dice each seat rolls). A refused
    /// action raises `IllegalAction` and changes nothing.
    #[pyo3(signature = (action, seat = None, cups = None))]
    fn apply<'py>(
        &mut self,
        py: Python<'py>,
        action: ActionArg,
        seat: Option<usize>,
        cups: Option<Vec<Vec<u8>>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let seat = self.seat_or_turn(seat)?;
        let action = self.action_of(action, seat)?;
        let before = self.game.clone();
        let events = match &cups {
            Some(cups) => play::apply_dealt(&mut self.game, seat, &action, cups),
            None => self.game.apply(seat, &action),
        }
        .map_err(illegal)?;
        if let Some(m) = self.game.dice_source_mut().take_mismatch() {
            self.game = before;
            return Err(illegal(format!("cups: {m}")));
        }
        let list = self.events_for(py, &events, None)?;
        self.events.extend(events);
        Ok(list)
    }

    /// Plays `action` for `seat` unless it ends the round and another begins: then plays
    /// nothing and returns the dice each seat rolls next, for `apply(action, seat, cups)`
    /// to play it with those cups. Returns no events (the cheap step of a tree walk).
    #[pyo3(signature = (action, seat = None))]
    fn advance(&mut self, action: ActionArg, seat: Option<usize>) -> PyResult<Option<Vec<u16>>> {
        let seat = self.seat_or_turn(seat)?;
        let action = self.action_of(action, seat)?;
        let mut next = self.game.clone();
        let round = next.round();
        let events = next.apply(seat, &action).map_err(illegal)?;
        if next.round() != round && !next.is_over() {
            return Ok(Some(
                (0..next.seats()).map(|s| if next.is_active(s) { next.dice_count(s) } else { 0 }).collect(),
            ));
        }
        self.game = next;
        self.events.extend(events);
        Ok(None)
    }

    /// The dice each seat rolls next if `action` ends the round now, or `None`.
    #[pyo3(signature = (action, seat = None))]
    fn cups_after(&self, action: ActionArg, seat: Option<usize>) -> PyResult<Option<Vec<u16>>> {
        let seat = self.seat_or_turn(seat)?;
        let action = self.action_of(action, seat)?;
        Ok(play::cups_after(&self.game, seat, &action))
    }

    /// What `seat` sees (default: a spectator's view): the server's own per-seat view.
    #[pyo3(signature = (seat = None))]
    fn view<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        let view: View = match seat {
            Some(s) => self.game.view(self.seat_or_turn(Some(s))?),
            None => self.game.spectator_view(),
        };
        Ok(pythonize(py, &view)?)
    }

    /// `seat`'s view (default: the seat to act) as the observation vector.
    #[pyo3(signature = (seat = None))]
    fn observation<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = match seat {
            Some(s) => self.seat_or_turn(Some(s))?,
            None => play::to_act(&self.game).unwrap_or(0),
        };
        let mut out = vec![0.0; self.observation.len()];
        self.observation.write(&self.game.view(seat), &mut out);
        Ok(PyArray1::from_vec(py, out))
    }

    /// The events so far that `seat` may know (default: every event, with its audience).
    #[pyo3(signature = (seat = None))]
    fn events<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyList>> {
        if let Some(s) = seat {
            self.seat_or_turn(Some(s))?;
        }
        self.events_for(py, &self.events, seat)
    }

    /// `seat`'s information so far as one string: every event it may know, as JSON lines.
    /// Two histories give the same string exactly when the seat cannot tell them apart.
    fn information(&self, seat: usize) -> PyResult<String> {
        let seat = self.seat_or_turn(Some(seat))?;
        let over = self.game.is_over();
        let mut out = String::new();
        for e in self.events.iter().filter(|e| e.audience.admits(Viewer::Seat(seat), over)) {
            out.push_str(&serde_json::to_string(&e.kind).map_err(illegal)?);
            out.push('\n');
        }
        Ok(out)
    }

    /// The observation's blocks: (name, offset, length, meaning).
    fn observation_blocks(&self) -> Vec<(&'static str, usize, usize, &'static str)> {
        self.observation.blocks().iter().map(|b| (b.name, b.offset, b.len, b.meaning)).collect()
    }

    #[getter]
    fn observation_size(&self) -> usize {
        self.observation.len()
    }

    fn clone(&self) -> Game {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Game {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        Clone::clone(self)
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?}, players={}, round={}, moves={}, turn={:?})",
            self.game.rules().name,
            self.game.seats(),
            self.game.round(),
            self.game.moves(),
            play::to_act(&self.game)
        )
    }
}

/// One of the engine's built-in players as a policy: `Bot("odds", seed).act(game)`.
#[pyclass(module = "dudo._dudo", name = "Bot", unsendable)]
pub struct Bot {
    bot: Box<dyn EngineBot>,
    name: String,
}

#[pymethods]
impl Bot {
    /// `name` is `random`, `odds` or `reader`; `seed` is the seat's seed
    /// (`dudo.seat_seed(game_seed, seat)` makes a seeded table's).
    #[new]
    #[pyo3(signature = (name, seed = 0))]
    fn new(name: &str, seed: u64) -> PyResult<Bot> {
        let bot = bots::by_name(name, seed).ok_or_else(|| {
            PyValueError::new_err(format!("name: no bot {name:?}; the bots are random, odds, reader"))
        })?;
        Ok(Bot { bot, name: name.to_string() })
    }

    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The action this bot plays for `seat` (default: the seat to act).
    #[pyo3(signature = (game, seat = None))]
    fn act(&mut self, game: &Game, seat: Option<usize>) -> PyResult<Action> {
        let seat = game.seat_or_turn(seat)?;
        let view = game.game.view(seat);
        let legal = game.game.legal(seat);
        if legal.is_empty() {
            return Err(illegal(format!("seat {seat} has nothing to play now")));
        }
        Ok(Action { action: self.bot.act(game.game.rules(), &view, &legal) })
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.name)
    }
}

/// The seed of `seat`'s bot in a game dealt from `game_seed`, as a seeded table seeds it.
#[pyfunction]
fn seat_seed(game_seed: u64, seat: usize) -> u64 {
    bots::seat_seed(game_seed, seat)
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

    /// Per game, the seat to act's legal ids: shape (games, num_actions).
    fn masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let n = self.batch.len();
        PyArray1::from_slice(py, &self.batch.masks).reshape([n, self.batch.observation().space().size()])
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

#[pymodule]
fn _dudo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RuleSet>()?;
    m.add_class::<Action>()?;
    m.add_class::<Game>()?;
    m.add_class::<Bot>()?;
    m.add_class::<Batch>()?;
    m.add_function(wrap_pyfunction!(preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(seat_seed, m)?)?;
    m.add("IllegalAction", m.py().get_type::<IllegalAction>())?;
    m.add("InvalidRules", m.py().get_type::<InvalidRules>())?;
    Ok(())
}
