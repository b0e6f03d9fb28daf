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
    /// Who joins you: how many bots of --bot-kind (`--bots 2`), three of one kind
    /// (`--bots expert`), or a kind a seat (`--bots expert,reader,odds`) [default: 3, or as
    /// many as the rules seat beside you, if fewer]
    #[arg(long, value_name = "N|KINDS", value_parser = parse_bots)]
    pub bots: Option<Bots>,
    /// The kind of bot for `--bots N`: random, odds (the default), reader (it reads the bids
    /// for what the bidder holds) or expert (it plays out its guesses at the hidden dice, and
    /// plays two players' last dice as solved: the strongest, but in Mexican, where it plays as
    /// the reader).
    #[arg(long, value_name = "KIND", value_parser = parse_kind)]
    pub bot_kind: Option<String>,
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

/// Who `--bots` seats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bots {
    /// This many of `--bot-kind`.
    Count(u32),
    /// These kinds, one a seat.
    Kinds(Vec<String>),
}

/// The bots a table seats when `--bots` names one kind, or is not given and the rules seat
/// as many.
const BOTS_OF_ONE_KIND: usize = 3;
/// The most bots `--bots` may list (the table's seats bound them again).
const MOST_BOTS: u32 = 63;

fn parse_kind(kind: &str) -> Result<String, String> {
    let kind = kind.trim();
    if dudo_rules::bots::NAMES.contains(&kind) {
        Ok(kind.to_string())
    } else {
        Err(format!("no bot {kind:?}; the bots are {}", dudo_rules::bots::NAMES.join(", ")))
    }
}

fn parse_bots(value: &str) -> Result<Bots, String> {
    if let Ok(n) = value.trim().parse::<u32>() {
        return if n <= MOST_BOTS { Ok(Bots::Count(n)) } else { Err(format!("at most {MOST_BOTS} bots")) };
    }
    let kinds = value.split(',').map(parse_kind).collect::<Result<Vec<_>, _>>()?;
    if kinds.len() > MOST_BOTS as usize {
        return Err(format!("at most {MOST_BOTS} bots"));
    }
    Ok(match kinds.as_slice() {
        [one] => Bots::Kinds(vec![one.clone(); BOTS_OF_ONE_KIND]),
        _ => Bots::Kinds(kinds),
    })
}

impl Bots {
    /// The kind of each bot, in seat order; `--bot-kind` is for a count alone.
    fn kinds(&self, bot_kind: Option<&str>) -> anyhow::Result<Vec<String>> {
        match self {
            Bots::Count(n) => Ok(vec![bot_kind.unwrap_or("odds").to_string(); *n as usize]),
            Bots::Kinds(_) if bot_kind.is_some() => {
                anyhow::bail!(
                    "--bot-kind: --bots names the kinds already; give --bots a count to use --bot-kind"
                )
            }
            Bots::Kinds(kinds) => Ok(kinds.clone()),
        }
    }
}

/// The player's name when none is given.
pub fn default_name() -> String {
    std::env::var("USER").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "Player".into())
}

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    // A two-player rule set (OpenSpiel's, say) seats one bot beside you unless told more.
    let bots = match &args.bots {
        Some(bots) => bots.clone(),
        None => {
            let seats = usize::from(args.rules.resolve()?.players.max);
            Bots::Count(BOTS_OF_ONE_KIND.min(seats.saturating_sub(1)).max(1) as u32)
        }
    };
    let kinds = bots.kinds(args.bot_kind.as_deref())?;
    let request = pb::CreateTableRequest {
        name: args.name.clone().unwrap_or_else(default_name),
        seats: kinds.len() as u32 + 1,
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
        let (setup_client, setup_key) = (client.clone(), key.clone());
        let setup: at_table::Setup = Box::pin(async move {
            for kind in &kinds {
                setup_client.add_bot(&setup_key, kind).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bots_are_a_count_one_kind_or_a_kind_a_seat() {
        assert_eq!(parse_bots("2"), Ok(Bots::Count(2)));
        let kinds = |bots: &str, kind: Option<&str>| parse_bots(bots).unwrap().kinds(kind).ok();
        assert_eq!(kinds("expert", None), Some(vec!["expert".to_string(); 3]));
        assert_eq!(kinds("expert,reader", None), Some(vec!["expert".to_string(), "reader".to_string()]));
        assert_eq!(kinds("1", Some("reader")), Some(vec!["reader".to_string()]));
        assert_eq!(kinds("2", None), Some(vec!["odds".to_string(); 2]));
        assert_eq!(kinds("expert", Some("reader")), None, "--bot-kind with kinds named is refused");
        let refused = parse_bots("expert,wizard").unwrap_err();
        assert!(refused.contains("\"wizard\"") && refused.contains("expert"), "{refused}");
        assert!(parse_bots("1000").is_err());
    }
}
