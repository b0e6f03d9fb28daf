//! The dudo game server.
//!
//! [`run`] serves on a listener until a shutdown future completes, so tests bind port 0.
//!
//! # Layers
//!
//! A module names only modules of its own layer or the layers below it, and no two name each
//! other (the `layers` test reads the sources and holds every file to this):
//!
//! 1. **Composition**: `main.rs` (flags, logging, signals) and this file ([`run`], [`serve`]),
//!    which build a node and put the services, the connection gate and the ports around it.
//! 2. **Adapters**: `services` (the gRPC services, thin: each call checked, handed to the
//!    node, and its refusal mapped to a status on the way out, or forwarded to the node that
//!    holds its table), `node_port` (the port between a cluster's nodes) and `web_page`
//!    (the browser table's files).
//! 3. **The node**: `node`, the registry of tables and the cluster; it holds the limits and
//!    budgets in force (their types are layer 8's) and the store. It composes the parts
//!    below and lends them what they may use of it.
//! 4. **The node's parts**: `ladder` (the matchmaker and the bot check), `tournament` (the
//!    director), `accounts` (names and API tokens) and `connections` (the connection gate:
//!    admission on the opening, the opening rate, the call gate). A part that makes tables is
//!    given `server_tables::ServerTables`, never the node. The node and these parts refuse
//!    with a `refusal::Refusal` (or the accounts' typed `AccountError`), not a gRPC status.
//! 5. **Tables made for the server**: `server_tables`, the narrow handle, with what a part
//!    makes a table from and gets back.
//! 6. **Refusals on the way out**: `status`, where a `Refusal`, a table's `TableError` and an
//!    account's `AccountError` are given their gRPC codes, in one place. Below the services
//!    only what is the wire already uses it: the update streams the node hands the services,
//!    and the call gate, which answers a call itself.
//! 7. **The table**: `table`, one task per table around a sans-IO core, its journal and its
//!    records.
//! 8. **What all share**: `address` (what one address is), `limits`, `budget`, `bot_cpu`,
//!    `stopping`, `tls` and `refusal` (what
//!    kind of "no" a refusal is, its code and its text); below them the other crates: the
//!    engine (`dudo-rules`), the wire and its one conversion (`dudo-proto`, re-exported as
//!    [`convert`]) and the records (`dudo-store`).
#![forbid(unsafe_code)]

#[cfg(test)]
mod layers;

pub mod accounts;
pub mod address;
pub mod bot_cpu;
pub mod budget;
pub mod connections;
pub use connections::call_gate;
pub mod ladder;
pub mod limits;
pub mod node;
pub mod node_port;
pub mod refusal;
pub mod server_tables;
pub mod services;
pub mod status;
pub mod stopping;
pub mod table;
pub mod tls;
pub mod tournament;
pub mod web_page;

use std::future::Future;

use tokio::net::TcpListener;

pub use dudo_proto::convert;
pub use dudo_rules as rules;
pub use dudo_store::Store;

use connections::CONNECTION_WINDOW;
pub use connections::{CONNECTION_BYTES, HTTP1_CONNECTION_BYTES};

