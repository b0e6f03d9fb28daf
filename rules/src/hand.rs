//! Hands of the individual-hand family (seed 002): what a set of dice is worth, the order of
//! all hands, and claims as people say them.
//!
//! A claim is always a concrete hand: "the weakest hand that fits" what was said (002: "each
//! bid need not be fully specified, in which case it is deemed to be the weakest possible bid
//! meeting constraints stated"). So "a pair" with poker dice is 99QJT, "three 6s" in the
//! Stanford game is 666321. Comparing claims is comparing hands.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The individual-hand games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandGame {
    /// Liar Dice with five poker dice 9 T J Q K A; poker hands without runs.
    PokerDice,
    /// Six standard dice; more of a kind beats less, then higher faces (002 Stanford).
    Stanford,
    /// Three dice read high to low; triples above all; 1-2-3 "Mexican" beats everything.
    Mexican,
    /// Two dice; doubles above all others; 2-1 is Mexican.
    MexicanTwoDice,
}

impl HandGame {
    /// Dice in the hand.
    pub fn dice(self) -> usize {
        match self {
            HandGame::PokerDice => 5,
            HandGame::Stanford => 6,
            HandGame::Mexican => 3,
            HandGame::MexicanTwoDice => 2,
        }
    }

    /// How a face is written: 9 T J Q K A for poker dice, digits otherwise.
    pub fn face_symbol(self, face: u8) -> char {
        match self {
            HandGame::PokerDice => {
                ['?', '9', 'T', 'J', 'Q', 'K', 'A'].get(usize::from(face)).copied().unwrap_or('?')
            }
            _ => char::from_digit(u32::from(face), 10).unwrap_or('?'),
        }
    }

    /// What a hand is worth: larger is better. Equal hands (as multisets) are worth the same.
    pub fn value(self, dice: &[u8]) -> u64 {
        let mut sorted: Vec<u8> = dice.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        match self {
            HandGame::PokerDice => poker_value(&sorted),
            HandGame::Stanford => more_of_a_kind_value(&sorted),
            HandGame::Mexican => mexican_value(&sorted),
            HandGame::MexicanTwoDice => mexican_two_value(&sorted),
        }
    }

    /// Compares two hands.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        self.value(a).cmp(&self.value(b))
    }

    /// Every distinct hand, weakest first (built once per game).
    pub fn all_hands(self) -> Vec<Hand> {
        self.ordered().iter().map(|(_, h)| h.clone()).collect()
    }

    /// Every distinct hand with its value, weakest first; built once per process.
    pub fn ordered(self) -> &'static [(u64, Hand)] {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<Vec<(u64, Hand)>>; 4] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        TABLES[self.slot()].get_or_init(|| {
            let mut hands: Vec<(u64, Hand)> = Vec::new();
            let mut dice = vec![1u8; self.dice()];
            loop {
                // Multisets as non-increasing sequences.
                hands.push((self.value(&dice), Hand::new(dice.clone())));
                let mut i = dice.len();
                loop {
                    if i == 0 {
                        hands.sort_by_key(|h| h.0);
                        hands.dedup_by_key(|h| h.0);
                        return hands;
                    }
                    i -= 1;
                    if dice[i] < 6 && (i == 0 || dice[i] < dice[i - 1]) {
                        dice[i] += 1;
                        for d in dice.iter_mut().skip(i + 1) {
                            *d = 1;
                        }
                        break;
                    }
                }
            }
        })
    }

    fn slot(self) -> usize {
        match self {
            HandGame::PokerDice => 0,
            HandGame::Stanford => 1,
            HandGame::Mexican => 2,
            HandGame::MexicanTwoDice => 3,
        }
    }

    /// The best hand there is.
    pub fn top(self) -> Hand {
        self.ordered().last().map_or_else(|| Hand::new(vec![6; self.dice()]), |h| h.1.clone())
    }

    /// The weakest hand strictly better than `than` (002's "better"), if any.
    pub fn better(self, than: &Hand) -> Option<Hand> {
        let v = self.value(&than.dice);
        let all = self.ordered();
        all.get(all.partition_point(|h| h.0 <= v)).map(|h| h.1.clone())
    }

    /// The chance that a fresh roll of every die is at least as good as `hand`.
    pub fn chance_at_least(self, hand: &Hand) -> f64 {
        let values = self.roll_values();
        let v = self.value(&hand.dice);
        let below = values.partition_point(|&x| x < v);
        (values.len() - below) as f64 / values.len().max(1) as f64
    }

    /// The value of every possible roll (6^dice of them), sorted; built once per game.
    fn roll_values(self) -> &'static [u64] {
        use std::sync::OnceLock;
        static TABLES: [OnceLock<Vec<u64>>; 4] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        TABLES[self.slot()].get_or_init(|| {
            let n = self.dice();
            let total = 6usize.pow(n as u32);
            let mut out = Vec::with_capacity(total);
            let mut dice = vec![0u8; n];
            for mut i in 0..total {
                for d in dice.iter_mut() {
                    *d = (i % 6) as u8 + 1;
                    i /= 6;
                }
                out.push(self.value(&dice));
            }
            out.sort_unstable();
            out
        })
    }

    /// Whether `dice` is the game's top "Mexican" roll (the Mexican games only).
    pub fn is_mexican(self, dice: &[u8]) -> bool {
        let mut d = dice.to_vec();
        d.sort_unstable();
        match self {
            HandGame::Mexican => d == [1, 2, 3],
            HandGame::MexicanTwoDice => d == [1, 2],
            _ => false,
        }
    }
}

