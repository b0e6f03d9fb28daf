//! `dudo account`: an account of one's own on a server, and its API tokens.
//!
//! An account's token is kept per server in `accounts.json` beside `seats.json` (the user's
//! alone, 0600), so `dudo create` and `dudo join` on that server take seats as the account.
//! `DUDO_API_TOKEN` overrides the saved token (for bots and scripts).

use std::process::ExitCode;

use clap::{Args, Subcommand};
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;
use serde::{Deserialize, Serialize};

use crate::net::ServerArgs;
use crate::render::safe;

#[derive(Args)]
pub struct AccountArgs {
    #[command(subcommand)]
    command: AccountCommand,
    #[command(flatten)]
    server: ServerArgs,
    /// The server's admin token, for the admin's calls (registering where only the admin
    /// may, suspending, other accounts' tokens).
    #[arg(long, env = "DUDO_ADMIN_TOKEN", hide_env_values = true, global = true)]
    admin_token: Option<String>,
}

#[derive(Subcommand)]
enum AccountCommand {
    /// Register an account on the server and keep its first token for it.
    ///
    /// Example: dudo account register Robo --bot --server HOST:50051
    Register {
        name: String,
        /// A bot's account (shown as such wherever its name is).
        #[arg(long)]
        bot: bool,
        /// A label for the token (default: this machine's name).
        #[arg(long)]
        label: Option<String>,
        /// Only print the token; keep nothing (the admin registering for someone else).
        #[arg(long)]
        print_only: bool,
    },
    /// Which account this machine plays as on the server.
    Show,
    /// Keep a token made elsewhere (`dudo account token new` on another machine, or the
    /// admin's) for this server.
    Login { token: String },
    /// Forget this server's token here (the token stays valid: revoke it to end it).
    Logout,
    /// The account's API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// The admin: suspend an account (its tokens are refused), or lift it with --lift.
    Suspend {
        name: String,
        #[arg(long)]
        lift: bool,
    },
}

#[derive(Subcommand)]
enum TokenCommand {
    /// A new token for the account, printed once.
    New {
        #[arg(long, default_value = "")]
        label: String,
    },
    /// The account's tokens (the admin: --account NAME's).
    List {
        #[arg(long, default_value = "")]
        account: String,
    },
    /// Revoke a token by its id (as `token list` shows it).
    Revoke {
        id: String,
        #[arg(long, default_value = "")]
        account: String,
    },
}

/// A token kept for a server.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Saved {
    server: String,
    name: String,
    token: String,
    /// A bot account: `dudo create`/`join` sit as a guest unless told its name.
    #[serde(default)]
    bot: bool,
}

const FILE: &str = "accounts.json";

fn load() -> Vec<Saved> {
    crate::seats::read_private(FILE).and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
}

fn store(saved: &[Saved]) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(saved)?;
    crate::seats::write_private(FILE, &text)?;
    Ok(())
}

fn keep(server: &str, account: &pb::Account, token: &str) -> anyhow::Result<()> {
    let mut saved = load();
    saved.retain(|s| s.server != server);
    let bot = account.kind == pb::AccountKind::Bot as i32;
    saved.push(Saved { server: server.into(), name: account.name.clone(), token: token.into(), bot });
    store(&saved)
}

/// Whether the account kept for `server` is a bot's.
pub fn is_bot_account(server: &str) -> bool {
    std::env::var("DUDO_API_TOKEN").is_err() && load().into_iter().any(|s| s.server == server && s.bot)
}

/// The account this machine plays as on `server` (its name and token): `DUDO_API_TOKEN`, else
/// the token kept for the server. The name is empty for `DUDO_API_TOKEN` (ask the server).
pub fn for_server(server: &str) -> Option<(String, String)> {
    playing_as(server).map(|p| (p.name, p.token))
}

/// Whose token a command plays with, and where it came from: said by every command that
/// uses one, since `DUDO_API_TOKEN` quietly overriding a kept account surprises people.
pub struct PlayingAs {
    /// The kept account's name; empty for `DUDO_API_TOKEN` until the server says it.
    pub name: String,
    pub token: String,
    /// Where the token came from, in words.
    pub from: String,
}