/// The largest request the health and reflection services read.
const SMALL_REQUEST: usize = 16 * 1024;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("{0}")]
    Store(#[from] dudo_store::StoreError),
    #[error("the listener: {0}")]
    Listener(#[from] std::io::Error),
    #[error("{0}")]
    Cluster(#[from] node::cluster::JoinError),
}

/// What a server is run with besides its listener.
#[derive(Clone, Default)]
pub struct Setup {
    pub limits: node::Limits,
    /// Where tables, finished games and ratings are kept; none: in memory only, nothing kept.
    pub store: Option<Store>,
    /// Tables may ask to count for the "ranked" ratings.
    pub ranked: bool,
    /// Bring back the store's open tables at start (false for a server that only reads
    /// records beside the one that runs the tables).
    pub recover: bool,
    /// Who may register accounts, and the admin token.
    pub accounts: accounts::AccountSettings,
    /// The ladder's pools (none: the built-in pools). A server with a store runs a ladder.
    pub ladder: Option<Vec<ladder::Pool>>,
    /// What tournaments may be (a server with a store runs them).
    pub tournaments: tournament::Settings,
    /// How recent a passed bot check an account needs before ranked play (none: no check).
    pub require_bot_check: Option<std::time::Duration>,
    /// Where people reach the server (`https://dudo.example.org`), for tables' links; none:
    /// `http://` and the address it listens on.
    pub public_url: Option<String>,
    /// Origins whose pages may call the server from a browser (CORS), besides the server's
    /// own page, which needs none: `https://dudo.example.org`.
    pub allowed_origins: Vec<String>,
    /// TLS on the client port (`--tls-cert`, `--tls-key`); none: plaintext.
    pub tls: Option<tls::ServerTls>,
    /// How long a server told to stop answers health `NOT_SERVING`, still serving, before it
    /// drains: a balancer polling health sees it and sends new calls elsewhere (zero: drains
    /// at once, as in-process tests do).
    pub drain_grace: std::time::Duration,
    /// Called once the server is about to serve: its tables recovered and, in a cluster, the
    /// node admitted (its id and key checked). The binary prints its "listening on" banner
    /// here, so a script that waits for it never sees it from a node the cluster refused.
    pub ready: Option<std::sync::Arc<dyn Fn() + Send + Sync>>,
}

/// Serves the dudo services, gRPC health and server reflection (also as gRPC-Web) on `listener` until
/// `shutdown` completes; open streams are then closed.
pub async fn run(listener: TcpListener, shutdown: impl Future<Output = ()>) -> Result<(), ServeError> {
    run_with(listener, node::Limits::default(), shutdown).await
}

/// [`run`] with the given limits.
pub async fn run_with(
    listener: TcpListener,
    limits: node::Limits,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    serve(listener, Setup { limits, ..Setup::default() }, shutdown).await
}

/// Serves as [`run`] does; with a store, first brings back every table that was in play when
/// the server last stopped (however it stopped).
pub async fn serve(
    listener: TcpListener,
    setup: Setup,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    serve_node(listener, None, setup, shutdown).await
}

/// One node of a cluster on a shared PostgreSQL database (its store opened as a
/// [`dudo_store::Access::Member`]): serves clients on `listener` as [`serve`] does, and the
/// other nodes on `node_listener` (calls for the tables this node holds). Tables come to it
/// by adoption, not recovery. When `shutdown` completes it drains: every table is handed to
/// the other nodes before the server stops.
pub async fn serve_cluster(
    listener: TcpListener,
    node_listener: TcpListener,
    cluster: node::cluster::ClusterSetup,
    setup: Setup,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    serve_node(listener, Some((node_listener, cluster)), Setup { recover: false, ..setup }, shutdown).await
}

async fn serve_node(
    listener: TcpListener,
    cluster: Option<(TcpListener, node::cluster::ClusterSetup)>,
    setup: Setup,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    let max_message = setup.limits.max_message_bytes;
    let keepalive = setup.limits.keepalive;
    let most_connections = setup.limits.max_connections_per_ip;
    let streams_per_connection = u32::try_from(setup.limits.max_streams_per_connection).unwrap_or(u32::MAX);
    let has_store = setup.store.is_some();
    let allowed_origins = setup.allowed_origins.clone();
    let tls = setup.tls.clone();
    let drain_grace = setup.drain_grace;
    let setup_ready = setup.ready.clone();
    let link_base = match &setup.public_url {
        Some(url) => url.clone(),
        None => link_base(listener.local_addr()?, tls.is_some()),
    };
    let tls_watch = tls.as_ref().map(tls::ServerTls::watch);
    let mut dudo = node::Dudo::new(setup.limits)
        .with_store(setup.store, setup.ranked)
        .with_accounts(setup.accounts)
        .with_link_base(&link_base)
        .with_bot_check(setup.require_bot_check);
    let node_listener = match cluster {
        Some((node_listener, cluster)) => {
            dudo = dudo.with_cluster(cluster);
            Some(node_listener)
        }
        None => None,
    };
    if has_store {
        dudo = dudo.with_ladder(setup.ladder.unwrap_or_else(ladder::pools::builtin));
        dudo = dudo.with_tournaments(setup.tournaments.clone());
    }
    // Every gauge is there from the start (a scrape before the first table sees zeros, not
    // nothing); set before recovery, which counts the tables it brings back.
    for gauge in ["dudo_tables", "dudo_seats", "dudo_streams"] {
        metrics::gauge!(gauge).set(0.0);
    }
    if setup.recover {
        let recovered = dudo.recover().await?;
        if recovered > 0 {
            tracing::info!(tables = recovered, "tables recovered from the database");
        }
    }
    // Any node of a cluster may forget closed tables: it is the same work wherever it runs.
    if (setup.recover || dudo.cluster().is_some())
        && let Some(store) = dudo.store().filter(|s| s.access() != dudo_store::Access::Reader)
    {
        prune_closed_tables(store.clone(), dudo.limits().keep_closed_tables);
    }
    let (health, health_service) = tonic_health::server::health_reporter();
    for service in services::NAMES {
        health.set_service_status(service, tonic_health::ServingStatus::Serving).await;
    }
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(dudo_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    // Older tools (grpcurl before v1 support) ask the v1alpha reflection service.
    let reflection_alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(dudo_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    // What the memory budget holds is sampled each second.
    let budget = std::sync::Arc::clone(dudo.budget());
    metrics::gauge!("dudo_memory_budget_bytes").set(budget.limit() as f64);
    let sampler = tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
        loop {
            every.tick().await;
            metrics::gauge!("dudo_memory_held_bytes").set(budget.used() as f64);
        }
    });
    let closer = dudo.clone();
    let (limits, budgets) = (std::sync::Arc::clone(&dudo.limits), dudo.budgets().clone());
    let calls = connections::Calls::default();
    // The node port stops with the public one (after the drain: forwarded streams are told).
    let (nodes_stop, nodes_stopped) = tokio::sync::oneshot::channel::<()>();
    if node_listener.is_some() {
        dudo.join_cluster().await?;
    }
    if let Some(ready) = &setup_ready {
        ready();
    }
    let nodes = node_listener.map(|listener| {
        dudo.run_cluster();
        tokio::spawn(node_port::serve(listener, dudo.clone(), async move {
            let _ = nodes_stopped.await;
        }))
    });
    let health_at_stop = health.clone();
    let refused = dudo.refused();
    let shutdown = async move {
        shutdown.await;
        // Readiness fails at once, for the server and each service, so a load balancer sends
        // no new calls here; health goes on answering through the grace and the drain.
        tracing::info!(
            grace_ms = drain_grace.as_millis() as u64,
            "told to stop: health says NOT_SERVING, then the drain"
        );
        not_serving(&health_at_stop).await;
        tokio::time::sleep(drain_grace).await;
        // Open streams are told and closed (a cluster's node hands its tables over first),
        // so the transport stops at once.
        closer.close_all().await;
        let _ = nodes_stop.send(());
    };
    let served = tonic::transport::Server::builder()
        // A client that vanished without closing its connection (a laptop lid, a dropped
        // network) is noticed within ~40 s, freeing its streams and its table.
        .http2_keepalive_interval(keepalive)
        .http2_keepalive_timeout(keepalive.map(|_| std::time::Duration::from_secs(10)))
        // Calls at once on one connection (unary ones too, each with its request buffered):
        // the streams the limit allows, and room for the calls beside them.
        .max_concurrent_streams(Some(streams_per_connection.saturating_add(32)))
        // What a connection may buffer unread is bounded and held from the budget (above).
        .initial_connection_window_size(CONNECTION_WINDOW)
        .initial_stream_window_size(CONNECTION_WINDOW / 2)
        .http2_max_header_list_size(call_gate::MAX_HEADER_BYTES)
        // gRPC-Web for browsers: HTTP/1.1 accepted and translated; the page itself is
        // served before it (web_page.rs).
        .accept_http1(true)
        .layer(cors(&allowed_origins))
        .layer(web_page::WebPage::new(&limits))
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(call_gate::CallGate::new(&limits, budgets.clone(), calls.clone(), refused.clone()))
        .add_routes(
            services::routes(dudo, max_message)
                // Their requests are a few bytes: the default 4 MiB limit would only let a
                // client that sends all but the last byte of each make the server hold it.
                .add_service(health_service.max_decoding_message_size(SMALL_REQUEST))
                .add_service(reflection.max_decoding_message_size(SMALL_REQUEST))
                .add_service(reflection_alpha.max_decoding_message_size(SMALL_REQUEST)),
        )
        .serve_with_incoming_shutdown(
            connections::incoming(listener, most_connections, &limits, budgets, calls, tls, refused),
            shutdown,
        )
        .await;
    sampler.abort();
    if let Some(watch) = tls_watch {
        watch.abort();
    }
    if let Some(nodes) = nodes {
        match nodes.await {
            Ok(Err(e)) => tracing::warn!(error = %e, "the node port failed"),
            Err(e) => tracing::warn!(error = %e, "the node port's task failed"),
            Ok(Ok(())) => {}
        }
    }
    served?;
    Ok(())
}

/// Health says `NOT_SERVING` for the server and every dudo service.
async fn not_serving(health: &tonic_health::server::HealthReporter) {
    health.set_service_status("", tonic_health::ServingStatus::NotServing).await;
    for service in services::NAMES {
        health.set_service_status(service, tonic_health::ServingStatus::NotServing).await;
    }
}

/// Tables' links when no public URL is given: `http://` (`https://` with TLS) and the
/// listening address, with `localhost` for an address that means every interface (a link
/// must name one).
fn link_base(listening: std::net::SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    if listening.ip().is_unspecified() {
        tracing::warn!(
            "tables' links name localhost: give --public-url {scheme}://HOST:{} so that others can open them",
            listening.port()
        );
        return format!("{scheme}://localhost:{}", listening.port());
    }
    format!("{scheme}://{listening}")
}

/// CORS for pages from `origins` (none: no other origin's page may call). gRPC-Web's headers
/// go both ways; `dudo-code` and gRPC's status headers are read by the page.
fn cors(origins: &[String]) -> tower_http::cors::CorsLayer {
    use http::{HeaderName, HeaderValue, Method};
    let origins: Vec<HeaderValue> = origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()).collect();
    let header = HeaderName::from_static;
    tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::AllowOrigin::list(origins))
        .allow_methods([Method::POST, Method::GET, Method::OPTIONS])
        .allow_headers([
            header("content-type"),
            header("authorization"),
            header("x-grpc-web"),
            header("x-user-agent"),
            header("grpc-timeout"),
        ])
        .expose_headers([
            header("grpc-status"),
            header("grpc-message"),
            header("grpc-status-details-bin"),
            header(status::CODE_KEY),
            // A page told it is calling too fast reads how long to wait.
            header(status::RETRY_AFTER_KEY),
        ])
        .max_age(std::time::Duration::from_secs(24 * 60 * 60))
}

/// Forgets closed tables' journals once they are older than `keep`, at the start and every
/// hour after (zero: never).
fn prune_closed_tables(store: Store, keep: std::time::Duration) {
    if keep.is_zero() {
        return;
    }
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60 * 60));
        loop {
            every.tick().await;
            let keep_millis = i64::try_from(keep.as_millis()).unwrap_or(i64::MAX);
            let before = table::unix_millis().saturating_sub(keep_millis);
            match store.prune_closed(before).await {
                Ok(0) => {}
                Ok(tables) => tracing::info!(tables, "closed tables' journals forgotten"),
                Err(e) => tracing::warn!(error = %e, "forgetting closed tables' journals failed"),
            }
        }
    });
}
