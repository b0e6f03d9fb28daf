//! What the table's people say (chat, reactions) and what the table says itself (who sat
//! down or went, a bot added, the rules changed, the game paused), as lines beside the game's
//! events (see `table::talk`). The table's own lines are made here, from the input that
//! caused them, so every client shows the same words.

use dudo_proto::LeaveWhy;
use dudo_proto::v1 as pb;
use dudo_proto::v1::play_update::Update as Up;
use dudo_rules::Seat;

use super::TableCore;
use crate::table::clock::Now;
use crate::table::error::TableError;
use crate::table::journal::Input;
use crate::table::log;
use crate::table::seats::{NO_SEAT, seat_name};
use crate::table::talk::{Speaker, Talk, reaction_words};

impl TableCore {
    /// A line said by `speaker`: checked, within its allowance, kept and sent to every stream.
    pub fn say(&mut self, speaker: Speaker, text: &str, reaction: i32, now: Now) -> Result<(), TableError> {
        let said = Talk::check(text, reaction)?;
        let (from, name) = match &speaker {
            Speaker::Seat(s) => {
                let slot = self.seats.get(*s).ok_or(TableError::NotSeated)?;
                if slot.muted {
                    return Err(TableError::Muted);
                }
                (pb::table_line::From::Seat(u32::try_from(*s).unwrap_or(u32::MAX)), slot.name.clone())
            }
            Speaker::Spectator(raw) => {
                let name = seat_name(raw)?;
                let name = if name.is_empty() { "A spectator".to_string() } else { name };
                // A spectator may not speak as someone seated.
                let key = crate::table::seats::name_key(&name);
                if self.seats.iter().any(|s| crate::table::seats::name_key(&s.name) == key) {
                    return Err(TableError::BadName(format!(
                        "{name} sits at this table; a spectator speaks under another name"
                    )));
                }
                (pb::table_line::From::Spectator(name.clone()), format!("{name} (watching)"))
            }
        };
        self.talk.allow(&speaker, now.mono)?;
        let text = match reaction_words(said.reaction) {
            Some(words) => words.to_string(),
            None => said.text,
        };
        self.send_line(pb::TableLine {
            at_unix_millis: u64::try_from(now.wall).unwrap_or(0),
            from: Some(from),
            name,
            text,
            reaction: said.reaction as i32,
        });
        Ok(())
    }

    /// A line the table says itself.
    pub(super) fn tell(&mut self, text: String, now: Now) {
        self.send_line(pb::TableLine {
            at_unix_millis: u64::try_from(now.wall).unwrap_or(0),
            from: Some(pb::table_line::From::Table(pb::Empty {})),
            name: String::new(),
            text,
            reaction: pb::Reaction::None as i32,
        });
    }

    fn send_line(&mut self, line: pb::TableLine) {
        let line = self.talk.keep(line);
        let update = log::update(Up::Line(line));
        self.log.queue_each(|_| Some(update.clone()));
    }

    /// The lines kept, for a new stream's story so far.
    pub(super) fn lines(&self) -> Vec<pb::TableLine> {
        self.talk.lines().cloned().collect()
    }

    /// The host mutes `seat`, or lets it speak again; the table says so.
    pub fn mute(&mut self, seat: Seat, muted: bool, now: Now) -> Result<(), TableError> {
        self.seats.set_muted(seat, muted)?;
        let name = self.seat_name(seat);
        self.tell(
            if muted {
                format!("The host muted {name}.")
            } else {
                format!("The host let {name} speak again.")
            },
            now,
        );
        self.changes += 1;
        self.announce_table();
        Ok(())
    }

    fn seat_name(&self, seat: Seat) -> String {
        self.seats.get(seat).map(|s| s.name.clone()).unwrap_or_else(|| format!("seat {seat}"))
    }

    /// What the table will say of `input` once it is applied (made before, from the table
    /// as it stands: the rules it changes, the name of the seat it frees). The game's own
    /// events say what happens in a game; these are the table's news around it.
    pub(super) fn news_of(&self, input: &Input) -> Option<String> {
        let host = "The host";
        match input {
            Input::Joined { name, bot: Some(_), .. } => Some(format!("{host} added {name}.")),
            Input::Joined { name, .. } => Some(format!("{name} sat down.")),
            Input::RulesChanged { rules } => {
                let said = dudo_rules::settings_words::changes(&self.rules, rules);
                (!said.is_empty()).then(|| format!("{host} changed the rules: {}.", said.join("; ")))
            }
            // During a game the engine's events say who went and why.
            Input::Removed { seat, why } if self.game.is_none() => {
                let name = self.seat_name(*seat);
                Some(match why {
                    Some(LeaveWhy::Removed) => format!("{host} removed {name}."),
                    _ => format!("{name} left the table."),
                })
            }
            // A pause that ran its longest says so itself.
            Input::Reset
                if self.game.as_ref().is_some_and(|g| !g.is_over()) && self.pauses.host().is_none() =>
            {
                Some(format!("{host} ended the game in play; the table waits for the next one."))
            }
            Input::Paused { by, .. } => Some(format!("{by} paused the game.")),
            Input::Resumed { by } => Some(format!("{by} resumed the game.")),
            Input::SeatLinkRevoked { seat } => {
                Some(format!("{host} revoked {}'s rejoin link.", self.seat_name(*seat)))
            }
            _ => None,
        }
    }

    /// The name to say for the holder of the host's seat ([`NO_SEAT`]: the seatless host).
    pub fn host_name(&self, seat: Seat) -> String {
        if seat == NO_SEAT { "The host".to_string() } else { self.seat_name(seat) }
    }
}
