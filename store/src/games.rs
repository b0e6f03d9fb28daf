//! Finished games: what history lists and searches, the records replays are made from, and
//! the Elo ratings they feed.

use super::*;

/// A finished game: what history lists, and the record a replay is made from.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub summary: GameSummary,
    pub record: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    pub id: String,
    pub table: String,
    /// The rule set's name (the preset it started from).
    pub preset: String,
    pub started_at: i64,
    pub finished_at: i64,
    /// The ratings this game counts for ("" for none).
    pub rating_pool: String,
    /// In seat order.
    pub players: Vec<GamePlayer>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GamePlayer {
    pub seat: u32,
    pub name: String,
    /// The built-in bot's kind, or "" for a person (or a bot of its own).
    pub bot: String,
    /// 1 for the winner.
    pub place: u32,
    /// The kind of account that played the seat ("person", "bot"; "" for a guest or a
    /// built-in bot).
    pub account_kind: String,
}

impl GamePlayer {
    /// The name a rating is kept under: a person's name, or "odds bot" for every built-in
    /// odds bot whatever its seat's name.
    pub fn rated_as(&self) -> String {
        if self.bot.is_empty() { self.name.clone() } else { format!("{} bot", self.bot) }
    }
}

/// What to list of the finished games; empty fields do not filter.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// A player's name, any case, or a built-in bot's kind ("odds" finds the odds bots,
    /// whether the server seated them or they played a seat of their own named "odds bot";
    /// "Alba" finds "Alba (odds bot)").
    pub player: String,
    pub preset: String,
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// At most this many, newest first (0: 50).
    pub limit: u32,
    /// Games an account played (its name, any case); empty: any.
    pub account: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    pub pool: String,
    pub name: String,
    pub rating: f64,
    pub games: i64,
    pub wins: i64,
}

impl Store {
    /// Finished games, newest first.
    pub async fn games(&self, filter: &GameFilter) -> Result<Vec<GameSummary>, StoreError> {
        let limit = if filter.limit == 0 { 50 } else { filter.limit.min(1000) };
        let rows = sqlx::query(
            "SELECT id, table_id, preset, started_at, finished_at, rating_pool FROM games g \
             WHERE ($1 = '' OR EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = g.id \
                                       AND (LOWER(p.name) = LOWER($1) OR LOWER(p.bot) = LOWER($1) \
                                            OR LOWER(p.name) = LOWER($1) || ' bot' \
                                            OR LOWER(p.name) = LOWER($1) || ' (' || p.bot || ' bot)'))) \
               AND ($2 = '' OR preset = $2) \
               AND finished_at >= $3 AND finished_at <= $4 \
               AND ($6 = '' OR EXISTS (SELECT 1 FROM game_players a WHERE a.game_id = g.id \
                                       AND a.account_kind <> '' AND LOWER(a.name) = LOWER($6))) \
             ORDER BY finished_at DESC, id DESC LIMIT $5",
        )
        .bind(&filter.player)
        .bind(&filter.preset)
        .bind(filter.since.unwrap_or(i64::MIN))
        .bind(filter.until.unwrap_or(i64::MAX))
        .bind(i64::from(limit))
        .bind(&filter.account)
        .fetch_all(&self.reads)
        .await?;
        let mut games = rows.iter().map(summary_of).collect::<Result<Vec<_>, sqlx::Error>>()?;
        // Everyone in those games in one query, not one per game.
        for chunk in games.chunks_mut(ROWS_PER_INSERT) {
            let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT game_id, seat, name, bot, place, account_kind FROM game_players WHERE game_id IN ({}) ORDER BY game_id, seat",
                placeholders.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for g in chunk.iter() {
                query = query.bind(g.id.as_str());
            }
            for row in query.fetch_all(&self.reads).await? {
                let game: String = row.try_get("game_id")?;
                let player = player_of(&row)?;
                if let Some(g) = chunk.iter_mut().find(|g| g.id == game) {
                    g.players.push(player);
                }
            }
        }
        Ok(games)
    }

    async fn players(&self, game: &str) -> Result<Vec<GamePlayer>, StoreError> {
        let rows = sqlx::query(
            "SELECT seat, name, bot, place, account_kind FROM game_players WHERE game_id = $1 ORDER BY seat",
        )
        .bind(game)
        .fetch_all(&self.reads)
        .await?;
        Ok(rows.iter().map(player_of).collect::<Result<Vec<_>, sqlx::Error>>()?)
    }

    /// One finished game, with its record.
    pub async fn game(&self, id: &str) -> Result<Option<FinishedGame>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT id, table_id, preset, started_at, finished_at, rating_pool, record FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.reads)
        .await?
        else {
            return Ok(None);
        };
        let summary = GameSummary { players: self.players(id).await?, ..summary_of(&row)? };
        Ok(Some(FinishedGame { summary, record: row.try_get("record")? }))
    }

    /// The size in bytes of a finished game's record, without reading it (none: no such game).
    pub async fn record_size(&self, id: &str) -> Result<Option<usize>, StoreError> {
        Ok(self.record_head(id, 0).await?.map(|(size, _)| size))
    }

    /// The size in bytes of a finished game's record and its first `n` bytes (where a
    /// record's format may say more of it), without reading the rest.
    pub async fn record_head(&self, id: &str, n: usize) -> Result<Option<(usize, Vec<u8>)>, StoreError> {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let row = sqlx::query(
            "SELECT CAST(length(record) AS BIGINT) AS size, substr(record, 1, CAST($2 AS INTEGER)) AS head FROM games WHERE id = $1",
        )
        .bind(id)
        .bind(n)
        .fetch_optional(&self.reads)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let size: i64 = row.try_get("size")?;
        let head: Vec<u8> = row.try_get("head")?;
        Ok(Some((usize::try_from(size).unwrap_or(usize::MAX), head)))
    }

    /// A pool's ratings, best first ("" for every pool).
    pub async fn ratings(&self, pool: &str) -> Result<Vec<Rating>, StoreError> {
        let rows = sqlx::query(
            "SELECT pool, name, rating, games, wins FROM ratings WHERE ($1 = '' OR pool = $1) \
             ORDER BY pool, rating DESC, name",
        )
        .bind(pool)
        .fetch_all(&self.reads)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(Rating {
                    pool: r.try_get("pool")?,
                    name: r.try_get("name")?,
                    rating: r.try_get("rating")?,
                    games: r.try_get("games")?,
                    wins: r.try_get("wins")?,
                })
            })
            .collect()
    }
}

/// A `games` row, its players not yet read.
pub(crate) fn summary_of(row: &sqlx::any::AnyRow) -> Result<GameSummary, sqlx::Error> {
    Ok(GameSummary {
        id: row.try_get("id")?,
        table: row.try_get("table_id")?,
        preset: row.try_get("preset")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        rating_pool: row.try_get("rating_pool")?,
        players: Vec::new(),
    })
}

pub(crate) fn player_of(r: &sqlx::any::AnyRow) -> Result<GamePlayer, sqlx::Error> {
    Ok(GamePlayer {
        seat: u32::try_from(r.try_get::<i64, _>("seat")?).unwrap_or(0),
        name: r.try_get("name")?,
        bot: r.try_get("bot")?,
        place: u32::try_from(r.try_get::<i64, _>("place")?).unwrap_or(0),
        account_kind: r.try_get("account_kind")?,
    })
}
