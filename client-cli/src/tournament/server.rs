//! `dudo tournament create|show|standings|export|cancel`: a server's tournaments, and the
//! words for a tournament's state and start that `list` and `enter` share. `export` writes
//! what `dudo tournament verify` checks, from the tournament's games and their records.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;

use crate::net::ServerArgs;
use crate::render::safe;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    /// Every line-up of --seats entrants, each in every rotation, on every deal.
    RoundRobin,
    /// --rounds rounds, each seating the entrants by the standings so far.
    Swiss,
}

#[derive(Args)]
pub struct CreateArgs {
    /// The tournament's name (up to 64 characters).
    pub name: String,
    /// A ladder pool whose rules, seats and clock it plays (see `dudo ladder --pools`).
    #[arg(long, conflicts_with = "preset")]
    pub pool: Option<String>,
    /// A preset (see `dudo rules`); fibbing when neither this nor --pool is given.
    #[arg(long)]
    pub preset: Option<String>,
    /// Override any rule: --rule dice.faces=8
    #[arg(long = "rule", value_name = "FIELD=VALUE")]
    pub rules: Vec<String>,
    /// Seats a table (default: the pool's, or the rules' minimum).
    #[arg(long)]
    pub seats: Option<u32>,
    #[arg(long, value_enum, default_value = "round-robin")]
    pub format: Format,
    /// Round robin: deals in all. Swiss: deals each table plays a round.
    #[arg(long, default_value_t = 10)]
    pub deals: u32,
    /// Swiss rounds.
    #[arg(long, default_value_t = 4)]
    pub rounds: u32,
    /// The move clock in milliseconds (default: the pool's, or 10,000): a seat whose entrant
    /// is away is played by it.
    #[arg(long)]
    pub move_ms: Option<u32>,
    /// Each seat's time bank, in milliseconds.
    #[arg(long)]
    pub bank_ms: Option<u32>,
    /// Seconds until it starts; entry is open until then.
    #[arg(long, default_value_t = 60)]
    pub starts_in: u64,
    /// Built-in bots that play as house entrants (random, odds, reader, expert; a kind may repeat).
    #[arg(long, value_delimiter = ',')]
    pub house_bots: Vec<String>,
    /// Entrants at most (default: the server's limit).
    #[arg(long)]
    pub max_entrants: Option<u32>,
    /// Games in play at once (default: as many as the server allows a tournament).
    #[arg(long)]
    pub tables: Option<u32>,
    /// Count the games for this ladder pool's ratings too.
    #[arg(long)]
    pub rating_pool: Option<String>,
    /// How long each claim waits for calls out of turn, in milliseconds (default: the pool's,
    /// or 1,000); a seat that lets a window lapse is not asked again that game.
    #[arg(long)]
    pub window_ms: Option<u32>,
    /// Lapsed call windows and time-outs after which an entrant is benched, its later games
    /// forfeit (default 3).
    #[arg(long)]
    pub bench_after: Option<u32>,
    /// Deal every game dice of its own instead of duplicate deals: for a field whose bots
    /// cannot be trusted not to carry a deal's cups into its other rotations.
    #[arg(long)]
    pub fresh_deals: bool,
    /// The admin only: deal from this seed, to run a tournament again (whoever knows it
    /// knows every cup, so the tournament is shown as seeded).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Organise as the server's admin (a server may let only its admin organise).
    #[arg(long, env = "DUDO_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Args)]
pub struct OneArgs {
    /// The tournament's id (`dudo tournament list`).
    pub tournament: String,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Args)]
pub struct ExportArgs {
    /// The tournament's id.
    pub tournament: String,
    /// Where to write it (JSON, a game to a line).
    pub file: std::path::PathBuf,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Args)]
pub struct CancelArgs {
    /// The tournament's id.
    pub tournament: String,
    /// Cancel as the server's admin (any tournament).
    #[arg(long, env = "DUDO_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

pub(crate) fn state(s: i32) -> &'static str {
    match pb::TournamentState::try_from(s) {
        Ok(pb::TournamentState::Entry) => "taking entries",
        Ok(pb::TournamentState::Running) => "running",
        Ok(pb::TournamentState::Finished) => "finished",
        Ok(pb::TournamentState::Cancelled) => "cancelled",
        _ => "?",
    }
}

