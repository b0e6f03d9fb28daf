//! `dudo ladder POOL --bot COMMAND` and `dudo leaderboard [POOL]`: a bot of one's own on a
//! server's ladder, and the boards.
//!
//! `dudo ladder` enters the pool as the account kept for the server (`dudo account`), and
//! for each game it is seated at starts COMMAND with the `dudo arena --external` contract:
//! `DUDO_SERVER`, `DUDO_TABLE` (the table id), `DUDO_TOKEN` and `DUDO_SEAT` name the seat
//! to play. `--builtin odds` plays with one of the SDK's strategies instead.

use std::process::ExitCode;

use clap::Args;
use dudo_client::dudo_proto::v1 as pb;

use crate::net::ServerArgs;
use crate::render::safe;
use crate::seat_bots::{SeatPlayer, Seats};

#[derive(Args)]
pub struct LadderArgs {
    /// The pool to play in (`--pools` lists them).
    pub pool: Option<String>,
    /// The bot: a shell command started for each game, as `dudo arena --external` starts
    /// one (DUDO_SERVER, DUDO_TABLE, DUDO_GAME, DUDO_TOKEN, DUDO_SEAT and DUDO_BOT_NAME in its
    /// environment).
    #[arg(long, conflicts_with = "builtin")]
    pub bot: Option<String>,
    /// Play with one of the SDK's strategies instead: random, odds, reader or expert.
    #[arg(long)]
    pub builtin: Option<String>,
    /// With --builtin: how long the strategy thinks before each move, in milliseconds (at
    /// most 10000), so a game lasts long enough to follow, or to try a resume or the clock by
    /// hand. The pool's own bots pause by its `bot_think_millis`.
    #[arg(long, requires = "builtin", conflicts_with = "bot", value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub bot_think_ms: Option<u32>,
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
            // Asked first, so a pool the server refuses prints nothing but why.
            let board = client.leaderboard(&pool, args.limit).await?;
            println!("{}", safe(&pool));
            if board.is_empty() {
                println!("  no rated games yet");
            } else {
                // The board's order: mu − 3·sigma, a rating the player is very likely above.
                println!("  {:>4}  {:<28} {:>6}", "", "name", "mu−3σ");
            }
            // A place shared with a row above or below ("=2") is a tie the games so far
            // cannot break: the ratings are too close for their order to mean anything yet.
            let shared = |place: u32| board.iter().filter(|e| e.place == place).count() > 1;
            for e in &board {
                let provisional = if e.provisional { "  provisional" } else { "" };
                let place = if shared(e.place) { format!("={}", e.place) } else { e.place.to_string() };
                println!(
                    "  {:>4}. {:<28} {:6.2}  (mu {:.2}, sigma {:.2})  {} games, {} won{provisional}",
                    place,
                    format!("{}{}", safe(&e.name), kind(e.kind)),
                    e.score,
                    e.mu,
                    e.sigma,
                    e.games,
                    e.wins
                );
            }
            if board.iter().any(|e| shared(e.place)) {
                println!("  (=: too close to tell apart yet; more games will separate them)");
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub(crate) fn ordinal(place: u32) -> String {
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
                    let think = match p.bot_think_millis {
                        0 => String::new(),
                        ms => format!(", who think {} s a move", seconds(ms)),
                    };
                    format!("; filled by {} after {} s{think}", p.bots.join(", "), p.fill_after_seconds)
                };
                let who = match p.players.as_str() {
                    "people" => " (for people: the page's Play rated)",
                    "bots" => " (for bots)",
                    _ => "",
                };
                println!(
                    "{:<20} {} seats of {}{who}, {clock}, calls out of turn within {} s, up to {}{fill}; benched {} min after {} time-outs or lapsed call windows",
                    safe(&p.name),
                    p.seats,
                    safe(&p.rules),
                    seconds(p.call_window_millis),
                    if p.max_games == 1 { "1 game at once".to_string() } else { format!("{} games at once", p.max_games) },
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
        let (client, name, playing) = crate::account_cmd::signed_in(&client, &addr, || {
            format!("the ladder is for accounts: `dudo account register NAME --bot --server {addr}` first")
        })
        .await?;
        eprintln!("(playing as {} with {})", safe(&name), playing.from);
        let think = std::time::Duration::from_millis(args.bot_think_ms.unwrap_or(0).into());
        let player = SeatPlayer::chosen(args.bot.as_deref(), args.builtin.as_deref())?.thinking(think);
        // Never more games at once than are asked for in all.
        let at_once = if args.games > 0 { args.at_once.min(u32::try_from(args.games).unwrap_or(u32::MAX)) } else { args.at_once };
        // Games still to deal (0: no end): the server seats no more than that, so none is
        // dealt as the stream closes (a seat nobody plays, whose time-outs bench the account).
        let to_deal = |ended: usize, in_play: usize| {
            if args.games == 0 { 0 } else { u32::try_from(args.games - ended - in_play).unwrap_or(u32::MAX) }
        };
        let mut updates = client.enter(&pool, at_once, to_deal(0, 0)).await.map_err(|e| {
            // The server names its field (`games`); here it is the flag.
            match e.to_string().strip_prefix("at_once:") {
                Some(rest) => anyhow::anyhow!("--at-once:{rest}"),
                None => e.into(),
            }
        })?;
        println!("{} is in {} on {addr}; waiting for a table.", safe(&name), safe(&pool));
        let mut ended = 0;
        // Games seated and not yet ended: table, game id, and whether it was seated before the
        // ladder moved to another node (which knows nothing of it: its end is its bot's).
        let mut in_play: Vec<(String, String, bool)> = Vec::new();
        let mut seats = Seats::new(client.clone(), addr.clone(), name.clone(), player);
        while args.games == 0 || ended < args.games {
            let update = tokio::select! {
                update = updates.message() => update,
                bot = seats.ended() => {
                    let table = bot.map_err(|e| anyhow::anyhow!("{e}; leaving the ladder. Its games in play go on under the clock (their time-outs can bench the account)"))?;
                    if let Some(i) = in_play.iter().position(|(t, _, moved)| *t == table && *moved) {
                        let (_, game, _) = in_play.remove(i);
                        ended += 1;
                        let history = client.rating_history(&pool, &name).await.unwrap_or_default();
                        match history.iter().find(|p| p.game == game) {
                            Some(p) => println!("game {}: finished {} (dudo replay {} --server {addr})", safe(&game), ordinal(p.place), safe(&game)),
                            None => println!("game {}: over (dudo replay {} --server {addr})", safe(&game), safe(&game)),
                        }
                    }
                    continue;
                }
            };
            let update = match update {
                Ok(Some(update)) => update,
                // Dropped by the server (its node died or drained): the ladder is elsewhere now.
                // Every game asked for is dealt: nothing to enter again for (an entry for 0
                // games is one with no end); those in play end with their bots.
                Ok(None) if args.games > 0 && to_deal(ended, in_play.len()) == 0 => break,
                Err(status) if dudo_client::dropped(&status) && args.games > 0 && to_deal(ended, in_play.len()) == 0 => {
                    break;
                }
                Ok(None) => {
                    let games = to_deal(ended, in_play.len());
                    updates = enter_again(&client, &pool, at_once, games, &mut in_play).await?;
                    continue;
                }
                Err(status) if dudo_client::dropped(&status) => {
                    let games = to_deal(ended, in_play.len());
                    updates = enter_again(&client, &pool, at_once, games, &mut in_play).await?;
                    continue;
                }
                Err(status) => return Err(status.into()),
            };
            match update.update {
                Some(pb::ladder_update::Update::Queued(q)) => {
                    println!("queue: {} waiting, {} of yours in play, rating (mu−3σ) {:.2}", q.waiting, q.playing, q.rating);
                }
                Some(pb::ladder_update::Update::Seated(s)) => {
                    if in_play.iter().any(|(t, _, _)| *t == s.table) {
                        continue;
                    }
                    println!("seated for game {} as seat {}", safe(&s.game), s.seat);
                    in_play.push((s.table.clone(), s.game.clone(), false));
                    seats.start(&s.table, &s.game, s.seat, &s.token)?;
                }
                Some(pb::ladder_update::Update::Ended(e)) => {
                    let Some(i) = in_play.iter().position(|(t, _, _)| *t == e.table) else { continue };
                    in_play.remove(i);
                    seats.game_over(&e.table);
                    ended += 1;
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
            // With every game asked for dealt, the stream stays open: the server deals no
            // more (it was told how many), and its `ended` for each is what stops that
            // game's bot (one that lingers is stopped 10 s after) and counts it.
        }
        drop(updates);
        if !in_play.is_empty() {
            println!("{} of your games still in play; waiting for them to end.", in_play.len());
        }
        // The bots of games just ended see their end and exit (one that lingers is stopped
        // 10 s after); games still in play end within a game's length (at most an hour).
        seats.wait(std::time::Duration::from_secs(3600)).await?;
        if in_play.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        // Their places, from the account's rating history (written with each game's record).
        let history = client.rating_history(&pool, &name).await.unwrap_or_default();
        for (_, game, _) in &in_play {
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

/// How long `dudo ladder` keeps entering again while the ladder cannot be reached.
const LADDER_GIVE_UP_AFTER: std::time::Duration = std::time::Duration::from_secs(120);

/// Enters the pool again after the server dropped the entry (the ladder's node died or
/// drained): tried until the ladder answers at its new node, for two minutes at most. The
/// games in play go on; they are marked as seated before the move.
async fn enter_again(
    client: &dudo_client::Client,
    pool: &str,
    at_once: u32,
    games: u32,
    in_play: &mut [(String, String, bool)],
) -> anyhow::Result<dudo_client::Streaming<pb::LadderUpdate>> {
    println!("The ladder is moving to another node of the server; entering again (games in play go on).");
    for game in in_play.iter_mut() {
        game.2 = true;
    }
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(100);
    loop {
        match client.enter(pool, at_once, games).await {
            Ok(updates) => return Ok(updates),
            Err(dudo_client::ClientError::Refused { status })
                if dudo_client::dropped(&status) && started.elapsed() < LADDER_GIVE_UP_AFTER =>
            {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(2));
            }
            Err(e) => return Err(e.into()),
        }
    }
}
