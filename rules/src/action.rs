//! What a seat can do, and how players say it.
//!
//! [`Action`] is what the engine applies. [`parse_call`] turns what a person types ("3 5s",
//! "three fives", "3x5", "dudo", "calza", "pass", "push 5 5 then 6 5s") into an action; the
//! CLI and scripts share it so a call means the same everywhere.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::bid::{Bid, face_name};

/// A seat's index at the table, in play order.
pub type Seat = usize;

/// One move by one seat.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Open the round or raise the current bid.
    Bid(Bid),
    /// Raise, push and re-roll (004, 002): show the dice whose faces (as you see them) are
    /// listed, re-roll the rest of your cup, and bid.
    Push { dice: Vec<u8>, bid: Bid },
    /// Keep the bid and claim something about your own dice (004, 002).
    Pass,
    /// Challenge a claim: by default the last one; `target` names the seat whose claim is
    /// challenged when the rules allow an earlier one (004's challenge of a pass or bid).
    Dudo { target: Option<Seat> },
    /// The exact call on the current bid: Calza (000), Jonti (003), Exact (004), Spot on (002).
    Calza,
    /// Stop guessing for the round; your last guess still counts, for fewer points (001).
    Watch,
    /// Individual hand: take the cup without challenging (implied by rolling or claiming).
    Accept,
    /// Individual hand: re-roll the dice at these positions (0-based), leaving `show` (after
    /// the roll) in view of all (Stanford's "outside the box").
    Roll { dice: Vec<usize>, show: Vec<usize> },
    /// Individual hand: pass the cup on with this claim.
    Claim(crate::hand::Hand),
    /// Individual hand: take the dog's life (bark) or decline it (002).
    DogsLife { bark: bool },
}

impl Action {
    /// The action's kind, in the game's words: `bid`, `push`, `pass`, `dudo`, `calza`,
    /// `watch`, `accept`, `roll`, `claim`, `dog's life` (as [`crate::Legal::kinds`] names
    /// what a prompt allows).
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Bid(_) => "bid",
            Action::Push { .. } => "push",
            Action::Pass => "pass",
            Action::Dudo { .. } => "dudo",
            Action::Calza => "calza",
            Action::Watch => "watch",
            Action::Accept => "accept",
            Action::Roll { .. } => "roll",
            Action::Claim(_) => "claim",
            Action::DogsLife { .. } => "dog's life",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Bid(bid) => write!(f, "{bid}"),
            Action::Push { dice, bid } => {
                write!(f, "push")?;
                for d in dice {
                    write!(f, " {d}")?;
                }
                write!(f, " then {bid}")
            }
            Action::Pass => write!(f, "pass"),
            Action::Dudo { target: None } => write!(f, "dudo"),
            Action::Dudo { target: Some(seat) } => write!(f, "dudo seat {seat}"),
            Action::Calza => write!(f, "calza"),
            Action::Watch => write!(f, "watch"),
            Action::Accept => write!(f, "accept"),
            Action::Roll { dice, show } => {
                write!(f, "roll")?;
                for d in dice {
                    write!(f, " {}", d + 1)?;
                }
                if !show.is_empty() {
                    write!(f, " show")?;
                    for d in show {
                        write!(f, " {}", d + 1)?;
                    }
                }
                Ok(())
            }
            Action::Claim(hand) => write!(f, "claim {hand}"),
            Action::DogsLife { bark: true } => write!(f, "bark"),
            Action::DogsLife { bark: false } => write!(f, "decline"),
        }
    }
}

/// Why a typed call could not be understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot read {input:?} as a call: {why} (try {hint})")]
pub struct CallParseError {
    pub input: String,
    pub why: String,
    /// Examples of calls that do read.
    pub hint: &'static str,
}

const COMMON_HINT: &str =
    "\"3 5s\", \"three fives\", \"dudo\", \"calza\", \"pass\" or \"push 5 5 then 6 5s\"";
/// Calls that read in each hand game: its claims in its own words and symbols.
fn hand_hint(game: crate::hand::HandGame) -> &'static str {
    use crate::hand::HandGame;
    match game {
        HandGame::PokerDice => {
            "\"dudo\", \"accept\", \"roll all\", \"roll 1 3\", \"a pair of jacks\", \"KKTTJ\" or \"better\""
        }
        HandGame::Stanford => {
            "\"dudo\", \"accept\", \"roll all\", \"roll 1 3\", \"three 6s\", \"445321\" or \"better\""
        }
        HandGame::Mexican => {
            "\"dudo\", \"accept\", \"roll all\", \"roll 1 3\", \"a pair of 4s\", \"544\", \"mexican\" or \"better\""
        }
        HandGame::MexicanTwoDice => {
            "\"dudo\", \"accept\", \"roll all\", \"roll 1 2\", \"a pair of 4s\", \"62\", \"mexican\" or \"better\""
        }
    }
}

