//! Ladder ratings: Weng-Lin (the OpenSkill model) for N players, per pool.
//!
//! A ladder game's record is written with `rating_pool` = `ladder:POOL`; in the same
//! transaction each player's (mu, sigma) is read, the game's finishing order applied (each
//! player a team of one, ranked by place), and the new ratings and a history row written.
//! A record written twice is kept once (the caller returns before rating a game already
//! there), so a retried batch never rates a game twice.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use sqlx::Row;

use crate::{GamePlayer, GameSummary, Store, StoreError};

/// What a ladder game's `rating_pool` starts with.
pub const POOL_PREFIX: &str = "ladder:";

/// Games before a rating counts as settled (the board marks fewer as provisional).
pub const SETTLED_AFTER: i64 = 10;

#[derive(Clone, Debug, PartialEq)]
pub struct LadderRating {
    pub name: String,
    /// "person", "bot" (an account's kind) or "" (a built-in bot).
    pub kind: String,
    pub mu: f64,
    pub sigma: f64,
    pub games: i64,
    pub wins: i64,
}

impl LadderRating {
    /// What the board is ordered by: a rating the player is very likely above.
    pub fn score(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }

    /// Whether the ratings say this player is stronger than `other`: their mus further apart
    /// than three times their combined uncertainty, √(σ₁² + σ₂²) (docs/ladder.md, "How many
    /// games an order needs").
    pub fn told_above(&self, other: &LadderRating) -> bool {
        self.mu - other.mu > 3.0 * self.sigma.hypot(other.sigma)
    }
}

/// Each player's place on a board in its order (from 1). A player shares a place with the
/// first player in it until the ratings can tell the two apart; then it starts a place of its
/// own. Measured from a place's first player, not the row above: uncertain newcomers between
/// two players the ratings do tell apart would otherwise chain them into one place (a hostile
/// try merged a whole board so with a few one-game accounts).
pub fn places(board: &[LadderRating]) -> Vec<u32> {
    let mut places = Vec::with_capacity(board.len());
    let mut first: Option<(&LadderRating, u32)> = None;
    for (i, player) in board.iter().enumerate() {
        let place = match first {
            Some((leader, shared)) if !leader.told_above(player) => shared,
            _ => {
                let own = u32::try_from(i + 1).unwrap_or(u32::MAX);
                first = Some((player, own));
                own
            }
        };
        places.push(place);
    }
    places
}

#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    pub game: String,
    pub mu: f64,
    pub sigma: f64,
    pub place: i64,
    pub at: i64,
}

fn rating_of(row: &sqlx::any::AnyRow) -> Result<LadderRating, sqlx::Error> {
    Ok(LadderRating {
        name: row.try_get("name")?,
        kind: row.try_get("kind")?,
        mu: row.try_get("mu")?,
        sigma: row.try_get("sigma")?,
        games: row.try_get("games")?,
        wins: row.try_get("wins")?,
    })
}

/// A seat's finishing place; one with no place (0) finished last.
fn place_of(p: &GamePlayer) -> usize {
    if p.place == 0 { usize::MAX } else { p.place as usize }
}