/// A start time as people read it: UTC to the second, and how far off it is.
pub(crate) fn start_time(millis: u64) -> String {
    let at = std::time::UNIX_EPOCH + Duration::from_millis(millis);
    let text = humantime::format_rfc3339_seconds(at).to_string().replace('T', " ").replace('Z', " UTC");
    let now = std::time::SystemTime::now();
    match at.duration_since(now) {
        Ok(ahead) => format!("{text} (in {} s)", ahead.as_secs()),
        Err(_) => text,
    }
}

pub(crate) fn format_line(t: &pb::Tournament) -> String {
    let deals = |n: u32| if n == 1 { "1 deal".to_string() } else { format!("{n} deals") };
    let format = match pb::TournamentFormat::try_from(t.format) {
        Ok(pb::TournamentFormat::Swiss) => format!("Swiss, {} rounds of {}", t.rounds, deals(t.deals)),
        _ => format!("round robin, {}", deals(t.deals)),
    };
    let format = if t.fresh_deals {
        format!("{format}, fresh dice every game")
    } else {
        format!("{format} in duplicate")
    };
    format!(
        "{} at tables of {}, {format}, {} s a move, {} s call windows, benched after {} faults",
        safe(&t.rules_name),
        t.seats,
        f64::from(t.move_millis) / 1000.0,
        f64::from(t.call_window_millis) / 1000.0,
        t.bench_after
    )
}

/// A client as the account kept for the server, or as the admin when a token is given.
async fn organiser(server: &ServerArgs, admin_token: Option<&str>) -> anyhow::Result<Client> {
    let client = server.connect().await?;
    if let Some(token) = admin_token.filter(|t| !t.trim().is_empty()) {
        return Ok(client.with_account(Some(token.trim().to_string())));
    }
    let playing = crate::account_cmd::playing_as(&server.server).ok_or_else(|| {
        anyhow::anyhow!(
            "a tournament's organiser is an account (`dudo account register NAME --server {}`) or the admin (--admin-token)",
            server.server
        )
    })?;
    Ok(client.with_account(Some(playing.token)))
}

pub fn create(args: CreateArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    crate::net::runtime()?.block_on(async move {
        let client = organiser(&server, args.admin_token.as_deref()).await?;
        let mut settings = Vec::new();
        for rule in &args.rules {
            let (path, value) = rule
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("--rule takes FIELD=VALUE, not {rule:?}"))?;
            settings.push(pb::Setting { path: path.trim().into(), value: value.trim().into() });
        }
        let now = u64::try_from(dudo_server::table::unix_millis()).unwrap_or(0);
        let request = pb::CreateTournamentRequest {
            name: args.name.clone(),
            pool: args.pool.clone().unwrap_or_default(),
            preset: args.preset.clone().unwrap_or_default(),
            settings,
            seats: args.seats.unwrap_or(0),
            format: match args.format {
                Format::RoundRobin => pb::TournamentFormat::RoundRobin,
                Format::Swiss => pb::TournamentFormat::Swiss,
            } as i32,
            deals: args.deals,
            rounds: if matches!(args.format, Format::Swiss) { args.rounds } else { 0 },
            move_millis: args.move_ms.unwrap_or(0),
            time_bank_millis: args.bank_ms.unwrap_or(0),
            starts_unix_millis: now.saturating_add(args.starts_in.saturating_mul(1000)).max(1),
            house_bots: args.house_bots.clone(),
            max_entrants: args.max_entrants.unwrap_or(0),
            tables: args.tables.unwrap_or(0),
            rating_pool: args.rating_pool.clone().unwrap_or_default(),
            seed: args.seed,
            fresh_deals: args.fresh_deals,
            call_window_millis: args.window_ms.unwrap_or(0),
            bench_after: args.bench_after.unwrap_or(0),
        };
        let t = client
            .create_tournament(request)
            .await
            .map_err(|e| admin_refused(e, args.admin_token.is_some()))?;
        println!("tournament {} ({}) made: {}", t.id, safe(&t.name), format_line(&t));
        println!(
            "it starts {} (entry is open until then); seed commitment {}",
            start_time(t.starts_unix_millis),
            t.seed_commitment
        );
        println!(
            "enter it: dudo tournament enter {} --bot 'python3 bot.py' --server {} (a person: without --bot, to play at the terminal)",
            t.id, server.server
        );
        Ok(ExitCode::SUCCESS)
    })
}

