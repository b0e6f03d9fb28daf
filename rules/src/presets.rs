//! Named presets: complete rule sets that users then override field by field.
//!
//! Each preset follows one seed; where the seed is silent the choice is written next to the
//! field and in `docs/rules.md`.

use crate::ruleset::*;

/// Every preset name, in the order `dudo rules` lists them.
pub const NAMES: &[&str] = &[
    "fibbing",
    "perudo-jonti",
    "house",
    "openspiel",
    "wikipedia-classic",
    "west-coast",
    "snyd",
    "variable",
    "points",
    "points-quick",
    "points-full",
    "poker-dice",
    "stanford",
    "mexican",
    "mexican-two-dice",
];

/// The default rule set is the Fibbing Dice table's: here, beside the presets, so that the
/// rule set's definition names no preset.
impl Default for RuleSet {
    fn default() -> Self {
        fibbing()
    }
}

/// The preset called `name`, if there is one.
pub fn by_name(name: &str) -> Option<RuleSet> {
    match name {
        "fibbing" => Some(fibbing()),
        "perudo-jonti" => Some(perudo_jonti()),
        "house" => Some(house()),
        "openspiel" => Some(openspiel()),
        "wikipedia-classic" => Some(wikipedia_classic()),
        "west-coast" => Some(west_coast()),
        "snyd" => Some(snyd()),
        "variable" => Some(variable()),
        "points" => Some(points(75, "points")),
        "points-quick" => Some(points(50, "points-quick")),
        "points-full" => Some(points(100, "points-full")),
        "poker-dice" => Some(poker_dice()),
        "stanford" => Some(stanford()),
        "mexican" => Some(mexican(Family::Mexican, "mexican")),
        "mexican-two-dice" => Some(mexican(Family::MexicanTwoDice, "mexican-two-dice")),
        _ => None,
    }
}

/// The preset's title, as a front page lists it: what it plays, by its source's name.
pub fn title(name: &str) -> &'static str {
    match name {
        "fibbing" => "Perudo as the Fibbing Dice table plays it",
        "perudo-jonti" => "Perudo as the Perudo blog post plays it (Jonti)",
        "house" => "House rules: push, pass and one Exact a game",
        "openspiel" => "OpenSpiel's Liar's Dice: two players, one round",
        "wikipedia-classic" => "Liar's Dice, the common hand",
        "west-coast" => "Liar's Dice, US West Coast",
        "snyd" => "Snyd, the Danish game with stairs",
        "variable" => "Liar's Dice, losing the difference",
        "points" => "The points game: first to 75",
        "points-quick" => "The points game, quick: first to 50",
        "points-full" => "The points game, full: first to 100",
        "poker-dice" => "Liar Dice with poker dice",
        "stanford" => "The Stanford game: six dice, more of a kind",
        "mexican" => "Mexican: three dice and drinks",
        "mexican-two-dice" => "Mexican with two dice",
        _ => "",
    }
}

/// One line describing the preset, for listings.
pub fn summary(name: &str) -> &'static str {
    match name {
        "fibbing" => "Perudo as the Fibbing Dice manual plays it: Calza, Palifico, the default",
        "perudo-jonti" => {
            "Perudo as the Perudo/Jonti blog post plays it: winner starts, Jonti, locked Palifico"
        }
        "house" => "the house rules: push and re-roll, pass, one Exact per game",
        "openspiel" => "OpenSpiel's liars_dice: two players, highest face wild, one round",
        "wikipedia-classic" => "the encyclopedia's common hand: wild ones never bid, lose a die",
        "west-coast" => "the encyclopedia's US West Coast: ones are wild unless the round opens on ones",
        "snyd" => "the encyclopedia's Danish snyd: everyone but the loser discards a die; stairs are wild",
        "variable" => {
            "the encyclopedia's variant: the loser loses the difference between the bid and the count"
        }
        "points" => "the points game: Guess, Watch, Doubt; first to exactly 75",
        "points-quick" => "the points game, quick: first to exactly 50",
        "points-full" => "the points game, full: first to exactly 100",
        "poker-dice" => {
            "the encyclopedia's Liar Dice with poker dice: one cup passed round, three lives, five aces"
        }
        "stanford" => {
            "the encyclopedia's Stanford variation: six dice, more of a kind wins, dice shown or hidden"
        }
        "mexican" => "the encyclopedia's Mexican: three dice, 1-2-3 beats all, drinks for ten rounds",
        "mexican-two-dice" => {
            "the encyclopedia's Mexican with two dice: doubles, 2-1 Mexican, the Betty Ford"
        }
        _ => "",
    }
}

