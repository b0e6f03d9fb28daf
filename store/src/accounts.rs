//! Accounts and their API tokens.
//!
//! The store keeps what the server decides: an account's name as registered and the key
//! two names are compared by (the server folds case and lookalike characters), its kind,
//! and for each token only its SHA-256. Account writes are rare and small, so they go
//! straight to the database in a transaction of their own rather than through the tables'
//! batched writer.

use sqlx::Row;

use crate::{Access, Store, StoreError};

/// What an account is: a person or a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccountKind {
    Person,
    Bot,
}

impl AccountKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AccountKind::Person => "person",
            AccountKind::Bot => "bot",
        }
    }

    fn parse(text: &str) -> AccountKind {
        if text == "bot" { AccountKind::Bot } else { AccountKind::Person }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub name: String,
    pub kind: AccountKind,
    pub created_at: i64,
    pub suspended_at: Option<i64>,
    /// The address it was registered from, as the server counts addresses (none: made
    /// before addresses were kept, or by the admin).
    pub registered_from: Option<String>,
}

/// A token as listed: never its secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiToken {
    pub id: String,
    pub label: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// A token to add: its public id, label and the SHA-256 of its secret.
#[derive(Clone, Debug)]
pub struct NewToken {
    pub id: String,
    pub label: String,
    pub hash: Vec<u8>,
    pub created_at: i64,
}

/// Tokens an account may hold, revoked ones included (so a loop of new and revoke cannot
/// grow the database without bound).
pub const MAX_TOKENS: usize = 50;

fn account_of(row: &sqlx::any::AnyRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        kind: AccountKind::parse(&row.try_get::<String, _>("kind")?),
        created_at: row.try_get("created_at")?,
        suspended_at: row.try_get("suspended_at")?,
        registered_from: row.try_get("registered_from")?,
    })
}