/// Rates a finished ladder game in its own transaction.
pub(crate) async fn rate(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    pool: &str,
    s: &GameSummary,
) -> Result<(), sqlx::Error> {
    let fresh = WengLinRating::new();
    // Every seat is a team of its own. A name in several seats (two of the server's odds
    // bots at one table) is one rating that played the game several times over: each seat is
    // rated against the others, and the rating moves by the mean of its seats' moves. (Rating
    // it by its better place would favour a strategy that often fills two seats over the same
    // strategy playing one: the built-in odds bot rated 11 mu above the same odds bot played
    // over the network.)
    let mut players: Vec<(&GamePlayer, String, WengLinRating, i64, i64)> = Vec::new();
    let mut seats: Vec<(&GamePlayer, usize)> = Vec::new();
    for p in &s.players {
        let name = p.rated_as();
        if let Some(i) = players.iter().position(|(_, n, ..)| *n == name) {
            if place_of(p) < place_of(players[i].0) {
                players[i].0 = p;
            }
            seats.push((p, i));
            continue;
        }
        let row =
            sqlx::query("SELECT mu, sigma, games, wins FROM ladder_ratings WHERE pool = $1 AND name = $2")
                .bind(pool)
                .bind(&name)
                .fetch_optional(&mut **tx)
                .await?;
        let (rating, games, wins) = match row {
            Some(r) => (
                WengLinRating { rating: r.try_get("mu")?, uncertainty: r.try_get("sigma")? },
                r.try_get("games")?,
                r.try_get("wins")?,
            ),
            None => (fresh, 0, 0),
        };
        seats.push((p, players.len()));
        players.push((p, name, rating, games, wins));
    }
    let teams: Vec<[WengLinRating; 1]> = seats.iter().map(|&(_, i)| [players[i].2]).collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> =
        teams.iter().zip(&seats).map(|(t, (p, _))| (&t[..], MultiTeamOutcome::new(place_of(p)))).collect();
    let by_seat = weng_lin_multi_team(&ranked, &WengLinConfig::new());
    let after: Vec<Vec<WengLinRating>> = players
        .iter()
        .enumerate()
        .map(|(i, (_, _, before, ..))| {
            let moved: Vec<WengLinRating> = seats
                .iter()
                .zip(&by_seat)
                .filter(|((_, of), _)| *of == i)
                .filter_map(|(_, new)| new.first().copied())
                .collect();
            if moved.is_empty() {
                return vec![*before];
            }
            let n = moved.len() as f64;
            vec![WengLinRating {
                rating: before.rating + moved.iter().map(|r| r.rating - before.rating).sum::<f64>() / n,
                uncertainty: moved.iter().map(|r| r.uncertainty).sum::<f64>() / n,
            }]
        })
        .collect();
    for ((p, name, _, games, wins), new) in players.iter().zip(after) {
        let Some(new) = new.first() else { continue };
        let won = i64::from(p.place == 1);
        sqlx::query(
            "INSERT INTO ladder_ratings (pool, name, kind, mu, sigma, games, wins, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (pool, name) DO UPDATE SET mu = $4, sigma = $5, games = $6, wins = $7, updated_at = $8",
        )
        .bind(pool)
        .bind(name)
        .bind(&p.account_kind)
        .bind(new.rating)
        .bind(new.uncertainty)
        .bind(games + 1)
        .bind(wins + won)
        .bind(s.finished_at)
        .execute(&mut **tx)
        .await?;
        sqlx::query(
            "INSERT INTO ladder_history (pool, name, game_id, mu, sigma, place, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (pool, name, game_id) DO NOTHING",
        )
        .bind(pool)
        .bind(name)
        .bind(&s.id)
        .bind(new.rating)
        .bind(new.uncertainty)
        .bind(i64::from(p.place))
        .bind(s.finished_at)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

impl Store {
    /// A pool's board, best first by mu − 3·sigma.
    pub async fn leaderboard(&self, pool: &str, limit: u32) -> Result<Vec<LadderRating>, StoreError> {
        let limit = if limit == 0 { 100 } else { limit.min(1000) };
        let rows = sqlx::query(
            "SELECT name, kind, mu, sigma, games, wins FROM ladder_ratings WHERE pool = $1 \
             ORDER BY mu - 3 * sigma DESC, name LIMIT $2",
        )
        .bind(pool)
        .bind(i64::from(limit))
        .fetch_all(&self.reads)
        .await?;
        Ok(rows.iter().map(rating_of).collect::<Result<_, _>>()?)
    }

    /// One player's rating in a pool, if it has played there.
    pub async fn ladder_rating(&self, pool: &str, name: &str) -> Result<Option<LadderRating>, StoreError> {
        let row = sqlx::query(
            "SELECT name, kind, mu, sigma, games, wins FROM ladder_ratings WHERE pool = $1 AND LOWER(name) = LOWER($2)",
        )
        .bind(pool)
        .bind(name)
        .fetch_optional(&self.reads)
        .await?;
        Ok(row.as_ref().map(rating_of).transpose()?)
    }

    /// A player's rating after each of its games in a pool, newest first.
    pub async fn rating_history(
        &self,
        pool: &str,
        name: &str,
        limit: u32,
    ) -> Result<Vec<RatingPoint>, StoreError> {
        let limit = if limit == 0 { 100 } else { limit.min(1000) };
        let rows = sqlx::query(
            "SELECT game_id, mu, sigma, place, at FROM ladder_history WHERE pool = $1 AND LOWER(name) = LOWER($2) \
             ORDER BY at DESC, game_id DESC LIMIT $3",
        )
        .bind(pool)
        .bind(name)
        .bind(i64::from(limit))
        .fetch_all(&self.reads)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RatingPoint {
                    game: r.try_get("game_id")?,
                    mu: r.try_get("mu")?,
                    sigma: r.try_get("sigma")?,
                    place: r.try_get("place")?,
                    at: r.try_get("at")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rated(name: &str, mu: f64, sigma: f64) -> LadderRating {
        LadderRating { name: name.into(), kind: "bot".into(), mu, sigma, games: 50, wins: 10 }
    }

    #[test]
    fn players_the_ratings_cannot_tell_apart_share_a_place() {
        // As a hostile try saw it: 24 wins to 13 after 51 games, mus 2 apart, sigmas 1.8.
        let board = [
            rated("ahead", 30.0, 1.8),
            rated("behind", 28.0, 1.8),
            // 28 − 16 = 12 > 3·√(1.8² + 1.5²) ≈ 7.0: told apart.
            rated("weaker", 16.0, 1.5),
            rated("as weak", 15.5, 1.5),
            rated("weakest", 1.0, 1.0),
        ];
        assert_eq!(places(&board), vec![1, 1, 3, 3, 5]);
        assert!(board[1].told_above(&board[2]) && !board[0].told_above(&board[1]));
        assert!(places(&[]).is_empty());
    }

    #[test]
    fn uncertain_players_between_two_the_ratings_tell_apart_do_not_chain_them() {
        // Each row is too close to the one above to tell, but the third is told from the first.
        let board = [
            rated("settled", 32.0, 2.0),
            rated("new", 22.0, 6.0),
            rated("newer", 12.0, 3.0),
            rated("last", 3.0, 0.5),
        ];
        assert_eq!(places(&board), vec![1, 1, 3, 3]);
    }

    #[test]
    fn a_row_with_a_higher_mu_below_shares_the_place_above() {
        // The board's order is mu − 3σ: an uncertain player with a higher mu can be below.
        let board = [rated("settled", 30.0, 1.0), rated("new", 33.0, 6.0), rated("far below", 0.0, 1.0)];
        assert_eq!(places(&board), vec![1, 1, 3]);
    }
}
