//! A game's table: made on a task of its own, then watched as a spectator to its end.
//!
//! Its tokens are derived from the tournament's secret key (`seat_key`, never shown) and
//! the game's number, not drawn: a table a restart (or another node of a cluster) brings back
//! is the same game with the same seats, and the director, having forgotten everything but
//! the store, can seat the entrants there again and close it at the end.

use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_store::tournaments::TournamentRow;
use dudo_tournament::Game;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;
use tokio_stream::StreamExt;

use super::Command;
use super::live::Live;
use crate::server_tables::{GivenTokens, LadderSeat, ServerTable, ServerTables, UpdateStream};
use crate::table::SeatAccount;

/// A game's host token and each seat's, the same every time they are made.
pub(super) fn game_tokens(row: &TournamentRow, number: u32, seats: usize) -> GivenTokens {
    let token = |what: &[u8]| {
        let mut h = Sha256::new();
        h.update(b"dudo-tournament-token-v1");
        h.update(row.id.as_bytes());
        h.update(row.seat_key.as_bytes());
        if row.seat_key.is_empty() {
            // Made before tournaments had a key of their own.
            h.update(row.seed.to_le_bytes());
            h.update(row.salt.as_bytes());
        }
        h.update(number.to_le_bytes());
        h.update(what);
        dudo_rules::proof::hex(&h.finalize()[..16])
    };
    GivenTokens {
        host: token(b"host"),
        seats: (0..seats as u32).map(|s| Some(token(&s.to_le_bytes()))).collect(),
    }
}

/// Makes a game's table on a task of its own; the director hears of it as [`Command::Made`].
pub(super) fn make<T: ServerTables>(tables: &T, tx: &mpsc::Sender<Command>, live: &Live, game: Game) {
    let seats: Vec<LadderSeat> = game
        .seats
        .iter()
        .map(|&e| match live.entrants.get(e) {
            Some(row) if row.account.is_empty() => LadderSeat::Bot(row.bot.clone()),
            Some(row) => LadderSeat::Account {
                account: SeatAccount {
                    id: row.account.clone(),
                    kind: if row.kind == "bot" { pb::AccountKind::Bot } else { pb::AccountKind::Person },
                },
                name: row.name.clone(),
            },
            None => LadderSeat::Bot("random".into()),
        })
        .collect();
    // A benched entrant forfeits: the table plays its default moves at once.
    let forfeit = live.forfeit_seats(game.number);
    // The table's id is the tournament's before the table exists: a server stopped while it
    // was being made brings back a table its tournament knows (and looks for), never one
    // beside it.
    let table = crate::table::secret();
    let order = ServerTable {
        id: Some(table.clone()),
        rules: live.spec.rules.clone(),
        seed: Some(game.seed),
        move_millis: live.spec.move_millis,
        time_bank_millis: live.spec.time_bank_millis,
        // Every seat of every game asked alike: for this window, or what is left of the
        // table's patience (the table's rule for tournaments, `TableCore::asking`), never a
        // seat's own, so a deal's rotations are played alike. A seat that lets a whole one
        // lapse is not asked again that game, and the lapse counts towards its bench.
        call_window_millis: live.spec.call_window(),
        bot_think_millis: 0,
        rating_pool: match live.spec.rating_pool.as_str() {
            "" => String::new(),
            pool => format!("{}{pool}", dudo_store::ladder::POOL_PREFIX),
        },
        bot_check: false,
        stalling: crate::table::core::Stalling::tournament(live.unasked_seats(game.number), forfeit),
        called_off: Some(std::sync::Arc::clone(&live.called_off)),
        tokens: Some(game_tokens(&live.row, game.number, game.seats.len())),
    };
    let (tables, tx, tournament, number) = (tables.clone(), tx.clone(), live.row.id.clone(), game.number);
    tokio::spawn(async move {
        let game_id = crate::table::game_id(&table, 1);
        let stored = match tables.store() {
            Some(store) => store.tournament_game_made(&tournament, number, &table, &game_id).await,
            None => Ok(()),
        };
        let made = match stored {
            Ok(()) => tables.make(order, seats).await.map_err(|e| e.message().to_string()),
            Err(e) => Err(e.to_string()),
        };
        let _ = tx.send(Command::Made { tournament, number, made }).await;
    });
}

