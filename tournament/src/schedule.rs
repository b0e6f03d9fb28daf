//! The schedule: which entrants sit where, on which deal.
//!
//! Entrants are numbered from 0 in the order they entered; a game's `seats` lists them by
//! seat. A schedule is data made once from its inputs (and, for a Swiss round, the order of
//! the standings before it), so it can be stored, published and made again by anyone.
//!
//! - **Duplicate round robin** ([`round_robin`]): every line-up of `seats` entrants (every
//!   combination) plays every deal once per rotation of its seats, the line-up's order
//!   reversed on every other deal.
//! - **Swiss** ([`swiss_round`]): for fields too large for a round robin, each round seats
//!   the entrants at tables in order of standing (the best together), and every table plays
//!   the round's deals in duplicate.

use serde::{Deserialize, Serialize};

/// Entrants one tournament may hold.
pub const MAX_ENTRANTS: usize = 1024;
/// Seats at one table of a schedule (a rule set may allow fewer).
pub const MAX_SEATS: usize = 64;
/// Deals per round robin or per Swiss round.
pub const MAX_DEALS: u32 = 10_000;
/// Games one schedule (a round robin, or one Swiss round) may hold: a server plays every one,
/// and a verifier makes the schedule before it reads a game (200,000 games of 64 seats are
/// about 115 MB).
pub const MAX_GAMES: u64 = 200_000;

/// How a schedule's games get their dice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Deals {
    /// Every rotation of a line-up plays the same deal: the dice's luck cancels.
    #[default]
    Duplicate,
    /// Every game has dice of its own: the same schedule without the cancelling, to measure
    /// what duplicate play buys.
    Fresh,
}

/// One game of a schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    /// Its place in the schedule, from 0.
    pub number: u32,
    /// The Swiss round it belongs to (0 in a round robin).
    pub round: u32,
    /// Its line-up within the round: games of one table seat the same entrants, rotated.
    pub table: u32,
    /// The deal, numbered across the whole tournament. Standings compare entrants deal by
    /// deal, so a deal is the unit the intervals count.
    pub deal: u32,
    /// The seed of the game's dice (the table's seed on the server).
    pub seed: u64,
    /// The entrants by seat.
    pub seats: Vec<usize>,
}

/// Why a schedule cannot be made, naming the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("entrants: a tournament needs at least {min} entrants, not {got}")]
    TooFewEntrants { got: usize, min: usize },
    #[error("entrants: at most {MAX_ENTRANTS} entrants, not {got}")]
    TooManyEntrants { got: usize },
    #[error("seats: a table has from 2 to {MAX_SEATS} seats, not {got}")]
    Seats { got: usize },
    #[error("seats: {seats} seats a table is more than the {entrants} entrants")]
    SeatsOverEntrants { seats: usize, entrants: usize },
    #[error("deals: from 1 to {MAX_DEALS} deals, not {got}")]
    Deals { got: u32 },
    #[error("deals: {games} games would be scheduled, more than {MAX_GAMES}; fewer deals, seats or entrants")]
    TooManyGames { games: u64 },
    #[error("order: the standings' order must list each of the {entrants} entrants once")]
    Order { entrants: usize },
    #[error("order: {0}")]
    Standings(String),
}

/// The dice seed of a game: a deal's seed in duplicate play, the game's own otherwise.
fn game_seed(deals: Deals, seed: u64, deal: u32, number: u32) -> u64 {
    match deals {
        Deals::Duplicate => dudo_rules::nth_seed(seed, u64::from(deal)),
        // Another stream of the same seed: no fresh game shares a duplicate deal's dice.
        Deals::Fresh => dudo_rules::nth_seed(!seed, u64::from(number)),
    }
}

fn check(entrants: usize, seats: usize, deals: u32) -> Result<(), ScheduleError> {
    if entrants < 2 {
        return Err(ScheduleError::TooFewEntrants { got: entrants, min: 2 });
    }
    if entrants > MAX_ENTRANTS {
        return Err(ScheduleError::TooManyEntrants { got: entrants });
    }
    if !(2..=MAX_SEATS).contains(&seats) {
        return Err(ScheduleError::Seats { got: seats });
    }
    if seats > entrants {
        return Err(ScheduleError::SeatsOverEntrants { seats, entrants });
    }
    if !(1..=MAX_DEALS).contains(&deals) {
        return Err(ScheduleError::Deals { got: deals });
    }
    Ok(())
}

