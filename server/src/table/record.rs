//! The current game's record: its id, seed and moves, made whole when the game ends and
//! written in the same transaction as the move that ended it. The seed and moves let
//! anyone play the record through the engine and check it.

use dudo_proto::v1 as pb;
use dudo_rules::{Game, RuleSet, Seat, Seed};
use dudo_store::{FinishedGame, GamePlayer, GameSummary};
use prost::Message;

use super::log::EventLog;
use super::seats::Seats;

#[derive(Default)]
pub struct GameRecord {
    pub id: String,
    pub seed: Seed,
    pub started_at: i64,
    pub moves: Vec<pb::GameMove>,
    /// Whether the finished game's record has been made.
    pub recorded: bool,
    /// Moves played in this game (kept or not), for the server's length limit.
    pub played: u64,
    /// Games started at this table, for game ids.
    pub games: u32,
    /// People cut off by a rebuild mid-game who have not moved themselves since.
    pub cut_off: Vec<Seat>,
    /// The clock played for a seat cut off by a rebuild: the server, not the player, cost it
    /// that move, so the game changes nobody's rating.
    pub unrated: bool,
}

/// What the record is made of, besides the game's own facts.
pub struct Context<'a> {
    pub table: &'a str,
    pub rules: &'a RuleSet,
    /// The same rules as the wire has them (the table keeps them so).
    pub rules_wire: dudo_proto::v1::RuleSet,
    pub rating_pool: &'a str,
    pub seats: &'a Seats,
    pub log: &'a EventLog,
}

impl GameRecord {
    pub fn begin(&mut self, id: String, seed: Seed, at: i64) {
        *self = GameRecord {
            id,
            seed,
            started_at: at,
            moves: Vec::new(),
            recorded: false,
            played: 0,
            games: self.games + 1,
            cut_off: Vec::new(),
            unrated: false,
        };
    }

    /// A seat moved (`timed_out`: the clock played for it, not a seat leaving): one cut off
    /// by a rebuild is back once it moves itself, and its time-out before then makes the
    /// game unrated.
    pub fn moved_after_a_rebuild(&mut self, seat: Seat, timed_out: bool) {
        if !self.cut_off.contains(&seat) {
            return;
        }
        if timed_out {
            self.unrated = true;
        }
        self.cut_off.retain(|&s| s != seat);
    }

    /// The finished game's record: who played and how they finished, the rules, every event
    /// with its time, the seed and the moves.
    pub fn finish(&mut self, game: &Game, at: i64, cx: Context<'_>) -> FinishedGame {
        self.recorded = true;
        let standings = game.standings();
        let players = cx
            .seats
            .iter()
            .enumerate()
            .map(|(seat, slot)| GamePlayer {
                seat: u32::try_from(seat).unwrap_or(u32::MAX),
                name: slot.name.clone(),
                bot: slot.bot.as_ref().map(|b| b.kind.clone()).unwrap_or_default(),
                place: standings.iter().position(|&s| s == seat).map_or(0, |p| p as u32 + 1),
                account_kind: match slot.account.as_ref().map(|a| a.kind) {
                    Some(pb::AccountKind::Bot) => "bot".to_string(),
                    Some(_) => "person".to_string(),
                    None => String::new(),
                },
            })
            .collect();
        let summary = GameSummary {
            id: self.id.clone(),
            table: cx.table.to_string(),
            preset: cx.rules.name.clone(),
            started_at: self.started_at,
            finished_at: at,
            rating_pool: if self.unrated { String::new() } else { cx.rating_pool.to_string() },
            players,
        };
        let (events, times) =
            cx.log.kept().map(|(event, t)| (event.clone(), u64::try_from(t).unwrap_or(0))).unzip();
        let replay = pb::Replay {
            summary: Some(summary_to_wire(&summary)),
            rules: Some(cx.rules_wire),
            events,
            event_unix_millis: times,
            seed: self.seed.to_vec(),
            moves: std::mem::take(&mut self.moves),
            tournament: String::new(),
        };
        // Whole here: the table has it made compact when it writes it, off the runtime's
        // threads (stored_record.rs), as that replays the game.
        FinishedGame { summary, record: replay.encode_to_vec() }
    }
}

/// A finished game's summary as the wire has it (History.ListGames, a replay's header).
pub(crate) fn summary_to_wire(s: &GameSummary) -> pb::GameSummary {
    let ms = |t: i64| u64::try_from(t).unwrap_or(0);
    pb::GameSummary {
        id: s.id.clone(),
        table_id: s.table.clone(),
        preset: s.preset.clone(),
        started_unix_millis: ms(s.started_at),
        finished_unix_millis: ms(s.finished_at),
        players: s
            .players
            .iter()
            .map(|p| pb::GamePlayer {
                seat: p.seat,
                name: p.name.clone(),
                bot: p.bot.clone(),
                place: p.place,
                account: match p.account_kind.as_str() {
                    "bot" => pb::AccountKind::Bot,
                    "person" => pb::AccountKind::Person,
                    _ => pb::AccountKind::None,
                } as i32,
            })
            .collect(),
        rating_pool: s.rating_pool.clone(),
    }
}