/// A hand of dice, written as players write it: most of a kind first, then higher faces
/// ("JJQT9", "TT99J", "666321").
///
/// Read from JSON it is put in that order, as [`Hand::new`] puts it: the same hand is the
/// same value however its dice were listed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<u8>", into = "Vec<u8>")]
pub struct Hand {
    pub dice: Vec<u8>,
}

impl From<Vec<u8>> for Hand {
    fn from(dice: Vec<u8>) -> Hand {
        Hand::new(dice)
    }
}

impl From<Hand> for Vec<u8> {
    fn from(hand: Hand) -> Vec<u8> {
        hand.dice
    }
}

impl Hand {
    pub fn new(mut dice: Vec<u8>) -> Self {
        dice.sort_unstable_by(|a, b| b.cmp(a));
        let dice =
            groups(&dice).into_iter().flat_map(|(c, f)| std::iter::repeat_n(f, usize::from(c))).collect();
        Hand { dice }
    }

    /// The hand written in `game`'s symbols: "KKTTJ", "666321"; Mexican reads highest to
    /// lowest ("544", "622").
    pub fn text(&self, game: HandGame) -> String {
        let mut dice = self.dice.clone();
        if matches!(game, HandGame::Mexican | HandGame::MexicanTwoDice) {
            dice.sort_unstable_by(|a, b| b.cmp(a));
        }
        dice.iter().map(|&f| game.face_symbol(f)).collect()
    }
}