/// The number of ways to choose `k` of `n`, or `None` past `u64`.
fn choose(n: u64, k: u64) -> Option<u64> {
    let k = k.min(n - k);
    let mut c: u64 = 1;
    for i in 0..k {
        // c·(n−i)/(i+1) stays whole at every step.
        c = c.checked_mul(n - i)? / (i + 1);
    }
    Some(c)
}

/// Every `k`-entrant line-up of `n` entrants, in lexicographic order.
fn lineups(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut pick: Vec<usize> = (0..k).collect();
    loop {
        out.push(pick.clone());
        // The rightmost index that can still move right.
        let Some(i) = (0..k).rev().find(|&i| pick[i] < n - k + i) else { return out };
        pick[i] += 1;
        for j in i + 1..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

/// How many games [`round_robin`] would schedule, without making them.
pub fn round_robin_games(entrants: usize, seats: usize, deals: u32) -> Result<u64, ScheduleError> {
    check(entrants, seats, deals)?;
    let games = choose(entrants as u64, seats as u64)
        .and_then(|l| l.checked_mul(seats as u64))
        .and_then(|g| g.checked_mul(u64::from(deals)))
        .unwrap_or(u64::MAX);
    if games > MAX_GAMES {
        return Err(ScheduleError::TooManyGames { games });
    }
    Ok(games)
}

/// How many games one [`swiss_round`] would schedule, without making them.
pub fn swiss_round_games(entrants: usize, seats: usize, deals: u32) -> Result<u64, ScheduleError> {
    check(entrants, seats, deals)?;
    let (sizes, _sitting_out) = swiss_tables(entrants, seats);
    let games = sizes.iter().map(|&s| s as u64).sum::<u64>() * u64::from(deals);
    if games > MAX_GAMES {
        return Err(ScheduleError::TooManyGames { games });
    }
    Ok(games)
}

/// A duplicate round robin: for each deal, every line-up of `seats` entrants, each in every
/// rotation of its seats. Games are ordered deal by deal, so a schedule cut short still has
/// whole deals.
pub fn round_robin(
    entrants: usize,
    seats: usize,
    deals: u32,
    seed: u64,
    kind: Deals,
) -> Result<Vec<Game>, ScheduleError> {
    let games = round_robin_games(entrants, seats, deals)?;
    let lineups = lineups(entrants, seats);
    let mut out = Vec::with_capacity(games as usize);
    for deal in 0..deals {
        for (table, lineup) in lineups.iter().enumerate() {
            rotations(&mut out, lineup, 0, table as u32, deal, seed, kind);
        }
    }
    Ok(out)
}

/// Every rotation of `lineup` on `deal`, appended to `out`; on odd deals the line-up's
/// order is reversed first.
///
/// Rotations alone seat every entrant in every position but keep who sits after whom: at
/// three seats, entrant 1 would always bid just after entrant 0, and two copies of one bot
/// would come out unequal. Reversing the order on every other deal seats each entrant on
/// both sides of every other.
fn rotations(
    out: &mut Vec<Game>,
    lineup: &[usize],
    round: u32,
    table: u32,
    deal: u32,
    seed: u64,
    kind: Deals,
) {
    let mut order = lineup.to_vec();
    if deal % 2 == 1 {
        order.reverse();
    }
    for r in 0..order.len() {
        let mut seated = order.clone();
        seated.rotate_left(r);
        let number = out.len() as u32;
        out.push(Game {
            number,
            round,
            table,
            deal,
            seed: game_seed(kind, seed, deal, number),
            seats: seated,
        });
    }
}

/// The entrants in an order drawn by lot from `seed`: the first Swiss round's seating.
pub fn by_lot(entrants: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..entrants).collect();
    // Sorting by a hash of each entrant under the seed is a shuffle without a generator.
    order.sort_by_key(|&e| dudo_rules::nth_seed(seed.rotate_left(17), e as u64));
    order
}

/// How a Swiss round of `entrants` at tables of at most `seats` is split: table sizes, best
/// tables first, and how many entrants at the bottom sit the round out.
///
/// Tables are as equal as they can be (sizes differ by at most one). Only when that would
/// leave a table of one (two seats a table and an odd field) does the lowest entrant sit out.
pub fn swiss_tables(entrants: usize, seats: usize) -> (Vec<usize>, usize) {
    let mut playing = entrants;
    loop {
        let tables = playing.div_ceil(seats.max(1)).max(1);
        let (base, extra) = (playing / tables, playing % tables);
        if base >= 2 || playing < 2 {
            let sizes = (0..tables).map(|t| base + usize::from(t < extra)).collect();
            return (sizes, entrants - playing);
        }
        playing -= 1;
    }
}

/// Swiss round `round` (from 0): entrants seated at tables in `order` (best first; the
/// standings' order after the last round, [`by_lot`] before the first), each table playing
/// `deals` deals in every rotation. The round's deals are numbered after the earlier
/// rounds', and every table of the round plays the same deals. `first_number` is the number
/// of the round's first game (the games scheduled before it).
pub fn swiss_round(
    order: &[usize],
    seats: usize,
    deals: u32,
    round: u32,
    first_number: u32,
    seed: u64,
    kind: Deals,
) -> Result<Vec<Game>, ScheduleError> {
    let entrants = order.len();
    check(entrants, seats, deals)?;
    let mut seen = vec![false; entrants];
    for &e in order {
        if e >= entrants || std::mem::replace(&mut seen[e], true) {
            return Err(ScheduleError::Order { entrants });
        }
    }
    let games = swiss_round_games(entrants, seats, deals)?;
    let (sizes, _sitting_out) = swiss_tables(entrants, seats);
    let mut out = Vec::with_capacity(games as usize);
    for d in 0..deals {
        let deal = round.saturating_mul(deals).saturating_add(d);
        let mut at = 0;
        for (table, &size) in sizes.iter().enumerate() {
            rotations(&mut out, &order[at..at + size], round, table as u32, deal, seed, kind);
            at += size;
        }
    }
    for game in &mut out {
        game.number += first_number;
        if kind == Deals::Fresh {
            game.seed = game_seed(kind, seed, game.deal, game.number);
        }
    }
    Ok(out)
}

/// Swiss round `round` of a tournament whose games so far (every earlier round's, in
/// schedule order) finished as `finished`: seated by lot for the first round, by the
/// standings of every game before it after that. The server, `dudo arena` and a verifier
/// all seat a round by this.
pub fn swiss_round_after(
    entrants: usize,
    seats: usize,
    deals: u32,
    round: u32,
    finished: &[crate::Finished],
    seed: u64,
    kind: Deals,
) -> Result<Vec<Game>, ScheduleError> {
    let order = if round == 0 {
        by_lot(entrants, seed)
    } else {
        crate::standings::order(entrants, finished).map_err(|e| ScheduleError::Standings(e.to_string()))?
    };
    let first = u32::try_from(finished.len())
        .map_err(|_| ScheduleError::TooManyGames { games: finished.len() as u64 })?;
    swiss_round(&order, seats, deals, round, first, seed, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_round_robin_seats_every_entrant_everywhere_on_every_deal() {
        let games = round_robin(4, 3, 2, 7, Deals::Duplicate).unwrap_or_default();
        // 4 line-ups of 3, 3 rotations each, 2 deals.
        assert_eq!(games.len(), 4 * 3 * 2);
        for deal in 0..2 {
            let of_deal: Vec<&Game> = games.iter().filter(|g| g.deal == deal).collect();
            assert!(of_deal.iter().all(|g| g.seed == of_deal[0].seed), "one deal, one seed");
            for entrant in 0..4 {
                for seat in 0..3 {
                    assert!(
                        of_deal.iter().any(|g| g.seats[seat] == entrant),
                        "entrant {entrant} sits in seat {seat} on deal {deal}"
                    );
                }
            }
        }
        assert_ne!(games[0].seed, games[12].seed, "deals differ");
        // Over two deals each entrant sits just after every other it shares a table with.
        for (a, b) in [(0, 1), (1, 0), (0, 3), (3, 0), (2, 3), (3, 2)] {
            let after = games.iter().any(|g| (0..3).any(|s| g.seats[s] == a && g.seats[(s + 1) % 3] == b));
            assert!(after, "{b} sits just after {a} somewhere");
        }
        assert!(games.iter().enumerate().all(|(i, g)| g.number as usize == i));
        // The same inputs make the same schedule.
        assert_eq!(games, round_robin(4, 3, 2, 7, Deals::Duplicate).unwrap_or_default());
    }

    #[test]
    fn fresh_deals_give_every_game_its_own_dice() {
        let games = round_robin(3, 3, 4, 7, Deals::Fresh).unwrap_or_default();
        let mut seeds: Vec<u64> = games.iter().map(|g| g.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), games.len());
    }

    #[test]
    fn line_ups_are_every_combination() {
        assert_eq!(
            lineups(4, 2),
            vec![vec![0, 1], vec![0, 2], vec![0, 3], vec![1, 2], vec![1, 3], vec![2, 3]]
        );
        assert_eq!(lineups(3, 3), vec![vec![0, 1, 2]]);
        for (n, k) in [(6, 3), (10, 4), (7, 2)] {
            assert_eq!(Some(lineups(n, k).len() as u64), choose(n as u64, k as u64));
        }
    }

    #[test]
    fn bad_inputs_name_their_field() {
        assert_eq!(
            round_robin(1, 2, 1, 0, Deals::Duplicate),
            Err(ScheduleError::TooFewEntrants { got: 1, min: 2 })
        );
        assert_eq!(
            round_robin(3, 4, 1, 0, Deals::Duplicate),
            Err(ScheduleError::SeatsOverEntrants { seats: 4, entrants: 3 })
        );
        assert_eq!(round_robin(3, 1, 1, 0, Deals::Duplicate), Err(ScheduleError::Seats { got: 1 }));
        assert_eq!(round_robin(3, 3, 0, 0, Deals::Duplicate), Err(ScheduleError::Deals { got: 0 }));
        // C(1024, 6)·6·deals is far past the limit, and is refused without being made.
        let refused = round_robin(1024, 6, 50, 0, Deals::Duplicate);
        assert!(matches!(refused, Err(ScheduleError::TooManyGames { .. })), "{refused:?}");
        assert!(refused.err().is_some_and(|e| e.to_string().starts_with("deals:")));
        assert_eq!(
            swiss_round(&[0, 0, 1], 3, 1, 0, 0, 0, Deals::Duplicate),
            Err(ScheduleError::Order { entrants: 3 })
        );
        assert_eq!(
            swiss_round(&[0, 1, 5], 3, 1, 0, 0, 0, Deals::Duplicate),
            Err(ScheduleError::Order { entrants: 3 })
        );
    }

    #[test]
    fn swiss_tables_are_as_equal_as_can_be() {
        assert_eq!(swiss_tables(64, 6), (vec![6, 6, 6, 6, 6, 6, 6, 6, 6, 5, 5], 0));
        assert_eq!(swiss_tables(12, 6), (vec![6, 6], 0));
        assert_eq!(swiss_tables(7, 6), (vec![4, 3], 0));
        assert_eq!(swiss_tables(5, 2), (vec![2, 2], 1), "an odd field at two seats: the last sits out");
        assert_eq!(swiss_tables(2, 2), (vec![2], 0));
    }

    #[test]
    fn a_swiss_round_seats_by_standing_and_numbers_after_earlier_rounds() {
        let order = by_lot(8, 3);
        assert_eq!(order.len(), 8);
        assert_ne!(order, (0..8).collect::<Vec<_>>(), "drawn by lot");
        let games = swiss_round(&order, 4, 2, 1, 100, 3, Deals::Duplicate).unwrap_or_default();
        // 2 tables of 4, 4 rotations, 2 deals.
        assert_eq!(games.len(), 16);
        assert_eq!(games[0].number, 100);
        assert!(games.iter().all(|g| g.round == 1 && (g.deal == 2 || g.deal == 3)));
        let top: Vec<usize> = games.iter().filter(|g| g.table == 0).flat_map(|g| g.seats.clone()).collect();
        assert!(top.iter().all(|e| order[..4].contains(e)), "the best four sit together");
    }
}
