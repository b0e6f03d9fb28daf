//! `RuleSet` and `Action`, and what the other classes take for them: a preset's name, an
//! action id or a typed call.

use std::sync::Arc;

use dudo_rules::hand::HandGame;
use dudo_rules::presets::{self, RulesSpec};
use dudo_rules::{Action as EngineAction, RuleSet as EngineRules};
use pyo3::prelude::*;
use pyo3::types::PyInt;
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
        resolve(serde_json::from_str(text).map_err(|e| invalid(format!("rules: not JSON: {e}")))?)
    }

    /// A rule set from TOML, as `dudo rules --format toml` prints one (`preset = "..."`
    /// with overridden fields works too).
    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<RuleSet> {
        resolve(toml::from_str(text).map_err(|e| invalid(format!("rules: not TOML: {e}")))?)
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

    /// `RuleSet("house")` for a preset as it is; a changed one names what changed from its
    /// preset, `<RuleSet "house", changed: dice.start=3, dice.max=3>`.
    fn __repr__(&self) -> String {
        let Some(preset) = presets::by_name(&self.rules.name) else {
            return format!("<RuleSet {:?}: not a preset's; to_dict() has every field>", self.rules.name);
        };
        if preset == *self.rules {
            return format!("RuleSet({:?})", self.rules.name);
        }
        let mut changed = Vec::new();
        if let (Ok(base), Ok(this)) = (serde_json::to_value(&preset), serde_json::to_value(&*self.rules)) {
            changes("", &base, &this, &mut changed);
        }
        let changed: Vec<String> = changed.iter().map(|(path, value)| format!("{path}={value}")).collect();
        format!("<RuleSet {:?}, changed: {}>", self.rules.name, changed.join(", "))
    }
}

/// The leaves of `this` that differ from `base`, by their settings' paths (`dice.start`).
fn changes(
    path: &str,
    base: &serde_json::Value,
    this: &serde_json::Value,
    out: &mut Vec<(String, serde_json::Value)>,
) {
    use serde_json::Value;
    match (base, this) {
        (Value::Object(b), Value::Object(t)) if b.len() == t.len() && b.keys().eq(t.keys()) => {
            for (key, value) in t {
                let inner = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                if let Some(was) = b.get(key) {
                    changes(&inner, was, value, out);
                }
            }
        }
        _ if base == this => {}
        _ => out.push((path.to_string(), this.clone())),
    }
}

/// The names of the presets.
#[pyfunction]
#[pyo3(name = "presets")]
pub(crate) fn preset_names() -> Vec<&'static str> {
    presets::NAMES.to_vec()
}

/// What `Action.__reduce__` gives pickle: `Action._restore` and its arguments.
type Reduced = (Py<PyAny>, (String, Option<String>));

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

    /// Pickles (and copies) as its JSON and the hand game it is written in, so a copy's
    /// text reads back as the original's does.
    fn __reduce__(&self) -> PyResult<Reduced> {
        let json = serde_json::to_string(&self.action).map_err(illegal)?;
        let hand = match self.hand_game.map(serde_json::to_value) {
            Some(Ok(serde_json::Value::String(name))) => Some(name),
            _ => None,
        };
        Python::attach(|py| Ok((py.get_type::<Action>().getattr("_restore")?.unbind(), (json, hand))))
    }

    /// What `__reduce__` gives back: an action from its JSON, written in `hand`'s symbols.
    #[staticmethod]
    #[pyo3(signature = (json, hand = None))]
    fn _restore(json: &str, hand: Option<String>) -> PyResult<Action> {
        let action = serde_json::from_str(json).map_err(illegal)?;
        let hand_game = match hand {
            None => None,
            Some(name) => Some(
                serde_json::from_value(serde_json::Value::String(name))
                    .map_err(|e| illegal(format!("hand: {e}")))?,
            ),
        };
        Ok(Action { action, hand_game })
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
    // Any int or float, however large: its text is read as the field reads it, and a value
    // out of the field's range is refused by the field's name.
    if value.is_instance_of::<PyInt>() || value.is_instance_of::<pyo3::types::PyFloat>() {
        let text = value.str()?.to_string();
        if text.len() > 40 {
            return Err(invalid(format!("{path}: a number of {} characters fits no field", text.len())));
        }
        return Ok(text);
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
pub(crate) enum ActionArg {
    Action(Action),
    /// Any Python int, `None` where it is past an `i128`: one past the ids (or past 2**127)
    /// is refused by name, as an id that is none, not by type.
    Id(Option<i128>),
    Call(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for ActionArg {
    type Error = PyErr;

    /// Read by hand, so anything else is refused by what an action may be, not with an
    /// account of every form tried.
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<ActionArg> {
        if let Ok(action) = obj.cast::<Action>() {
            return Ok(ActionArg::Action(action.get().clone()));
        }
        // A bool is an int to Python, but no action id.
        if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<pyo3::types::PyBool>() {
            return Ok(ActionArg::Id(obj.extract::<i128>().ok()));
        }
        if let Ok(text) = obj.extract::<String>() {
            return Ok(ActionArg::Call(text));
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "action: an Action, an action id (an int) or a call (a str), not a {}",
            obj.get_type().name()?
        )))
    }
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
