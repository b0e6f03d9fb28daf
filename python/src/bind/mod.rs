//! The Python classes of `dudo._dudo`: `RuleSet`, `Action`, `Game`, `Bot` and `Batch`.
//!
//! Views, events and rule sets cross as the dicts and lists their JSON would be (the shapes
//! `dudo script` prints), so Python reads what every other client of dudo reads. Refused
//! input raises `IllegalAction` (an action the rules refuse, naming the rule) or
//! `InvalidRules` (a rule set, naming the field), both `ValueError`s, and leaves the game as
//! it was.

mod batch;
mod game;
mod rules;

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

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
pub(crate) const MAX_SEATS: usize = 64;

pub(crate) fn invalid(e: impl std::fmt::Display) -> PyErr {
    InvalidRules::new_err(e.to_string())
}

pub(crate) fn illegal(e: impl std::fmt::Display) -> PyErr {
    IllegalAction::new_err(e.to_string())
}

#[pymodule]
fn _dudo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<rules::RuleSet>()?;
    m.add_class::<rules::Action>()?;
    m.add_class::<game::Game>()?;
    m.add_class::<game::Bot>()?;
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(rules::preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(game::seat_seed, m)?)?;
    m.add("IllegalAction", m.py().get_type::<IllegalAction>())?;
    m.add("InvalidRules", m.py().get_type::<InvalidRules>())?;
    Ok(())
}
