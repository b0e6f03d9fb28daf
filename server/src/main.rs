//! `dudo-server`: hosts dudo tables over gRPC.

use clap::Parser;

/// Tables allocate what streams on other threads free: mimalloc does that without a lock.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The dudo game server: Liar's Dice tables over gRPC.
#[derive(Parser)]
#[command(name = "dudo-server", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, env = "DUDO_LISTEN", default_value = "127.0.0.1:50051")]
    listen: String,
    /// Log format: text or json.
    #[arg(long, env = "DUDO_LOG_FORMAT", default_value = "text")]
    log_format: String,
    /// Tables the server holds at once.
    #[arg(long, env = "DUDO_MAX_TABLES", default_value_t = 10_000)]
    max_tables: usize,
    /// Tables one IP address may create.
    #[arg(long, env = "DUDO_MAX_TABLES_PER_IP", default_value_t = 100)]
    max_tables_per_ip: usize,
    /// Open streams per IP address.
    #[arg(long, env = "DUDO_MAX_STREAMS_PER_IP", default_value_t = 1_000)]
    max_streams_per_ip: usize,
    /// Open streams per connection.
    #[arg(long, env = "DUDO_MAX_STREAMS_PER_CONNECTION", default_value_t = 200)]
    max_streams_per_connection: usize,
    /// Connections open at once from one IP address. Past it, a new one takes the place of the
    /// address's oldest carrying no seat's stream; it is closed only if every one carries one.
    #[arg(long, env = "DUDO_MAX_CONNECTIONS_PER_IP", default_value_t = 64)]
    max_connections_per_ip: usize,
    /// New connections a second from one IP address (a burst of twice that is allowed; more
    /// are closed before their TLS handshake). 0: no limit.
    #[arg(long, env = "DUDO_CONNECTIONS_PER_SECOND_PER_IP", default_value_t = 100)]
    connections_per_second_per_ip: u32,
    /// New connections a second from every address together (a burst of twice that). 0: no
    /// limit.
    #[arg(long, env = "DUDO_CONNECTIONS_PER_SECOND", default_value_t = 2_000)]
    connections_per_second: u32,
    /// Calls a second from one IP address, of any kind but health checks (a burst of twice
    /// that; more are refused, rate_limited). 0: no limit.
    #[arg(long, env = "DUDO_CALLS_PER_SECOND_PER_IP", default_value_t = 1_000)]
    calls_per_second_per_ip: u32,
    /// Streams opened a second from one IP address (Play, Subscribe, Watch, WatchReplay, the
    /// ladder's and tournaments' Enter, Check, reflection; a burst of twice that). 0: no limit.
    #[arg(long, env = "DUDO_STREAM_OPENS_PER_SECOND_PER_IP", default_value_t = 200)]
    stream_opens_per_second_per_ip: u32,
    /// Seats a table may have.
    #[arg(long, env = "DUDO_MAX_SEATS", default_value_t = 64)]
    max_seats: usize,
    /// Calls a seat may make each second that its table was not waiting for (out of turn,
    /// refused); a move answering a prompt does not count.
    #[arg(long, env = "DUDO_ACTIONS_PER_SECOND", default_value_t = 50)]
    actions_per_second: u32,
    /// Seats one address may leave (Leave) a minute, in all tables: that many at once, then
    /// one each 60/N s; past it a leave is refused, rate_limited, with how long to wait (a
    /// leave before the start renumbers the seats after it and ends their streams). A leave
    /// refused for another reason is not counted. 0: no limit.
    #[arg(long, env = "DUDO_LEAVES_PER_MINUTE", default_value_t = 20)]
    leaves_per_minute: u32,
    /// Moves a whole table may make each second in answer to prompts: protects the server
    /// from tables of programs playing flat out.
    #[arg(long, env = "DUDO_TABLE_MOVES_PER_SECOND", default_value_t = 2_000)]
    table_moves_per_second: u32,
    /// The most moves a game may have: a game that reaches it is stopped and ranked as a game
    /// of rounds ends (0: no limit).
    #[arg(long, env = "DUDO_MAX_GAME_MOVES", default_value_t = 10_000)]
    max_game_moves: u64,
    /// The longest a game may last, in minutes: one that outlasts it is stopped at its next
    /// move (0: no limit).
    #[arg(long, env = "DUDO_MAX_GAME_MINUTES", default_value_t = 180)]
    max_game_minutes: u64,
    /// The CPU one table's built-in bots may take, in percent of one core (0: no limit):
    /// past it their moves wait, so no table of bots holds the server.
    #[arg(long, env = "DUDO_BOT_CPU_PERCENT_PER_TABLE", default_value_t = 5.0)]
    bot_cpu_percent_per_table: f64,
    /// The CPU every table's built-in bots may take together, in percent of one core (0: no
    /// limit); a table whose bots have been light lately does not wait for it.
    #[arg(long, env = "DUDO_BOT_CPU_PERCENT", default_value_t = 25.0)]
    bot_cpu_percent: f64,
    /// The most memory a game's events may take, in KiB (estimated, as the memory budget
    /// counts it): a game that reaches it is stopped (0: no limit).
    #[arg(long, env = "DUDO_MAX_GAME_KIB", default_value_t = 16 * 1024)]
    max_game_kib: u64,
    /// What clients may make the server hold in all, in MiB (estimated from the messages'
    /// sizes): the events of games in play, updates waiting for slow readers, replays being
    /// read. Past it, new tables, games, streams and replays are refused (`server_busy`) and
    /// games still growing are stopped. The server's memory stays within about twice this
    /// (see BENCHMARKS.md).
    #[arg(long, env = "DUDO_MEMORY_BUDGET_MIB", default_value_t = 512)]
    memory_budget_mib: usize,
    /// Each client address's share of the memory budget, in MiB (0: no share of its own):
    /// an address that fills its share is refused, and everyone else plays on.
    #[arg(long, env = "DUDO_MEMORY_PER_ADDRESS_MIB", default_value_t = 64)]
    memory_per_address_mib: usize,
    /// The largest message a client may send, in bytes.
    #[arg(long, env = "DUDO_MAX_MESSAGE_BYTES", default_value_t = 16_384)]
    max_message_bytes: usize,
    /// Close a table after this many seconds with no call reaching it and no stream open on
    /// it (a finished or abandoned table otherwise stays for ever).
    #[arg(long, env = "DUDO_IDLE_TABLE_SECONDS", default_value_t = 1800)]
    idle_table_seconds: u64,
    /// Told to stop (SIGTERM), answer health NOT_SERVING this long, still serving, before
    /// draining: a balancer that polls health sends new calls elsewhere first.
    #[arg(long, env = "DUDO_DRAIN_GRACE_MS", default_value_t = 300)]
    drain_grace_ms: u64,
    /// The turn clock of a table made without one asked for (the page's and `dudo create`'s
    /// default), in milliseconds a move: a player who walks away has their default move made
    /// when it runs out. 0: such tables have no clock.
    #[arg(long, env = "DUDO_DEFAULT_MOVE_MS", default_value_t = 60_000)]
    default_move_ms: u32,
    /// The time bank of such a table, in milliseconds a seat.
    #[arg(long, env = "DUDO_DEFAULT_BANK_MS", default_value_t = 60_000)]
    default_bank_ms: u32,
    /// After a showdown, how long the next round of a table that did not say waits for its
    /// people to see it, in milliseconds (0: at once; at most 30000). A table of bots never
    /// waits.
    #[arg(long, env = "DUDO_DEFAULT_REVEAL_PAUSE_MS", default_value_t = 5_000)]
    default_reveal_pause_ms: u32,
    /// Forget a closed table's journal this many days after it closed (0: keep them all).
    /// Finished games keep their own records, replays included.
    #[arg(long, env = "DUDO_KEEP_CLOSED_TABLES_DAYS", default_value_t = 7)]
    keep_closed_tables_days: u64,
    /// Ping a connection quiet for this many seconds to learn whether it is still there; a
    /// vanished client's streams are freed about 10 s later (0: never ping).
    #[arg(long, env = "DUDO_KEEPALIVE_SECONDS", default_value_t = 30)]
    keepalive_seconds: u64,
    /// Close a connection that has had no call in flight for this many seconds (its client's
    /// next call opens a new one), so idle connections cannot hold memory (0: never).
    #[arg(long, env = "DUDO_IDLE_CONNECTION_SECONDS", default_value_t = 30)]
    idle_connection_seconds: u64,
    /// Where people reach this server (https://dudo.example.org, or http://HOST:PORT), for
    /// tables' links (URL/t/CODE, the browser table's page). Default: http:// (https://
    /// with --tls-cert) and --listen.
    #[arg(long, env = "DUDO_PUBLIC_URL")]
    public_url: Option<String>,
    /// An origin whose pages may call this server from a browser (CORS), like
    /// https://dudo.example.org; repeat it, or give several separated by commas. The page the
    /// server serves itself needs none.
    #[arg(long = "allowed-origin", env = "DUDO_ALLOWED_ORIGINS", value_delimiter = ',')]
    allowed_origins: Vec<String>,
    /// Where to keep tables (so they survive a restart), finished games and ratings: a SQLite
    /// file, `:memory:` (kept until the server stops), `postgres://user@host/database`, or
    /// `none` (nothing kept). Default: dudo.db in $DUDO_HOME, $XDG_DATA_HOME/dudo or
    /// ~/.local/share/dudo.
    #[arg(long, env = "DUDO_DB")]
    db: Option<String>,
    /// Keep ratings for tables created as ranked (the arena's ratings are always kept).
    #[arg(long, env = "DUDO_RANKED")]
    ranked: bool,
    /// Who may register accounts: `open` (anyone) or `admin` (only with the admin token).
    #[arg(long, env = "DUDO_REGISTRATION", default_value = "open", value_parser = ["open", "admin"])]
    registration: String,
    /// The admin token: registers accounts when registration is `admin`, suspends accounts
    /// and revokes their tokens. Prefer DUDO_ADMIN_TOKEN or --admin-token-file to a flag
    /// (a flag shows in `ps`). Never logged.
    #[arg(long, env = "DUDO_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// A file holding the admin token (its first line).
    #[arg(long, env = "DUDO_ADMIN_TOKEN_FILE", conflicts_with = "admin_token")]
    admin_token_file: Option<std::path::PathBuf>,
    /// The ladder's pools, a TOML file (see docs/ladder.md); default: the built-in pools
    /// (fibbing-4 and perudo-jonti-2 for anyone, people-fibbing-4 for people). A server with
    /// no records (--db none) runs no ladder.
    #[arg(long, env = "DUDO_LADDER")]
    ladder: Option<std::path::PathBuf>,
    /// Who may make tournaments: the admin only, or any account (see docs/tournaments.md).
    #[arg(long, env = "DUDO_TOURNAMENTS", value_enum, default_value = "admin")]
    tournaments: dudo_server::tournament::spec::Organisers,
    /// Entrants one tournament may have, house bots included (up to 1024).
    #[arg(long, env = "DUDO_MAX_TOURNAMENT_ENTRANTS", default_value_t = 256, value_parser = clap::value_parser!(u32).range(2..=1024))]
    max_tournament_entrants: u32,
    /// Tournaments one account may have taking entries or running at once.
    #[arg(long, env = "DUDO_MAX_TOURNAMENTS_PER_ORGANISER", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1000))]
    max_tournaments_per_organiser: u32,
    /// Games every tournament together may have in play at once: tournament play's share of
    /// the server.
    #[arg(long, env = "DUDO_MAX_TOURNAMENT_TABLES_ALL", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_tournament_tables_all: u32,
    /// Games the accounts' tournaments together may start in a minute, at an even pace (the
    /// admin's are not counted).
    #[arg(long, env = "DUDO_TOURNAMENT_GAMES_PER_MINUTE", default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    tournament_games_per_minute: u32,
    /// Tournaments one account, or one address, may make in an hour (the admin is not
    /// counted): a crowd of made-and-cancelled tournaments would bury the real ones.
    #[arg(long, env = "DUDO_MAX_TOURNAMENTS_PER_HOUR", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    max_tournaments_per_hour: u32,
    /// Games one tournament may have in play at once (all tables count against --max-tables
    /// and the memory budget as well).
    #[arg(long, env = "DUDO_MAX_TOURNAMENT_TABLES", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    max_tournament_tables: u32,
    /// Games one tournament's schedule may hold (its export grows with them; up to 200,000).
    #[arg(long, env = "DUDO_MAX_TOURNAMENT_GAMES", default_value_t = 50_000, value_parser = clap::value_parser!(u64).range(1..=200_000))]
    max_tournament_games: u64,
    /// Ask for a passed bot check (`dudo bot check`) within this many days before an
    /// account enters the ladder or a tournament (0: no check needed).
    #[arg(long, env = "DUDO_REQUIRE_BOT_CHECK", value_name = "DAYS", default_value_t = 0,
          value_parser = clap::value_parser!(u32).range(0..=3650))]
    require_bot_check: u32,
    /// Run as one node of a cluster: several servers on one PostgreSQL database (--db
    /// postgres://…), any of which answers any call (see docs/deploy.md).
    #[arg(long, env = "DUDO_CLUSTER")]
    cluster: bool,
    /// In a cluster, where the other nodes send calls for this node's tables.
    #[arg(long, env = "DUDO_NODE_LISTEN", default_value = "127.0.0.1:0")]
    node_listen: String,
    /// In a cluster, the URL the other nodes reach --node-listen at (http://10.0.0.7:7001).
    /// Default: http:// and the address --node-listen is bound to.
    #[arg(long, env = "DUDO_NODE_ADDRESS")]
    node_address: Option<String>,
    /// In a cluster, this node's name, unique among the nodes (a pod's name). Default: the
    /// host's name and a random suffix.
    #[arg(long, env = "DUDO_NODE_ID")]
    node_id: Option<String>,
    /// The secret the nodes of a cluster share: a call from one node to another carries it.
    /// Prefer DUDO_CLUSTER_KEY or --cluster-key-file to a flag. Never logged.
    #[arg(long, env = "DUDO_CLUSTER_KEY", hide_env_values = true)]
    cluster_key: Option<String>,
    /// A file holding the cluster's key (its first line).
    #[arg(long, env = "DUDO_CLUSTER_KEY_FILE", conflicts_with = "cluster_key")]
    cluster_key_file: Option<std::path::PathBuf>,
    /// In a cluster, how long a node's hold on its tables lasts unrenewed, in milliseconds:
    /// the tables of a node that dies wait this long for another node to adopt them.
    #[arg(long, env = "DUDO_LEASE_MILLIS", default_value_t = 5_000)]
    lease_millis: u64,
    /// TLS on the client port: the certificate chain (PEM, the server's certificate first).
    /// Clients then connect with https:// addresses. Renewed files are picked up within a
    /// minute.
    #[arg(long, env = "DUDO_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, env = "DUDO_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
    /// Serve Prometheus metrics on this address (GET /metrics), e.g. 127.0.0.1:9090.
    #[arg(long, env = "DUDO_METRICS_LISTEN")]
    metrics_listen: Option<std::net::SocketAddr>,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Args::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // One line with its causes: returned from main, anyhow's Debug form would add a
        // backtrace under RUST_BACKTRACE=1 and bury the way out it names.
        Err(e) => {
            eprintln!("Error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The server as `args` ask: every refusal to start is an error said once, by `main`.
async fn run(args: Args) -> anyhow::Result<()> {
    // sqlx reports a slow statement with its whole text (a journal insert is ~20 KB of SQL):
    // the table's own warnings say what matters.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        // The metrics exporter logs every failed accept: at the descriptor limit, megabytes a
        // scrape; rustls, every bad record a client sends (a line per connection of a flood).
        .unwrap_or_else(|_| {
            "info,sqlx::query=error,sqlx::postgres::notice=warn,metrics_exporter_prometheus=error,rustls=error".into()
        });
    if args.log_format == "json" {
        tracing_subscriber::fmt().json().with_writer(std::io::stderr).with_env_filter(filter).init();
    } else {
        // Colour only on a terminal: escape codes in a log file are noise.
        use std::io::IsTerminal;
        let ansi = std::io::stderr().is_terminal();
        tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(ansi).with_env_filter(filter).init();
    }
    // A cluster's settings are checked before anything starts (or says it has).
    let cluster = match args.cluster {
        true => Some(cluster_settings(&args).await?),
        false => None,
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(dudo_server::tls::ServerTls::load(cert, key)?),
        _ => None,
    };
    let lease = args.cluster.then(|| std::time::Duration::from_millis(args.lease_millis));
    let store = open_store(args.db.as_deref(), lease).await?;
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .map_err(|e| anyhow::anyhow!("--listen {}: {e}", args.listen))?;
    if let Some(addr) = args.metrics_listen {
        metrics_exporter_prometheus::PrometheusBuilder::new().with_http_listener(addr).install()?;
    }
    let (address, speaks_tls) = (listener.local_addr()?, tls.is_some());
    // Printed on stdout too, so scripts and tests that bind port 0 learn the port: every
    // line in one write, and a reader that closed the pipe after the first line (as
    // `dudo-load` does) is no error: a panicking `println!` would take the server down.
    let mut banner = format!("dudo-server listening on {}\n", listener.local_addr()?);
    if tls.is_some() {
        banner += &format!(
            "dudo-server speaks TLS there: clients connect to https://HOST:{}\n",
            listener.local_addr()?.port()
        );
    }
    banner += &match &store {
        Some(store) => format!("dudo-server keeps its records in {}\n", store.place()),
        None => "dudo-server keeps no records (--db none): tables end with the server\n".to_string(),
    };
    if let Some(addr) = args.metrics_listen {
        banner += &format!("dudo-server metrics on http://{addr}/metrics\n");
    }
    if let Some(node) = &cluster {
        banner +=
            &format!("dudo-server node {} takes the other nodes' calls on {}\n", node.node, node.address);
    }
    // Said once the server is about to serve (tables recovered, the node admitted).
    let ready = std::sync::Arc::new(move || {
        use std::io::Write;
        tracing::info!(%address, tls = speaks_tls, "dudo-server listening");
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(banner.as_bytes()).and_then(|()| out.flush());
    });
    let shutdown = async {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return,
            };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            let _ = ctrl_c.await;
        }
        tracing::info!("shutting down");
    };
    let limits = dudo_server::node::Limits {
        max_tables: args.max_tables,
        max_tables_per_ip: args.max_tables_per_ip,
        max_streams_per_ip: args.max_streams_per_ip,
        max_streams_per_connection: args.max_streams_per_connection,
        max_connections_per_ip: args.max_connections_per_ip,
        connections_per_second_per_ip: args.connections_per_second_per_ip,
        calls_per_second_per_ip: args.calls_per_second_per_ip,
        stream_opens_per_second_per_ip: args.stream_opens_per_second_per_ip,
        connections_per_second: args.connections_per_second,
        max_seats: args.max_seats,
        actions_per_second: args.actions_per_second,
        leaves_per_minute: args.leaves_per_minute,
        table_moves_per_second: args.table_moves_per_second,
        max_game_moves: args.max_game_moves,
        max_game_time: (args.max_game_minutes > 0)
            .then(|| std::time::Duration::from_secs(args.max_game_minutes.saturating_mul(60))),
        max_game_bytes: args.max_game_kib.saturating_mul(1024),
        memory_budget: args.memory_budget_mib.saturating_mul(1024 * 1024),
        memory_per_address: args.memory_per_address_mib.saturating_mul(1024 * 1024),
        max_message_bytes: args.max_message_bytes,
        idle_table: std::time::Duration::from_secs(args.idle_table_seconds),
        default_clock: dudo_server::node::DefaultClock {
            move_millis: args.default_move_ms,
            bank_millis: args.default_bank_ms,
            reveal_pause_millis: args.default_reveal_pause_ms,
        },
        keep_closed_tables: std::time::Duration::from_secs(
            args.keep_closed_tables_days.saturating_mul(24 * 60 * 60),
        ),
        keepalive: (args.keepalive_seconds > 0)
            .then(|| std::time::Duration::from_secs(args.keepalive_seconds)),
        bot_cpu: dudo_server::bot_cpu::BotCpuLimits {
            per_table: cores(args.bot_cpu_percent_per_table)?,
            all_tables: cores(args.bot_cpu_percent)?,
        },
        request_time: dudo_server::node::Limits::default().request_time,
        idle_connection: std::time::Duration::from_secs(args.idle_connection_seconds),
        max_journal_entries: dudo_server::node::Limits::default().max_journal_entries,
    };
    let admin_token = match &args.admin_token_file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("--admin-token-file {}: {e}", path.display()))?
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
        ),
        None => args.admin_token.clone(),
    };
    let registration = match args.registration.as_str() {
        "admin" => dudo_server::accounts::Registration::Admin,
        _ => dudo_server::accounts::Registration::Open,
    };
    if registration == dudo_server::accounts::Registration::Admin && admin_token.is_none() {
        anyhow::bail!("--registration admin needs an admin token (DUDO_ADMIN_TOKEN or --admin-token-file)");
    }
    let accounts = dudo_server::accounts::AccountSettings::new(registration, admin_token.as_deref());
    let ladder = match &args.ladder {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| anyhow::anyhow!("--ladder {}: {e}", path.display()))?;
            Some(
                dudo_server::ladder::pools::parse(&text)
                    .map_err(|e| anyhow::anyhow!("--ladder {}: {e}", path.display()))?,
            )
        }
        None => None,
    };
    let public_url = args.public_url.map(|url| url.trim_end_matches('/').to_string());
    if let Some(url) = &public_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        anyhow::bail!("--public-url: an http:// or https:// URL, not {url:?}");
    }
    for origin in &args.allowed_origins {
        if !(origin.starts_with("http://") || origin.starts_with("https://")) || origin.ends_with('/') {
            anyhow::bail!(
                "--allowed-origin: an origin like https://dudo.example.org (no path), not {origin:?}"
            );
        }
    }
    let setup = dudo_server::Setup {
        limits,
        store,
        ranked: args.ranked,
        recover: true,
        accounts,
        ladder,
        tournaments: dudo_server::tournament::Settings {
            organisers: args.tournaments,
            max_entrants: args.max_tournament_entrants,
            per_organiser: args.max_tournaments_per_organiser,
            per_hour: args.max_tournaments_per_hour,
            max_tables: args.max_tournament_tables,
            max_tables_all: args.max_tournament_tables_all,
            games_per_minute: args.tournament_games_per_minute,
            max_games: args.max_tournament_games,
        },
        require_bot_check: (args.require_bot_check > 0)
            .then(|| std::time::Duration::from_secs(u64::from(args.require_bot_check) * 86_400)),
        public_url,
        allowed_origins: args.allowed_origins,
        tls,
        drain_grace: std::time::Duration::from_millis(args.drain_grace_ms),
        ready: Some(ready),
    };
    let Some(Node { listener: node_listener, address, key, node }) = cluster else {
        dudo_server::serve(listener, setup, shutdown).await?;
        return Ok(());
    };
    let cluster = dudo_server::node::cluster::ClusterSetup {
        node,
        address,
        key,
        lease: std::time::Duration::from_millis(args.lease_millis),
    };
    dudo_server::serve_cluster(listener, node_listener, cluster, setup, shutdown).await?;
    Ok(())
}

