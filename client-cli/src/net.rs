//! Reaching a server: a remote one named by `--server`, or one embedded in this process.

use clap::Args;
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;

/// Where the dudo server is.
#[derive(Args, Clone, Debug)]
pub struct ServerArgs {
    /// The server's address, host:port, or https://host:port for one with TLS (checked
    /// against the system's roots, or the CA certificate that DUDO_CA_CERT names)
    /// [default: for a table you hold a seat at, the server you took it on; otherwise
    /// 127.0.0.1:50051].
    #[arg(long = "server", env = "DUDO_SERVER", value_name = "HOST:PORT", global = true)]
    pub(crate) given: Option<String>,
    /// The address in use: given, remembered for the table, or the default.
    #[arg(skip = DEFAULT_SERVER.to_string())]
    pub server: String,
}

/// The server a command talks to when told none.
const DEFAULT_SERVER: &str = "127.0.0.1:50051";

impl ServerArgs {
    /// The server to use for `table`: the one given, else the one its link names, else the
    /// one a seat there was taken on. `table` becomes the code when it was a link.
    pub fn for_table(mut self, table: &mut String) -> ServerArgs {
        let link = dudo_client::dudo_proto::link::parse(table).map(|l| (l.server, l.code.to_string()));
        if let Some((_, code)) = &link {
            *table = code.clone();
        }
        self.server = match (&self.given, link) {
            (Some(given), _) => given.clone(),
            (None, Some((server, _))) => server,
            (None, None) => crate::seats::server_of(table).unwrap_or_else(|| DEFAULT_SERVER.to_string()),
        };
        self
    }

    /// The server given, or the default.
    pub fn resolved(mut self) -> ServerArgs {
        self.server = self.given.clone().unwrap_or_else(|| DEFAULT_SERVER.to_string());
        self
    }

    pub async fn connect(&self) -> anyhow::Result<Client> {
        Client::connect(&self.server).await.map_err(|e| {
            let hint =
                if self.given.is_some() { "" } else { " (give --server HOST:PORT, or set DUDO_SERVER)" };
            anyhow::anyhow!("{e}{hint}")
        })
    }
}

/// Which database an embedded server keeps its records in.
#[derive(Args, Clone, Debug, Default)]
pub struct DbArgs {
    /// The database of finished games and ratings: a SQLite file, `:memory:`,
    /// `postgres://…`, or `none`. Default: dudo.db in $DUDO_HOME, $XDG_DATA_HOME/dudo or
    /// ~/.local/share/dudo, where `dudo play` keeps your games and `dudo history` finds them;
    /// `dudo arena` keeps its games apart, in arena.db beside it.
    #[arg(long, env = "DUDO_DB")]
    pub db: Option<String>,
    /// The arena's records: the default database is arena.db, not dudo.db.
    #[arg(skip)]
    pub arena: bool,
}

/// Why an embedded server runs: to play (it writes records), or to read them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Play,
    Read,
}

impl DbArgs {
    /// The default file: dudo.db for your games, arena.db for the arena's.
    pub fn default_file(&self) -> Option<std::path::PathBuf> {
        if self.arena { dudo_store::data_dir().map(|d| d.join("arena.db")) } else { dudo_store::default_db() }
    }

    /// A local database file named (or the default) that does not exist yet: nothing has
    /// been kept there, and reading it should not create it.
    pub fn missing_file(&self) -> Option<String> {
        let db = match self.db.as_deref() {
            Some("none") => return None,
            Some(db) => dudo_store::sqlite_file(db)?,
            None => self.default_file()?,
        };
        (!db.exists()).then(|| db.display().to_string())
    }

    /// The database named, or the default file (its directory made); none for `none`.
    fn place(&self) -> anyhow::Result<Option<String>> {
        match self.db.as_deref() {
            Some("none") => Ok(None),
            Some(db) => Ok(Some(db.to_string())),
            None => {
                let Some(path) = self.default_file() else { return Ok(None) };
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| {
                        anyhow::anyhow!("cannot create {} for the database: {e}", dir.display())
                    })?;
                }
                Ok(Some(path.display().to_string()))
            }
        }
    }

    /// Opens the store for an embedded server. A database another dudo is playing on is
    /// left to it: play goes on unrecorded, with a note. Anything else wrong with the
    /// database (a corrupt file, a place that cannot be written) stops here, said plainly.
    pub async fn open(&self, purpose: Purpose) -> anyhow::Result<Option<dudo_server::Store>> {
        let Some(db) = self.place()? else { return Ok(None) };
        let access = match purpose {
            Purpose::Play => dudo_store::Access::Owner,
            Purpose::Read => dudo_store::Access::Reader,
        };
        match dudo_server::Store::open_as(&db, access).await {
            Ok(store) => Ok(Some(store)),
            Err(dudo_store::StoreError::InUse { path }) if self.db.is_none() => {
                eprintln!(
                    "note: another dudo is using {path}; these games will not be kept (or pass --db PATH)"
                );
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }
}

/// A server running inside this process on a free local port, for commands without
/// `--server`, keeping its records in `store`. It stops when the process ends.
pub async fn embedded(store: Option<dudo_server::Store>) -> anyhow::Result<Client> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?.to_string();
    let setup = dudo_server::Setup { store, limits: embedded_limits(), ..dudo_server::Setup::default() };
    tokio::spawn(async move {
        if let Err(e) = dudo_server::serve(listener, setup, std::future::pending()).await {
            eprintln!("dudo: the embedded server stopped: {e}");
        }
    });
    Ok(Client::connect(&addr).await?)
}