/// Seed 000, Fibbing Dice: the default rule set.
pub fn fibbing() -> RuleSet {
    RuleSet {
        name: "fibbing".into(),
        family: Family::CommonHand,
        players: PlayerLimits { min: 2, max: 12 },
        dice: DiceRules { start: 5, max: 5, faces: 6 },
        first_starter: FirstStarter::RollOff,
        wilds: Wilds::Ones,
        wild_bids: WildBids::HalveAndDoublePlusOne,
        opening_on_wilds: OpeningOnWilds::Forbidden,
        bidding: BiddingSystem::MoreDiceOrHigherFace,
        dudo_penalty: DudoPenalty::LoseDice,
        dice_lost_on_dudo: 1,
        exact_call: ExactCall {
            who: ExactCaller::NotBidderNorNext,
            min_players: 3,
            in_palifico: InPalifico::Forbidden,
            limit: ExactLimit::Unlimited,
            dice_won: 1,
            dice_lost: 1,
            cap: ExactCap::MaxDice,
            reward: ExactReward::WinDice,
        },
        next_starter: NextStarter::Loser,
        palifico: Palifico {
            trigger: PalificoTrigger::FirstTimeOnOneDie,
            min_players: 3,
            opener: PalificoOpener::UsualStarter,
            face_change: PalificoFaceChange::ExPalificoMayRaise,
        },
        push: PushRule { dice: PushDice::Off, limit: PushLimit::Unlimited },
        pass: PassRule { claim: PassClaim::Off, ..PassRule::default() },
        losers_see_dice: LosersSeeDice::AllDice,
        results_table: ResultsTable::On,
        fibbing: Fibbing { hide_percent: 0, misshow_percent: 0 },
        game_end: GameEnd::LastPlayerStanding,
        challenges: Challenges::default(),
        stairs: Stairs::Off,
        wager: Wager::default(),
        drinks: Drinks::default(),
        points: Points::default(),
        hand: HandRules::default(),
    }
}

/// Seed 003, the Perudo blog post.
pub fn perudo_jonti() -> RuleSet {
    RuleSet {
        name: "perudo-jonti".into(),
        // "Designate someone to begin the first round": the first seat.
        first_starter: FirstStarter::FirstSeat,
        opening_on_wilds: OpeningOnWilds::Allowed,
        bidding: BiddingSystem::MoreDice,
        exact_call: ExactCall {
            who: ExactCaller::OnTurn,
            // The post names no player minimum for Jonti.
            min_players: 2,
            in_palifico: InPalifico::Allowed,
            limit: ExactLimit::Unlimited,
            dice_won: 1,
            dice_lost: 1,
            // "You can however, NEVER have more than 5 dice": the maximum.
            cap: ExactCap::MaxDice,
            reward: ExactReward::WinDice,
        },
        next_starter: NextStarter::Winner,
        palifico: Palifico {
            trigger: PalificoTrigger::EveryTimeOnOneDie,
            // The post does not exempt two-player games.
            min_players: 2,
            opener: PalificoOpener::OneDiePlayer,
            face_change: PalificoFaceChange::Locked,
        },
        // A physical game: the seed has no such options, so eliminated players only watch.
        losers_see_dice: LosersSeeDice::Hidden,
        results_table: ResultsTable::Off,
        ..fibbing()
    }
}

