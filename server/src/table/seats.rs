//! Who sits at a table: names, token hashes, built-in bots, the host.
//!
//! A seat is known by the SHA-256 of its token (the token itself is shown once, to its
//! holder, and never kept). Seats are numbered in joining order; freeing a seat before the
//! game starts, or a reset after seats left, renumbers the seats after it.

use dudo_proto::v1 as pb;
use dudo_rules::Seat;
use sha2::{Digest, Sha256};

use super::error::TableError;

/// A built-in bot in a seat: its kind, and the seed each of its decisions is drawn from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatBot {
    pub kind: String,
    pub seed: u64,
}

/// The account that took a seat: its id (what the journal keeps) and kind (what others see).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatAccount {
    pub id: String,
    pub kind: pb::AccountKind,
}

pub struct SeatSlot {
    pub name: String,
    /// SHA-256 of the seat's token: what the journal keeps.
    pub token_hash: [u8; 32],
    pub bot: Option<SeatBot>,
    /// The account that took the seat; none for a guest or a built-in bot.
    pub account: Option<SeatAccount>,
    /// Left or removed during a game: out for good, gone at the next reset.
    pub left: bool,
    /// Since when no stream of this person's seat has been open (Unix ms); none while one
    /// is, and for a bot.
    pub away_since: Option<i64>,
    /// The seat's rejoin link: its secret's hash (none until the seat makes one).
    pub link_hash: Option<[u8; 32]>,
    /// Tokens of devices that took the seat with its link (at most [`MOST_DEVICES`]).
    pub devices: Vec<[u8; 32]>,
    /// The host muted the seat's chat.
    pub muted: bool,
}

impl SeatSlot {
    /// A seat taken now, with its first token.
    pub fn new(
        name: String,
        token_hash: [u8; 32],
        bot: Option<SeatBot>,
        account: Option<SeatAccount>,
    ) -> SeatSlot {
        SeatSlot {
            name,
            token_hash,
            bot,
            account,
            left: false,
            away_since: None,
            link_hash: None,
            devices: Vec::new(),
            muted: false,
        }
    }

    fn answers(&self, hash: &[u8; 32]) -> bool {
        self.token_hash == *hash || self.devices.contains(hash)
    }
}

/// Devices a seat's link may add: one more takes the oldest one's place.
pub const MOST_DEVICES: usize = 4;

pub struct Seats {
    /// Seats the table was created with.
    pub capacity: usize,
    slots: Vec<SeatSlot>,
    /// Bots named so far in the table's life: a new bot never takes a name one before it had,
    /// so "Carmen" removed and another bot added reads as someone new.
    bots_named: usize,
    /// The host's seat ([`NO_SEAT`] for a host that holds none).
    host: usize,
    /// A host that holds no seat: the SHA-256 of its token.
    host_token: Option<[u8; 32]>,
}

/// The host's "seat" when the host holds none.
pub const NO_SEAT: usize = usize::MAX;

/// Names for built-in bots, so a table reads like a table of people.
const BOT_NAMES: &[&str] = &[
    "Alba", "Bruno", "Carmen", "Diego", "Elena", "Felipe", "Gloria", "Hugo", "Ines", "Jorge", "Lucia",
    "Mateo", "Nuria", "Oscar", "Paz", "Quique", "Rosa", "Sergio", "Tere", "Ulises", "Vera", "Xavi", "Yago",
    "Zoe",
];

/// The longest seat name, in characters.
pub const MAX_NAME_CHARS: usize = 32;

/// A seat name as people will read it on every other player's screen: normalised (NFC) and
/// trimmed; refused if it holds characters that could fake a game line or restyle a
/// terminal (control characters, line breaks, escape sequences, bidirectional overrides),
/// or is too long.
pub fn seat_name(raw: &str) -> Result<String, TableError> {
    use unicode_normalization::UnicodeNormalization;
    let name: String = raw.nfc().collect::<String>().trim().to_string();
    if let Err(c) = plain_text(&name) {
        return Err(TableError::BadName(format!(
            "it holds the invisible character U+{:04X}; names are plain text on one line",
            u32::from(c)
        )));
    }
    if piled_marks(&name).is_some() {
        return Err(TableError::BadName(format!(
            "too many accents on one letter (at most {MOST_MARKS}); they spill over the names around"
        )));
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(TableError::BadName(format!("{chars} characters; at most {MAX_NAME_CHARS}")));
    }
    if bot_like(&name) {
        return Err(TableError::BadName(
            "names ending in \"bot\", the built-in bots' names and \"[bot]\" are the bots' (an account of kind bot is shown as \"Name [bot]\")".into(),
        ));
    }
    if addresses_the_reader(&name) {
        return Err(TableError::BadName(
            "a name may not start with \"you\" or \"your\": the table's lines start so when they speak to one player (\"Your dice: …\")".into(),
        ));
    }
    Ok(name)
}

