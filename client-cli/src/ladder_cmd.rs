//! `dudo ladder POOL --bot COMMAND` and `dudo leaderboard [POOL]`: a bot of one's own on a
//! server's ladder, and the boards.
//!
//! `dudo ladder` enters the pool as the account kept for the server (`dudo account`), and
//! for each game it is seated at starts COMMAND with the `dudo arena --external` contract:
//! `DUDO_SERVER`, `DUDO_TABLE` (the table id), `DUDO_TOKEN` and `DUDO_SEAT` name the seat
//! to play. `--builtin odds` plays with one of the SDK's strategies instead.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use dudo_client::dudo_proto::v1 as pb;

use crate::net::ServerArgs;
use crate::render::safe;

/// `--bot` runs that may fail in a row before `dudo ladder` stops.
const BOT_FAILURES: u32 = 3;

#[derive(Args)]
pub struct LadderArgs {
    /// The pool to play in (`--pools` lists them).
    pub pool: Option<String>,
    /// The bot: a shell command started for each game, as `dudo arena --external` starts
    /// one (DUDO_SERVER, DUDO_TABLE, DUDO_GAME, DUDO_TOKEN, DUDO_SEAT and DUDO_BOT_NAME in its
    /// environment).
    #[arg(long, conflicts_with = "builtin")]
    pub bot: Option<String>,
    /// Play with one of the SDK's strategies instead: random, odds or reader.
    #[arg(long)]
    pub builtin: Option<String>,
    /// Games at once (up to the pool's limit).
    #[arg(long, default_value_t = 1)]
    pub at_once: u32,
    /// Stop after this many games (0: keep playing until interrupted).
    #[arg(long, default_value_t = 0)]
    pub games: usize,
    /// List the server's pools.
    #[arg(long)]
    pub pools: bool,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Args)]
pub struct LeaderboardArgs {
    /// The pool (default: every pool in turn).
    pub pool: Option<String>,
    /// At most this many players a pool.
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// One player's rating after each of its games in POOL.
    #[arg(long, requires = "pool")]
    pub history: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

fn kind(k: i32) -> &'static str {
    match pb::AccountKind::try_from(k) {
        Ok(pb::AccountKind::Bot) => " [bot]",
        Ok(pb::AccountKind::Person) => "",
        _ => " (built in)",
    }
}

