//! `dudo tournament verify`: a tournament's result, checked by anyone.
//!
//! `verify FILE` reads an export (`dudo arena --export`), makes the schedule again from its
//! seed, plays every game's moves through the engine, opens every published dice commitment
//! against the dice the engine rolled, and counts the standings again, all without the server
//! that ran it (`dudo_tournament::verify`). A file that fails says which game and move.

use std::process::ExitCode;

use anyhow::Context;
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;
use dudo_client::dudo_proto::{TableEvent, convert};
use dudo_tournament::Head;
use dudo_tournament::export::{Committed, ExportedGame, Move, Opened, Player};

use crate::history_cmd::RecordsArgs;
use crate::render::safe;

/// A game of a tournament as its export holds it, from the server's record of it (`replay`),
/// with the rules it was played by.
pub(crate) fn exported_game(
    replay: pb::Replay,
    schedule: dudo_tournament::Game,
    id: String,
    finish: Vec<usize>,
) -> anyhow::Result<(dudo_rules::RuleSet, ExportedGame)> {
    let rules = convert::rules_from_wire(&replay.rules.unwrap_or_default())?;
    let mut recorded = replay.summary.map(|s| s.players).unwrap_or_default();
    recorded.sort_by_key(|p| p.seat);
    let players = recorded.into_iter().map(|p| Player { name: p.name, bot: p.bot }).collect();
    let moves = replay
        .moves
        .iter()
        .map(|m| {
            Ok(Move {
                seat: m.seat as usize,
                action: m.action.as_ref().map(convert::action_from_wire).transpose()?,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (mut log, mut committed, mut opened) = (Vec::new(), Vec::new(), Vec::new());
    for event in &replay.events {
        match convert::event_from_wire(event)?.1 {
            TableEvent::Game(event) => log.push(event.kind),
            TableEvent::DiceCommitted { round, commitments, .. } => {
                committed.extend(commitments.into_iter().map(|(seat, commitment)| Committed {
                    round,
                    seat,
                    commitment,
                }))
            }
            TableEvent::DiceSalts { round, salts } => {
                opened.extend(salts.into_iter().map(|(seat, salt, dice)| Opened { round, seat, salt, dice }))
            }
            _ => {}
        }
    }
    Ok((rules, ExportedGame { schedule, id, players, moves, log, committed, opened, finish }))
}

/// A game of the file against the record of its id: the same rules, players, moves,
/// events, commitments and salts. What differs, in words, if anything.
async fn against_record(
    client: &Client,
    head: &Head,
    number: usize,
    game: &ExportedGame,
) -> anyhow::Result<Option<String>> {
    let replay = match client.replay(&game.id).await {
        Ok(replay) => replay,
        Err(e) => return Ok(Some(format!("game {number} ({}): no record of it there: {e}", game.id))),
    };
    // A tournament's game is its tournament's: the file's seed proof must name the one the
    // server says it was played for (a proof deleted, or another's, is caught here).
    let named = head.seed_proof.as_ref().map(|p| p.tournament.as_str()).unwrap_or_default();
    if replay.tournament != named {
        let at_server = match replay.tournament.as_str() {
            "" => "no tournament's".to_string(),
            t => format!("tournament {}'s", said(t)),
        };
        let in_file = match named {
            "" => "names none (its seed proof is missing or names no tournament)".to_string(),
            t => format!("names tournament {}", said(t)),
        };
        return Ok(Some(format!(
            "game {number} ({}): the server says it is {at_server}, and the file {in_file}",
            game.id
        )));
    }
    let (rules, recorded) =
        exported_game(replay, game.schedule.clone(), game.id.clone(), game.finish.clone())?;
    let differs = [
        (rules != head.rules, "rules"),
        (recorded.players != game.players, "players"),
        (recorded.moves != game.moves, "moves"),
        (recorded.log != game.log, "events"),
        (recorded.committed != game.committed, "dice commitments"),
        (recorded.opened != game.opened, "salts"),
    ];
    let differs: Vec<&str> = differs.iter().filter(|(d, _)| *d).map(|(_, what)| *what).collect();
    Ok((!differs.is_empty()).then(|| {
        format!(
            "game {number} ({}): the record there has other {} than the file",
            game.id,
            differs.join(", ")
        )
    }))
}

/// The largest export read whole (one not laid out a game to a line, as `dudo arena`
/// writes them, say reformatted by hand): reading whole can take some 16 times a file's
/// size in memory. Files laid out a game to a line are read a game at a time, whatever their
/// size.
const MAX_WHOLE_EXPORT_BYTES: u64 = 64 << 20;

/// What is printed of a refusal at most: one names a game and move, but can quote a file's
/// field, and a file's field can be megabytes.
const MAX_SAID: usize = 2_000;

/// `why`, safe for the terminal and cut to [`MAX_SAID`] characters.
fn said(why: &str) -> String {
    let mut text = safe(why).into_owned();
    if let Some((cut, _)) = text.char_indices().nth(MAX_SAID) {
        text.truncate(cut);
        text.push_str(" …");
    }
    text
}

/// Where an export's games come from: the file a line at a time, or the file read whole.
enum Games {
    Lines(dudo_tournament::layout::Games<std::io::BufReader<std::fs::File>>),
    Whole(std::vec::IntoIter<ExportedGame>),
}

impl Games {
    fn next(&mut self) -> anyhow::Result<Option<ExportedGame>> {
        match self {
            Games::Lines(games) => Ok(games.next_game()?),
            Games::Whole(games) => Ok(games.next()),
        }
    }
}

/// The file's head and its games to come.
fn open_export(file: &std::path::Path) -> anyhow::Result<(Head, Games)> {
    let reading = || format!("reading {}", file.display());
    let mut input = std::io::BufReader::new(std::fs::File::open(file).with_context(reading)?);
    match dudo_tournament::layout::read_head(&mut input) {
        Ok((head, line)) => {
            let games = dudo_tournament::layout::Games::new(input, line)
                .with_context(|| format!("{} is not a tournament export", file.display()))?;
            return Ok((head, Games::Lines(games)));
        }
        Err(dudo_tournament::layout::ReadError::Layout { .. }) => {}
        Err(e) => return Err(e).with_context(|| format!("{} is not a tournament export", file.display())),
    }
    let size = std::fs::metadata(file).with_context(reading)?.len();
    anyhow::ensure!(
        size <= MAX_WHOLE_EXPORT_BYTES,
        "{} is {size} bytes and not laid out a game to a line as dudo writes exports; \
         one read whole may be at most {MAX_WHOLE_EXPORT_BYTES}",
        file.display()
    );
    let text = std::fs::read_to_string(file).with_context(reading)?;
    let export: dudo_tournament::Export = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a tournament export", file.display()))?;
    Ok((export.head, Games::Whole(export.games.into_iter())))
}

pub(super) fn verify(file: &std::path::Path, records: Option<RecordsArgs>) -> anyhow::Result<ExitCode> {
    let (head, mut games) = open_export(file)?;
    crate::net::runtime()?.block_on(async move {
        let mut from = records;
        let client = match &mut from {
            Some(from) => match from.connect().await? {
                Some(client) => Some(client),
                None => anyhow::bail!("no records to check against"),
            },
            None => None,
        };
        let not_verified = |why: String| {
            println!("NOT verified: {}", said(&why));
            Ok(ExitCode::FAILURE)
        };
        if let (Some(client), Some(from)) = (&client, &from)
            && from.server.is_some()
            && let Some(why) = against_published(client, &head).await
        {
            return not_verified(why);
        }
        let mut verifier = match dudo_tournament::Verifier::new(&head) {
            Ok(v) => v,
            Err(why) => return not_verified(why.to_string()),
        };
        let mut number = 0;
        while let Some(game) = games.next()? {
            if let Err(why) = verifier.game(&game) {
                return not_verified(why.to_string());
            }
            if let Some(client) = &client
                && let Some(why) = against_record(client, &head, number, &game).await?
            {
                return not_verified(why);
            }
            number += 1;
        }
        let (moves, opened) = (verifier.moves, verifier.opened);
        let standings = match verifier.finish() {
            Ok(standings) => standings,
            Err(why) => return not_verified(why.to_string()),
        };
        if let Some(from) = &from {
            println!("every game is the record it came from, at {}", safe(&from.place()));
        }
        let deals = match head.seating {
            dudo_tournament::export::Format::RoundRobin if head.deals == 1 => "1 deal".to_string(),
            dudo_tournament::export::Format::RoundRobin => format!("{} deals", head.deals),
            dudo_tournament::export::Format::Swiss { rounds } => {
                format!("{rounds} Swiss rounds of {} deals", head.deals)
            }
        };
        println!(
            "verified: {number} games made again from seed {} ({} entrants, {} seats a table, {deals}), \
             {moves} moves legal, {opened} dice commitments opened to the engine's dice, the standings \
             counted again",
            head.seed,
            head.entrants.len(),
            head.seats
        );
        if let Some(proof) = &head.seed_proof {
            let whose = if from.as_ref().is_some_and(|f| f.server.is_some()) {
                "as the server says"
            } else {
                "as the file says: --server checks it with the server"
            };
            println!(
                "the seed opens the commitment {} the server published when the tournament was made ({whose})",
                safe(&proof.commitment)
            );
            if proof.seeded {
                println!(
                    "(the server's admin chose this seed, for a test or a repeated run: whoever knew it knew every cup)"
                );
            }
        }
        if head.seed_proof.is_none() {
            println!(
                "(the file carries no seed proof: it names no tournament of a server, so nothing \
                 shows its seed was fixed before play; an arena's export has none)"
            );
        }
        if from.is_none() {
            println!(
                "(the file alone: it holds together, but only its records can say it is what was \
                 played; add --server HOST:PORT or --arena to check every game against them)"
            );
        }
        print_standings(&head.entrants, &standings);
        print_pairs(&head.entrants, &standings);
        Ok(ExitCode::SUCCESS)
    })
}

/// What differs between a server tournament's export and the tournament as its server
/// published it (its id, name, seed commitment, seed, salt and `seeded`), if anything: a file
/// whose proof was edited by hand (a commitment made up, `seeded` deleted) verifies alone,
/// but not against the server. None for a file with no seed proof (an arena's).
async fn against_published(client: &dudo_client::Client, head: &Head) -> Option<String> {
    let proof = head.seed_proof.as_ref()?;
    if proof.tournament.is_empty() {
        return Some(
            "its seed proof names no tournament (seed_proof.tournament), so it cannot be compared with what the server published"
                .into(),
        );
    }
    let t = match client.tournament(&proof.tournament).await {
        Ok(t) => t,
        Err(e) => return Some(format!("its seed proof's tournament: {e}")),
    };
    let mut differs = Vec::new();
    let mut compare = |what: &str, file: String, server: String| {
        if file != server {
            differs.push(format!("{what} {:?} (the server: {:?})", said(&file), said(&server)));
        }
    };
    compare("name", head.name.clone(), t.name.clone());
    compare("seed commitment", proof.commitment.clone(), t.seed_commitment.clone());
    compare("salt", proof.salt.clone(), t.seed_salt.clone());
    compare(
        "seed",
        head.seed.to_string(),
        t.seed.map_or_else(|| "not shown: the tournament has not ended".into(), |s| s.to_string()),
    );
    compare("seeded", proof.seeded.to_string(), t.seeded.to_string());
    // The field and the schedule's size as announced: an entrant left out, or deals dropped
    // (with the standings counted again to match), is a file that holds together alone.
    let entrants: Vec<String> = t.entrants.iter().map(|e| e.name.clone()).collect();
    compare("entrants", head.entrants.join(", "), entrants.join(", "));
    compare("seats", head.seats.to_string(), t.seats.to_string());
    compare("deals", head.deals.to_string(), t.deals.to_string());
    let (format, rounds) = match head.seating {
        dudo_tournament::export::Format::RoundRobin => (pb::TournamentFormat::RoundRobin, 0),
        dudo_tournament::export::Format::Swiss { rounds } => (pb::TournamentFormat::Swiss, rounds),
    };
    compare("format", format!("{format:?} {rounds}"), format!("{:?} {}", t.format(), t.rounds));
    let fresh = head.dice == dudo_tournament::Deals::Fresh;
    compare("fresh dice", fresh.to_string(), t.fresh_deals.to_string());
    (!differs.is_empty()).then(|| {
        format!(
            "the file differs from tournament {} as the server published it: {}",
            said(&t.id),
            differs.join("; ")
        )
    })
}

/// The standings as a table: points a game by place (1 for first, 0 for last), best first.
pub(crate) fn print_standings(names: &[String], standings: &dudo_tournament::Standings) {
    println!(
        "{:<14} {:>6} {:>6} {:>7} {:>17} {:>10}",
        "entrant", "games", "wins", "points", "95% interval", "mean place"
    );
    for s in &standings.entrants {
        let name = names.get(s.entrant).map_or_else(|| s.entrant.to_string(), |n| safe(n).into_owned());
        let interval =
            s.interval.map_or_else(|| "-".to_string(), |(low, high)| format!("{low:.3} - {high:.3}"));
        println!(
            "{:<14} {:>6} {:>6} {:>7.3} {:>17} {:>10.2}",
            name, s.games, s.wins, s.mean_points, interval, s.mean_place
        );
    }
}

/// Which entrants are ahead of which with 95% confidence, compared deal by deal.
pub(crate) fn print_pairs(names: &[String], standings: &dudo_tournament::Standings) {
    let name = |e: usize| names.get(e).map_or_else(|| e.to_string(), |n| safe(n).into_owned());
    let ahead: Vec<_> = standings.pairs.iter().filter(|c| c.ahead()).collect();
    if ahead.is_empty() {
        println!("no entrant is ahead of another with 95% confidence yet; more games would tell");
        return;
    }
    println!("ahead with 95% confidence (points a game: 1 for first, 0 for last; compared deal by deal):");
    for c in ahead {
        let (low, high) = c.interval.unwrap_or_default();
        println!(
            "  {} ahead of {} by {:.3} ({:.3} to {:.3}) over {} deals",
            name(c.better),
            name(c.worse),
            c.difference,
            low,
            high,
            c.deals
        );
    }
}