/// Whether a name starts with a word the server's lines use to speak to one player: every
/// event's line starts with the name of whoever did it, so "Your dice: 6 6 6" as a name would
/// pass for a player's own, private line ("Your dice: 6 6 6 bids 6 ones"). "Youssef" is a
/// name.
fn addresses_the_reader(name: &str) -> bool {
    let first = name.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
    let first = name_key(first);
    ["you", "your", "yours"].iter().any(|word| first == name_key(word))
}

/// Whether a name passes for a bot's, in any case, spacing, punctuation or lookalike: the
/// names the server gives its built-in bots ("odds bot", "Carmen (odds bot)") and rates them
/// under, "oddsbot" and "odds_bot" too, a name ending in a separate "bot" ("Robo-bot."),
/// and the mark `dudo` shows after a bot account's name ("Robo [bot]"). "Abbot" and
/// "Talbot" are people's.
fn bot_like(name: &str) -> bool {
    let key = |text: &str| name_key(text);
    // Words of the name, in key form: split where the name is not letters or digits.
    let words: Vec<String> =
        name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(key).collect();
    let joined: String = words.concat();
    let bot = key("bot");
    // A built-in bot's name anywhere ("odds bot 25", "Alba (odds bot) 2"), or run together
    // at the end ("oddsbot").
    let built_in = dudo_rules::bots::NAMES.iter().any(|b| {
        let kind = key(b);
        words.windows(2).any(|w| w[0] == kind && w[1] == key("bot"))
            || joined.ends_with(&key(&format!("{b}bot")))
    });
    let last_is_bot = words.last().is_some_and(|w| *w == bot);
    // "[bot]" anywhere, full-width brackets and lookalike letters too.
    let marked = {
        use unicode_normalization::UnicodeNormalization;
        let text: String = name.nfkc().collect();
        text.split('[').skip(1).any(|after| after.split(']').next().is_some_and(|inside| key(inside) == bot))
    };
    built_in || last_is_bot || marked
}

/// Text other people's terminals will print: the first character that could fake a line or
/// restyle the screen (control characters, line breaks, escape sequences, bidirectional
/// overrides) or hide in a name (invisible characters), if any.
pub fn plain_text(text: &str) -> Result<(), char> {
    let bidi = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}');
    let separator = |c: char| matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}');
    // Invisible characters that would let "Ana" and "Ana\u{200B}" sit as two people.
    let invisible = |c: char| {
        matches!(c, '\u{AD}' | '\u{115F}' | '\u{1160}' | '\u{180E}' | '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
            // Blank or stand-in glyphs ("Alice" + a blank Braille cell passes for "Alice"),
            // variation selectors and the combining grapheme joiner.
            | '\u{2800}' | '\u{FFFC}' | '\u{FFFD}' | '\u{FE00}'..='\u{FE0F}' | '\u{180B}'..='\u{180F}'
            | '\u{034F}' | '\u{17B4}' | '\u{17B5}')
    };
    match text.chars().find(|&c| c.is_control() || bidi(c) || separator(c) || invisible(c)) {
        Some(c) => Err(c),
        None => Ok(()),
    }
}

/// Combining marks one character may carry: enough for any script's accents, not for the
/// "Zalgo" that spills over the lines around it (a name's, as a chat line's).
pub const MOST_MARKS: usize = 3;

/// The first combining mark past [`MOST_MARKS`] on one character of `text`, if any: counted
/// decomposed, so "é" and four more marks is five however it was sent.
pub fn piled_marks(text: &str) -> Option<char> {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let mut marks = 0;
    text.nfd().find(|&c| {
        marks = if is_combining_mark(c) { marks + 1 } else { 0 };
        marks > MOST_MARKS
    })
}

pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Seats {
    /// Seats for a table; with `host_token`, its host holds no seat.
    pub fn new(capacity: usize, host_token: Option<[u8; 32]>) -> Seats {
        let host = if host_token.is_some() { NO_SEAT } else { 0 };
        Seats { capacity, slots: Vec::new(), bots_named: 0, host, host_token }
    }

    /// The seatless host's token hash, if the host holds no seat.
    pub fn host_token(&self) -> Option<[u8; 32]> {
        self.host_token
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn host(&self) -> Seat {
        self.host
    }

    pub fn get(&self, seat: Seat) -> Option<&SeatSlot> {
        self.slots.get(seat)
    }

    pub fn iter(&self) -> impl Iterator<Item = &SeatSlot> {
        self.slots.iter()
    }

    pub fn is_bot(&self, seat: Seat) -> bool {
        self.slots.get(seat).is_some_and(|s| s.bot.is_some())
    }

    /// Whether any seat is a built-in bot (whose thinking the table is charged for).
    pub fn any_bot(&self) -> bool {
        self.slots.iter().any(|s| s.bot.is_some())
    }

    /// Whether any person still sits here (not left).
    pub fn any_person(&self) -> bool {
        self.slots.iter().any(|s| s.bot.is_none() && !s.left)
    }

    /// Whether every seat is a built-in bot (nobody to prompt or to time).
    pub fn all_bots(&self) -> bool {
        self.slots.iter().all(|s| s.bot.is_some())
    }

    /// The person's seat that holds `token`.
    pub fn seat_of(&self, token: &str) -> Result<Seat, TableError> {
        let hash = token_hash(token);
        self.slots
            .iter()
            .position(|s| s.bot.is_none() && !s.left && s.answers(&hash))
            .ok_or(TableError::NotSeated)
    }

    /// The seat whose rejoin link has `secret`.
    pub fn seat_of_link(&self, secret: &str) -> Result<Seat, TableError> {
        let hash = token_hash(secret);
        self.slots
            .iter()
            .position(|s| s.bot.is_none() && !s.left && s.link_hash == Some(hash))
            .ok_or(TableError::NoSuchLink)
    }

    /// The seat's rejoin link is now the secret hashed as `hash`.
    pub fn set_link(&mut self, seat: Seat, hash: [u8; 32]) -> Result<(), TableError> {
        let slot = self.person_mut(seat)?;
        slot.link_hash = Some(hash);
        Ok(())
    }

    /// A device took the seat with its link; true when the oldest device's token went to
    /// make room (its streams must end: they still read the seat's dice).
    pub fn add_device(&mut self, seat: Seat, hash: [u8; 32]) -> Result<bool, TableError> {
        let slot = self.person_mut(seat)?;
        let full = slot.devices.len() >= MOST_DEVICES;
        if full {
            slot.devices.remove(0);
        }
        slot.devices.push(hash);
        Ok(full)
    }

    /// The seat's link, and the devices that took the seat with it, no longer answer.
    pub fn revoke_link(&mut self, seat: Seat) -> Result<(), TableError> {
        let slot = self.person_mut(seat)?;
        slot.link_hash = None;
        slot.devices.clear();
        Ok(())
    }

    /// Mutes (or unmutes) a person's seat.
    pub fn set_muted(&mut self, seat: Seat, muted: bool) -> Result<(), TableError> {
        self.person_mut(seat)?.muted = muted;
        Ok(())
    }

    fn person_mut(&mut self, seat: Seat) -> Result<&mut SeatSlot, TableError> {
        match self.slots.get_mut(seat) {
            Some(slot) if slot.bot.is_none() && !slot.left => Ok(slot),
            _ => Err(TableError::NoSuchSeat { seat }),
        }
    }

    /// The seat holding `token`, if it is the host's ([`NO_SEAT`] for a seatless host).
    pub fn host_only(&self, token: &str) -> Result<Seat, TableError> {
        if self.host_token.is_some_and(|h| h == token_hash(token)) {
            return Ok(NO_SEAT);
        }
        let seat = self.seat_of(token)?;
        if seat != self.host {
            return Err(TableError::NotHost);
        }
        Ok(seat)
    }

    /// The first free name for a bot, marked with its kind: "Carmen (odds bot)".
    pub fn bot_name(&self, kind: &str) -> String {
        // One Alba a table, whatever her kind, person or bot: two would read as one player.
        let taken = |n: &str| {
            self.slots.iter().any(|s| {
                s.name.eq_ignore_ascii_case(n) || s.name.strip_prefix(n).is_some_and(|r| r.starts_with(" ("))
            })
        };
        let unused = BOT_NAMES.iter().skip(self.bots_named);
        let named = unused.clone().find(|n| !taken(n)).map(|n| format!("{n} ({kind} bot)"));
        named.unwrap_or_else(|| format!("{kind} bot {}", self.bots_named + 1))
    }

    /// A name as the table shows it: checked ([`seat_name`]), or "Player N" when empty;
    /// refused when someone sits under it already (two Anas would read as one player).
    pub fn name_for(&self, name: &str) -> Result<String, TableError> {
        let name = seat_name(name)?;
        let name = if name.is_empty() { format!("Player {}", self.slots.len() + 1) } else { name };
        if self.slots.iter().any(|s| !s.left && s.name.to_lowercase() == name.to_lowercase()) {
            return Err(TableError::BadName(format!(
                "{name} sits at this table already; choose another name"
            )));
        }
        Ok(name)
    }

    /// Whether the account already holds a seat here (one seat an account, so a rated game
    /// is never an account against itself).
    pub fn holds(&self, account: &SeatAccount) -> bool {
        self.slots.iter().any(|s| !s.left && s.account.as_ref().is_some_and(|a| a.id == account.id))
    }

    /// Whether another seat may be taken.
    pub fn check_room(&self) -> Result<(), TableError> {
        if self.slots.len() >= self.capacity {
            return Err(TableError::TableFull { seats: self.capacity });
        }
        Ok(())
    }

    pub fn push(&mut self, slot: SeatSlot) -> Seat {
        if slot.bot.is_some() {
            self.bots_named += 1;
        }
        self.slots.push(slot);
        metrics::gauge!("dudo_seats").increment(1.0);
        self.slots.len() - 1
    }

    /// Frees a seat before the game starts; the seats after it move down.
    pub fn free(&mut self, seat: Seat) -> Result<(), TableError> {
        if seat >= self.slots.len() {
            return Err(TableError::NoSuchSeat { seat });
        }
        if seat == self.host {
            return Err(TableError::HostCannotLeave);
        }
        self.slots.remove(seat);
        metrics::gauge!("dudo_seats").decrement(1.0);
        if self.host > seat {
            self.host -= 1;
        }
        Ok(())
    }

    /// Marks a seat out of the game for good: its token no longer answers (a bot keeps its
    /// kind, for the record and the ratings). A host that leaves hands the table to the first
    /// person still seated (a game night goes on, and someone can start the next game).
    pub fn leave(&mut self, seat: Seat) {
        if let Some(slot) = self.slots.get_mut(seat) {
            slot.left = true;
        }
        if seat == self.host
            && let Some(next) = self.slots.iter().position(|s| !s.left && s.bot.is_none())
        {
            self.host = next;
        }
    }

    /// Presence: `Some(t)` marks a seat that was here away from `t` (a seat already away
    /// keeps its earlier time), `None` marks it here. True when that changed anything.
    pub fn set_away(&mut self, seat: Seat, away: Option<i64>) -> bool {
        let Some(slot) = self.slots.get_mut(seat).filter(|s| s.bot.is_none()) else { return false };
        match (away, slot.away_since) {
            (Some(_), Some(_)) => false,
            (now, before) if now == before => false,
            (now, _) => {
                slot.away_since = now;
                true
            }
        }
    }

    /// Counts a person's seat away from `at`, whatever it was.
    pub fn mark_away(&mut self, seat: Seat, at: i64) {
        if let Some(slot) = self.slots.get_mut(seat).filter(|s| s.bot.is_none() && !s.left) {
            slot.away_since = Some(at);
        }
    }

    /// A reset: seats that left are gone, the host keeps hosting under its new number.
    pub fn drop_left(&mut self) {
        if self.host_token.is_some() {
            let before = self.slots.len();
            self.slots.retain(|s| !s.left);
            metrics::gauge!("dudo_seats").decrement((before - self.slots.len()) as f64);
            return;
        }
        let host_hash = self.slots.get(self.host).filter(|s| !s.left).map(|s| s.token_hash);
        let before = self.slots.len();
        self.slots.retain(|s| !s.left);
        metrics::gauge!("dudo_seats").decrement((before - self.slots.len()) as f64);
        self.host = self.slots.iter().position(|s| Some(s.token_hash) == host_hash).unwrap_or(0);
    }

    /// The seats as clients see them; `leaving`: whether a seat leaves at the round's end.
    pub fn to_wire(&self, leaving: impl Fn(Seat) -> bool) -> Vec<pb::SeatInfo> {
        self.slots
            .iter()
            .enumerate()
            .map(|(i, s)| pb::SeatInfo {
                seat: u32::try_from(i).unwrap_or(u32::MAX),
                name: s.name.clone(),
                bot: s.bot.as_ref().map(|b| b.kind.clone()).unwrap_or_default(),
                account: s.account.as_ref().map_or(pb::AccountKind::None, |a| a.kind) as i32,
                connected: !s.left && s.away_since.is_none(),
                away_since_unix_millis: s.away_since.and_then(|t| u64::try_from(t).ok()).unwrap_or(0),
                leaving: leaving(i),
                left: s.left,
                muted: s.muted,
                linked_devices: u32::try_from(s.devices.len()).unwrap_or(u32::MAX),
            })
            .collect()
    }
}

impl Drop for Seats {
    /// A table's seats stop counting when the table goes.
    fn drop(&mut self) {
        metrics::gauge!("dudo_seats").decrement(self.slots.len() as f64);
    }
}

/// What two names are compared by: compatibility forms folded (NFKC), lookalikes mapped
/// to one prototype (UTS #39 skeletons) before case is folded, since folding first would
/// turn a capital I into an i that no longer looks like the l it passes for ("AIice" for
/// "Alice"), then case folded and the one lowercase pair left that looks alike in many
/// fonts (i and l, once a capital I is an l) made one. Spaces and combining marks are left
/// out: "Al ice" (with a no-break space) and "Alı̇ce" (a dotless i under a combining dot)
/// pass for "Alice" on a screen.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    let compatible: String = name.nfkc().collect();
    let skeleton: String = unicode_security::confusable_detection::skeleton(&compatible).collect();
    let folded: String = skeleton.nfkc().flat_map(char::to_lowercase).collect();
    let again: String = unicode_security::confusable_detection::skeleton(&folded).collect();
    again
        .chars()
        .flat_map(char::to_lowercase)
        // Letters and digits only: spaces, combining marks and punctuation ("Bob" and "Bob܁",
        // a Syriac full stop) pass for one another on a screen.
        .filter(|&c| c.is_alphanumeric() && !is_combining_mark(c))
        .map(|c| if c == 'i' { 'l' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_someone_sits_under_is_refused_in_any_case() {
        let mut seats = Seats::new(4, None);
        let name = seats.name_for("Ana").unwrap();
        seats.push(SeatSlot::new(name, [0; 32], None, None));
        assert!(matches!(seats.name_for("ana"), Err(TableError::BadName(_))));
        assert_eq!(seats.name_for("Ben").unwrap(), "Ben");
        assert_eq!(seats.name_for("").unwrap(), "Player 2");
    }

    #[test]
    fn a_name_cannot_pass_for_a_line_spoken_to_one_player() {
        for spoof in ["Your dice: 6 6 6 6 6", "YOUR dice", "you", "Yours truly", "Ｙour dice"] {
            assert!(matches!(seat_name(spoof), Err(TableError::BadName(_))), "{spoof}");
        }
        for name in ["Youssef", "Yourcenar", "Ana", "Bo You"] {
            assert_eq!(seat_name(name).unwrap(), name);
        }
    }

    #[test]
    fn a_name_carries_accents_as_a_line_of_talk_does() {
        let zalgo = format!("Z{}", "\u{336}".repeat(31));
        assert!(matches!(seat_name(&zalgo), Err(TableError::BadName(why)) if why.contains("accents")));
        // Any script's own accents are names.
        for name in ["Zoë", "Nguyễn", "Renée", "Ầnh"] {
            assert!(seat_name(name).is_ok(), "{name}");
        }
    }
}
