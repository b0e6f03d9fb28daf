//! Tournaments: each one's settings (kept as the server's JSON, not read here), its entrants,
//! and each game of its schedule as its table is made and as it ends.
//!
//! One process runs a tournament at a time (the one that runs the ladder), so these are plain
//! reads and writes; what makes a restart carry on is that a game's end is written before the
//! next game that depends on it is made, and that a game whose table was lost is made again.

use sqlx::Row;

use crate::{Store, StoreError};

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentRow {
    pub id: String,
    pub name: String,
    /// The organiser's account id ("" for the admin), and its name.
    pub organiser: String,
    pub organiser_name: String,
    /// The server's settings, as JSON.
    pub spec: String,
    /// "entry", "running", "finished" or "cancelled".
    pub state: String,
    pub seed: u64,
    pub salt: String,
    pub created_at: i64,
    pub starts_at: i64,
    pub ended_at: i64,
    pub why: String,
    /// The secret its tables' tokens are derived from: never shown.
    pub seat_key: String,
}

/// A tournament in a list, with its counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub row: TournamentRow,
    pub entered: u64,
    pub finished: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EntrantRow {
    pub number: u32,
    /// The account's id; "" for a house bot.
    pub account: String,
    pub name: String,
    /// "person", "bot", or "" for a house bot.
    pub kind: String,
    /// The built-in bot of a house entrant.
    pub bot: String,
    pub entered_at: i64,
    /// Why it was benched for stalling ("" while it plays): its later games are forfeit.
    pub benched: String,
}

/// A game of a schedule whose table has been made.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub number: u32,
    pub table: String,
    pub game: String,
    /// Entrants from first place to last; none while in play.
    pub finish: Option<Vec<usize>>,
}

/// Which tournaments a list shows (see [`Store::tournaments`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListFilter {
    /// Only these states; none: every one but a cancelled tournament that played no game.
    pub states: Vec<String>,
    /// Only this organiser's (its name, any case).
    pub organiser: Option<String>,
    /// Only names holding this, any case.
    pub name: Option<String>,
    /// Those listed after this one (its `created_at` and id), newest first.
    pub after: Option<(i64, String)>,
}

/// A value a built query binds.
enum Bind {
    Text(String),
    Int(i64),
}

const COLUMNS: &str = "id, name, organiser, organiser_name, spec, state, seed, salt, created_at, starts_at, ended_at, why, seat_key";

fn tournament_of(row: &sqlx::any::AnyRow) -> Result<TournamentRow, sqlx::Error> {
    Ok(TournamentRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        organiser: row.try_get("organiser")?,
        organiser_name: row.try_get("organiser_name")?,
        spec: row.try_get("spec")?,
        state: row.try_get("state")?,
        // Kept as the signed column's same 64 bits.
        seed: row.try_get::<i64, _>("seed")? as u64,
        salt: row.try_get("salt")?,
        created_at: row.try_get("created_at")?,
        starts_at: row.try_get("starts_at")?,
        ended_at: row.try_get("ended_at")?,
        why: row.try_get("why")?,
        seat_key: row.try_get("seat_key")?,
    })
}

fn finish_of(text: &str) -> Option<Vec<usize>> {
    if text.is_empty() {
        return None;
    }
    text.split(',').map(|n| n.parse().ok()).collect()
}