/// Reads a call the way people say it.
pub fn parse_call(input: &str) -> Result<Action, CallParseError> {
    let err =
        |why: &str| CallParseError { input: input.to_string(), why: why.to_string(), hint: COMMON_HINT };
    let lower = input.trim().to_ascii_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
    match words.as_slice() {
        [] => Err(err("it is empty")),
        ["dudo" | "liar" | "challenge" | "doubt" | "call" | "bluff"] => Ok(Action::Dudo { target: None }),
        ["dudo" | "liar" | "challenge" | "doubt", rest @ ..] => {
            let seat = match rest {
                [n] | ["seat", n] => n.parse::<Seat>().map_err(|_| err("a challenge names a seat number"))?,
                _ => return Err(err("a challenge names at most one seat")),
            };
            Ok(Action::Dudo { target: Some(seat) })
        }
        ["calza" | "jonti" | "exact"] | ["spot", "on"] | ["spot-on"] => Ok(Action::Calza),
        ["pass"] => Ok(Action::Pass),
        ["watch"] => Ok(Action::Watch),
        ["push", rest @ ..] => {
            let split = rest
                .iter()
                .position(|w| matches!(*w, "then" | "and" | "bid" | "+" | ";"))
                .ok_or_else(|| err("a push lists dice, then \"then\" and a bid"))?;
            let (dice_words, bid_words) = (&rest[..split], &rest[split + 1..]);
            if dice_words.is_empty() {
                return Err(err("a push shows at least one die"));
            }
            let dice = dice_words
                .iter()
                .map(|w| parse_face(w))
                .collect::<Option<Vec<u8>>>()
                .ok_or_else(|| err("pushed dice are faces such as 5 or fives"))?;
            let bid = parse_bid(bid_words).ok_or_else(|| err("after the pushed dice comes a bid"))?;
            Ok(Action::Push { dice, bid })
        }
        bid => {
            parse_bid(strip_guess(bid)).map(Action::Bid).ok_or_else(|| err("a bid is a quantity and a face"))
        }
    }
}

fn parse_bid(words: &[&str]) -> Option<Bid> {
    match words {
        [one] => {
            // "3x5", "3*5", "3x5s"
            let (q, f) = one.split_once(['x', '*'])?;
            Some(Bid::new(parse_quantity(q)?, parse_face(f)?))
        }
        [q, f] => Some(Bid::new(parse_quantity(q)?, parse_face(f)?)),
        [q, "x" | "*" | "of", f] => Some(Bid::new(parse_quantity(q)?, parse_face(f)?)),
        _ => None,
    }
}

/// "Guess 3 4s" is a bid in seed 001's words.
fn strip_guess<'a, 'b>(words: &'a [&'b str]) -> &'a [&'b str] {
    match words {
        ["guess" | "bid", rest @ ..] => rest,
        _ => words,
    }
}

const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

fn parse_quantity(word: &str) -> Option<u16> {
    if let Ok(n) = word.parse::<u16>() {
        return Some(n);
    }
    NUMBER_WORDS.iter().position(|w| *w == word).and_then(|n| u16::try_from(n).ok())
}

/// "5", "5s", "5's", "fives", "five", "sixes", "aces".
pub(crate) fn parse_face(word: &str) -> Option<u8> {
    let w = word.trim_end_matches("'s").trim_end_matches('s');
    if let Ok(n) = w.parse::<u8>() {
        return (1..=9).contains(&n).then_some(n);
    }
    if matches!(word, "aces" | "ace") {
        return Some(1);
    }
    (1u8..=9).find(|&f| word == face_name(f, true) || word == face_name(f, false))
}

