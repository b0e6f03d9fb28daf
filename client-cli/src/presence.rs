//! Who is at the table: each person's seat is here (a stream open) or away since some
//! moment, and may be leaving at the round's end. The server tells it in every `TableInfo`;
//! this says it in words, as marks beside names and as lines when it changes.

use std::time::{Duration, SystemTime};

use dudo_client::dudo_proto::v1 as pb;

/// The mark beside a seat's name: "" when here (or a bot), else "(away 3 min)", "(leaving)",
/// "(left)".
pub fn mark(p: &pb::SeatInfo, now: SystemTime) -> String {
    if p.left {
        return " (left)".into();
    }
    if p.leaving {
        return " (leaving at the round's end)".into();
    }
    if !p.bot.is_empty() || p.connected {
        return String::new();
    }
    let since = SystemTime::UNIX_EPOCH + Duration::from_millis(p.away_since_unix_millis);
    let secs = now.duration_since(since).map_or(0, |d| d.as_secs());
    if p.away_since_unix_millis == 0 || secs < 60 {
        format!(" (away {secs} s)")
    } else {
        format!(" (away {} min)", secs / 60)
    }
}

/// What changed in who is here while a game is played, as lines for the table's story
/// (names already made safe). Before the start, sitting down is its own news.
pub fn changes(before: &pb::TableInfo, after: &pb::TableInfo) -> Vec<String> {
    let mut lines = Vec::new();
    if after.state != pb::TableState::Playing as i32 {
        return lines;
    }
    for p in after.players.iter().filter(|p| p.bot.is_empty() && !p.left) {
        // The same person in the same seat: a seat renumbered before the start is not news.
        let Some(was) = before.players.iter().find(|b| b.seat == p.seat && b.name == p.name) else {
            continue;
        };
        if was.connected && !p.connected {
            lines.push(format!("{} is away (no connection).", p.name));
        } else if !was.connected && p.connected {
            lines.push(format!("{} is back.", p.name));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str, connected: bool, away_since_unix_millis: u64) -> pb::SeatInfo {
        pb::SeatInfo { name: name.into(), connected, away_since_unix_millis, ..Default::default() }
    }

    #[test]
    fn away_and_back_are_told_and_marked() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let playing = pb::TableState::Playing as i32;
        let here = pb::TableInfo {
            players: vec![seat("Ana", true, 0), seat("Ben", true, 0)],
            state: playing,
            ..Default::default()
        };
        let gone = pb::TableInfo {
            players: vec![seat("Ana", true, 0), seat("Ben", false, 880_000)],
            state: playing,
            ..Default::default()
        };
        let waiting = pb::TableInfo { state: pb::TableState::Waiting as i32, ..here.clone() };
        assert!(changes(&gone, &waiting).is_empty(), "sitting down before the start is its own news");
        assert_eq!(changes(&here, &gone), ["Ben is away (no connection)."]);
        assert_eq!(changes(&gone, &here), ["Ben is back."]);
        assert_eq!(mark(&gone.players[1], now), " (away 2 min)");
        assert_eq!(mark(&gone.players[0], now), "");
        let bot = pb::SeatInfo { bot: "odds".into(), ..seat("Alba", false, 0) };
        assert_eq!(mark(&bot, now), "");
    }
}
