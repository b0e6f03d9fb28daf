//! What the table's people say (chat, reactions) and what the table says itself (who sat
//! down or went, a bot added, the rules changed, the game paused), as lines beside the game's
//! events (see `table::talk`). The table's own lines are made here, from the input that
//! caused them, so every client shows the same words.

use dudo_proto::LeaveWhy;
use dudo_proto::v1 as pb;
use dudo_proto::v1::play_update::Update as Up;
use dudo_rules::{Seat, Viewer};

use super::TableCore;
use crate::table::clock::Now;
use crate::table::error::TableError;
use crate::table::journal::Input;
use crate::table::log;
use crate::table::seats::{NO_SEAT, name_key, seat_name};
use crate::table::talk::{News, Speaker, Talk, reaction_words};

/// Names a spectator may not speak under: the table's own voice, and what it calls people.
const NOT_A_SPECTATOR: &[&str] = &["The host", "Host", "The table", "Table", "A spectator", "dudo", "Server"];

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
            Speaker::Spectator { name: raw, .. } => {
                let name = self.spectator_name(raw)?;
                (pb::table_line::From::Spectator(name.clone()), format!("{name} (watching)"))
            }
        };
        self.talk.allow(&speaker, now.mono)?;
        let text = match reaction_words(said.reaction) {
            Some(words) => words.to_string(),
            None => said.text,
        };
        let line = pb::TableLine {
            at_unix_millis: u64::try_from(now.wall).unwrap_or(0),
            from: Some(from),
            name,
            text,
            reaction: said.reaction as i32,
            after_seq: self.log.last_seq().unwrap_or(0),
        };
        self.send_line(line, Vec::new());
        Ok(())
    }

    /// The name a spectator speaks under: checked as a seat's is, and not the name of anyone
    /// seated (a bot's without its kind too: "Carmen" for "Carmen (odds bot)"), nor one the
    /// table's own lines use.
    fn spectator_name(&self, raw: &str) -> Result<String, TableError> {
        let name = seat_name(raw)?;
        if name.is_empty() {
            return Ok("A spectator".to_string());
        }
        let key = name_key(&name);
        let seated = self.seats.iter().any(|s| {
            let bare = s.name.split(" (").next().and_then(|n| n.split(" [").next()).unwrap_or(&s.name);
            name_key(&s.name) == key || name_key(bare) == key
        });
        if seated {
            return Err(TableError::BadName(format!(
                "{name} sits at this table; a spectator speaks under another name"
            )));
        }
        // The table's marks after a name ("(host)", "(odds bot)", "(watching)") are its own.
        if name.contains(['(', ')', '[', ']']) {
            return Err(TableError::BadName(format!(
                "{name:?}: brackets after a name are the table's marks (host, bot, watching); a spectator's name has none"
            )));
        }
        let a_bot = dudo_rules::bots::NAMES.iter().any(|n| name_key(n) == key);
        if a_bot || NOT_A_SPECTATOR.iter().any(|n| name_key(n) == key) {
            return Err(TableError::BadName(format!(
                "{name:?} is what the table calls itself or its host; a spectator speaks under a name of its own"
            )));
        }
        Ok(name)
    }

    /// A line the table says itself.
    pub(super) fn tell(&mut self, news: News, now: Now) {
        let line = pb::TableLine {
            at_unix_millis: u64::try_from(now.wall).unwrap_or(0),
            from: Some(pb::table_line::From::Table(pb::Empty {})),
            name: String::new(),
            text: news.text,
            reaction: pb::Reaction::None as i32,
            after_seq: self.log.last_seq().unwrap_or(0),
        };
        self.send_line(line, news.personal);
    }

    /// Keeps a line and sends it to every stream, each seat it is about reading its own words.
    fn send_line(&mut self, line: pb::TableLine, personal: Vec<(Seat, String)>) {
        let shared = log::update(Up::Line(line.clone()));
        let own: Vec<(Seat, log::Shared)> = personal
            .iter()
            .map(|(seat, text)| {
                (*seat, log::update(Up::Line(pb::TableLine { text: text.clone(), ..line.clone() })))
            })
            .collect();
        self.log.queue_each(|viewer| {
            let mine = match viewer {
                Viewer::Seat(me) => own.iter().find(|(s, _)| *s == me).map(|(_, u)| u.clone()),
                _ => None,
            };
            Some(mine.unwrap_or_else(|| shared.clone()))
        });
        self.talk.keep(line, personal);
    }

    /// The lines kept, as `viewer` reads them, for a new stream's story so far.
    pub(super) fn lines_for(&self, viewer: Viewer) -> Vec<pb::TableLine> {
        self.talk.lines_for(viewer)
    }

    /// The person sitting at `seat`, or why none does (a bot's seat is named so).
    pub fn person(&self, seat: Seat) -> Result<&crate::table::seats::SeatSlot, TableError> {
        match self.seats.get(seat) {
            Some(slot) if slot.left => Err(TableError::NoSuchSeat { seat }),
            Some(slot) if slot.bot.is_some() => Err(TableError::BotSeat { seat, name: slot.name.clone() }),
            Some(slot) => Ok(slot),
            None => Err(TableError::NoSuchSeat { seat }),
        }
    }

    fn seat_name(&self, seat: Seat) -> String {
        self.seats.get(seat).map(|s| s.name.clone()).unwrap_or_else(|| format!("seat {seat}"))
    }

    /// The seat sitting under `name`, if one does ([`NO_SEAT`] otherwise).
    fn seat_named(&self, name: &str) -> Seat {
        (0..self.seats.len())
            .find(|&s| self.seats.get(s).is_some_and(|slot| slot.name == name))
            .unwrap_or(NO_SEAT)
    }

    /// What the table will say of `input` once it is applied (made before, from the table
    /// as it stands: the rules it changes, the name of the seat it frees), and what the seats
    /// it is about read instead. The game's own events say what happens in a game; these
    /// are the table's news around it.
    pub(super) fn news_of(&self, input: &Input) -> Option<News> {
        let host = self.seats.host();
        // "The host did X to Ana": the host reads "You did …", Ana "… you".
        let by_host = |did: &str, to: Seat, them: &str, you: &str| {
            let name = self.seat_name(to);
            let said = did.replace("{them}", &them.replace("{name}", &name));
            News::all(format!("The host {said}"))
                .to(host, format!("You {said}"))
                .to(to, format!("The host {}", did.replace("{them}", you)))
        };
        let by_someone = |name: &str, did: &str| {
            News::all(format!("{name} {did}")).to(self.seat_named(name), format!("You {did}"))
        };
        match input {
            // The seat's number too: the host's commands name seats by it.
            Input::Joined { name, bot: Some(_), .. } => {
                let at = self.seats.len();
                Some(
                    News::all(format!("The host added {name} at seat {at}."))
                        .to(host, format!("You added {name} at seat {at}.")),
                )
            }
            Input::Joined { name, .. } => {
                let at = self.seats.len();
                Some(
                    News::all(format!("{name} sat down at seat {at}."))
                        .to(at, format!("You sat down at seat {at}.")),
                )
            }
            Input::RulesChanged { rules } => {
                let said = dudo_rules::settings_words::changes(&self.rules, rules);
                (!said.is_empty()).then(|| {
                    let said = said.join("; ");
                    News::all(format!("The host changed the rules: {said}."))
                        .to(host, format!("You changed the rules: {said}."))
                })
            }
            // During a game the engine's events say who went and why.
            Input::Removed { seat, why } if self.game.is_none() => Some(match why {
                Some(LeaveWhy::Removed) => by_host("removed {them}.", *seat, "{name}", "you"),
                _ => by_someone(&self.seat_name(*seat), "left the table."),
            }),
            // A pause that ran its longest says so itself.
            Input::Reset
                if self.game.as_ref().is_some_and(|g| !g.is_over()) && self.pauses.host().is_none() =>
            {
                let rest = "the game in play; the table waits for the next one.";
                Some(News::all(format!("The host ended {rest}")).to(host, format!("You ended {rest}")))
            }
            Input::Paused { by, .. } => Some(by_someone(by, "paused the game.")),
            Input::Resumed { by } => Some(by_someone(by, "resumed the game.")),
            Input::SeatLinkRevoked { seat } => {
                Some(by_host("revoked {them} rejoin link.", *seat, "{name}'s", "your"))
            }
            Input::Muted { seat, muted: true } => Some(by_host("muted {them}.", *seat, "{name}", "you")),
            Input::Muted { seat, muted: false } => {
                Some(by_host("let {them} speak again.", *seat, "{name}", "you"))
            }
            _ => None,
        }
    }

    /// The name to say for the holder of the host's seat ([`NO_SEAT`]: the seatless host).
    pub fn host_name(&self, seat: Seat) -> String {
        if seat == NO_SEAT { "The host".to_string() } else { self.seat_name(seat) }
    }
}
