//! The arena's standings: wins with their Wilson interval, points by place, and the JSON
//! lines `--out` writes.

use super::*;

pub(super) struct Standing {
    pub(super) name: String,
    pub(super) games: u32,
    pub(super) wins: u32,
    pub(super) rate: f64,
    pub(super) low: f64,
    pub(super) high: f64,
    pub(super) mean_place: f64,
    pub(super) elo: f64,
}

/// Wilson's 95% interval for `wins` out of `games`.
pub(super) fn wilson(wins: u32, games: u32) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    let (n, p, z) = (f64::from(games), f64::from(wins) / f64::from(games), 1.96f64);
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Games, wins, intervals, mean places and Elo ratings (every game split into the pairs it
/// ranks, each worth 1/(seats-1) of a game; K = 16), best first.
pub(super) fn standings(entries: &[Entry], results: &[Finished]) -> Vec<Standing> {
    let n = entries.len();
    let (mut games, mut wins, mut places) = (vec![0u32; n], vec![0u32; n], vec![0.0f64; n]);
    let mut elo = vec![dudo_store::elo::START; n];
    for r in results {
        for (place, &e) in r.finish.iter().enumerate() {
            games[e] += 1;
            places[e] += (place + 1) as f64;
            if place == 0 {
                wins[e] += 1;
            }
        }
        dudo_store::elo::update(&mut elo, &r.finish);
    }
    let mut out: Vec<Standing> = (0..n)
        .map(|e| {
            let (low, high) = wilson(wins[e], games[e]);
            Standing {
                name: entries[e].name.clone(),
                games: games[e],
                wins: wins[e],
                rate: if games[e] == 0 { 0.0 } else { f64::from(wins[e]) / f64::from(games[e]) },
                low,
                high,
                mean_place: if games[e] == 0 { 0.0 } else { places[e] / f64::from(games[e]) },
                elo: elo[e],
            }
        })
        .collect();
    out.sort_by(|a, b| b.rate.total_cmp(&a.rate).then(a.mean_place.total_cmp(&b.mean_place)));
    out
}

pub(super) fn write_jsonl(
    path: &std::path::Path,
    entries: &[Entry],
    results: &[Finished],
    table: &[Standing],
    compared: &dudo_tournament::Standings,
) -> anyhow::Result<()> {
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("writing {}", path.display()))?,
    );
    let name = |e: &usize| entries[*e].name.clone();
    for r in results {
        let line = serde_json::json!({
            "game": r.game.number,
            "seed": r.game.seed,
            "seats": r.game.lineup.iter().map(name).collect::<Vec<_>>(),
            "finish": r.finish.iter().map(name).collect::<Vec<_>>(),
        });
        writeln!(file, "{line}")?;
    }
    for s in table {
        let points = entries
            .iter()
            .position(|e| e.name == s.name)
            .and_then(|e| compared.entrants.iter().find(|c| c.entrant == e));
        let line = serde_json::json!({
            "standing": s.name, "games": s.games, "wins": s.wins, "win_rate": s.rate,
            "interval_95": [s.low, s.high], "mean_place": s.mean_place, "elo": s.elo,
            "points": points.map(|p| p.mean_points),
            "points_interval_95": points.and_then(|p| p.interval).map(|(low, high)| [low, high]),
        });
        writeln!(file, "{line}")?;
    }
    for c in &compared.pairs {
        let line = serde_json::json!({
            "pair": [name(&c.better), name(&c.worse)], "difference": c.difference,
            "interval_95": c.interval.map(|(low, high)| [low, high]), "deals": c.deals, "ahead": c.ahead(),
        });
        writeln!(file, "{line}")?;
    }
    Ok(())
}