impl Store {
    pub async fn create_tournament(&self, t: &TournamentRow, house: &[EntrantRow]) -> Result<(), StoreError> {
        self.owner()?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(&format!(
            "INSERT INTO tournaments ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        ))
        .bind(&t.id)
        .bind(&t.name)
        .bind(&t.organiser)
        .bind(&t.organiser_name)
        .bind(&t.spec)
        .bind(&t.state)
        .bind(t.seed as i64)
        .bind(&t.salt)
        .bind(t.created_at)
        .bind(t.starts_at)
        .bind(t.ended_at)
        .bind(&t.why)
        .bind(&t.seat_key)
        .execute(&mut *tx)
        .await?;
        for e in house {
            insert_entrant(&mut tx, &t.id, e).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM tournaments WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.reads)
            .await?;
        Ok(row.as_ref().map(tournament_of).transpose()?)
    }

    /// The newest `limit` tournaments `filter` lets through, newest first (after its
    /// cursor), with their entrants and games ended counted.
    pub async fn tournaments(&self, filter: &ListFilter, limit: u32) -> Result<Vec<Listed>, StoreError> {
        let mut conditions: Vec<String> = Vec::new();
        let mut binds: Vec<Bind> = Vec::new();
        let next = |binds: &mut Vec<Bind>, b: Bind| {
            binds.push(b);
            format!("${}", binds.len())
        };
        if filter.states.is_empty() {
            // Cancelled before a game was played: made and called off, of use to nobody.
            conditions.push(
                "(t.state <> 'cancelled' OR EXISTS (SELECT 1 FROM tournament_games g WHERE g.tournament = t.id AND g.finish <> ''))"
                    .into(),
            );
        } else {
            let states: Vec<String> =
                filter.states.iter().map(|st| next(&mut binds, Bind::Text(st.clone()))).collect();
            conditions.push(format!("t.state IN ({})", states.join(", ")));
        }
        if let Some(organiser) = &filter.organiser {
            let at = next(&mut binds, Bind::Text(organiser.to_lowercase()));
            conditions.push(format!("LOWER(t.organiser_name) = {at}"));
        }
        if let Some(name) = &filter.name {
            let escaped: String = name
                .to_lowercase()
                .chars()
                .flat_map(|c| match c {
                    '%' | '_' | '\\' => vec!['\\', c],
                    c => vec![c],
                })
                .collect();
            let at = next(&mut binds, Bind::Text(format!("%{escaped}%")));
            conditions.push(format!("LOWER(t.name) LIKE {at} ESCAPE '\\'"));
        }
        if let Some((created_at, id)) = &filter.after {
            let (a, b) = (next(&mut binds, Bind::Int(*created_at)), next(&mut binds, Bind::Text(id.clone())));
            conditions.push(format!("(t.created_at < {a} OR (t.created_at = {a} AND t.id > {b}))"));
        }
        let limit_at = next(&mut binds, Bind::Int(i64::from(limit)));
        let sql = format!(
            "SELECT {COLUMNS}, \
             (SELECT COUNT(*) FROM tournament_entrants e WHERE e.tournament = t.id) AS entered, \
             (SELECT COUNT(*) FROM tournament_games g WHERE g.tournament = t.id AND g.finish <> '') AS ended \
             FROM tournaments t WHERE {} ORDER BY t.created_at DESC, t.id LIMIT {limit_at}",
            conditions.join(" AND ")
        );
        let mut query = sqlx::query(&sql);
        for b in binds {
            query = match b {
                Bind::Text(t) => query.bind(t),
                Bind::Int(n) => query.bind(n),
            };
        }
        let rows = query.fetch_all(&self.reads).await?;
        let count = |r: &sqlx::any::AnyRow, name: &str| {
            r.try_get::<i64, _>(name).map(|n| u64::try_from(n).unwrap_or(0))
        };
        rows.iter()
            .map(|r| {
                Ok(Listed {
                    row: tournament_of(r)?,
                    entered: count(r, "entered")?,
                    finished: count(r, "ended")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// Tournaments `organiser` (an account's id) made at or after `since` (Unix ms).
    pub async fn tournaments_made_since(&self, organiser: &str, since: i64) -> Result<u64, StoreError> {
        let n: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM tournaments WHERE organiser = $1 AND created_at >= $2")
                .bind(organiser)
                .bind(since)
                .fetch_one(&self.pool)
                .await?
                .try_get("n")?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Tournaments taking entries or running: what a server carries on with when it starts.
    pub async fn unfinished_tournaments(&self) -> Result<Vec<TournamentRow>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM tournaments WHERE state IN ('entry', 'running') ORDER BY created_at, id"
        ))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(tournament_of).collect::<Result<_, _>>()?)
    }

    /// Tournaments an organiser has taking entries or running.
    pub async fn open_tournaments_of(&self, organiser: &str) -> Result<u64, StoreError> {
        let n: i64 = sqlx::query(
            "SELECT COUNT(*) AS n FROM tournaments WHERE organiser = $1 AND state IN ('entry', 'running')",
        )
        .bind(organiser)
        .fetch_one(&self.pool)
        .await?
        .try_get("n")?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    pub async fn set_tournament_state(
        &self,
        id: &str,
        state: &str,
        ended_at: i64,
        why: &str,
    ) -> Result<(), StoreError> {
        self.owner()?;
        sqlx::query("UPDATE tournaments SET state = $1, ended_at = $2, why = $3 WHERE id = $4")
            .bind(state)
            .bind(ended_at)
            .bind(why)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn add_entrant(&self, tournament: &str, e: &EntrantRow) -> Result<(), StoreError> {
        self.owner()?;
        let mut tx = self.pool.begin().await?;
        insert_entrant(&mut tx, tournament, e).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A tournament's entrants by number.
    pub async fn entrants(&self, tournament: &str) -> Result<Vec<EntrantRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT number, account, name, kind, bot, entered_at, benched FROM tournament_entrants \
             WHERE tournament = $1 ORDER BY number",
        )
        .bind(tournament)
        .fetch_all(&self.reads)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(EntrantRow {
                    number: u32::try_from(r.try_get::<i64, _>("number")?).unwrap_or(u32::MAX),
                    account: r.try_get("account")?,
                    name: r.try_get("name")?,
                    kind: r.try_get("kind")?,
                    bot: r.try_get("bot")?,
                    entered_at: r.try_get("entered_at")?,
                    benched: r.try_get("benched")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// Games of a tournament whose tables were made, and those that have ended.
    pub async fn tournament_progress(&self, tournament: &str) -> Result<(u64, u64), StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS made, COALESCE(SUM(CASE WHEN finish <> '' THEN 1 ELSE 0 END), 0) AS ended \
             FROM tournament_games WHERE tournament = $1",
        )
        .bind(tournament)
        .fetch_one(&self.reads)
        .await?;
        let count = |name: &str| row.try_get::<i64, _>(name).map(|n| u64::try_from(n).unwrap_or(0));
        Ok((count("made")?, count("ended")?))
    }

    /// Games of a tournament that have ended.
    pub async fn tournament_finished_games(&self, tournament: &str) -> Result<u64, StoreError> {
        let n: i64 =
            sqlx::query("SELECT COUNT(*) AS n FROM tournament_games WHERE tournament = $1 AND finish <> ''")
                .bind(tournament)
                .fetch_one(&self.reads)
                .await?
                .try_get("n")?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// A game's table is made (again, if the one before it was lost in a restart).
    pub async fn tournament_game_made(
        &self,
        tournament: &str,
        number: u32,
        table: &str,
        game: &str,
    ) -> Result<(), StoreError> {
        self.owner()?;
        let mut tx = self.pool.begin().await?;
        // The game's record is the tournament's for good, whatever its table comes to.
        sqlx::query(
            "INSERT INTO tournament_records (game_id, tournament) VALUES ($1, $2) ON CONFLICT (game_id) DO NOTHING",
        )
        .bind(game)
        .bind(tournament)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO tournament_games (tournament, number, table_id, game_id, finish) VALUES ($1, $2, $3, $4, '') \
             ON CONFLICT (tournament, number) DO UPDATE SET table_id = $3, game_id = $4, finish = ''",
        )
        .bind(tournament)
        .bind(i64::from(number))
        .bind(table)
        .bind(game)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A tournament's games whose tables are still open in the store (held by a node, or
    /// to be brought back by one): their numbers and tables.
    pub async fn open_tables_of_tournament(
        &self,
        tournament: &str,
    ) -> Result<Vec<(u32, String)>, StoreError> {
        let rows = sqlx::query(
            "SELECT g.number, g.table_id FROM tournament_games g JOIN tables t ON t.id = g.table_id \
             WHERE g.tournament = $1 AND t.closed_at IS NULL ORDER BY g.number",
        )
        .bind(tournament)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    u32::try_from(r.try_get::<i64, _>("number")?).unwrap_or(u32::MAX),
                    r.try_get("table_id")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// Benches an entrant for stalling: `why` is said in the standings, and its later games
    /// are forfeit.
    pub async fn bench_entrant(&self, tournament: &str, number: u32, why: &str) -> Result<(), StoreError> {
        self.owner()?;
        sqlx::query("UPDATE tournament_entrants SET benched = $1 WHERE tournament = $2 AND number = $3")
            .bind(why)
            .bind(tournament)
            .bind(i64::from(number))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A game ended: its entrants from first place to last.
    pub async fn tournament_game_finished(
        &self,
        tournament: &str,
        number: u32,
        finish: &[usize],
    ) -> Result<(), StoreError> {
        self.owner()?;
        let text: Vec<String> = finish.iter().map(usize::to_string).collect();
        sqlx::query("UPDATE tournament_games SET finish = $1 WHERE tournament = $2 AND number = $3")
            .bind(text.join(","))
            .bind(tournament)
            .bind(i64::from(number))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A tournament's games whose tables were made, numbered after `after` (all with none),
    /// at most `limit`, in schedule order.
    pub async fn tournament_games(
        &self,
        tournament: &str,
        after: Option<u32>,
        limit: u32,
    ) -> Result<Vec<GameRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT number, table_id, game_id, finish FROM tournament_games \
             WHERE tournament = $1 AND number > $2 ORDER BY number LIMIT $3",
        )
        .bind(tournament)
        .bind(after.map_or(-1, i64::from))
        .bind(i64::from(limit))
        .fetch_all(&self.reads)
        .await?;
        rows.iter()
            .map(|r| {
                let finish: String = r.try_get("finish")?;
                Ok(GameRow {
                    number: u32::try_from(r.try_get::<i64, _>("number")?).unwrap_or(u32::MAX),
                    table: r.try_get("table_id")?,
                    game: r.try_get("game_id")?,
                    finish: finish_of(&finish),
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    /// The tournament game `game` was played for, whatever its state, if any.
    pub async fn tournament_of_record(&self, game: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT tournament FROM tournament_records WHERE game_id = $1")
            .bind(game)
            .fetch_optional(&self.reads)
            .await?;
        Ok(row.map(|r| r.try_get("tournament")).transpose()?)
    }

    /// The tournament still running or taking entries that game `game` belongs to, if any:
    /// its record stays closed until the tournament ends, since another game of the same
    /// deal may still be in play with the same dice.
    pub async fn tournament_of_game(&self, game: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(
            "SELECT t.id FROM tournament_records g JOIN tournaments t ON t.id = g.tournament \
             WHERE g.game_id = $1 AND t.state IN ('entry', 'running') LIMIT 1",
        )
        .bind(game)
        .fetch_optional(&self.reads)
        .await?;
        Ok(row.map(|r| r.try_get("id")).transpose()?)
    }
}

async fn insert_entrant(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    tournament: &str,
    e: &EntrantRow,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO tournament_entrants (tournament, number, account, name, kind, bot, entered_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(tournament)
    .bind(i64::from(e.number))
    .bind(&e.account)
    .bind(&e.name)
    .bind(&e.kind)
    .bind(&e.bot)
    .bind(e.entered_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