/// Seed 004, the group's house rules.
pub fn house() -> RuleSet {
    RuleSet {
        name: "house".into(),
        // "One player is selected to begin the first round."
        first_starter: FirstStarter::FirstSeat,
        exact_call: ExactCall {
            who: ExactCaller::OnTurn,
            min_players: 2,
            in_palifico: InPalifico::Allowed,
            limit: ExactLimit::OncePerGame,
            dice_won: 1,
            dice_lost: 1,
            cap: ExactCap::StartingDice,
            reward: ExactReward::WinDice,
        },
        palifico: Palifico {
            trigger: PalificoTrigger::FirstTimeOnOneDie,
            // The house rules do not exempt two-player games.
            min_players: 2,
            opener: PalificoOpener::UsualStarter,
            face_change: PalificoFaceChange::OneDiePlayersMayChange,
        },
        push: PushRule { dice: PushDice::AnyDice, limit: PushLimit::Unlimited },
        pass: PassRule {
            claim: PassClaim::AllSameFace,
            limit: PassLimit::OncePerRoll,
            challenge: PassChallenge::LastOrOneBeforeAPass,
            min_dice: 2,
        },
        losers_see_dice: LosersSeeDice::Hidden,
        results_table: ResultsTable::Off,
        ..fibbing()
    }
}

/// OpenSpiel's `liars_dice`: two players, the highest face wild and bid like any other face,
/// bidding system 2, one round, player 0 opens. OpenSpiel's default is one die each; this
/// preset deals five, the size the benchmarks use (`--dice 1` gives OpenSpiel's default).
pub fn openspiel() -> RuleSet {
    RuleSet {
        name: "openspiel".into(),
        players: PlayerLimits { min: 2, max: 2 },
        first_starter: FirstStarter::FirstSeat,
        wilds: Wilds::HighestFace,
        wild_bids: WildBids::Plain,
        opening_on_wilds: OpeningOnWilds::Allowed,
        exact_call: ExactCall { who: ExactCaller::Off, ..ExactCall::default() },
        palifico: Palifico { trigger: PalificoTrigger::Off, ..Palifico::default() },
        losers_see_dice: LosersSeeDice::Hidden,
        results_table: ResultsTable::Off,
        game_end: GameEnd::SingleRound,
        ..fibbing()
    }
}

/// Seed 002's "Rules (common hand)": five dice, ones wild, bids on the faces 2 to 6 only
/// ("picking a quantity of a face 2 through 6"), bidding system 2 ("the most common ruleset
/// in packaged games"), the loser of a challenge loses a die and starts the next round.
pub fn wikipedia_classic() -> RuleSet {
    RuleSet {
        name: "wikipedia-classic".into(),
        wild_bids: WildBids::NeverBid,
        exact_call: ExactCall { who: ExactCaller::Off, ..ExactCall::default() },
        palifico: Palifico { trigger: PalificoTrigger::Off, ..Palifico::default() },
        losers_see_dice: LosersSeeDice::Hidden,
        results_table: ResultsTable::Off,
        ..fibbing()
    }
}

/// Seed 002's "extremely common variant on the US West Coast": ones are wild unless the
/// round is opened on ones; switching to and from ones follows the article's own rule.
pub fn west_coast() -> RuleSet {
    RuleSet {
        name: "west-coast".into(),
        wilds: Wilds::OnesUnlessOpenedOnOnes,
        wild_bids: WildBids::HalveAndDoubleOrLastPlusOne,
        opening_on_wilds: OpeningOnWilds::Allowed,
        ..wikipedia_classic()
    }
}

/// Seed 002's Danish snyd with stairs: everyone but the loser of a challenge discards a die,
/// a straight from one is that many ones, and the last player holding dice loses.
pub fn snyd() -> RuleSet {
    RuleSet {
        name: "snyd".into(),
        dudo_penalty: DudoPenalty::Snyd,
        stairs: Stairs::On,
        ..wikipedia_classic()
    }
}

