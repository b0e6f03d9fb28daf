//! `dudo play`: a game against built-in bots, on an embedded server or a remote one.
//!
//! Without `--server` a dudo server starts inside this process on a free local port; either
//! way the game goes through the same gRPC calls as any other client: create a table, seat
//! the bots, start, and sit at it.

use std::process::ExitCode;

use clap::Args;
use dudo_client::dudo_proto::v1 as pb;

use crate::RuleArgs;
use crate::at_table;

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// How many bots join you.
    #[arg(long, default_value_t = 3)]
    pub bots: u32,
    /// The kind of bot: random, odds or reader (it reads the bids for what the bidder holds).
    #[arg(long, default_value = "odds", value_name = "KIND")]
    pub bot_kind: String,
    /// Your name at the table (default: your login name).
    #[arg(long)]
    pub name: Option<String>,
    /// Seed for the dice, to replay the same game (default: fresh dice from the server).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Play on this server (host:port, or https://host:port for one with TLS) instead of one
    /// embedded in this process.
    #[arg(long, env = "DUDO_SERVER")]
    pub server: Option<String>,
    /// How long each bot thinks before it calls, in milliseconds: time to follow the play.
    /// (Calls out of turn do not race it: each claim's call window waits for you.)
    #[arg(long, default_value_t = 900)]
    pub bot_think_ms: u32,
    /// How long everyone who may call out of turn (calza by the others) has to answer after
    /// each bid, in milliseconds (100 to 60000); 0 waits until each has answered, no longer
    /// than the move clock (--clock), or 30 s without one.
    #[arg(long, default_value_t = 3000, value_parser = crate::net::call_window_ms)]
    pub call_window_ms: u32,
    /// A turn clock: seconds for each of your calls (0: no clock; alone with bots, nobody
    /// waits on you).
    #[arg(long, default_value_t = 0)]
    pub clock: u32,
    #[command(flatten)]
    pub db: crate::net::DbArgs,
}

/// The player's name when none is given.
pub fn default_name() -> String {
    std::env::var("USER").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "Player".into())
}

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let request = pb::CreateTableRequest {
        name: args.name.clone().unwrap_or_else(default_name),
        seats: args.bots + 1,
        seed: args.seed,
        move_millis: Some(args.clock.saturating_mul(1000)),
        bot_think_millis: args.bot_think_ms,
        call_window_millis: Some(args.call_window_ms),
        ..args.rules.request()?
    };
    crate::net::runtime()?.block_on(async move {
        let client = match &args.server {
            Some(addr) => dudo_client::Client::connect(addr).await?,
            None => crate::net::embedded(args.db.open(crate::net::Purpose::Play).await?).await?,
        };
        let key = client.create(request).await?;
        let (bots, kind) = (args.bots, args.bot_kind.clone());
        let (setup_client, setup_key) = (client.clone(), key.clone());
        let setup: at_table::Setup = Box::pin(async move {
            for _ in 0..bots {
                setup_client.add_bot(&setup_key, &kind).await?;
            }
            setup_client.start(&setup_key).await?;
            Ok(())
        });
        let table = key.table.clone();
        let (host, host_key) = (client.clone(), key.clone());
        at_table::sit(client, Some(key), &table, Some(setup)).await?;
        // Over or abandoned, nobody comes back to a table of bots: closing it keeps it from
        // being brought back, to wait for no one, by the next server on the same database.
        let _ = host.close(&host_key).await;
        Ok(ExitCode::SUCCESS)
    })
}
