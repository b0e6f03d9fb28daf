//! A tournament's standings, both ways (the tournament crate's types and the wire's).

use super::*;

/// A tournament's standings for the wire: `games` ended, `name` gives an entrant's name.
pub fn standings_to_wire(
    s: &dudo_tournament::Standings,
    games: u64,
    name: impl Fn(usize) -> String,
) -> pb::TournamentStandings {
    let low = |i: Option<(f64, f64)>| i.map(|i| i.0);
    let high = |i: Option<(f64, f64)>| i.map(|i| i.1);
    pb::TournamentStandings {
        entrants: s
            .entrants
            .iter()
            .map(|e| pb::TournamentStanding {
                entrant: e.entrant as u32,
                name: name(e.entrant),
                games: e.games,
                wins: e.wins,
                mean_points: e.mean_points,
                low: low(e.interval),
                high: high(e.interval),
                mean_place: e.mean_place,
                deals: e.deals,
                points: e.points,
                // The server's to say (the engine's standings know nothing of benches).
                benched: String::new(),
            })
            .collect(),
        pairs: s
            .pairs
            .iter()
            .map(|c| pb::TournamentPair {
                better: c.better as u32,
                worse: c.worse as u32,
                difference: c.difference,
                low: low(c.interval),
                high: high(c.interval),
                deals: c.deals,
                ahead: c.ahead(),
            })
            .collect(),
        games,
    }
}

/// The standings a server sent, in the tournament crate's terms.
pub fn standings_from_wire(s: &pb::TournamentStandings) -> dudo_tournament::Standings {
    let interval = |low: Option<f64>, high: Option<f64>| low.zip(high);
    dudo_tournament::Standings {
        entrants: s
            .entrants
            .iter()
            .map(|e| dudo_tournament::Standing {
                entrant: e.entrant as usize,
                games: e.games,
                wins: e.wins,
                points: e.points,
                mean_points: e.mean_points,
                interval: interval(e.low, e.high),
                mean_place: e.mean_place,
                deals: e.deals,
            })
            .collect(),
        pairs: s
            .pairs
            .iter()
            .map(|c| dudo_tournament::Comparison {
                better: c.better as usize,
                worse: c.worse as usize,
                difference: c.difference,
                interval: interval(c.low, c.high),
                deals: c.deals,
            })
            .collect(),
    }
}
