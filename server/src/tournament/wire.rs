//! A tournament for the wire.

use dudo_proto::v1 as pb;
use dudo_store::tournaments::{EntrantRow, TournamentRow};

use super::{Spec, state};

pub(crate) fn state_to_wire(state: &str) -> pb::TournamentState {
    match state {
        state::ENTRY => pb::TournamentState::Entry,
        state::RUNNING => pb::TournamentState::Running,
        state::FINISHED => pb::TournamentState::Finished,
        state::CANCELLED => pb::TournamentState::Cancelled,
        _ => pb::TournamentState::Unspecified,
    }
}

/// Games a tournament's schedule holds for `entered` entrants: none before the start, nor
/// for a field too small to seat a table (it never started).
pub(crate) fn games_of(row: &TournamentRow, spec: &Spec, entered: usize) -> u64 {
    match row.state.as_str() {
        state::ENTRY => 0,
        _ if entered < spec.seats as usize => 0,
        _ => spec.games_for(entered).unwrap_or(0),
    }
}

/// A tournament for the wire; its seed only once it has ended.
pub(crate) fn tournament_to_wire(
    row: &TournamentRow,
    spec: &Spec,
    entrants: &[EntrantRow],
    finished: u64,
) -> pb::Tournament {
    let (format, rounds) = spec.format_to_wire();
    let ended = row.state == state::FINISHED || row.state == state::CANCELLED;
    let salt = dudo_rules::proof::from_hex(&row.salt).unwrap_or_default();
    let games = games_of(row, spec, entrants.len());
    pb::Tournament {
        id: row.id.clone(),
        name: row.name.clone(),
        organiser: row.organiser_name.clone(),
        state: state_to_wire(&row.state) as i32,
        rules_name: spec.rules_name.clone(),
        rules: Some(spec.rules_to_wire()),
        seats: spec.seats,
        format: format as i32,
        deals: spec.deals,
        rounds,
        move_millis: spec.move_millis,
        time_bank_millis: spec.time_bank_millis,
        starts_unix_millis: u64::try_from(row.starts_at).unwrap_or(0),
        house_bots: spec.house_bots.clone(),
        max_entrants: spec.max_entrants,
        tables: spec.tables,
        rating_pool: spec.rating_pool.clone(),
        entrants: entrants
            .iter()
            .map(|e| pb::TournamentEntrant {
                number: e.number,
                name: e.name.clone(),
                kind: match e.kind.as_str() {
                    "bot" => pb::AccountKind::Bot,
                    "person" => pb::AccountKind::Person,
                    _ => pb::AccountKind::None,
                } as i32,
                bot: e.bot.clone(),
                benched: e.benched.clone(),
            })
            .collect(),
        games,
        finished,
        seed_commitment: dudo_tournament::seed_commitment(row.seed, &salt),
        seed: ended.then_some(row.seed),
        seed_salt: if ended { row.salt.clone() } else { String::new() },
        why: row.why.clone(),
        ended_unix_millis: u64::try_from(row.ended_at).unwrap_or(0),
        entered: entrants.len() as u32,
        seeded: spec.seeded,
        fresh_deals: spec.dice == dudo_tournament::Deals::Fresh,
        call_window_millis: spec.call_window(),
        bench_after: spec.bench_after(),
    }
}