impl fmt::Display for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.dice {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// Groups as (count, face), most of a kind first, then higher faces.
fn groups(sorted_desc: &[u8]) -> Vec<(u8, u8)> {
    let mut g: Vec<(u8, u8)> = Vec::new();
    for &d in sorted_desc {
        match g.iter_mut().find(|x| x.1 == d) {
            Some(x) => x.0 += 1,
            None => g.push((1, d)),
        }
    }
    g.sort_unstable_by(|a, b| b.cmp(a));
    g
}

/// Packs (count, face) groups into a number that orders them lexicographically.
fn pack(groups: &[(u8, u8)], prefix: u64) -> u64 {
    let mut v = prefix;
    for &(c, f) in groups {
        v = v * 100 + u64::from(c) * 10 + u64::from(f);
    }
    // Pad so that hands with fewer groups compare correctly against more groups.
    for _ in groups.len()..6 {
        v *= 100;
    }
    v
}

/// Stanford: more of a kind beats less; then the higher face; then the next part of the hand.
fn more_of_a_kind_value(sorted_desc: &[u8]) -> u64 {
    pack(&groups(sorted_desc), 0)
}

/// Poker dice: the category first (no runs), then the groups as in more-of-a-kind.
fn poker_value(sorted_desc: &[u8]) -> u64 {
    let g = groups(sorted_desc);
    let shape: Vec<u8> = g.iter().map(|x| x.0).collect();
    let category = match shape.as_slice() {
        [5] => 7,
        [4, 1] => 6,
        [3, 2] => 5,
        [3, 1, 1] => 4,
        [2, 2, 1] => 3,
        [2, 1, 1, 1] => 2,
        _ => 1,
    };
    pack(&g, category)
}

/// Mexican with three dice: "a 3, 4, and a 5 has a value of 543"; triples are "5550" and beat
/// every other roll; 1-2-3 beats everything.
fn mexican_value(sorted_desc: &[u8]) -> u64 {
    let [a, b, c] = [sorted_desc[0], sorted_desc[1], sorted_desc[2]].map(u64::from);
    if (a, b, c) == (3, 2, 1) {
        return 100_000;
    }
    if a == b && b == c {
        return 10_000 + a * 1110;
    }
    a * 100 + b * 10 + c
}

/// Two dice: read high then low; doubles beat every other roll; 2-1 is Mexican and beats all.
fn mexican_two_value(sorted_desc: &[u8]) -> u64 {
    let (a, b) = (u64::from(sorted_desc[0]), u64::from(sorted_desc[1]));
    if (a, b) == (2, 1) {
        return 10_000;
    }
    if a == b {
        return 1_000 + a * 11;
    }
    a * 10 + b
}

/// Reads a claim as people say it, the weakest hand that fits. `previous` is the claim it
/// follows, for "better" and "way better".
pub fn parse_claim(game: HandGame, text: &str, previous: Option<&Hand>) -> Result<Hand, String> {
    let t = text.trim().to_ascii_lowercase();
    let words: Vec<&str> = t.split_whitespace().collect();
    let better_steps = match words.as_slice() {
        ["better"] => Some(1),
        ["way", "better"] => Some(2),
        ["way", "way", "better"] => Some(3),
        _ => None,
    };
    if let Some(steps) = better_steps {
        let mut h = match previous {
            Some(p) => p.clone(),
            None => return Err("\"better\" needs a claim to be better than".into()),
        };
        for _ in 0..steps {
            h = game.better(&h).ok_or("nothing beats the best hand: challenge it, or accept what follows")?;
        }
        return Ok(h);
    }
    if matches!(game, HandGame::Mexican | HandGame::MexicanTwoDice) && (t == "mexican" || t == "mexico") {
        return Ok(Hand::new(if game == HandGame::Mexican { vec![3, 2, 1] } else { vec![2, 1] }));
    }
    // A hand written out: "KKTTJ", "666321", "543".
    let symbols: Vec<u8> =
        t.chars().filter(|c| !c.is_whitespace()).filter_map(|c| face_of(game, c)).collect();
    if symbols.len() == game.dice() && t.chars().filter(|c| !c.is_whitespace()).count() == game.dice() {
        return Ok(Hand::new(symbols));
    }
    weakest_fitting(game, &words).ok_or_else(|| {
        // Descriptions that read in this game: poker dice name their ranks, the others count pips.
        let described = match game {
            HandGame::PokerDice => "\"a pair of jacks\" or \"three kings\"",
            HandGame::Stanford => "\"a pair of 4s\" or \"three 6s\"",
            HandGame::Mexican => "\"a pair of 4s\", \"three 6s\" or \"mexican\"",
            HandGame::MexicanTwoDice => "\"a pair of 4s\" or \"mexican\"",
        };
        format!(
            "a claim is a hand (for example {}), a description such as {described}, or \"better\"",
            game.top().text(game)
        )
    })
}

fn face_of(game: HandGame, c: char) -> Option<u8> {
    match game {
        HandGame::PokerDice => match c {
            '9' => Some(1),
            't' => Some(2),
            'j' => Some(3),
            'q' => Some(4),
            'k' => Some(5),
            'a' => Some(6),
            _ => None,
        },
        _ => c.to_digit(10).and_then(|d| u8::try_from(d).ok()).filter(|d| (1..=6).contains(d)),
    }
}

fn rank_word(game: HandGame, w: &str) -> Option<u8> {
    let w = w.trim_end_matches("'s").trim_end_matches('s');
    let poker = [
        ("nine", 1),
        ("9", 1),
        ("ten", 2),
        ("t", 2),
        ("jack", 3),
        ("j", 3),
        ("queen", 4),
        ("q", 4),
        ("king", 5),
        ("k", 5),
        ("ace", 6),
        ("a", 6),
    ];
    let plain = [("one", 1), ("two", 2), ("three", 3), ("four", 4), ("five", 5), ("six", 6), ("sixe", 6)];
    match game {
        HandGame::PokerDice => poker.iter().find(|p| p.0 == w).map(|p| p.1),
        _ => w
            .parse::<u8>()
            .ok()
            .filter(|d| (1..=6).contains(d))
            .or_else(|| plain.iter().find(|p| p.0 == w).map(|p| p.1)),
    }
}

fn count_word(w: &str) -> Option<u8> {
    match w {
        "a" | "one" | "1" | "single" | "singleton" => Some(1),
        "pair" | "two" | "2" => Some(2),
        "three" | "3" | "trips" => Some(3),
        "four" | "4" => Some(4),
        "five" | "5" => Some(5),
        "six" | "6" => Some(6),
        _ => None,
    }
}

/// The weakest hand matching a description: "a pair", "a pair of jacks", "a pair of jacks
/// with no ten", "two pairs", "two pairs, jacks on top", "three queens", "full house",
/// "four of a kind", "five aces", "three 6s", "four of a kind and a pair".
fn weakest_fitting(game: HandGame, words: &[&str]) -> Option<Hand> {
    let text = words.join(" ").replace(',', "");
    game.ordered().iter().map(|(_, h)| h).find(|h| describes(game, &text, h)).cloned()
}

/// Whether hand `h` satisfies the description `text`.
fn describes(game: HandGame, text: &str, h: &Hand) -> bool {
    let g = groups(&h.dice);
    let shape: Vec<u8> = g.iter().map(|x| x.0).collect();
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "of" | "kind" | "with" | "on" | "top" | "and"))
        .collect();
    // "no ten" / "no 3": the hand must not contain that face.
    let mut rest = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "no" && i + 1 < words.len() {
            match rank_word(game, words[i + 1]) {
                Some(f) if h.dice.contains(&f) => return false,
                Some(_) => {}
                None => return false,
            }
            i += 2;
            continue;
        }
        rest.push(words[i]);
        i += 1;
    }
    let has = |count: u8, face: Option<u8>| g.iter().any(|&(c, f)| c >= count && face.is_none_or(|x| x == f));
    match rest.as_slice() {
        ["singleton"] | ["nothing"] => shape.iter().all(|&c| c == 1),
        ["pair"] => has(2, None),
        ["pair", r] | ["pair", "of", r] => rank_word(game, r).is_some_and(|f| has(2, Some(f))),
        ["better", "pair"] => has(2, None),
        ["two", "pairs"] => shape.iter().filter(|&&c| c >= 2).count() >= 2,
        ["two", "pairs", r] | ["two", "pairs", r, ..] => {
            // "two pairs, jacks on top": the higher pair is of that rank.
            let top = rank_word(game, r);
            shape.iter().filter(|&&c| c >= 2).count() >= 2
                && top.is_some_and(|t| g.iter().filter(|x| x.0 >= 2).map(|x| x.1).max() == Some(t))
        }
        ["full", "house"] => shape.len() >= 2 && shape[0] >= 3 && shape[1] >= 2,
        [n, "pair"] => {
            count_word(n).is_some_and(|c| c >= 2 && shape.len() >= 2 && shape[0] >= c && shape[1] >= 2)
        }
        [n] => count_word(n).is_some_and(|c| has(c, None)),
        [n, r] => match (count_word(n), rank_word(game, r)) {
            (Some(c), Some(f)) => has(c, Some(f)),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poker(s: &str) -> Hand {
        parse_claim(HandGame::PokerDice, s, None).unwrap()
    }

    #[test]
    fn seed_002_poker_dice_descriptions_mean_the_weakest_hand() {
        let g = HandGame::PokerDice;
        assert_eq!(poker("a pair").text(g), "99QJT");
        assert_eq!(poker("a pair of jacks").text(g), "JJQT9");
        assert_eq!(poker("a pair of jacks with no ten").text(g), "JJKQ9");
        assert_eq!(poker("two pairs").text(g), "TT99J");
        assert_eq!(poker("two pairs, jacks on top").text(g), "JJ99T");
        assert_eq!(poker("three queens").text(g), "QQQT9");
        // "A better pair: 99KJT" follows "a pair" (99QJT).
        assert_eq!(g.better(&poker("a pair")).map(|h| h.text(g)), Some("99KJT".to_string()));
    }

    #[test]
    fn seed_002_example_hand() {
        let g = HandGame::PokerDice;
        // [c] offers "better" after "two pairs" (TT99J): TT99Q.
        let better = parse_claim(g, "better", Some(&poker("two pairs"))).unwrap();
        assert_eq!(better.text(g), "TT99Q");
        // [b] rolled KKTTJ: two pairs, beats the pair; [d]'s KKKAJ beats "three queens"? No:
        // "three kings" betters "three queens".
        assert_eq!(g.compare(&poker("KKKAJ").dice, &poker("three queens").dice), Ordering::Greater);
        assert_eq!(g.compare(&poker("KKTTJ").dice, &poker("a pair").dice), Ordering::Greater);
        // Categories beat ranks: any full house beats three aces; two pairs beat a pair of aces.
        assert_eq!(g.compare(&poker("TTT99").dice, &poker("AAAKQ").dice), Ordering::Greater);
        assert_eq!(g.compare(&poker("TT99J").dice, &poker("AAKQJ").dice), Ordering::Greater);
        assert_eq!(g.all_hands().last().map(|h| h.text(g)), Some("AAAAA".into()));
    }

    #[test]
    fn seed_002_stanford_rankings() {
        let g = HandGame::Stanford;
        let h = |s: &str| parse_claim(g, s, None).unwrap();
        assert_eq!(g.compare(&h("111123").dice, &h("666555").dice), Ordering::Greater);
        assert_eq!(g.compare(&h("666432").dice, &h("555444").dice), Ordering::Greater);
        assert_eq!(g.compare(&h("555443").dice, &h("555621").dice), Ordering::Greater);
        // "Three 6s" is shorthand for 666321; "four of a kind and a pair" for 111122.
        assert_eq!(h("three 6s").to_string(), "666321");
        assert_eq!(h("four of a kind and a pair").to_string(), "111122");
    }

    #[test]
    fn seed_002_mexican_values() {
        let g = HandGame::Mexican;
        let v = |d: [u8; 3]| g.value(&d);
        // "a 3, 4, and a 5 has a value of 543. To beat it ... 544 or better."
        assert_eq!(v([3, 4, 5]), 543);
        assert!(v([5, 4, 4]) > v([3, 4, 5]));
        // "Three ones ... 1110, making it higher than a 665."
        assert!(v([1, 1, 1]) > v([6, 6, 5]));
        assert!(v([5, 5, 5]) > v([1, 1, 1]));
        // 1-2-3 beats everything.
        assert!(v([2, 3, 1]) > v([6, 6, 6]));
        assert!(g.is_mexican(&[3, 1, 2]));
        let two = HandGame::MexicanTwoDice;
        assert!(two.value(&[1, 2]) > two.value(&[6, 6]));
        assert!(two.value(&[1, 1]) > two.value(&[6, 5]));
        assert_eq!(two.value(&[4, 5]), 54);
        assert_eq!(parse_claim(g, "mexican", None).unwrap().to_string(), "321");
    }

    #[test]
    fn chances_of_a_fresh_roll() {
        let g = HandGame::Mexican;
        assert!((g.chance_at_least(&Hand::new(vec![3, 2, 1])) - 6.0 / 216.0).abs() < 1e-12);
        assert!(
            (HandGame::PokerDice.chance_at_least(&HandGame::PokerDice.all_hands()[0]) - 1.0).abs() < 1e-12
        );
        let aces = HandGame::PokerDice.all_hands().pop().unwrap();
        assert!((HandGame::PokerDice.chance_at_least(&aces) - 1.0 / 7776.0).abs() < 1e-12);
    }

    #[test]
    fn all_hands_are_distinct_and_ordered() {
        for g in [HandGame::PokerDice, HandGame::Stanford, HandGame::Mexican, HandGame::MexicanTwoDice] {
            let all = g.all_hands();
            assert!(all.windows(2).all(|w| g.value(&w[0].dice) < g.value(&w[1].dice)), "{g:?}");
        }
        // Multisets of five dice of six faces: 252; of six: 462; of three: 56; of two: 21.
        assert_eq!(HandGame::PokerDice.all_hands().len(), 252);
        assert_eq!(HandGame::Stanford.all_hands().len(), 462);
        assert_eq!(HandGame::Mexican.all_hands().len(), 56);
        assert_eq!(HandGame::MexicanTwoDice.all_hands().len(), 21);
    }

    /// A hand read from JSON is the same value however its dice were listed.
    #[test]
    fn a_hand_from_json_is_put_in_order() {
        let read: Hand = serde_json::from_str("[2, 1, 1]").expect("a hand");
        assert_eq!(read, Hand::new(vec![1, 1, 2]));
        assert_eq!(serde_json::to_string(&read).expect("json"), "[1,1,2]");
    }
}