/// The node port, bound, the address the other nodes reach it at, the cluster's key and
/// this node's id.
async fn cluster_settings(args: &Args) -> anyhow::Result<Node> {
    let node_listener = tokio::net::TcpListener::bind(&args.node_listen)
        .await
        .map_err(|e| anyhow::anyhow!("--node-listen {}: {e}", args.node_listen))?;
    let bound = node_listener.local_addr()?;
    let address = match args.node_address.clone() {
        Some(address) if address.starts_with("http://") || address.starts_with("https://") => address,
        Some(address) => anyhow::bail!("--node-address: an http:// URL, not {address:?}"),
        None if bound.ip().is_unspecified() => anyhow::bail!(
            "--node-listen {bound} is every interface: give --node-address http://THIS-NODE:{} so the others can reach it",
            bound.port()
        ),
        None => format!("http://{bound}"),
    };
    let key = match &args.cluster_key_file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("--cluster-key-file {}: {e}", path.display()))?
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
        None => args.cluster_key.clone().unwrap_or_default(),
    };
    if key.len() < 16 {
        anyhow::bail!(
            "--cluster needs a key of at least 16 characters (DUDO_CLUSTER_KEY or --cluster-key-file)"
        );
    }
    if args.lease_millis < 500 {
        anyhow::bail!("--lease-millis: at least 500, not {}", args.lease_millis);
    }
    let node = args.node_id.clone().unwrap_or_else(|| {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "node".to_string());
        format!("{host}-{}", &dudo_server::table::secret()[..8])
    });
    Ok(Node { listener: node_listener, address, key, node })
}

