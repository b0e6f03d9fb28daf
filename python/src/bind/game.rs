//! `Game`, one game played as a table plays it, and `Bot`, the built-in players as policies.

use std::collections::HashMap;
use std::sync::Arc;

use dudo_rules::bots::{self, Bot as EngineBot};
use dudo_rules::dice::seed_from_u64;
use dudo_rules::event::{Event, Viewer};
use dudo_rules::game::{Legal, View};
use dudo_rules::space::Observation;
use dudo_rules::{Action as EngineAction, Game as EngineGame, Seat};
use numpy::PyArray1;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use pythonize::pythonize;

use super::rules::{Action, ActionArg, RuleSet, RulesArg, check_seats};
use super::{illegal, invalid};
use crate::play;

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
                let action = id
                    .and_then(|id| usize::try_from(id).ok())
                    .and_then(|id| self.observation.space().action(id, &view));
                action.ok_or_else(|| {
                    let shown = id.map_or_else(|| "that int".to_string(), |id| id.to_string());
                    illegal(format!(
                        "action: {shown} is not an action id (0 to {})",
                        self.observation.space().size() - 1
                    ))
                })
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
        let (game, events) = EngineGame::start(rules, players, seed_from_u64(seed)).map_err(invalid)?;
        Ok(Game { game, observation, events })
    }

    /// A game whose first round's cups are given (one list of faces per seat), every other
    /// roll from `seed`: what makes a roll a chance node of its own (the OpenSpiel game).
    #[staticmethod]
    #[pyo3(signature = (rules, players, cups, seed = 0))]
    fn dealt(rules: RulesArg, players: usize, cups: Vec<Vec<i64>>, seed: u64) -> PyResult<Game> {
        check_seats(players)?;
        let rules = rules.rules()?;
        let need = vec![u16::from(rules.dice.start); players];
        let cups = play::checked_cups(&rules, &need, &cups).map_err(illegal)?;
        let observation = Arc::new(Observation::new(&rules, players));
        let (game, events) =
            play::start_dealt(rules, players, seed_from_u64(seed), &cups).map_err(invalid)?;
        let mut game = Game { game, observation, events };
        if let Some(m) = game.game.dice_source_mut().take_mismatch() {
            return Err(illegal(format!("cups: {}", m.replace("the script gives", "the cups give"))));
        }
        Ok(game)
    }

    /// Deals this game afresh from `seed`: the game `Game(rules, players, seed)` would be,
    /// without making a new one (a training loop's reset).
    #[pyo3(signature = (seed = 0))]
    fn reset(&mut self, seed: u64) {
        self.events.clear();
        self.game.restart(dudo_rules::dice::DiceSource::new(seed_from_u64(seed)), &mut self.events);
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

    /// Whether the game has ended, by its rules or by `stop`.
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// Ends the game now, ranked as it stands, as a table that is stopped ends it (a
    /// training loop's truncation: the points game can run on for long under random play).
    fn stop(&mut self) {
        let events = self.game.stop();
        self.events.extend(events);
    }

    /// Seats from first place to last once the game is over; before, the seats still in, in
    /// seat order, then those out, the last out first.
    fn standings(&self) -> Vec<usize> {
        self.game.standings()
    }

    /// Each seat's return: +1 to the winner, -1 shared by the others; zeros before the end.
    fn returns(&self) -> Vec<f64> {
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
            .map(|action| Action::in_game(action, self.game.rules()))
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
        if seat.is_some() {
            self.seat_or_turn(seat)?;
        }
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
        Ok(Action::in_game(self.action_of(action, seat)?, self.game.rules()))
    }

    /// Plays `action` (an `Action`, an id or a typed call) for `seat` (default: the seat to
    /// act). `cups` gives the next round's cups when the action ends a round (`advance` or
    /// `cups_after` say how many dice each seat rolls). A refused action raises
    /// `IllegalAction` and changes nothing. Returns nothing, as OpenSpiel's `apply_action`:
    /// `events(since=n)` reads what it caused.
    #[pyo3(signature = (action, seat = None, cups = None))]
    fn apply(&mut self, action: ActionArg, seat: Option<usize>, cups: Option<Vec<Vec<i64>>>) -> PyResult<()> {
        let seat = self.seat_or_turn(seat)?;
        let action = self.action_of(action, seat)?;
        let events = match &cups {
            None => self.game.apply(seat, &action).map_err(illegal)?,
            Some(cups) => {
                let need = play::cups_after(&self.game, seat, &action).ok_or_else(|| {
                    illegal(format!("cups: {action} does not end a round, so no cups are rolled"))
                })?;
                let cups = play::checked_cups(self.game.rules(), &need, cups).map_err(illegal)?;
                let before = self.game.clone();
                let events = play::apply_dealt(&mut self.game, seat, &action, &cups).map_err(illegal)?;
                if let Some(m) = self.game.dice_source_mut().take_mismatch() {
                    self.game = before;
                    return Err(illegal(format!("cups: {}", m.replace("the script gives", "the cups give"))));
                }
                events
            }
        };
        self.events.extend(events);
        Ok(())
    }

    /// Plays `action` for `seat` unless it ends the round and another begins: then plays
    /// nothing and returns the dice each seat rolls next, for `apply(action, seat, cups)`
    /// to play it with those cups.
    #[pyo3(signature = (action, seat = None))]
    fn advance(&mut self, action: ActionArg, seat: Option<usize>) -> PyResult<Option<Vec<u16>>> {
        let seat = self.seat_or_turn(seat)?;
        let action = self.action_of(action, seat)?;
        match play::advance(&mut self.game, seat, &action).map_err(illegal)? {
            play::Advanced::Played(events) => {
                self.events.extend(events);
                Ok(None)
            }
            play::Advanced::NeedsCups(cups) => Ok(Some(cups)),
        }
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

    /// The events so far that `seat` may know (default: every event, with its audience),
    /// from the `since`-th event of the game on (`event_count` before a move, then
    /// `events(since=that)`, gives the move's).
    #[pyo3(signature = (seat = None, since = 0))]
    fn events<'py>(
        &self,
        py: Python<'py>,
        seat: Option<usize>,
        since: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        if let Some(s) = seat {
            self.seat_or_turn(Some(s))?;
        }
        self.events_for(py, self.events.get(since..).unwrap_or_default(), seat)
    }

    /// How many events the game has had (of every audience).
    #[getter]
    fn event_count(&self) -> usize {
        self.events.len()
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
        let turn = play::to_act(&self.game).map_or_else(|| "None".to_string(), |s| s.to_string());
        format!(
            "Game({:?}, players={}, round={}, moves={}, turn={turn})",
            self.game.rules().name,
            self.game.seats(),
            self.game.round(),
            self.game.moves(),
        )
    }
}

