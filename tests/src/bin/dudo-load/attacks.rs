//! A hostile client beside the measured tables (`dudo-load play --attack KIND`), from another
//! address (127.0.0.2), for the whole measured run: what others' latency is during it is the
//! figure, against a run without it. Run with `--default-limits` so the server defends as it
//! is deployed (the measured tables then fit in one address's defaults: up to 100 tables).
//!
//! - `acts`: plain calls as fast as 32 loops can make them, each an `Act` with a token nobody
//!   holds (the flood answered `rate_limited` past the address's calls a second);
//! - `subscribes`: stream opens, the same (past the address's stream opens a second);
//! - `leaves`: a seat taken and left at a waiting table, over and over (each leave before the
//!   start ends the streams of the seats after it; one address's leaves are limited a minute).
//!
//! Each loop stops at the run's deadline; what the server answered is counted by code.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use tonic::transport::Channel;

/// The attack beside the measured tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Attack {
    #[default]
    None,
    Acts,
    Subscribes,
    Leaves,
}

/// The attacker's address.
const FROM: &str = "127.0.0.2";
/// Loops calling at once.
const LOOPS: usize = 32;

/// Starts `attack` against `addr` until `deadline`; the answers it got, by code, when done.
pub(crate) async fn start(
    attack: Attack,
    addr: &str,
    deadline: Instant,
) -> anyhow::Result<Option<tokio::task::JoinHandle<HashMap<String, u64>>>> {
    if attack == Attack::None {
        return Ok(None);
    }
    let channel =
        Channel::from_shared(format!("http://{addr}"))?.local_address(Some(FROM.parse()?)).connect().await?;
    let answers = Arc::new(Mutex::new(HashMap::<String, u64>::new()));
    // The leaves' waiting table: the attacker's own, made before the loops.
    let table = match attack {
        Attack::Leaves => {
            let request = pb::CreateTableRequest { name: "host".into(), seats: 8, ..Default::default() };
            let made = LobbyClient::new(channel.clone()).create_table(request).await?.into_inner();
            made.table.map(|t| t.id).unwrap_or_default()
        }
        _ => String::new(),
    };
    let mut loops = Vec::new();
    for n in 0..LOOPS {
        let (channel, answers, table) = (channel.clone(), Arc::clone(&answers), table.clone());
        loops.push(tokio::spawn(async move {
            let mut play = PlayClient::new(channel.clone());
            let mut lobby = LobbyClient::new(channel);
            while Instant::now() < deadline {
                let outcome: Result<(), tonic::Status> = match attack {
                    Attack::Acts => {
                        let act = pb::ActRequest { table: "nobodys".into(), ..Default::default() };
                        play.act(dudo_tests::bearer(act, "nobodys-token")).await.map(|_| ())
                    }
                    Attack::Subscribes => {
                        let subscribe = pb::SubscribeRequest { table: "nobodys".into(), since: None };
                        play.subscribe(dudo_tests::bearer(subscribe, "nobodys-token")).await.map(|_| ())
                    }
                    Attack::Leaves => {
                        let join = pb::JoinTableRequest {
                            table: table.clone(),
                            name: format!("churn{n}"),
                            ..Default::default()
                        };
                        match lobby.join_table(join).await {
                            Ok(joined) => {
                                let token = joined.into_inner().token;
                                let leave = pb::TableRef { table: table.clone() };
                                lobby.leave(dudo_tests::bearer(leave, &token)).await.map(|_| ())
                            }
                            Err(e) => Err(e),
                        }
                    }
                    Attack::None => return,
                };
                let code = match outcome {
                    Ok(()) => "ok".to_string(),
                    Err(status) => status
                        .metadata()
                        .get("dudo-code")
                        .and_then(|c| c.to_str().ok())
                        .map_or_else(|| format!("{:?}", status.code()), str::to_string),
                };
                // A refusal that asks to wait is waited out by nobody: the attack goes on.
                if let Ok(mut answers) = answers.lock() {
                    *answers.entry(code).or_default() += 1;
                }
            }
        }));
    }
    Ok(Some(tokio::spawn(async move {
        for l in loops {
            let _ = l.await;
        }
        answers.lock().map(|a| a.clone()).unwrap_or_default()
    })))
}
