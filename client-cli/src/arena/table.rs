//! One arena game on the server: its table made host-only, its bots seated (the server's own,
//! or external programs that join by its code), played to the end within a time limit.

use super::*;

/// How long one game may take before the arena gives up on it.
pub(super) const GAME_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Plays one game and says how it finished.
pub(super) async fn play_one(
    client: &Client,
    entries: &[Entry],
    template: &pb::CreateTableRequest,
    starting: &tokio::sync::Semaphore,
    game: Game,
) -> anyhow::Result<Finished> {
    // The arena hosts without a seat: every built-in bot is the server's own (seeded by the
    // table's seed, as `dudo simulate` seeds its seats), every external bot joins.
    let request = pb::CreateTableRequest {
        seats: game.lineup.len() as u32,
        seed: Some(game.seed),
        host_only: true,
        // Programs in every seat: no wait after a showdown.
        reveal_pause_millis: Some(0),
        ..template.clone()
    };
    let key = match client.create(request).await {
        Ok(key) => key,
        // A server that keeps no ratings: the arena can still play, unrated.
        Err(e)
            if e.code() == Some(dudo_client::Code::FailedPrecondition)
                && e.to_string().starts_with("rating_pool") =>
        {
            anyhow::bail!("{e}; run the arena with --unrated to play there without ratings")
        }
        Err(e) => return Err(e.into()),
    };
    let mut watch = client.watch(&key.table, None);
    let mut children = Vec::new();
    for (seat, &entry) in game.lineup.iter().enumerate() {
        match &entries[entry].kind {
            Kind::Builtin(kind) => {
                client.add_bot(&key, kind).await?;
            }
            Kind::External(command) => {
                // Killed if the game ends early (an error, a timeout): no bot outlives its game.
                let set = [
                    ("DUDO_SERVER", client.addr()),
                    ("DUDO_BOT_NAME", entries[entry].name.as_str()),
                    ("DUDO_TABLE", key.info.join_code.as_str()),
                ];
                let _starting = starting.acquire().await?;
                let mut child = BotCommand::start(command, &set, &["DUDO_TOKEN"])?;
                let name = entries[entry].name.as_str();
                wait_for_seats(&mut watch, seat + 1, &mut child, name)
                    .await
                    .with_context(|| format!("the external bot {name} (`{command}`)"))?;
                children.push((name, child));
            }
        }
    }
    // The watch opens on a task of its own: with bots alone a game can be over before the
    // watch reaches the server, and its snapshot would show the game over without the
    // `game_over` the arena waits for. Its first update (the snapshot) says it is there.
    if !game.lineup.iter().any(|&e| matches!(entries[e].kind, Kind::External(_))) {
        match tokio::time::timeout(std::time::Duration::from_secs(30), watch.next()).await {
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(e))) => return Err(e.into()),
            Ok(None) => anyhow::bail!("the table closed before it started"),
            Err(_) => anyhow::bail!("the table could not be watched within 30 s"),
        }
    }
    client.start(&key).await?;
    let mut standings = None;
    // A bot that crashed or hangs must not hold the tournament for ever.
    let give_up = tokio::time::sleep(GAME_TIME_LIMIT);
    tokio::pin!(give_up);
    // A bot that dies mid-game is said at once, not when the game's time runs out.
    let mut check = tokio::time::interval(std::time::Duration::from_millis(250));
    while standings.is_none() {
        tokio::select! {
            update = watch.next() => match update {
                Some(update) => match update? {
                    Update::Event { event, .. } => {
                        if let Some(EventKind::GameOver { standings: s, .. }) = event.game() {
                            standings = Some(s.clone());
                        }
                    }
                    // A snapshot of a game already over (its start no longer kept to resume
                    // from) will never bring its `game_over`: said now, not after the time limit.
                    Update::Snapshot { table, .. } if table.state == pb::TableState::Over as i32 => {
                        anyhow::bail!("it was over before the arena could watch it")
                    }
                    _ => {}
                },
                None => break,
            },
            () = &mut give_up => anyhow::bail!("it did not end within {} s", GAME_TIME_LIMIT.as_secs()),
            _ = check.tick() => {
                for (name, c) in &mut children {
                    if let Ok(Some(status)) = c.try_wait()
                        && !status.success()
                    {
                        anyhow::bail!("the external bot {name} exited with {status} before the game ended");
                    }
                }
            }
        }
    }
    // Finished tables are closed at once, so a long run stays under the server's table limits.
    client.close(&key).await?;
    // The close ends the watch; read it to its end rather than drop it open. Each stream
    // dropped open is a reset on the connection, and after some thousands of them the
    // client's HTTP/2 gives up on the connection (`too_many_internal_resets`).
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while watch.next().await.is_some() {}
    })
    .await;
    for (_, mut c) in children {
        // The game is over: a bot gets a moment to finish, then is stopped.
        if tokio::time::timeout(std::time::Duration::from_secs(10), c.wait()).await.is_err() {
            c.kill();
        }
    }
    let standings = standings.ok_or_else(|| anyhow::anyhow!("it ended without a result"))?;
    let finish = standings.iter().filter_map(|&s| game.lineup.get(s).copied()).collect();
    Ok(Finished { game, table: key.table.clone(), finish })
}

/// Waits until `count` seats are taken (the external bot `child` has joined); a bot that
/// exits first is said at once.
pub(super) async fn wait_for_seats(
    watch: &mut dudo_client::Session,
    count: usize,
    child: &mut BotCommand,
    name: &str,
) -> anyhow::Result<()> {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let update = tokio::select! {
            update = tokio::time::timeout_at(deadline, watch.next()) => {
                update.map_err(|_| anyhow::anyhow!("it did not join within 30 s"))?
            }
            status = child.wait() => {
                let status = status.with_context(|| format!("waiting for {name}"))?;
                anyhow::bail!("it exited with {status} before it took its seat");
            }
        };
        match update {
            Some(Ok(Update::Table { table, .. } | Update::Snapshot { table, .. }))
                if table.players.len() >= count =>
            {
                return Ok(());
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e.into()),
            None => anyhow::bail!("the table closed"),
        }
    }
}
