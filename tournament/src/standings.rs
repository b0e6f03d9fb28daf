//! The standings: who is better, and how sure that is.
//!
//! A game gives each entrant points by finishing place: the share of the table's other seats
//! it finished above (1 for first, 0 for last, (k−1−place)/(k−1) at a table of k), so tables
//! of different sizes (a Swiss round's) count alike.
//!
//! The unit of evidence is the deal, not the game. In duplicate play the games of one deal
//! share their dice, so an entrant's mean points over one deal's games has the dice's luck
//! cancelled; its deals are then independent samples. Each entrant's 95% interval is the
//! Student-t interval of its mean over deals, and each pair is compared over the deals both
//! played: the interval of the mean difference, paired deal by deal. One is *ahead* of the
//! other when that interval lies wholly above zero over at least [`DEALS_TO_BE_AHEAD`]
//! common deals: fewer cannot say it even when one won every deal (the interval of
//! differences all alike has no width at all, however few they are).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One finished game: its deal, and the entrants from first place to last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finished {
    pub deal: u32,
    pub finish: Vec<usize>,
}

/// One entrant's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub entrant: usize,
    pub games: u32,
    pub wins: u32,
    /// Points from every game.
    pub points: f64,
    /// Mean points a game, deal by deal (each deal weighs the same).
    pub mean_points: f64,
    /// The 95% interval of `mean_points`; none before two deals.
    pub interval: Option<(f64, f64)>,
    /// Mean finishing place, 1 for first.
    pub mean_place: f64,
    /// Deals it played.
    pub deals: u32,
}

/// Two entrants compared over the deals both played (`better` has the higher mean).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub better: usize,
    pub worse: usize,
    /// Mean points a game of `better` less those of `worse`, over their common deals.
    pub difference: f64,
    /// The 95% interval of the difference; none before two common deals.
    pub interval: Option<(f64, f64)>,
    pub deals: u32,
}

/// Common deals below which no pair is called apart: by the sign test, one entrant better on
/// every one of n deals is 95% sure (two-sided) only from n = 6, 2·2⁻⁶ < 0.05.
pub const DEALS_TO_BE_AHEAD: u32 = 6;

impl Comparison {
    /// `better` is ahead with 95% confidence.
    pub fn ahead(&self) -> bool {
        self.deals >= DEALS_TO_BE_AHEAD && self.interval.is_some_and(|(low, _)| low > 0.0)
    }
}

/// The standings, best first, and every pair compared.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Standings {
    pub entrants: Vec<Standing>,
    pub pairs: Vec<Comparison>,
}

impl Standings {
    /// The comparison of `a` and `b`, whichever is better.
    pub fn pair(&self, a: usize, b: usize) -> Option<&Comparison> {
        self.pairs.iter().find(|c| (c.better, c.worse) == (a, b) || (c.better, c.worse) == (b, a))
    }

    /// Where these standings and `other` differ, if they do, up to the last bits of each
    /// figure: a decimal written by one program and read by another may differ there
    /// (JSON's numbers are decimal).
    pub fn difference(&self, other: &Standings) -> Option<Difference> {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
        let close_interval = |a: Option<(f64, f64)>, b: Option<(f64, f64)>| match (a, b) {
            (Some(a), Some(b)) => close(a.0, b.0) && close(a.1, b.1),
            (a, b) => a.is_none() && b.is_none(),
        };
        if self.entrants.len() != other.entrants.len() || self.pairs.len() != other.pairs.len() {
            return Some(Difference::Size);
        }
        for (place, (a, b)) in self.entrants.iter().zip(&other.entrants).enumerate() {
            let same = (a.entrant, a.games, a.wins, a.deals) == (b.entrant, b.games, b.wins, b.deals)
                && close(a.points, b.points)
                && close(a.mean_points, b.mean_points)
                && close(a.mean_place, b.mean_place)
                && close_interval(a.interval, b.interval);
            if !same {
                return Some(Difference::Line { place, counted: a.clone(), published: b.clone() });
            }
        }
        for (a, b) in self.pairs.iter().zip(&other.pairs) {
            let same = (a.better, a.worse, a.deals) == (b.better, b.worse, b.deals)
                && close(a.difference, b.difference)
                && close_interval(a.interval, b.interval);
            if !same {
                return Some(Difference::Pair { counted: a.clone(), published: b.clone() });
            }
        }
        None
    }

