//! A PostgreSQL schema of a test's or a load run's own, dropped when it is done.
//!
//! The store's tests, the cluster tests and `dudo-load cluster` each work in a fresh schema of
//! the one test database. One left behind after every run piles up (a run of the tests made
//! 27), so a [`Scratch`] drops its schema when it is dropped, on a thread of its own: a drop
//! cannot wait on the async runtime it may be running in.

use std::time::Duration;

/// How long dropping the schema may take before it is left for the next run's sweep.
const DROP_WITHIN: Duration = Duration::from_secs(10);

/// A schema made fresh on the database at `base`, as the URL a store or server takes.
pub struct Scratch {
    base: String,
    schema: String,
    url: String,
}

impl Scratch {
    /// Makes `schema` on the database at `base` (dropping any an earlier run left under that
    /// name, and any it left under names starting with `sweep`, when given).
    pub async fn make(base: &str, schema: &str, sweep: Option<&str>) -> Result<Scratch, sqlx::Error> {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(base).await?;
        let mut old = vec![schema.to_string()];
        if let Some(prefix) = sweep {
            let left = sqlx::query(
                "SELECT CAST(nspname AS TEXT) AS nspname FROM pg_namespace WHERE nspname LIKE $1",
            )
            .bind(format!("{prefix}%"))
            .fetch_all(&pool)
            .await?;
            for row in left {
                old.push(sqlx::Row::try_get(&row, "nspname")?);
            }
        }
        for name in old {
            sqlx::query(&format!("DROP SCHEMA IF EXISTS {name} CASCADE")).execute(&pool).await?;
        }
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&pool).await?;
        pool.close().await;
        let sep = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{sep}options[search_path]={schema}");
        Ok(Scratch { base: base.to_string(), schema: schema.to_string(), url })
    }

    /// The URL of the database with this schema first on its search path.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The schema's name.
    pub fn name(&self) -> &str {
        &self.schema
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let (base, schema) = (self.base.clone(), self.schema.clone());
        let dropping = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                return;
            };
            runtime.block_on(async {
                let dropped = async {
                    let pool = sqlx::AnyPool::connect(&base).await?;
                    sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).execute(&pool).await?;
                    pool.close().await;
                    Ok::<_, sqlx::Error>(())
                };
                let _ = tokio::time::timeout(DROP_WITHIN, dropped).await;
            });
        });
        let _ = dropping.join();
    }
}
