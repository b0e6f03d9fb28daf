//! `dudo tournament list`: a server's tournaments a page at a time, filtered as the server
//! filters them, and the command that shows the next page.

use std::process::ExitCode;

use clap::Args;
use dudo_client::dudo_proto::v1 as pb;

use super::server::{format_line, start_time, state};
use crate::net::ServerArgs;
use crate::render::safe;

#[derive(Args)]
pub struct ListArgs {
    /// At most this many, newest first.
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// Only tournaments in this state (default: all but those cancelled before a game).
    #[arg(long, value_parser = ["entry", "running", "finished", "cancelled"])]
    pub state: Option<String>,
    /// Only this organiser's (an account's name, or admin).
    #[arg(long)]
    pub organiser: Option<String>,
    /// Only those whose name holds this.
    #[arg(long)]
    pub name: Option<String>,
    /// The page after the one that said `more: --after CURSOR`.
    #[arg(long)]
    pub after: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let states = match args.state.as_deref() {
            Some("entry") => vec![pb::TournamentState::Entry as i32],
            Some("running") => vec![pb::TournamentState::Running as i32],
            Some("finished") => vec![pb::TournamentState::Finished as i32],
            Some("cancelled") => vec![pb::TournamentState::Cancelled as i32],
            _ => Vec::new(),
        };
        let page = client
            .tournaments_page(pb::ListTournamentsRequest {
                limit: args.limit,
                states,
                organiser: args.organiser.clone().unwrap_or_default(),
                name: args.name.clone().unwrap_or_default(),
                after: args.after.clone().unwrap_or_default(),
            })
            .await?;
        let (list, next) = (page.tournaments, page.next);
        if list.is_empty() {
            println!("no tournaments on {} to list here", server.server);
        }
        for t in list {
            let progress = match pb::TournamentState::try_from(t.state) {
                Ok(pb::TournamentState::Entry) => {
                    format!("starts {}", start_time(t.starts_unix_millis))
                }
                _ => format!("{} of {} games", t.finished, t.games),
            };
            println!(
                "{}  {:<24} {:<15} {} entrants, {progress}; {}",
                t.id,
                safe(&t.name),
                state(t.state),
                t.entered,
                format_line(&t)
            );
        }
        if !next.is_empty() {
            // The same list's next page: the same filters and limit.
            let mut again = format!("dudo tournament list --limit {}", args.limit);
            for (flag, value) in
                [("--state", &args.state), ("--organiser", &args.organiser), ("--name", &args.name)]
            {
                if let Some(v) = value {
                    again.push_str(&format!(" {flag} {}", shell_quoted(v)));
                }
            }
            println!("more: {again} --after {next}");
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// `text` as one shell word.
fn shell_quoted(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c)) {
        return text.to_string();
    }
    format!("'{}'", safe(text).replace('\'', "'\\''"))
}