    /// Whether `a` is ahead of `b` with 95% confidence.
    pub fn ahead(&self, a: usize, b: usize) -> bool {
        self.pair(a, b).is_some_and(|c| c.better == a && c.ahead())
    }
}

/// Where two standings differ ([`Standings::difference`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Difference {
    /// Not the same number of entrants or pairs.
    Size,
    /// The line at `place` (from 0).
    Line {
        place: usize,
        counted: Standing,
        published: Standing,
    },
    Pair {
        counted: Comparison,
        published: Comparison,
    },
}

impl Difference {
    /// In words, entrants named by `name`.
    pub fn say(&self, name: impl Fn(usize) -> String) -> String {
        let line = |s: &Standing| {
            format!(
                "{}: {} games, {} wins, {:.6} points a game, mean place {:.6}",
                name(s.entrant),
                s.games,
                s.wins,
                s.mean_points,
                s.mean_place
            )
        };
        let pair =
            |c: &Comparison| format!("{} over {} by {:.6}", name(c.better), name(c.worse), c.difference);
        match self {
            Difference::Size => "they do not have the same entrants and pairs".into(),
            Difference::Line { place, counted, published } => {
                format!("place {}: counted {}; published {}", place + 1, line(counted), line(published))
            }
            Difference::Pair { counted, published } => {
                format!("a pair: counted {}; published {}", pair(counted), pair(published))
            }
        }
    }
}

/// Why games cannot be counted, naming the game at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StandingsError {
    #[error("game {game}: entrant {entrant} is not one of the {entrants} entrants")]
    NoSuchEntrant { game: usize, entrant: usize, entrants: usize },
    #[error("game {game}: entrant {entrant} finished twice")]
    FinishedTwice { game: usize, entrant: usize },
    #[error("game {game}: a game ranks at least two entrants")]
    TooFewFinishers { game: usize },
}

/// Points for `place` (0 for first) at a table of `seats`.
pub fn points(place: usize, seats: usize) -> f64 {
    if seats < 2 { 0.0 } else { (seats - 1 - place.min(seats - 1)) as f64 / (seats - 1) as f64 }
}

/// Student's t for a two-sided 95% interval with `df` degrees of freedom.
fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        // Cornish–Fisher's first term past the table: within 0.001 of the exact value.
        _ => 1.959_964 + 2.372 / df as f64,
    }
}

/// The mean of `samples` and its 95% interval (none for fewer than two).
pub fn mean_interval(samples: &[f64]) -> (f64, Option<(f64, f64)>) {
    let n = samples.len();
    if n == 0 {
        return (0.0, None);
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, None);
    }
    let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t95(n - 1) * (variance / n as f64).sqrt();
    (mean, Some((mean - half, mean + half)))
}

/// The entrants best first, as the standings order them (without the pairs): what seats a
/// Swiss round. Give the games in the schedule's order, as a verifier does: points summed in
/// another order can differ in their last bits, and a tie then falls the other way.
pub fn order(entrants: usize, games: &[Finished]) -> Result<Vec<usize>, StandingsError> {
    Ok(lines(entrants, games)?.0.into_iter().map(|s| s.entrant).collect())
}

/// Each entrant's line, best first, and its mean points deal by deal.
type Lines = (Vec<Standing>, Vec<BTreeMap<u32, f64>>);