/// Seed 002: "the amount of dice lost can be decided to be the difference in bid and actual
/// outcome".
pub fn variable() -> RuleSet {
    RuleSet { name: "variable".into(), dudo_penalty: DudoPenalty::LoseDifference, ..wikipedia_classic() }
}

/// Seed 001, the points game: four players (two to eight) with three dice, no wilds, a guess
/// must not lower the quantity or the number, Watch and Doubt, no dice lost, first to exactly
/// `target` points.
pub fn points(target: u32, name: &str) -> RuleSet {
    RuleSet {
        name: name.into(),
        players: PlayerLimits { min: 2, max: 8 },
        dice: DiceRules { start: 3, max: 3, faces: 6 },
        first_starter: FirstStarter::RollOff,
        wilds: Wilds::None,
        wild_bids: WildBids::Plain,
        opening_on_wilds: OpeningOnWilds::Allowed,
        // "More dice, higher number, or both": neither may fall.
        bidding: BiddingSystem::NeitherFalls,
        dudo_penalty: DudoPenalty::NoDice,
        exact_call: ExactCall { who: ExactCaller::Off, ..ExactCall::default() },
        next_starter: NextStarter::NextInOrder,
        palifico: Palifico { trigger: PalificoTrigger::Off, ..Palifico::default() },
        losers_see_dice: LosersSeeDice::Hidden,
        results_table: ResultsTable::Off,
        game_end: GameEnd::Points(target),
        ..fibbing()
    }
}

/// Seed 002's Liar Dice with five poker dice (9 T J Q K A): claims are poker hands without
/// runs, three lives, the five-aces test and the dog's life; "best with 5-8 players".
pub fn poker_dice() -> RuleSet {
    RuleSet {
        name: "poker-dice".into(),
        family: Family::PokerDice,
        players: PlayerLimits { min: 2, max: 12 },
        exact_call: ExactCall { who: ExactCaller::Off, ..ExactCall::default() },
        palifico: Palifico { trigger: PalificoTrigger::Off, ..Palifico::default() },
        losers_see_dice: LosersSeeDice::Hidden,
        results_table: ResultsTable::Off,
        hand: HandRules::default(),
        ..fibbing()
    }
}

/// Seed 002's Stanford variation: six standard dice ranked by more of a kind, dice may be
/// rolled outside the box in view of all; otherwise as Liar Dice ("play is still the same").
pub fn stanford() -> RuleSet {
    RuleSet {
        name: "stanford".into(),
        family: Family::Stanford,
        hand: HandRules { show_dice: ShowDice::Allowed, ..HandRules::default() },
        ..poker_dice()
    }
}

/// Seed 002's Mexican: drinks instead of lives, played here for ten rounds (the seed names
/// no end), fewest drinks first.
pub fn mexican(family: Family, name: &str) -> RuleSet {
    RuleSet {
        name: name.into(),
        family,
        game_end: GameEnd::Rounds(10),
        hand: HandRules { five_aces: FiveAces::Off, dogs_life: DogsLife::Off, ..HandRules::default() },
        ..poker_dice()
    }
}

/// A rule set given as a preset name, or a preset plus overridden fields.
///
/// In JSON: `"fibbing"`, or `{"preset": "fibbing", "dice": {"start": 3, "max": 3}}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged, try_from = "serde_json::Value")]
pub enum RulesSpec {
    Preset(String),
    Custom(serde_json::Map<String, serde_json::Value>),
}

/// Read by hand, so that anything else is refused by what a rule set is, not as "no variant
/// of an untagged enum matched".
impl TryFrom<serde_json::Value> for RulesSpec {
    type Error = InvalidRules;

    fn try_from(value: serde_json::Value) -> Result<RulesSpec, InvalidRules> {
        match value {
            serde_json::Value::String(name) => Ok(RulesSpec::Preset(name)),
            serde_json::Value::Object(fields) => Ok(RulesSpec::Custom(fields)),
            other => Err(bad(
                "rules",
                format!("a preset's name or an object of fields, not {}", json_kind(&other)),
            )),
        }
    }
}