pub fn playing_as(server: &str) -> Option<PlayingAs> {
    let kept = load().into_iter().find(|s| s.server == server);
    if let Some(token) = std::env::var("DUDO_API_TOKEN").ok().filter(|t| !t.trim().is_empty()) {
        let from = match &kept {
            Some(k) => format!("DUDO_API_TOKEN, which overrides {}'s token kept for {server}", safe(&k.name)),
            None => "DUDO_API_TOKEN".to_string(),
        };
        return Some(PlayingAs { name: String::new(), token: token.trim().to_string(), from });
    }
    kept.map(|k| PlayingAs { name: k.name, token: k.token, from: format!("the token kept for {server}") })
}

/// `playing`'s name, asked of the server when the token came from the environment.
pub async fn name_of(client: &Client, playing: &PlayingAs) -> anyhow::Result<String> {
    if !playing.name.is_empty() {
        return Ok(playing.name.clone());
    }
    Ok(client.clone().with_account(Some(playing.token.clone())).who_am_i().await?.name)
}

/// The account a command plays as on `addr` (ladder, tournament entry, bot check): `client`
/// carrying its token, and its name. `none` says what to do when this machine has none.
pub async fn signed_in(
    client: &Client,
    addr: &str,
    none: impl FnOnce() -> String,
) -> anyhow::Result<(Client, String, PlayingAs)> {
    let playing = playing_as(addr).ok_or_else(|| anyhow::anyhow!(none()))?;
    let name = name_of(client, &playing).await?;
    let client = client.clone().with_account(Some(playing.token.clone()));
    Ok((client, name, playing))
}

fn machine() -> String {
    std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).unwrap_or_default()
}

fn kind(k: i32) -> &'static str {
    match pb::AccountKind::try_from(k) {
        Ok(pb::AccountKind::Bot) => "bot",
        _ => "person",
    }
}

fn when(millis: u64) -> String {
    crate::history_cmd::date_time(millis)
}

/// The server an account's command talks to: the one given, else (when the default server
/// has no account kept) the one server this machine keeps an account for, said on stderr.
pub fn accounts_server(args: ServerArgs) -> ServerArgs {
    let given = args.given.is_some();
    let mut server = args.resolved();
    if !given && for_server(&server.server).is_none() {
        let kept = load();
        if let [only] = kept.as_slice() {
            eprintln!("(on {}, the server this machine keeps an account for)", only.server);
            server.server = only.server.clone();
        }
    }
    server
}