/// One of the engine's built-in players as a policy: `Bot("odds", seed).act(game)`.
#[pyclass(module = "dudo._dudo", name = "Bot")]
pub struct Bot {
    /// Behind a lock, so the bot may be asked from any Python thread.
    bot: std::sync::Mutex<Box<dyn EngineBot>>,
    name: String,
}

#[pymethods]
impl Bot {
    /// `name` is `random`, `odds`, `reader` or `expert`; `seed` is the seat's seed
    /// (`dudo.seat_seed(game_seed, seat)` makes a seeded table's).
    #[new]
    #[pyo3(signature = (name, seed = 0))]
    fn new(name: &str, seed: u64) -> PyResult<Bot> {
        let bot = bots::by_name(name, seed).ok_or_else(|| {
            PyValueError::new_err(format!("name: no bot {name:?}; the bots are {}", bots::NAMES.join(", ")))
        })?;
        Ok(Bot { bot: std::sync::Mutex::new(bot), name: name.to_string() })
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
        let mut bot = self.bot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok(Action::in_game(bot.act(game.game.rules(), &view, &legal), game.game.rules()))
    }

    /// The solved mixed strategy the expert plays for `seat` here (default: the seat to act),
    /// as `{action id: probability}`: where two players are left with a die each in a rule
    /// set whose one-die game is solved (`docs/bots.md`). `None` anywhere else, and for the
    /// other bots, which play no solved strategy.
    #[pyo3(signature = (game, seat = None))]
    fn policy(&self, game: &Game, seat: Option<usize>) -> PyResult<Option<HashMap<usize, f64>>> {
        let seat = game.seat_or_turn(seat)?;
        if self.name != "expert" {
            return Ok(None);
        }
        let view = game.game.view(seat);
        let legal = game.game.legal(seat);
        let Some(moves) = bots::solved::policy(game.game.rules(), &view, &legal) else { return Ok(None) };
        let space = game.observation.space();
        let mut out = HashMap::with_capacity(moves.len());
        for (action, p) in moves {
            let id =
                space.id(&action, &view).ok_or_else(|| invalid(format!("{action:?} has no action id")))?;
            out.insert(id, p);
        }
        Ok(Some(out))
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.name)
    }
}

/// The seed of `seat`'s bot in a game dealt from `game_seed`, as a seeded table seeds it.
#[pyfunction]
pub(crate) fn seat_seed(game_seed: u64, seat: usize) -> u64 {
    bots::seat_seed(game_seed, seat)
}