/// Reads a call in an individual-hand game: "dudo", "accept", "roll all", "roll 1 3"
/// (positions from 1), "roll 1 3 show 2", "bark", "decline", or a claim ("a pair of jacks",
/// "KKTTJ", "better", "543", "mexican"). `dice` is the size of the hand.
pub fn parse_hand_call(
    game: crate::hand::HandGame,
    input: &str,
    previous: Option<&crate::hand::Hand>,
) -> Result<Action, CallParseError> {
    let err =
        |why: &str| CallParseError { input: input.to_string(), why: why.to_string(), hint: hand_hint(game) };
    let lower = input.trim().to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    match words.as_slice() {
        [] => Err(err("it is empty")),
        ["dudo" | "liar" | "challenge" | "doubt" | "call" | "bluff"] => Ok(Action::Dudo { target: None }),
        ["accept" | "believe" | "take"] => Ok(Action::Accept),
        ["bark" | "woof"] => Ok(Action::DogsLife { bark: true }),
        ["decline"] => Ok(Action::DogsLife { bark: false }),
        ["roll", rest @ ..] => {
            let n = game.dice();
            let (roll_words, show_words) = match rest.iter().position(|w| *w == "show") {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, &[][..]),
            };
            let positions = |ws: &[&str]| -> Option<Vec<usize>> {
                if ws == ["all"] {
                    return Some((0..n).collect());
                }
                ws.iter()
                    .map(|w| w.parse::<usize>().ok().filter(|p| (1..=n).contains(p)).map(|p| p - 1))
                    .collect()
            };
            let dice = if roll_words.is_empty() { Some((0..n).collect()) } else { positions(roll_words) };
            let dice = dice.ok_or_else(|| err("roll takes positions 1 to the number of dice, or all"))?;
            let show =
                positions(show_words).ok_or_else(|| err("show takes positions 1 to the number of dice"))?;
            Ok(Action::Roll { dice, show })
        }
        ["claim", ..] | [..] => {
            let text = lower.strip_prefix("claim").unwrap_or(&lower);
            crate::hand::parse_claim(game, text, previous).map(Action::Claim).map_err(|why| err(&why))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spoken_form_of_a_bid() {
        for s in ["3 5s", "three fives", "3x5", "3 x 5", "3 fives", "3 5", "THREE 5's", "3*5", "3 of fives"] {
            assert_eq!(parse_call(s), Ok(Action::Bid(Bid::new(3, 5))), "{s}");
        }
        assert_eq!(parse_call("one one"), Ok(Action::Bid(Bid::new(1, 1))));
        assert_eq!(parse_call("thirteen twos"), Ok(Action::Bid(Bid::new(13, 2))));
        assert_eq!(parse_call("two sixes"), Ok(Action::Bid(Bid::new(2, 6))));
        assert_eq!(parse_call("2 aces"), Ok(Action::Bid(Bid::new(2, 1))));
    }

    #[test]
    fn calls_and_pushes() {
        assert_eq!(parse_call("dudo"), Ok(Action::Dudo { target: None }));
        assert_eq!(parse_call("Liar"), Ok(Action::Dudo { target: None }));
        assert_eq!(parse_call("dudo seat 2"), Ok(Action::Dudo { target: Some(2) }));
        assert_eq!(parse_call("calza"), Ok(Action::Calza));
        assert_eq!(parse_call("jonti"), Ok(Action::Calza));
        assert_eq!(parse_call("spot on"), Ok(Action::Calza));
        assert_eq!(parse_call("pass"), Ok(Action::Pass));
        assert_eq!(
            parse_call("push 5 5 then 6 5s"),
            Ok(Action::Push { dice: vec![5, 5], bid: Bid::new(6, 5) })
        );
        assert_eq!(
            parse_call("push fives, fives and six fives"),
            Ok(Action::Push { dice: vec![5, 5], bid: Bid::new(6, 5) })
        );
    }

    #[test]
    fn nonsense_is_explained() {
        assert!(parse_call("").is_err());
        assert!(parse_call("three").is_err());
        assert!(parse_call("push then 3 4s").is_err());
        assert!(parse_call("3 tens").is_err());
        assert!(parse_call("banana").unwrap_err().to_string().contains("banana"));
    }

    #[test]
    fn display_round_trips() {
        for a in [
            Action::Bid(Bid::new(4, 6)),
            Action::Push { dice: vec![2, 3], bid: Bid::new(5, 2) },
            Action::Pass,
            Action::Dudo { target: None },
            Action::Dudo { target: Some(3) },
            Action::Calza,
            Action::Watch,
        ] {
            assert_eq!(parse_call(&a.to_string()), Ok(a.clone()), "{a}");
        }
    }
}