pub fn run(args: AccountArgs) -> anyhow::Result<ExitCode> {
    let server = match args.command {
        AccountCommand::Register { .. } => args.server.clone().resolved(),
        _ => accounts_server(args.server.clone()),
    };
    let addr = server.server.clone();
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let mine = for_server(&addr).map(|(_, token)| token);
        let as_account = |c: &Client| c.clone().with_account(mine.clone());
        let as_admin = |c: &Client| -> anyhow::Result<Client> {
            let token = args
                .admin_token
                .clone()
                .ok_or_else(|| anyhow::anyhow!("the admin's call: give --admin-token or set DUDO_ADMIN_TOKEN"))?;
            Ok(c.clone().with_account(Some(token)))
        };
        let signed_in = || {
            anyhow::anyhow!(
                "no account for {addr} here: `dudo account register NAME` makes one, `dudo account login TOKEN` keeps one"
            )
        };
        match args.command {
            AccountCommand::Register { name, bot, label, print_only } => {
                let caller = if args.admin_token.is_some() { as_admin(&client)? } else { client.clone() };
                let label = label.unwrap_or_else(machine);
                let registered = caller.register(&name, bot, &label).await?;
                let account = registered.account.unwrap_or_default();
                let token = registered.token.unwrap_or_default();
                println!("Registered {} ({}) on {addr}.", safe(&account.name), kind(account.kind));
                if print_only {
                    println!("Its token (shown once; keep it secret): {}", token.token);
                } else {
                    // One account is kept per server: say whose token this one replaces, and
                    // show it once more, or it is gone from here without a word.
                    let replaced = load().into_iter().find(|s| s.server == addr && s.name != account.name);
                    keep(&addr, &account, &token.token)?;
                    if let Some(old) = replaced {
                        println!(
                            "It replaces {}'s token kept here for {addr} (one account is kept per server); {0}'s token, to keep elsewhere: {}",
                            safe(&old.name),
                            old.token
                        );
                    }
                    if bot {
                        println!(
                            "Its token is kept for {addr}: `dudo ladder` there plays as {0}; `dudo create` and `dudo join` sit you as a guest unless you give --name {0}.",
                            safe(&account.name)
                        );
                    } else {
                        println!(
                            "Its token is kept for {addr}: `dudo create` and `dudo join` there now sit you as {}.",
                            safe(&account.name)
                        );
                    }
                    println!("For a bot elsewhere: DUDO_API_TOKEN={}", token.token);
                }
            }
            AccountCommand::Show => {
                mine.as_ref().ok_or_else(signed_in)?;
                let account = as_account(&client).who_am_i().await?;
                let suspended = account
                    .suspended_unix_millis
                    .map(|t| format!(", suspended since {}", when(t)))
                    .unwrap_or_default();
                let from = playing_as(&addr).map(|p| p.from).unwrap_or_default();
                println!(
                    "{} ({}) on {addr}, registered {}{suspended}; signed in with {from}",
                    safe(&account.name),
                    kind(account.kind),
                    when(account.created_unix_millis)
                );
            }
            AccountCommand::Login { token } => {
                let account = client.clone().with_account(Some(token.trim().to_string())).who_am_i().await?;
                keep(&addr, &account, token.trim())?;
                println!("This machine now plays as {} on {addr}.", safe(&account.name));
            }
            AccountCommand::Logout => {
                let mut saved = load();
                saved.retain(|s| s.server != addr);
                store(&saved)?;
                println!("No account kept for {addr} any more (the token itself is still valid until revoked).");
            }
            AccountCommand::Token(TokenCommand::New { label }) => {
                mine.as_ref().ok_or_else(signed_in)?;
                let label = if label.is_empty() { machine() } else { label };
                let token = as_account(&client).new_token(&label).await?;
                let info = token.info.unwrap_or_default();
                println!("New token {} ({}), shown once; keep it secret:", info.id, safe(&info.label));
                println!("{}", token.token);
            }
            AccountCommand::Token(TokenCommand::List { account }) => {
                let caller = if account.is_empty() {
                    mine.as_ref().ok_or_else(signed_in)?;
                    as_account(&client)
                } else {
                    as_admin(&client)?
                };
                for t in caller.tokens(&account).await? {
                    let state = match t.revoked_unix_millis {
                        Some(at) => format!("revoked {}", when(at)),
                        None => "active".to_string(),
                    };
                    println!("{}  {:<24}  made {}  {state}", t.id, safe(&t.label), when(t.created_unix_millis));
                }
            }
            AccountCommand::Token(TokenCommand::Revoke { id, account }) => {
                let caller = if account.is_empty() {
                    mine.as_ref().ok_or_else(signed_in)?;
                    as_account(&client)
                } else {
                    as_admin(&client)?
                };
                let t = caller.revoke_token(&id, &account).await?;
                println!("Token {} ({}) is revoked.", t.id, safe(&t.label));
                // The token this machine used may be the one revoked: then it is forgotten
                // here, and the way on is said.
                if account.is_empty() && as_account(&client).who_am_i().await.is_err() {
                    let mut saved = load();
                    saved.retain(|s| s.server != addr);
                    store(&saved)?;
                    println!(
                        "That was the token this machine used for {addr}, so it is forgotten here. Keep another of the account's tokens with `dudo account login TOKEN`: an account with no token left cannot be signed in to again."
                    );
                }
            }
            AccountCommand::Suspend { name, lift } => {
                let account = as_admin(&client)?.suspend(&name, !lift).await?;
                let state = if lift { "may play again" } else { "is suspended" };
                println!("{} {state}.", safe(&account.name));
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