pub fn leaderboard(args: LeaderboardArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server);
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        if let (Some(pool), Some(name)) = (&args.pool, &args.history) {
            let points = client.rating_history(pool, name).await?;
            if points.is_empty() {
                println!("{} has no rated games in {} yet.", safe(name), safe(pool));
            }
            for p in points {
                println!(
                    "{}  {:>3}  mu {:6.2}  sigma {:5.2}  game {}",
                    crate::history_cmd::date_time(p.unix_millis),
                    ordinal(p.place),
                    p.mu,
                    p.sigma,
                    safe(&p.game)
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
        let pools: Vec<String> = match args.pool {
            Some(p) => vec![p],
            None => client.pools().await?.into_iter().map(|p| p.name).collect(),
        };
        for pool in pools {
            println!("{}", safe(&pool));
            let board = client.leaderboard(&pool, args.limit).await?;
            if board.is_empty() {
                println!("  no rated games yet");
            } else {
                // The board's order: mu − 3·sigma, a rating the player is very likely above.
                println!("  {:>3}  {:<28} {:>6}", "", "name", "mu−3σ");
            }
            for (i, e) in board.iter().enumerate() {
                let provisional = if e.provisional { "  provisional" } else { "" };
                println!(
                    "  {:>3}. {:<28} {:6.2}  (mu {:.2}, sigma {:.2})  {} games, {} won{provisional}",
                    i + 1,
                    format!("{}{}", safe(&e.name), kind(e.kind)),
                    e.score,
                    e.mu,
                    e.sigma,
                    e.games,
                    e.wins
                );
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

fn ordinal(place: u32) -> String {
    match place {
        0 => "-".into(),
        1 => "1st".into(),
        2 => "2nd".into(),
        3 => "3rd".into(),
        n => format!("{n}th"),
    }
}

pub fn run(args: LadderArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server);
    let addr = server.server.clone();
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        if args.pools || args.pool.is_none() {
            for p in client.pools().await? {
                let seconds = |ms: u32| format!("{}", f64::from(ms) / 1000.0);
                let clock = match (p.move_millis, p.time_bank_millis) {
                    (0, _) => "no clock".to_string(),
                    (m, 0) => format!("{} s a move", seconds(m)),
                    (m, b) => format!("{} s a move and a {} s bank", seconds(m), seconds(b)),
                };
                let fill = if p.bots.is_empty() {
                    String::new()
                } else {
                    format!("; filled by {} after {} s", p.bots.join(", "), p.fill_after_seconds)
                };
                println!(
                    "{:<20} {} seats of {}, {clock}, calls out of turn within {} s, up to {} games at once{fill}; benched {} min after {} time-outs or lapsed call windows",
                    safe(&p.name),
                    p.seats,
                    safe(&p.rules),
                    seconds(p.call_window_millis),
                    p.max_games,
                    p.bench_minutes,
                    p.bench_after_timeouts,
                );
            }
            if args.pool.is_none() {
                if args.bot.is_some() || args.builtin.is_some() {
                    anyhow::bail!("name the pool to play in: dudo ladder POOL (the pools are listed above)");
                }
                println!("Play one: dudo ladder POOL --bot 'python3 bot.py' (as your account: dudo account register NAME --bot)");
            }
            return Ok(ExitCode::SUCCESS);
        }
        let pool = args.pool.unwrap_or_default();
        let playing = crate::account_cmd::playing_as(&addr).ok_or_else(|| {
            anyhow::anyhow!("the ladder is for accounts: `dudo account register NAME --bot --server {addr}` first")
        })?;
        let name = crate::account_cmd::name_of(&client, &playing).await?;
        eprintln!("(playing as {} with {})", safe(&name), playing.from);
        let client = client.with_account(Some(playing.token.clone()));
        if args.bot.is_none() && args.builtin.is_none() {
            anyhow::bail!("say who plays: --bot COMMAND, or --builtin random|odds|reader");
        }
        if let Some(b) = &args.builtin {
            anyhow::ensure!(dudo_bot::builtin(b, 0).is_some(), "--builtin: random, odds or reader, not {b:?}");
        }
        // Never more games at once than are asked for in all.
        let at_once = if args.games > 0 { args.at_once.min(u32::try_from(args.games).unwrap_or(u32::MAX)) } else { args.at_once };
        let mut updates = client.enter(&pool, at_once).await.map_err(|e| {
            // The server names its field (`games`); here it is the flag.
            match e.to_string().strip_prefix("games:") {
                Some(rest) => anyhow::anyhow!("--at-once:{rest}"),
                None => e.into(),
            }
        })?;
        println!("{} is in {} on {addr}; waiting for a table.", safe(&name), safe(&pool));
        let mut ended = 0;
        let mut seed = 0;
        // Games seated and not yet ended (table, game id), and their --builtin players.
        let mut in_play: Vec<(String, String)> = Vec::new();
        let mut players: Vec<tokio::task::JoinHandle<()>> = Vec::new();
        // How each `--bot` run ended: a command that keeps failing stops the ladder, rather
        // than time out game after game until the account is benched.
        let (exits_tx, mut exits) = tokio::sync::mpsc::channel::<(String, Option<std::process::ExitStatus>)>(16);
        let mut failed_in_a_row = 0;
        let mut ever_worked = false;
        while args.games == 0 || ended < args.games {
            let update = tokio::select! {
                update = updates.message() => update?,
                Some((table, status)) = exits.recv() => {
                    if status.is_some_and(|s| s.success()) {
                        (failed_in_a_row, ever_worked) = (0, true);
                        continue;
                    }
                    failed_in_a_row += 1;
                    let how = match status.map(|s| (s.code(), s)) {
                        Some((Some(code), _)) => format!("exited with code {code}"),
                        Some((None, s)) => format!("was stopped ({s})"),
                        None => "could not be waited for".to_string(),
                    };
                    eprintln!("dudo: the bot for table {} {how}", safe(&table));
                    // A command that has never worked is broken, not unlucky: stop at once.
                    if !ever_worked || failed_in_a_row >= BOT_FAILURES {
                        let times = if ever_worked { format!("{failed_in_a_row} times in a row") } else { "before any game".into() };
                        anyhow::bail!(
                            "the --bot command failed {times} ({how}); leaving the ladder. Its games in play go on under the clock (their time-outs can bench the account). Try the command by hand with DUDO_SERVER, DUDO_TABLE, DUDO_TOKEN and DUDO_SEAT set, as docs/bots.md shows"
                        );
                    }
                    continue;
                }
            };
            let Some(update) = update else {
                anyhow::bail!("the server ended the ladder stream");
            };
            match update.update {
                Some(pb::ladder_update::Update::Queued(q)) => {
                    println!("queue: {} waiting, {} of yours in play, rating (mu−3σ) {:.2}", q.waiting, q.playing, q.rating);
                }
                Some(pb::ladder_update::Update::Seated(s)) => {
                    println!("seated for game {} as seat {}", safe(&s.game), s.seat);
                    seed += 1;
                    in_play.push((s.table.clone(), s.game.clone()));
                    let key = dudo_client::SeatKey::saved(s.table.clone(), s.seat, s.token.clone());
                    match (&args.bot, &args.builtin) {
                        (Some(command), _) => {
                            let mut cmd = tokio::process::Command::new("sh");
                            cmd.kill_on_drop(true)
                                .args(["-c", command])
                                .env("DUDO_SERVER", &addr)
                                .env("DUDO_TABLE", &s.table)
                                .env("DUDO_GAME", &s.game)
                                .env("DUDO_TOKEN", &s.token)
                                .env("DUDO_SEAT", s.seat.to_string())
                                .env("DUDO_BOT_NAME", &name)
                                .env_remove("DUDO_API_TOKEN");
                            let mut child = cmd.spawn().with_context(|| format!("starting {command}"))?;
                            let exits = exits_tx.clone();
                            tokio::spawn(async move {
                                let status = child.wait().await.ok();
                                let _ = exits.send((key.table, status)).await;
                            });
                        }
                        (None, Some(strategy)) => {
                            let (client, strategy) = (client.clone(), strategy.clone());
                            players.push(tokio::spawn(async move {
                                if let Some(mut bot) = dudo_bot::builtin(&strategy, seed)
                                    && let Err(e) = dudo_bot::play(&mut bot, &client, &key).await
                                {
                                    eprintln!("dudo: table {}: {e}", key.table);
                                }
                            }));
                        }
                        (None, None) => {}
                    }
                }
                Some(pb::ladder_update::Update::Ended(e)) => {
                    ended += 1;
                    in_play.retain(|(table, _)| *table != e.table);
                    println!(
                        "game {}: finished {} (dudo replay {} --server {addr})",
                        safe(&e.game),
                        ordinal(e.place),
                        safe(&e.game)
                    );
                }
                Some(pb::ladder_update::Update::Benched(b)) => {
                    println!(
                        "benched until {}: {}",
                        crate::history_cmd::date_time(b.until_unix_millis),
                        safe(&b.why)
                    );
                }
                None => {}
            }
            // As many games seated as asked for: leave the queue (so no more are dealt) and
            // see the ones in play to their end.
            if args.games > 0 && ended + in_play.len() >= args.games {
                break;
            }
        }
        drop(updates);
        if in_play.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        println!("{} of your games still in play; waiting for them to end.", in_play.len());
        let mut running = in_play.len();
        if args.bot.is_some() {
            while running > 0 {
                match tokio::time::timeout(std::time::Duration::from_secs(3600), exits.recv()).await {
                    Ok(Some((table, _))) if in_play.iter().any(|(t, _)| *t == table) => running -= 1,
                    // The bot of a game that already ended.
                    Ok(Some(_)) => {}
                    _ => break,
                }
            }
        }
        for player in players {
            let _ = player.await;
        }
        // Their places, from the account's rating history (written with each game's record).
        let history = client.rating_history(&pool, &name).await.unwrap_or_default();
        for (_, game) in &in_play {
            match history.iter().find(|p| p.game == *game) {
                Some(p) => println!(
                    "game {}: finished {} (dudo replay {} --server {addr})",
                    safe(game),
                    ordinal(p.place),
                    safe(game)
                ),
                None => println!("game {}: its bot stopped before the end (dudo replay {} --server {addr} once it is over)", safe(game), safe(game)),
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