/// Closes game `number`'s table wherever it is, and in the store, so no restart or node
/// brings it back: a game that has ended (or is given up, or its tournament has).
pub(super) async fn close_for_good<T: ServerTables>(
    tables: &T,
    row: &TournamentRow,
    number: u32,
    table: &str,
) {
    tables.close_anywhere(table, &game_tokens(row, number, 0).host).await;
    if let Some(store) = tables.store()
        && let Err(e) = store.close_table(table, super::now_millis()).await
    {
        tracing::warn!(table = %table, error = %e, "a tournament's table could not be closed in the store");
    }
}

/// What an entrant did that a tournament holds against it: call windows it let lapse and
/// moves the clock played for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Faults {
    pub(crate) lapses: u32,
    pub(crate) timeouts: u32,
}

impl Faults {
    pub(crate) fn total(&self) -> u32 {
        self.lapses + self.timeouts
    }
}

/// How a watched game came out.
pub(crate) struct Watched {
    /// Its entrants from first place to last, stored; none when the watch ended first (the
    /// table moved, or the server is stopping): the director finds the table again.
    pub(crate) finish: Option<Vec<usize>>,
    /// Each entrant's faults in the game (forfeit seats' are not counted again).
    pub(crate) faults: Vec<(usize, Faults)>,
}

/// Watches a game's table as a spectator until its end, which is stored before the director
/// hears of it; then the table closes. A watch that ends before the game does leaves the
/// table as it is: it is the game's one table, wherever it is played on.
pub(super) fn watch<T: ServerTables>(
    tables: &T,
    tx: &mpsc::Sender<Command>,
    tournament: &str,
    game: Game,
    forfeit: Vec<usize>,
    (table, host_token): (String, String),
    mut updates: UpdateStream,
) {
    let (tables, tx, tournament) = (tables.clone(), tx.clone(), tournament.to_string());
    tokio::spawn(async move {
        let number = game.number;
        let mut finish: Option<Vec<usize>> = None;
        let mut faults = vec![Faults::default(); game.seats.len()];
        let counted = |seat: u32| (seat as usize) < game.seats.len() && !forfeit.contains(&(seat as usize));
        while let Some(Ok(u)) = updates.next().await {
            let e = match u.update {
                Some(pb::play_update::Update::Event(e)) => e,
                // Found again after a restart with its game already over: the snapshot says
                // how it ended.
                Some(pb::play_update::Update::Snapshot(s)) => {
                    if let Some(view) = s.view.filter(|v| v.over) {
                        finish =
                            view.standings.iter().map(|&s| game.seats.get(s as usize).copied()).collect();
                        break;
                    }
                    continue;
                }
                _ => continue,
            };
            match e.kind {
                Some(pb::event::Kind::GameOver(g)) => {
                    finish = g.standings.iter().map(|&s| game.seats.get(s as usize).copied()).collect();
                    break;
                }
                Some(pb::event::Kind::CallWindowLapsed(l)) => {
                    for &seat in l.seats.iter().filter(|&&s| counted(s)) {
                        faults[seat as usize].lapses += 1;
                    }
                }
                Some(pb::event::Kind::TurnTimedOut(t)) if counted(t.seat) => {
                    faults[t.seat as usize].timeouts += 1;
                }
                _ => {}
            }
        }
        drop(updates);
        let over = finish.is_some();
        if let (Some(f), Some(store)) = (&finish, tables.store()) {
            // Written before the director counts it: a restart never loses a counted game.
            let mut tries = 0;
            while let Err(e) = store.tournament_game_finished(&tournament, number, f).await {
                tries += 1;
                if tries >= 5 {
                    tracing::warn!(tournament = %tournament, game = number, error = %e, "a game's end could not be stored; it is read from its record later");
                    finish = None;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
        if over {
            tables.close_anywhere(&table, &host_token).await;
        }
        let faults = game.seats.iter().copied().zip(faults).filter(|(_, f)| f.total() > 0).collect();
        let _ = tx.send(Command::Ended { tournament, number, watched: Watched { finish, faults } }).await;
    });
}