/// The embedded server's limits. Every caller is this process: the per-address limits that
/// guard a public server from one client would only cap a big local arena (the call rate
/// stopped `dudo arena` after some 440 games a run).
fn embedded_limits() -> dudo_server::node::Limits {
    dudo_server::node::Limits {
        max_tables_per_ip: 100_000,
        max_streams_per_ip: 100_000,
        max_streams_per_connection: 100_000,
        memory_per_address: 0,
        connections_per_second_per_ip: 0,
        calls_per_second_per_ip: 0,
        stream_opens_per_second_per_ip: 0,
        leaves_per_minute: 0,
        // The arena's bots are this machine's to run as fast as it can.
        bot_cpu: dudo_server::bot_cpu::BotCpuLimits { per_table: None, all_tables: None },
        idle_connection: std::time::Duration::ZERO,
        ..Default::default()
    }
}

/// A table's one-line summary, for `dudo list` and `dudo create` (every string the server
/// sent made safe to print).
pub fn table_line(t: &pb::TableInfo) -> String {
    summary_line(&pb::TableSummary {
        id: t.id.clone(),
        join_code: t.join_code.clone(),
        link: t.link.clone(),
        rules: t.rules.as_ref().map_or_else(|| "?".into(), |r| r.name.clone()),
        seats: t.seats,
        taken: u32::try_from(t.players.len()).unwrap_or(u32::MAX),
        // A host-only creator holds no seat: no name.
        host: t.players.get(t.host as usize).map(|p| p.name.clone()).unwrap_or_default(),
        state: t.state,
    })
}

/// Who sits where, by the seat numbers `dudo host remove SEAT` takes.
pub fn seats_line(t: &pb::TableInfo) -> String {
    let seated: Vec<String> = t
        .players
        .iter()
        .map(|p| {
            let name = crate::render::account_name(&p.name, p.account);
            let host = if p.seat == t.host { " (host)" } else { "" };
            let here = crate::presence::mark(p, std::time::SystemTime::now());
            format!("seat {} {name}{host}{here}", p.seat)
        })
        .collect();
    if seated.is_empty() {
        "No seat is taken yet.".into()
    } else {
        format!("At the table: {}", seated.join(", "))
    }
}

/// A table in a list, on one line.
pub fn summary_line(t: &pb::TableSummary) -> String {
    use crate::render::safe;
    let host = if t.host.is_empty() { "not seated".to_string() } else { safe(&t.host).into_owned() };
    let state = match pb::TableState::try_from(t.state) {
        Ok(pb::TableState::Waiting) if t.taken >= t.seats => "full",
        Ok(pb::TableState::Waiting) => "waiting",
        Ok(pb::TableState::Playing) => "playing",
        Ok(pb::TableState::Over) => "game over",
        Err(_) => "?",
    };
    format!(
        "{}  {:<18} {}/{} seats, {state}  host {}  id {}",
        safe(&t.join_code),
        safe(&t.rules),
        t.taken,
        t.seats,
        host,
        safe(&t.id)
    )
}

/// The runtime the network commands run on: two worker threads are plenty for a client and
/// an embedded server.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?)
}

/// `--call-window-ms`: 0, or 100 to 60,000 milliseconds (what the server takes).
pub fn reveal_wait_secs(value: &str) -> Result<u32, String> {
    match value.trim().parse::<u32>() {
        Ok(secs) if secs <= 30 => Ok(secs),
        _ => Err(format!("0 (the next round at once) to 30 seconds, not {value:?}")),
    }
}

pub fn call_window_ms(value: &str) -> Result<u32, String> {
    match value.trim().parse::<u32>() {
        Ok(ms) if ms == 0 || (100..=60_000).contains(&ms) => Ok(ms),
        _ => {
            Err(format!("0 (until everyone asked has answered) or 100 to 60000 milliseconds, not {value:?}"))
        }
    }
}

#[cfg(test)]
mod tests {
    /// The arena makes thousands of calls a second from one address, its own: the embedded
    /// server counts none of them against a public server's per-address rates.
    #[test]
    fn the_embedded_server_limits_no_rate_of_its_own_process() {
        let limits = super::embedded_limits();
        assert_eq!(
            (
                limits.calls_per_second_per_ip,
                limits.stream_opens_per_second_per_ip,
                limits.connections_per_second_per_ip,
                limits.leaves_per_minute
            ),
            (0, 0, 0, 0)
        );
    }
}
