//! `dudo bot check`: a bot of one's own through a server's bot check, as the account kept
//! for the server. The server seats the account at a few short games against its own bots
//! (every prompt the pool's rules raise, a dropped stream, a reset); this starts the bot for
//! each seat as `dudo ladder` does and prints the server's report.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use dudo_client::dudo_proto::v1 as pb;

use crate::net::ServerArgs;
use crate::render::safe;

#[derive(Args)]
pub struct BotArgs {
    #[command(subcommand)]
    command: BotCommand,
}

#[derive(Subcommand)]
enum BotCommand {
    /// Put the bot through the server's check; exits 0 when it passed, 1 with what it did
    /// wrong. A server may ask for a passed check before ranked play (--require-bot-check).
    Check(CheckArgs),
}

#[derive(Args)]
struct CheckArgs {
    /// The bot: a shell command started for each game, as `dudo ladder --bot` starts one.
    #[arg(long, conflicts_with = "builtin")]
    bot: Option<String>,
    /// Check one of the SDK's strategies instead: random, odds, reader or expert.
    #[arg(long)]
    builtin: Option<String>,
    /// The ladder pool whose rules and seats to check on (default: the server's first).
    #[arg(long)]
    pool: Option<String>,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: BotArgs) -> anyhow::Result<ExitCode> {
    let BotCommand::Check(args) = args.command;
    let server = crate::account_cmd::accounts_server(args.server);
    let addr = server.server.clone();
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let (client, name, playing) = crate::account_cmd::signed_in(&client, &addr, || {
            format!("a bot check is for accounts: `dudo account register NAME --bot --server {addr}` first")
        })
        .await?;
        eprintln!("(checking {}'s bot, with {})", safe(&name), playing.from);
        let player = crate::seat_bots::SeatPlayer::chosen(args.bot.as_deref(), args.builtin.as_deref())?;
        let mut seats = crate::seat_bots::Seats::new(client.clone(), addr.clone(), name, player);
        let mut updates = client.check_bot(args.pool.as_deref().unwrap_or_default()).await?;
        let report = loop {
            let update = tokio::select! {
                update = updates.message() => update?,
                failed = seats.failed() => {
                    // A failing command is part of the report; the check goes on.
                    if let Err(e) = failed {
                        eprintln!("dudo: {e}");
                    }
                    continue;
                }
            };
            match update.and_then(|u| u.update) {
                Some(pb::check_update::Update::Step(s)) => {
                    println!("step {} of {}: {}", s.number, s.steps, safe(&s.what))
                }
                Some(pb::check_update::Update::Seated(s)) => {
                    seats.start(&s.table, &s.game, s.seat, &s.token)?
                }
                Some(pb::check_update::Update::Report(r)) => break r,
                None => anyhow::bail!("the server ended the check without a report"),
            }
        };
        // The check's tables are closed: any bot still running has nothing left to play.
        seats.stop();
        let list =
            |kinds: &[String]| kinds.iter().map(|k| safe(k).into_owned()).collect::<Vec<_>>().join(", ");
        println!("prompts it met: {}", list(&report.prompts_met));
        if !report.prompts_not_met.is_empty() {
            println!(
                "prompts the games did not bring it (not a fault: the dice decide): {}",
                list(&report.prompts_not_met)
            );
        }
        println!("actions it played: {}", list(&report.actions_played));
        if report.passed {
            println!(
                "passed: the bot did nothing wrong (checked {})",
                crate::history_cmd::date_time(report.checked_unix_millis)
            );
            return Ok(ExitCode::SUCCESS);
        }
        println!("NOT passed: {} fault(s)", report.faults.len());
        for f in &report.faults {
            println!("  - {}", safe(f));
        }
        Ok(ExitCode::FAILURE)
    })
}
