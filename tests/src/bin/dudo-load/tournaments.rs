//! What tournaments load the server with while people play (`dudo-load play`'s background):
//!
//! - `--house-tournaments N`: N accounts from this address each make a Swiss of 64 house bots
//!   starting at once (the flood of issue 36: tables, records and CPU no per-address limit
//!   saw), as many as the server lets them;
//! - `--standings-readers N`: the admin makes one large tournament of house bots, and N
//!   callers from this address ask for its standings over and over while another address
//!   (127.0.0.2) asks once every 50 ms: its read latency is what the crowd costs others.
//!
//! Each loop stops at the run's deadline.

use std::time::{Duration, Instant};

use dudo_proto::v1 as pb;
use dudo_proto::v1::accounts_client::AccountsClient;
use dudo_proto::v1::tournaments_client::TournamentsClient;
use tonic::transport::{Channel, Endpoint};

/// The admin token the load's server starts with.
pub(crate) const ADMIN: &str = "dudo-load-admin";

/// What runs beside the measured tables.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Background {
    /// Host-only tables of 64 reader bots with 20 dice each.
    pub(crate) bot_tables: usize,
    pub(crate) house_tournaments: usize,
    pub(crate) standings_readers: usize,
    /// A hostile client from another address (see `attacks.rs`).
    pub(crate) attack: crate::attacks::Attack,
    /// The server with its default per-address limits, as deployed (else lifted for this
    /// tool's one address).
    pub(crate) default_limits: bool,
}

impl Background {
    /// The server's flags the background needs.
    pub(crate) fn server_flags(&self) -> Vec<&'static str> {
        if self.house_tournaments == 0 && self.standings_readers == 0 {
            return Vec::new();
        }
        vec!["--tournaments", "anyone", "--admin-token", ADMIN]
    }
}

fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    dudo_tests::bearer(message, token)
}

/// A Swiss of 64 house bots at tables of four, starting at once.
fn house_swiss(name: String) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        name,
        preset: "fibbing".into(),
        seats: 4,
        format: pb::TournamentFormat::Swiss as i32,
        rounds: 8,
        deals: 40,
        house_bots: ["random", "odds", "reader", "odds"]
            .iter()
            .cycle()
            .take(64)
            .map(|b| b.to_string())
            .collect(),
        // In a second: under way by the end of the warm-up.
        starts_unix_millis: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64 + 1_000),
        ..Default::default()
    }
}

/// `n` accounts each make a house-bot tournament; how many were made, and the refusals by code.
pub(crate) async fn flood(addr: &str, n: usize) -> anyhow::Result<(usize, Vec<String>)> {
    let ch = Channel::from_shared(format!("http://{addr}"))?.connect().await?;
    let (mut accounts, mut tournaments) = (AccountsClient::new(ch.clone()), TournamentsClient::new(ch));
    let (mut made, mut refused) = (0, Vec::new());
    for i in 0..n {
        let registered = accounts
            .register(pb::RegisterRequest {
                name: format!("flood-{i}"),
                kind: pb::AccountKind::Bot as i32,
                token_label: "load".into(),
            })
            .await;
        let token = match registered {
            Ok(r) => r.into_inner().token.map(|t| t.token).unwrap_or_default(),
            Err(status) => {
                refused.push(format!("register: {}", code(&status)));
                continue;
            }
        };
        match tournaments.create(with_token(house_swiss(format!("flood {i}")), &token)).await {
            Ok(_) => made += 1,
            Err(status) => refused.push(format!("create: {}", code(&status))),
        }
    }
    Ok((made, refused))
}

fn code(status: &tonic::Status) -> String {
    status
        .metadata()
        .get("dudo-code")
        .and_then(|c| c.to_str().ok())
        .map_or_else(|| format!("{:?}", status.code()), str::to_string)
}

/// Makes a large tournament of house bots (the admin's), then from `warmup` to `deadline`
/// keeps `n` readers of its standings busy from this address and times another address's
/// reads: that address's read latencies, in µs.
pub(crate) async fn standings_storm(
    addr: &str,
    n: usize,
    warmup: Instant,
    deadline: Instant,
) -> anyhow::Result<tokio::task::JoinHandle<Vec<u32>>> {
    let ch = Channel::from_shared(format!("http://{addr}"))?.connect().await?;
    let mut admin = TournamentsClient::new(ch.clone());
    let request = pb::CreateTournamentRequest { tables: 16, ..house_swiss("read storm".into()) };
    let t = admin.create(with_token(request, ADMIN)).await?.into_inner();
    for _ in 0..n {
        let mut reader = TournamentsClient::new(ch.clone());
        let id = t.id.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(warmup.into()).await;
            while Instant::now() < deadline {
                let _ = reader.standings(pb::TournamentRef { tournament: id.clone() }).await;
            }
        });
    }
    let other = Endpoint::from_shared(format!("http://{addr}"))?
        .local_address(Some("127.0.0.2".parse()?))
        .connect()
        .await?;
    let mut other = TournamentsClient::new(other);
    Ok(tokio::spawn(async move {
        let mut taken = Vec::new();
        tokio::time::sleep_until(warmup.into()).await;
        while Instant::now() < deadline {
            let call = Instant::now();
            if other.standings(pb::TournamentRef { tournament: t.id.clone() }).await.is_ok() {
                taken.push(u32::try_from(call.elapsed().as_micros()).unwrap_or(u32::MAX));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        taken
    }))
}