impl RulesSpec {
    /// The complete, validated rule set.
    pub fn resolve(&self) -> Result<RuleSet, InvalidRules> {
        match self {
            RulesSpec::Preset(name) => named(name),
            RulesSpec::Custom(map) => {
                let mut overrides = map.clone();
                let base = match overrides.remove("preset") {
                    None => fibbing(),
                    Some(serde_json::Value::String(name)) => named(&name)?,
                    Some(_) => return Err(bad("preset", "a preset is named by a string".into())),
                };
                with_overrides(base, &serde_json::Value::Object(overrides))
            }
        }
    }
}

/// What a JSON value is, as an error names what was given instead ("not a list").
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a bool",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

fn bad(field: &'static str, problem: String) -> InvalidRules {
    InvalidRules { field: field.into(), problem }
}

fn named(name: &str) -> Result<RuleSet, InvalidRules> {
    by_name(name)
        .ok_or_else(|| bad("preset", format!("no preset {name:?}; the presets are {}", NAMES.join(", "))))
}

/// `base` with the fields of `overrides` (a JSON object, nested like the rule set) replaced.
pub fn with_overrides(base: RuleSet, overrides: &serde_json::Value) -> Result<RuleSet, InvalidRules> {
    let mut value = serde_json::to_value(&base).map_err(|e| bad("rules", e.to_string()))?;
    merge("", &mut value, overrides)?;
    from_value(value)
}

/// A rule set from its serde form (a JSON object nested like the rule set; fields left out
/// take their defaults), validated. A value that does not fit is blamed on its field, as a
/// setting names it (`dice.faces`).
pub fn from_value(value: serde_json::Value) -> Result<RuleSet, InvalidRules> {
    let rules: RuleSet = serde_path_to_error::deserialize(value).map_err(|e| {
        // The whole rule set where the fault is not in one field.
        let field = match e.path().to_string() {
            path if path == "." => "rules".into(),
            path => path.into(),
        };
        InvalidRules { field, problem: in_words(e.into_inner().to_string()) }
    })?;
    rules.validate()?;
    Ok(rules)
}