fn lines(entrants: usize, games: &[Finished]) -> Result<Lines, StandingsError> {
    // Per entrant, per deal: points and games.
    let mut by_deal: Vec<BTreeMap<u32, (f64, u32)>> = vec![BTreeMap::new(); entrants];
    let (mut played, mut wins, mut places) =
        (vec![0u32; entrants], vec![0u32; entrants], vec![0u64; entrants]);
    let mut seen = vec![usize::MAX; entrants];
    for (g, game) in games.iter().enumerate() {
        if game.finish.len() < 2 {
            return Err(StandingsError::TooFewFinishers { game: g });
        }
        for &e in &game.finish {
            if e >= entrants {
                return Err(StandingsError::NoSuchEntrant { game: g, entrant: e, entrants });
            }
            if std::mem::replace(&mut seen[e], g) == g {
                return Err(StandingsError::FinishedTwice { game: g, entrant: e });
            }
        }
        let seats = game.finish.len();
        for (place, &e) in game.finish.iter().enumerate() {
            let slot = by_deal[e].entry(game.deal).or_insert((0.0, 0));
            slot.0 += points(place, seats);
            slot.1 += 1;
            played[e] += 1;
            places[e] += place as u64 + 1;
            wins[e] += u32::from(place == 0);
        }
    }
    let means: Vec<BTreeMap<u32, f64>> =
        by_deal.iter().map(|d| d.iter().map(|(&deal, &(p, n))| (deal, p / f64::from(n))).collect()).collect();
    let mut table: Vec<Standing> = (0..entrants)
        .map(|e| {
            let samples: Vec<f64> = means[e].values().copied().collect();
            let (mean_points, interval) = mean_interval(&samples);
            // Points lie in 0..=1, so their mean does too (a t interval can reach past).
            let interval = interval.map(|(low, high)| (low.max(0.0), high.min(1.0)));
            Standing {
                entrant: e,
                games: played[e],
                wins: wins[e],
                points: by_deal[e].values().map(|&(p, _)| p).sum(),
                mean_points,
                interval,
                mean_place: if played[e] == 0 { 0.0 } else { places[e] as f64 / f64::from(played[e]) },
                deals: samples.len() as u32,
            }
        })
        .collect();
    table.sort_by(|a, b| {
        b.mean_points
            .total_cmp(&a.mean_points)
            .then(a.mean_place.total_cmp(&b.mean_place))
            .then(b.wins.cmp(&a.wins))
            .then(a.entrant.cmp(&b.entrant))
    });
    Ok((table, means))
}

/// Fields up to this many entrants compare every pair; larger ones compare neighbours in
/// the standings.
pub const MAX_ALL_PAIRS: usize = 64;