/// A cluster node's own settings, checked.
struct Node {
    /// The node port.
    listener: tokio::net::TcpListener,
    /// Where the other nodes reach it.
    address: String,
    key: String,
    /// This node's id.
    node: String,
}

/// A share of the CPU given in percent of one core, as a fraction (0: no limit).
fn cores(percent: f64) -> anyhow::Result<Option<f64>> {
    if !percent.is_finite() || percent < 0.0 {
        anyhow::bail!("a CPU share is a percentage of one core, 0 (no limit) or more, not {percent}");
    }
    Ok((percent > 0.0).then_some(percent / 100.0))
}

/// Opens the database `--db` names (or the default file), or none for `--db none`; as one
/// of a cluster's members with `--cluster`.
async fn open_store(
    db: Option<&str>,
    lease: Option<std::time::Duration>,
) -> anyhow::Result<Option<dudo_server::Store>> {
    if let Some(lease) = lease {
        let Some(db) = db.filter(|db| db.starts_with("postgres")) else {
            anyhow::bail!("--cluster needs a PostgreSQL database: --db postgres://user@host/database");
        };
        // A save, a renewal or a check of the alive session that waits a fifth of a lease
        // for a connection gives up: a table's save then ends inside half a lease (saving.rs).
        let patience = (lease / 5).max(std::time::Duration::from_millis(250));
        return Ok(Some(dudo_server::Store::open_waiting(db, dudo_store::Access::Member, patience).await?));
    }
    let db = match db {
        Some("none") => return Ok(None),
        Some(db) => db.to_string(),
        None => {
            let path = dudo_store::default_db()
                .ok_or_else(|| anyhow::anyhow!("no home directory for the database: pass --db PATH"))?;
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| anyhow::anyhow!("cannot create {} for the database: {e}", dir.display()))?;
            }
            path.display().to_string()
        }
    };
    match dudo_server::Store::open(&db).await {
        Ok(store) => Ok(Some(store)),
        // Two servers started from the README's commands side by side meet here: say the
        // way out, as `dudo play` does.
        Err(dudo_store::StoreError::InUse { path }) => anyhow::bail!(
            "the database {path} is in use by another dudo process (a dudo-server, or dudo play or arena): stop it, or give this server a database of its own with --db PATH, or --db none to keep no records"
        ),
        Err(e) => Err(e.into()),
    }
}