/// A refusal of the call: a token refused when the admin's was given is the admin's.
fn admin_refused(e: dudo_client::ClientError, admin: bool) -> anyhow::Error {
    if admin && e.code() == Some(dudo_client::Code::Unauthenticated) {
        return anyhow::anyhow!("the server did not take that admin token (--admin-token, DUDO_ADMIN_TOKEN)");
    }
    flag_names(e)
}

/// A refusal naming the request's field, said as the flag that sets it.
fn flag_names(e: dudo_client::ClientError) -> anyhow::Error {
    let text = e.to_string();
    for (field, flag) in [
        ("move_millis", "--move-ms"),
        ("time_bank_millis", "--bank-ms"),
        ("call_window_millis", "--window-ms"),
        ("bench_after", "--bench-after"),
        ("starts_unix_millis", "--starts-in"),
        ("house_bots", "--house-bots"),
        ("max_entrants", "--max-entrants"),
        ("rating_pool", "--rating-pool"),
        ("settings", "--rule"),
        ("seats", "--seats"),
        ("deals", "--deals"),
        ("rounds", "--rounds"),
        ("tables", "--tables"),
        ("preset", "--preset"),
        ("pool", "--pool"),
        ("seed", "--seed"),
    ] {
        if let Some(rest) = text.strip_prefix(&format!("{field}:")) {
            return anyhow::anyhow!("{flag}:{rest}");
        }
    }
    e.into()
}

