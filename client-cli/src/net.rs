//! Reaching a server: a remote one named by `--server`, or one embedded in this process.

use clap::Args;
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;

/// Where the dudo server is.
#[derive(Args, Clone, Debug)]
pub struct ServerArgs {
    /// The server's address, host:port.
    #[arg(long, env = "DUDO_SERVER", default_value = "127.0.0.1:50051")]
    pub server: String,
}

impl ServerArgs {
    pub async fn connect(&self) -> anyhow::Result<Client> {
        Ok(Client::connect(&self.server).await?)
    }
}

/// A server running inside this process on a free local port, for `dudo play` without
/// `--server`. It stops when the process ends.
pub async fn embedded() -> anyhow::Result<Client> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?.to_string();
    tokio::spawn(async move {
        if let Err(e) =
            dudo_server::run_with(listener, dudo_server::service::Limits::default(), std::future::pending())
                .await
        {
            eprintln!("dudo: the embedded server stopped: {e}");
        }
    });
    Ok(Client::connect(&addr).await?)
}

/// A table's one-line summary, for `dudo list` and `dudo create`.
pub fn table_line(t: &pb::TableInfo) -> String {
    let rules = t.rules.as_ref().map_or("?", |r| r.name.as_str());
    let host = t.players.get(t.host as usize).map_or("?", |p| p.name.as_str());
    format!("{}  {:<18} {}/{} seats  host {host}  id {}", t.join_code, rules, t.players.len(), t.seats, t.id)
}

/// The runtime the network commands run on: two worker threads are plenty for a client and
/// an embedded server.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?)
}