/// The standings of `entrants` entrants after `games`.
pub fn standings(entrants: usize, games: &[Finished]) -> Result<Standings, StandingsError> {
    let (table, means) = lines(entrants, games)?;
    // Every pair in a field small enough; past it (pairs go as the square of the field, and
    // a Swiss field can be a thousand) each entrant against its neighbours in the standings,
    // which is what a ranking's confidence rests on.
    let pairs_of: Vec<(usize, usize)> = if entrants <= MAX_ALL_PAIRS {
        (0..entrants).flat_map(|a| (a + 1..entrants).map(move |b| (a, b))).collect()
    } else {
        table.windows(2).map(|w| (w[0].entrant.min(w[1].entrant), w[0].entrant.max(w[1].entrant))).collect()
    };
    let mut pairs = Vec::new();
    for (a, b) in pairs_of {
        // The deals both played, paired.
        let diffs: Vec<f64> =
            means[a].iter().filter_map(|(deal, &pa)| means[b].get(deal).map(|&pb| pa - pb)).collect();
        if diffs.is_empty() {
            continue;
        }
        let (difference, interval) = mean_interval(&diffs);
        let interval = interval.map(|(low, high)| (low.max(-1.0), high.min(1.0)));
        let deals = diffs.len() as u32;
        pairs.push(if difference >= 0.0 {
            Comparison { better: a, worse: b, difference, interval, deals }
        } else {
            Comparison {
                better: b,
                worse: a,
                difference: -difference,
                interval: interval.map(|(l, h)| (-h, -l)),
                deals,
            }
        });
    }
    Ok(Standings { entrants: table, pairs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_run_from_one_for_first_to_nought_for_last() {
        assert_eq!((points(0, 3), points(1, 3), points(2, 3)), (1.0, 0.5, 0.0));
        assert_eq!((points(0, 2), points(1, 2)), (1.0, 0.0));
    }

    #[test]
    fn an_interval_matches_the_textbook() {
        // Mean 3, sample sd 1.5811, n = 5, t(4) = 2.776: half-width 1.963.
        let (mean, interval) = mean_interval(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let (low, high) = interval.unwrap_or_default();
        assert!((mean - 3.0).abs() < 1e-12);
        assert!((low - 1.037).abs() < 1e-3 && (high - 4.963).abs() < 1e-3, "{low} {high}");
        assert_eq!(mean_interval(&[0.5]), (0.5, None));
        assert!(t95(31) > 1.96 && t95(31) < t95(30) && (t95(120) - 1.980).abs() < 1e-3);
    }

    #[test]
    fn an_entrant_that_always_wins_is_ahead_of_one_that_never_does() {
        // Entrant 0 beats 1 on every deal; 2 is in between and sometimes first.
        let games: Vec<Finished> = (0..10)
            .flat_map(|deal| {
                let middle = if deal % 3 == 0 { vec![2, 0, 1] } else { vec![0, 2, 1] };
                [Finished { deal, finish: middle }, Finished { deal, finish: vec![0, 1, 2] }]
            })
            .collect();
        let s = standings(3, &games).unwrap_or_default();
        assert_eq!(s.entrants.iter().map(|e| e.entrant).collect::<Vec<_>>(), vec![0, 2, 1]);
        let first = &s.entrants[0];
        assert_eq!((first.games, first.deals), (20, 10));
        assert!(s.ahead(0, 1) && !s.ahead(1, 0));
        let sum: f64 = s.entrants.iter().map(|e| e.points).sum();
        assert!((sum - 20.0 * 1.5).abs() < 1e-9, "each game of three gives 1.5 points: {sum}");
        assert_eq!(s.pairs.len(), 3);
    }

    #[test]
    fn a_few_deals_all_alike_call_nobody_ahead() {
        // Entrant 0 wins each of five deals: an interval of no width, and not yet evidence.
        let games = |deals: u32| -> Vec<Finished> {
            (0..deals).map(|deal| Finished { deal, finish: vec![0, 1] }).collect()
        };
        let five = standings(2, &games(5)).unwrap_or_default();
        assert_eq!(five.pair(0, 1).and_then(|c| c.interval), Some((1.0, 1.0)));
        assert!(!five.ahead(0, 1));
        assert!(standings(2, &games(DEALS_TO_BE_AHEAD)).unwrap_or_default().ahead(0, 1));
    }

    #[test]
    fn even_entrants_are_not_called_apart() {
        let games: Vec<Finished> = (0..40)
            .map(|deal| Finished { deal, finish: if deal % 2 == 0 { vec![0, 1] } else { vec![1, 0] } })
            .collect();
        let s = standings(2, &games).unwrap_or_default();
        assert!(!s.ahead(0, 1) && !s.ahead(1, 0), "{s:?}");
    }

    #[test]
    fn a_large_field_compares_neighbours_in_the_standings() {
        // 70 entrants in a line, each deal the same order: 69 neighbouring pairs, not 2,415.
        let games: Vec<Finished> = (0..5).map(|deal| Finished { deal, finish: (0..70).collect() }).collect();
        let s = standings(70, &games).unwrap_or_default();
        assert_eq!(s.pairs.len(), 69);
        assert!(s.pairs.iter().all(|p| p.better + 1 == p.worse));
        assert_eq!(order(70, &games).unwrap_or_default(), (0..70).collect::<Vec<_>>());
    }

    #[test]
    fn bad_games_are_named() {
        let bad = |finish: Vec<usize>| standings(2, &[Finished { deal: 0, finish }]);
        assert_eq!(bad(vec![0, 2]), Err(StandingsError::NoSuchEntrant { game: 0, entrant: 2, entrants: 2 }));
        assert_eq!(bad(vec![1, 1]), Err(StandingsError::FinishedTwice { game: 0, entrant: 1 }));
        assert_eq!(bad(vec![1]), Err(StandingsError::TooFewFinishers { game: 0 }));
    }
}
