//! `RuleSet` and `Action`, and what the other classes take for them: a preset's name, an
//! action id or a typed call.

use std::sync::Arc;

use dudo_rules::hand::HandGame;
use dudo_rules::presets::{self, RulesSpec};
use dudo_rules::{Action as EngineAction, RuleSet as EngineRules};
use pyo3::prelude::*;
use pythonize::pythonize;

use super::{MAX_SEATS, illegal, invalid};

/// A complete, validated rule set.
#[pyclass(module = "dudo._dudo", name = "RuleSet", frozen, from_py_object)]
#[derive(Clone)]
pub struct RuleSet {
    pub(crate) rules: Arc<EngineRules>,
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
    pub(crate) fn new(preset: &str, settings: Option<&Bound<'_, PyAny>>) -> PyResult<RuleSet> {
        let mut rules = presets::by_name(preset).ok_or_else(|| {
            invalid(format!("preset: no preset {preset:?}; the presets are {}", presets::NAMES.join(", ")))
        })?;
        let pairs = match settings {
            None => Vec::new(),
            Some(s) => settings_of(s)?,
        };
        for (path, value) in pairs {
            rules = presets::with_setting(rules, &path, &value).map_err(invalid)?;
        }
        Ok(RuleSet { rules: Arc::new(rules) })
    }

    /// Pickles as its JSON.
    fn __reduce__(&self) -> PyResult<(Py<PyAny>, (String,))> {
        Python::attach(|py| {
            let from_json = py.get_type::<RuleSet>().getattr("from_json")?.unbind();
            Ok((from_json, (self.to_json()?,)))
        })
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

    /// Every field, as JSON (`from_json` reads it back).
    pub(crate) fn to_json(&self) -> PyResult<String> {
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
        match presets::by_name(&self.rules.name) {
            Some(preset) if preset == *self.rules => format!("RuleSet({:?})", self.rules.name),
            _ => format!("<RuleSet {:?}, changed: to_dict() has every field>", self.rules.name),
        }
    }
}

/// The names of the presets.
#[pyfunction]
#[pyo3(name = "presets")]
pub(crate) fn preset_names() -> Vec<&'static str> {
    presets::NAMES.to_vec()
}

/// One move by one seat.
#[pyclass(module = "dudo._dudo", name = "Action", frozen, eq, hash, from_py_object)]
#[derive(Clone)]
pub struct Action {
    pub(crate) action: EngineAction,
    /// The hand game a `Game` made it in, so a claim's text is written in that game's
    /// symbols ("claim AAAAA" in poker dice) and reads back; not part of what it is.
    pub(crate) hand_game: Option<HandGame>,
}

impl Action {
    /// An action as a game of `rules` writes it.
    pub(crate) fn in_game(action: EngineAction, rules: &EngineRules) -> Action {
        Action { action, hand_game: rules.family.hand_game() }
    }

    /// An action with no game to write it in (parsed, or read from JSON).
    fn bare(action: EngineAction) -> Action {
        Action { action, hand_game: None }
    }
}

impl PartialEq for Action {
    fn eq(&self, other: &Action) -> bool {
        self.action == other.action
    }
}

impl Eq for Action {}

impl std::hash::Hash for Action {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.action.hash(state);
    }
}

#[pymethods]
impl Action {
    /// An action from what a player would type ("3 5s", "dudo", "calza", "pass").
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Action> {
        Ok(Action::bare(dudo_rules::parse_call(text).map_err(illegal)?))
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

    /// As a player would type it, in the game's own symbols where a `Game` made it
    /// (`Game.apply` reads it back).
    fn __str__(&self) -> String {
        match (&self.action, self.hand_game) {
            (EngineAction::Claim(hand), Some(game)) => format!("claim {}", hand.text(game)),
            (action, _) => action.to_string(),
        }
    }

    /// Pickles as its JSON.
    fn __reduce__(&self) -> PyResult<(Py<PyAny>, (String,))> {
        let json = serde_json::to_string(&self.action).map_err(illegal)?;
        Python::attach(|py| Ok((py.get_type::<Action>().getattr("from_json")?.unbind(), (json,))))
    }

    /// An action from its JSON (`to_dict`'s shape).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Action> {
        Ok(Action::bare(serde_json::from_str(text).map_err(illegal)?))
    }

    fn __repr__(&self) -> String {
        format!("Action({:?})", self.__str__())
    }
}

/// The text of a setting's value as Python gives it: a string as `dudo rules --set` reads it,
/// or a number or a bool, which read the same as their text.
fn setting_value(path: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = value.extract::<bool>() {
        return Ok(b.to_string());
    }
    if let Ok(text) = value.extract::<String>() {
        return Ok(text);
    }
    if value.extract::<i64>().is_ok() || value.extract::<f64>().is_ok() {
        return Ok(value.str()?.to_string());
    }
    Err(invalid(format!(
        "{path}: a setting's value is a string, a number or a bool, not {}",
        value.get_type().name()?
    )))
}

/// Settings as a dict or as (field, value) pairs: `{"dice.start": 3}`, `[("dice.start", "3")]`.
fn settings_of(settings: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let bad = || invalid("settings: a dict of field: value, or a list of (field, value) pairs");
    let pairs: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = match settings.cast::<pyo3::types::PyDict>() {
        Ok(dict) => dict.iter().collect(),
        Err(_) => settings
            .try_iter()
            .map_err(|_| bad())?
            .map(|pair| {
                pair.and_then(|p| p.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()).map_err(|_| bad())
            })
            .collect::<PyResult<_>>()?,
    };
    pairs
        .into_iter()
        .map(|(path, value)| {
            let path: String = path.extract().map_err(|_| bad())?;
            let value = setting_value(&path, &value)?;
            Ok((path, value))
        })
        .collect()
}

/// What `Game.apply` and the policies take: an `Action`, an action id, or a typed call.
#[derive(FromPyObject)]
pub(crate) enum ActionArg {
    Action(Action),
    // Any Python int: one past the ids (or past 2**63) is refused by name, not by type.
    Id(i128),
    Call(String),
}

/// What a rule set is given as: a `RuleSet` or a preset's name.
#[derive(FromPyObject)]
pub(crate) enum RulesArg {
    Set(RuleSet),
    Name(String),
}

impl RulesArg {
    pub(crate) fn rules(self) -> PyResult<Arc<EngineRules>> {
        match self {
            RulesArg::Set(r) => Ok(r.rules),
            RulesArg::Name(name) => Ok(RuleSet::new(&name, None)?.rules),
        }
    }
}

pub(crate) fn check_seats(seats: usize) -> PyResult<()> {
    if seats == 0 || seats > MAX_SEATS {
        return Err(invalid(format!("players: {seats} is not from 1 to {MAX_SEATS}")));
    }
    Ok(())
}