fn token_of(row: &sqlx::any::AnyRow) -> Result<ApiToken, sqlx::Error> {
    Ok(ApiToken {
        id: row.try_get("id")?,
        label: row.try_get("label")?,
        created_at: row.try_get("created_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

/// A unique index said no: the name (or a token's hash) is already there.
fn is_taken(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

const ACCOUNT_COLUMNS: &str = "id, name, kind, created_at, suspended_at, registered_from";

impl Store {
    pub(crate) fn owner(&self) -> Result<(), StoreError> {
        match self.access {
            Access::Owner | Access::Member => Ok(()),
            Access::Reader => Err(StoreError::ReadOnly),
        }
    }

    /// Makes an account, known by `key`, with its first token; `NameTaken` if an account
    /// has that key already.
    pub async fn create_account(
        &self,
        account: &Account,
        key: &str,
        token: &NewToken,
    ) -> Result<(), StoreError> {
        self.owner()?;
        let taken = || StoreError::NameTaken { name: account.name.clone() };
        if self.account_by_key(key).await?.is_some() {
            return Err(taken());
        }
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO accounts (id, name, name_key, kind, created_at, registered_from) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&account.id)
        .bind(&account.name)
        .bind(key)
        .bind(account.kind.as_str())
        .bind(account.created_at)
        .bind(account.registered_from.as_deref())
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(e) if is_taken(&e) => return Err(taken()),
            other => other?,
        };
        insert_token(&mut tx, &account.id, token).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The account known by `key`, suspended or not.
    pub async fn account_by_key(&self, key: &str) -> Result<Option<Account>, StoreError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1");
        let row = sqlx::query(&sql).bind(key).fetch_optional(&self.reads).await?;
        Ok(row.as_ref().map(account_of).transpose()?)
    }

    /// The account holding the unrevoked token whose SHA-256 is `hash`, and that token's id.
    pub async fn account_by_token(&self, hash: &[u8]) -> Result<Option<(Account, String)>, StoreError> {
        let row = sqlx::query(
            "SELECT a.id, a.name, a.kind, a.created_at, a.suspended_at, a.registered_from, t.id AS token_id \
             FROM api_tokens t JOIN accounts a ON a.id = t.account_id \
             WHERE t.hash = $1 AND t.revoked_at IS NULL",
        )
        .bind(hash)
        .fetch_optional(&self.reads)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some((account_of(&row)?, row.try_get("token_id")?)))
    }

    /// Adds a token to an account holding fewer than [`MAX_TOKENS`].
    pub async fn add_token(&self, account: &str, token: &NewToken) -> Result<(), StoreError> {
        self.owner()?;
        let mut tx = self.pool.begin().await?;
        let held: i64 = sqlx::query("SELECT COUNT(*) AS n FROM api_tokens WHERE account_id = $1")
            .bind(account)
            .fetch_one(&mut *tx)
            .await?
            .try_get("n")?;
        if usize::try_from(held).unwrap_or(usize::MAX) >= MAX_TOKENS {
            return Err(StoreError::TooManyTokens { max: MAX_TOKENS });
        }
        insert_token(&mut tx, account, token).await?;
        tx.commit().await?;
        Ok(())
    }

    /// An account's tokens, oldest first.
    pub async fn tokens(&self, account: &str) -> Result<Vec<ApiToken>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, label, created_at, revoked_at FROM api_tokens WHERE account_id = $1 \
             ORDER BY created_at, id",
        )
        .bind(account)
        .fetch_all(&self.reads)
        .await?;
        Ok(rows.iter().map(token_of).collect::<Result<_, _>>()?)
    }

    /// Revokes an account's token (already revoked: left as it was); `None` if the account
    /// has no token `id`.
    pub async fn revoke_token(
        &self,
        account: &str,
        id: &str,
        at: i64,
    ) -> Result<Option<ApiToken>, StoreError> {
        self.owner()?;
        sqlx::query(
            "UPDATE api_tokens SET revoked_at = $1 WHERE account_id = $2 AND id = $3 AND revoked_at IS NULL",
        )
        .bind(at)
        .bind(account)
        .bind(id)
        .execute(&self.pool)
        .await?;
        let row = sqlx::query(
            "SELECT id, label, created_at, revoked_at FROM api_tokens WHERE account_id = $1 AND id = $2",
        )
        .bind(account)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(token_of).transpose()?)
    }

    /// Suspends an account from `at`, or (`None`) lifts its suspension.
    pub async fn suspend_account(&self, account: &str, at: Option<i64>) -> Result<(), StoreError> {
        self.owner()?;
        sqlx::query("UPDATE accounts SET suspended_at = $1 WHERE id = $2")
            .bind(at)
            .bind(account)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A bot check's outcome for an account (a second at the same millisecond is kept once).
    pub async fn record_bot_check(
        &self,
        account: &str,
        at: i64,
        passed: bool,
        faults: &[String],
    ) -> Result<(), StoreError> {
        self.owner()?;
        sqlx::query(
            "INSERT INTO bot_checks (account, at, passed, faults) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (account, at) DO NOTHING",
        )
        .bind(account)
        .bind(at)
        .bind(i64::from(passed))
        .bind(faults.join("\n"))
        .execute(&self.pool)
        .await?;
        // Only the last pass is ever asked for: an account keeps its newest few runs and
        // that pass, however many checks it runs.
        sqlx::query(
            "DELETE FROM bot_checks WHERE account = $1 \
             AND at < (SELECT MIN(at) FROM (SELECT at FROM bot_checks WHERE account = $1 \
                       ORDER BY at DESC LIMIT $2) AS newest) \
             AND at <> COALESCE((SELECT MAX(at) FROM bot_checks WHERE account = $1 AND passed = 1), -1)",
        )
        .bind(account)
        .bind(BOT_CHECKS_KEPT)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Claims the account's one running bot check for `node` until `until` (Unix ms): false
    /// when another claim holds it still, at this node or any other of a cluster.
    pub async fn claim_bot_check(
        &self,
        account: &str,
        node: &str,
        now: i64,
        until: i64,
    ) -> Result<bool, StoreError> {
        self.owner()?;
        let claimed = sqlx::query(
            "INSERT INTO bot_checks_running (account, node, until_at) VALUES ($1, $2, $3) \
             ON CONFLICT (account) DO UPDATE SET node = $2, until_at = $3 \
             WHERE bot_checks_running.until_at < $4",
        )
        .bind(account)
        .bind(node)
        .bind(until)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(claimed.rows_affected() > 0)
    }

    /// Keeps `node`'s claim on the account's running bot check until `until`.
    pub async fn renew_bot_check(&self, account: &str, node: &str, until: i64) -> Result<(), StoreError> {
        self.owner()?;
        sqlx::query("UPDATE bot_checks_running SET until_at = $3 WHERE account = $1 AND node = $2")
            .bind(account)
            .bind(node)
            .bind(until)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Lets go of the account's running bot check claimed by `node`.
    pub async fn release_bot_check(&self, account: &str, node: &str) -> Result<(), StoreError> {
        self.owner()?;
        sqlx::query("DELETE FROM bot_checks_running WHERE account = $1 AND node = $2")
            .bind(account)
            .bind(node)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// How many of the account's check runs are kept.
    pub async fn bot_checks_kept(&self, account: &str) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM bot_checks WHERE account = $1")
            .bind(account)
            .fetch_one(&self.reads)
            .await?;
        Ok(row.try_get::<i64, _>("n")?)
    }

    /// When the account's bot last passed a check, if ever.
    pub async fn last_passed_bot_check(&self, account: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT MAX(at) AS at FROM bot_checks WHERE account = $1 AND passed = 1")
            .bind(account)
            .fetch_one(&self.reads)
            .await?;
        Ok(row.try_get::<Option<i64>, _>("at")?)
    }
}

async fn insert_token(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    account: &str,
    token: &NewToken,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO api_tokens (id, account_id, label, hash, created_at) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(&token.id)
    .bind(account)
    .bind(&token.label)
    .bind(token.hash.as_slice())
    .bind(token.created_at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Bot check runs an account keeps (besides its last pass).
const BOT_CHECKS_KEPT: i64 = 10;