pub fn show(args: OneArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let t = client.tournament(&args.tournament).await?;
        let organiser = if t.organiser.is_empty() {
            "the server's admin".to_string()
        } else {
            safe(&t.organiser).into_owned()
        };
        println!("{} ({}), organised by {organiser}: {}", t.id, safe(&t.name), state(t.state));
        println!("  {}", format_line(&t));
        println!(
            "  starts {}; {} games in play at once; at most {} entrants",
            start_time(t.starts_unix_millis),
            t.tables,
            t.max_entrants
        );
        if !t.rating_pool.is_empty() {
            println!("  its games count for the ladder pool {}", safe(&t.rating_pool));
        }
        if t.games > 0 {
            println!("  {} of {} games played", t.finished, t.games);
        }
        if !t.why.is_empty() {
            println!("  {}", safe(&t.why));
        }
        println!("  seed commitment {}", t.seed_commitment);
        if t.seeded {
            println!(
                "  seeded by the admin: for tests and repeated runs (whoever knows the seed knows every cup)"
            );
        }
        if let Some(seed) = t.seed {
            // Only a finished tournament exports (a cancelled one's games are not all there).
            let check = if t.state == pb::TournamentState::Finished as i32 {
                " (dudo tournament export, then verify, checks them)"
            } else {
                ""
            };
            println!("  seed {seed}, salt {}{check}", t.seed_salt);
        }
        println!("  entrants ({}):", t.entrants.len());
        for e in &t.entrants {
            let kind = match pb::AccountKind::try_from(e.kind) {
                Ok(pb::AccountKind::Bot) => " [bot]".to_string(),
                Ok(pb::AccountKind::Person) => String::new(),
                _ => format!(" (house: the {} bot)", safe(&e.bot)),
            };
            println!("    {:>3}. {}{kind}", e.number, safe(&e.name));
            if !e.benched.is_empty() {
                println!("         {}", safe(&e.benched));
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn standings(args: OneArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let t = client.tournament(&args.tournament).await?;
        let s = client.tournament_standings(&args.tournament).await?;
        println!("{} ({}): {}, {} of {} games", t.id, safe(&t.name), state(t.state), s.games, t.games);
        println!(
            "{:<4} {:<24} {:>6} {:>6} {:>7} {:>15} {:>10}",
            "", "entrant", "games", "wins", "points", "95% interval", "mean place"
        );
        for (i, e) in s.entrants.iter().enumerate() {
            let interval = match (e.low, e.high) {
                (Some(low), Some(high)) => format!("{low:.3} - {high:.3}"),
                _ => "-".into(),
            };
            let place = if e.games == 0 { "-".to_string() } else { format!("{:.2}", e.mean_place) };
            println!(
                "{:<4} {:<24} {:>6} {:>6} {:>7.3} {:>15} {:>10}",
                format!("{}.", i + 1),
                safe(&e.name),
                e.games,
                e.wins,
                e.mean_points,
                interval,
                place
            );
        }
        for e in s.entrants.iter().filter(|e| !e.benched.is_empty()) {
            println!("{} {}", safe(&e.name), safe(&e.benched));
        }
        let names: Vec<String> = t.entrants.iter().map(|e| e.name.clone()).collect();
        if t.state != pb::TournamentState::Cancelled as i32 {
            super::verify::print_pairs(&names, &dudo_client::dudo_proto::convert::standings_from_wire(&s));
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn cancel(args: CancelArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    crate::net::runtime()?.block_on(async move {
        let client = organiser(&server, args.admin_token.as_deref()).await?;
        let t = client
            .cancel_tournament(&args.tournament)
            .await
            .map_err(|e| admin_refused(e, args.admin_token.is_some()))?;
        println!("tournament {} ({}): {}", t.id, safe(&t.name), state(t.state));
        Ok(ExitCode::SUCCESS)
    })
}

/// Games a page when reading a tournament's games.
const PAGE: u32 = 1_000;

pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let t = client.tournament(&args.tournament).await?;
        anyhow::ensure!(
            t.state == pb::TournamentState::Finished as i32,
            "tournament {} is {}: only a finished one can be exported (its seed and records open when it ends)",
            t.id,
            state(t.state)
        );
        let seed = t.seed.context("the server did not say the finished tournament's seed")?;
        let rules = dudo_client::dudo_proto::convert::rules_from_wire(&t.rules.clone().unwrap_or_default())?;
        let entrants: Vec<String> = t.entrants.iter().map(|e| e.name.clone()).collect();
        // The standings are counted here from the games' ends, as the verifier counts them.
        let mut games = Vec::new();
        let mut after = None;
        loop {
            let page = client.tournament_games(&t.id, after, PAGE).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.number);
            games.extend(page);
        }
        let finished: Vec<dudo_tournament::Finished> = games
            .iter()
            .map(|g| dudo_tournament::Finished { deal: g.deal, finish: g.finish.iter().map(|&e| e as usize).collect() })
            .collect();
        let standings = dudo_tournament::standings::standings(entrants.len(), &finished)?;
        let head = dudo_tournament::Head {
            format: dudo_tournament::export::FORMAT.into(),
            name: t.name.clone(),
            seating: match pb::TournamentFormat::try_from(t.format) {
                Ok(pb::TournamentFormat::Swiss) => dudo_tournament::export::Format::Swiss { rounds: t.rounds },
                _ => dudo_tournament::export::Format::RoundRobin,
            },
            seed,
            seats: t.seats as usize,
            deals: t.deals,
            dice: if t.fresh_deals { dudo_tournament::Deals::Fresh } else { dudo_tournament::Deals::Duplicate },
            rules,
            entrants,
            standings,
            seed_proof: Some(dudo_tournament::SeedProof {
                commitment: t.seed_commitment.clone(),
                salt: t.seed_salt.clone(),
                seeded: t.seeded,
                tournament: t.id.clone(),
            }),
        };
        let writing = || format!("writing {}", args.file.display());
        let file = std::io::BufWriter::new(std::fs::File::create(&args.file).with_context(writing)?);
        let mut writer = dudo_tournament::layout::Writer::start(file, &head).with_context(writing)?;
        for g in &games {
            let replay = client
                .replay(&g.game)
                .await
                .with_context(|| format!("the record of game {} ({}) could not be read", g.number, g.game))?;
            let scheduled = dudo_tournament::Game {
                number: g.number,
                round: g.round,
                table: g.table_number,
                deal: g.deal,
                seed: g.seed.context("the server did not say a finished tournament's game seed")?,
                seats: g.seats.iter().map(|&e| e as usize).collect(),
            };
            let finish = g.finish.iter().map(|&e| e as usize).collect();
            let (played, game) = super::verify::exported_game(replay, scheduled, g.game.clone(), finish)?;
            anyhow::ensure!(played == head.rules, "game {} was played by other rules than the tournament's", g.game);
            writer.game(&game).with_context(writing)?;
        }
        writer.finish().with_context(writing)?;
        println!(
            "{} games of tournament {} written to {} (`dudo tournament verify {}` checks them)",
            games.len(),
            t.id,
            args.file.display(),
            args.file.display()
        );
        Ok(ExitCode::SUCCESS)
    })
}