/// serde's account of a value that does not fit its field, in players' words: `invalid type:
/// string "six", expected u8` is `"six" is not a whole number from 0 to 255`.
fn in_words(problem: String) -> String {
    const KINDS: &[(&str, &str)] = &[
        ("u8", "a whole number from 0 to 255"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number from 0 to 4294967295"),
        ("u64", "a whole number"),
        ("a boolean", "true or false"),
    ];
    let Some((said, expected)) = problem.rsplit_once(", expected ") else { return problem };
    let Some(&(_, words)) = KINDS.iter().find(|(rust, _)| *rust == expected) else { return problem };
    let value = said.strip_prefix("invalid type: ").or_else(|| said.strip_prefix("invalid value: "));
    let Some(value) = value else { return problem };
    // `string "six"`, `integer `300``, `floating point `1.5``: the value as it was written.
    let value = ["string ", "integer ", "floating point ", "boolean "]
        .iter()
        .find_map(|kind| value.strip_prefix(kind))
        .unwrap_or(value)
        .trim_matches('`');
    format!("{value} is not {words}")
}

/// `base` with one field set from text: `("dice.faces", "8")`, `("exact_call.who", "on_turn")`.
/// A value that does not fit is blamed on `path` as given, not on the rule set as a whole.
pub fn with_setting(base: RuleSet, path: &str, value: &str) -> Result<RuleSet, InvalidRules> {
    // No field lies deeper than three names; a path of thousands would nest (and copy, and
    // drop) a value that deep, recursively.
    const MOST_NAMES: usize = 4;
    const LONGEST_PATH: usize = 64;
    if path.len() > LONGEST_PATH || path.split('.').count() > MOST_NAMES {
        let mut shown: String = path.chars().take(LONGEST_PATH).collect();
        if shown.len() < path.len() {
            shown.push('…');
        }
        return Err(bad(
            "setting",
            format!(
                "{shown} is not a field: a field's path is at most {MOST_NAMES} names and {LONGEST_PATH} characters"
            ),
        ));
    }
    // Fields are named in lower case, digits and underscores; anything else is refused
    // without being echoed (a control character would reach a terminal or a log as it is).
    if let Some(c) = path.chars().find(|&c| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')) {
        return Err(bad(
            "setting",
            format!(
                "a field's path is letters, digits, '_' and '.', not {:?}",
                c.escape_default().to_string()
            ),
        ));
    }
    let parsed = serde_json::from_str(value).unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
    // Dice each where nobody can win dice back above the start (`dice.max` = `dice.start`,
    // as in most presets): changing the start moves the most with it, so "5 dice" becomes
    // "6 dice" and not "6 dice, at most 5" (refused) or "3 dice, won back up to 5".
    let nested = if path == "dice.start" && base.dice.max == base.dice.start {
        serde_json::json!({ "dice": { "start": parsed.clone(), "max": parsed } })
    } else {
        let mut nested = parsed;
        for key in path.rsplit('.') {
            let mut map = serde_json::Map::new();
            map.insert(key.to_string(), nested);
            nested = serde_json::Value::Object(map);
        }
        nested
    };
    with_overrides(base, &nested).map_err(|e| {
        // The value is blamed on the setting as given: not on the rule set as a whole, nor
        // on the `dice.max` it was copied to.
        let copied = path == "dice.start" && e.field == "dice.max";
        if e.field == "rules" || copied {
            InvalidRules { field: path.to_string().into(), problem: e.problem }
        } else {
            e
        }
    })
}

/// Writes `over` into `base`, field by field. `path` is where `base` lies, for the error: a
/// list where the rule set has a section of fields (serde would read `"dice": [2, 2]` as
/// the section's fields in order, and every field left out as its default).
fn merge(path: &str, base: &mut serde_json::Value, over: &serde_json::Value) -> Result<(), InvalidRules> {
    use serde_json::Value;
    let field = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match (base, over) {
        (Value::Object(_), Value::Array(_)) => {
            let field = if path.is_empty() { "rules".to_string() } else { path.to_string() };
            return Err(InvalidRules {
                field: field.into(),
                problem: "a section of fields is an object of them, not a list".into(),
            });
        }
        // A one-key object is an enum with data (`{"points": 75}`): another variant replaces it.
        (Value::Object(b), Value::Object(o))
            if b.len() == 1 && o.len() == 1 && b.keys().next() != o.keys().next() =>
        {
            *b = o.clone();
        }
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(slot) => merge(&field(k), slot, v)?,
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changing_the_dice_each_moves_the_most_with_it_when_they_were_the_same() {
        let six = with_setting(fibbing(), "dice.start", "6").unwrap();
        assert_eq!((six.dice.start, six.dice.max), (6, 6));
        let three = with_setting(fibbing(), "dice.start", "3").unwrap();
        assert_eq!((three.dice.start, three.dice.max), (3, 3));
        // A most set apart from the start stays where it was set.
        let apart = with_setting(fibbing(), "dice.max", "8").unwrap();
        let apart = with_setting(apart, "dice.start", "6").unwrap();
        assert_eq!((apart.dice.start, apart.dice.max), (6, 8));
    }

    #[test]
    fn a_value_that_does_not_fit_is_said_in_players_words() {
        let err = with_setting(fibbing(), "dice.faces", "six").expect_err("refused");
        assert_eq!(
            (err.field.as_ref(), err.problem.as_str()),
            ("dice.faces", "\"six\" is not a whole number from 0 to 255")
        );
        let err = with_setting(fibbing(), "dice.faces", "300").expect_err("refused");
        assert_eq!(err.problem, "300 is not a whole number from 0 to 255");
    }

    /// A path of thousands of names is refused, not nested that deep (it overflowed the stack).
    #[test]
    fn a_setting_path_is_a_few_names_long() {
        let deep = format!("x{}", ".x".repeat(50_000));
        let err = with_setting(fibbing(), &deep, "1").expect_err("refused");
        assert_eq!(err.field, "setting");
        assert!(with_setting(fibbing(), "exact_call.who", "on_turn").is_ok());
    }

    #[test]
    fn every_preset_is_valid_and_round_trips() {
        for name in NAMES {
            let r = by_name(name).unwrap();
            r.validate().unwrap();
            assert_eq!(r.name, *name);
            let json = serde_json::to_string(&r).unwrap();
            let back: RuleSet = serde_json::from_str(&json).unwrap();
            assert_eq!(back, r);
        }
    }

    /// Listings name the sources, not the project's numbering of them.
    #[test]
    fn summaries_name_their_source_in_words() {
        for name in NAMES {
            assert!(!title(name).is_empty(), "{name} has no title");
            let text = summary(name);
            assert!(!text.is_empty(), "{name}");
            let numbered =
                text.split(|c: char| !c.is_ascii_digit()).any(|n| n.len() == 3 && n.starts_with("00"));
            assert!(!text.contains("seed") && !numbered, "{name}: {text}");
        }
    }

    #[test]
    fn overrides_name_the_field_at_fault() {
        let r = with_setting(fibbing(), "dice.faces", "8").unwrap();
        assert_eq!(r.dice.faces, 8);
        let e = with_setting(fibbing(), "dice.faces", "12").unwrap_err();
        assert_eq!(e.field, "dice.faces");
        let e = with_setting(fibbing(), "dice.colour", "red").unwrap_err();
        assert!(e.problem.contains("colour"), "{e}");
        // The setting as given is named, not the rule set as a whole.
        let e = with_setting(fibbing(), "dice.face", "8").unwrap_err();
        assert_eq!(e.field, "dice.face");
        assert!(e.to_string().starts_with("rule set field `dice.face`: unknown field `face`"), "{e}");
        let e = with_setting(fibbing(), "wilds", "sevens").unwrap_err();
        assert!(e.problem.contains("sevens"), "{e}");
        assert_eq!(e.field, "wilds");
        let spec: RulesSpec =
            serde_json::from_str(r#"{"preset":"house","dice":{"start":3,"max":3}}"#).unwrap();
        let r = spec.resolve().unwrap();
        assert_eq!((r.name.as_str(), r.dice.start, r.dice.max), ("house", 3, 3));
        assert!(RulesSpec::Preset("nope".into()).resolve().is_err());
        // A list where a section of fields belongs is refused by the section's name.
        let e = with_setting(fibbing(), "dice", "[2, 2]").unwrap_err();
        assert_eq!(e.field, "dice", "{e}");
        let e = with_setting(fibbing(), "palifico", "[]").unwrap_err();
        assert_eq!(e.field, "palifico", "{e}");
        // A bad number of dice is the setting's fault, not that of the most it moves with it.
        let e = with_setting(fibbing(), "dice.start", "x").unwrap_err();
        assert_eq!(e.field, "dice.start", "{e}");
        let e = with_setting(fibbing(), "dice\u{0}.start", "3").unwrap_err();
        assert!(e.field == "setting" && !e.problem.contains('\u{0}'), "{e}");
        let e = serde_json::from_str::<RulesSpec>("[1, 2]").unwrap_err();
        assert!(e.to_string().contains("a preset's name or an object of fields, not a list"), "{e}");
        // A rule set in JSON names the field that does not fit, however deep.
        let spec: RulesSpec = serde_json::from_str(r#"{"dice":{"faces":"six"}}"#).unwrap();
        let e = spec.resolve().unwrap_err();
        assert_eq!(e.field, "dice.faces", "{e}");
        assert!(e.problem.contains("six"), "{e}");
    }
}
