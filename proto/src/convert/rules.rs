//! Rule sets, both ways: every knob of `dudo_rules::RuleSet` and its `dudo.v1.RuleSet` twin,
//! the enums mapped by name.

use super::*;

/// Engine enums and their wire twins share variant names; this writes the two mappings.
macro_rules! enum_pair {
    ($($name:ident { $($v:ident),+ $(,)? })+) => {
        $(
            impl EnumWire for r::$name {
                fn to_wire(self) -> i32 {
                    match self { $(r::$name::$v => pb::$name::$v as i32),+ }
                }
                fn from_wire(field: &'static str, v: i32) -> Result<Self, ConvertError> {
                    match pb::$name::try_from(v) {
                        $(Ok(pb::$name::$v) => Ok(r::$name::$v),)+
                        Err(_) => Err(bad(field, format!("{v} is not a {}", stringify!($name)))),
                    }
                }
            }
        )+
    };
}

trait EnumWire: Sized {
    fn to_wire(self) -> i32;
    fn from_wire(field: &'static str, v: i32) -> Result<Self, ConvertError>;
}

enum_pair! {
    Family { CommonHand, PokerDice, Stanford, Mexican, MexicanTwoDice }
    FirstStarter { RollOff, FirstSeat }
    Wilds { None, Ones, HighestFace, OnesUnlessOpenedOnOnes }
    WildBids { HalveAndDoublePlusOne, NeverBid, HalveAndDoubleOrLastPlusOne, Plain }
    OpeningOnWilds { Forbidden, Allowed }
    BiddingSystem { MoreOfSameFaceOrHigherFace, MoreDiceOrHigherFace, MoreDice, AboveHighestNumber, HigherProduct, NeitherFalls }
    DudoPenalty { LoseDice, LoseDifference, GiveToWinner, Snyd, NoDice }
    ExactCaller { Off, NotBidderNorNext, OnTurn }
    InPalifico { Allowed, Forbidden }
    ExactLimit { Unlimited, OncePerGame }
    ExactCap { MaxDice, StartingDice }
    ExactReward { WinDice, OthersLoseDice }
    NextStarter { Loser, Winner, NextInOrder }
    PalificoTrigger { Off, FirstTimeOnOneDie, EveryTimeOnOneDie }
    PalificoOpener { UsualStarter, OneDiePlayer }
    PalificoFaceChange { Locked, ExPalificoMayRaise, OneDiePlayersMayChange }
    PushDice { Off, AnyDice, MatchingBidFace }
    PushLimit { Unlimited, OncePerPlayerPerRound, OncePerRound }
    PassClaim { Off, AllSameFace, AllDifferent }
    PassLimit { OncePerRoll, OncePerRound }
    PassChallenge { LastOrOneBeforeAPass, AnyConsecutivePass }
    LosersSeeDice { AllDice, Hidden }
    ResultsTable { On, Off }
    Challenger { NextPlayer, Anyone }
    OutOfTurnPenalty { Same, Double }
    Stairs { Off, On }
    WagerMode { Off, WinnerTakesAll, LoserPaysWinnerEachRound }
    DrinksTally { Off, On }
    DrinksByDifference { Off, On }
    SpotOnDrinks { Plain, OthersDrinkFailedDoubles }
    WrongWatcher { Nothing, LosesReduced, LosesFull }
    OtherGuesses { Ignored, Scored }
    Undercall { TreatedAsBetter, Refused }
    FiveAces { On, Off }
    DogsLife { Offered, Off }
    ShowDice { Off, Allowed }
}

pub fn rules_to_wire(x: &r::RuleSet) -> pb::RuleSet {
    use pb::game_end::End;
    pb::RuleSet {
        name: x.name.clone(),
        family: x.family.to_wire(),
        players: Some(pb::PlayerLimits { min: x.players.min.into(), max: x.players.max.into() }),
        dice: Some(pb::DiceRules {
            start: x.dice.start.into(),
            max: x.dice.max.into(),
            faces: x.dice.faces.into(),
        }),
        first_starter: x.first_starter.to_wire(),
        wilds: x.wilds.to_wire(),
        wild_bids: x.wild_bids.to_wire(),
        opening_on_wilds: x.opening_on_wilds.to_wire(),
        bidding: x.bidding.to_wire(),
        dudo_penalty: x.dudo_penalty.to_wire(),
        dice_lost_on_dudo: x.dice_lost_on_dudo.into(),
        exact_call: Some(pb::ExactCall {
            who: x.exact_call.who.to_wire(),
            min_players: x.exact_call.min_players.into(),
            in_palifico: x.exact_call.in_palifico.to_wire(),
            limit: x.exact_call.limit.to_wire(),
            dice_won: x.exact_call.dice_won.into(),
            dice_lost: x.exact_call.dice_lost.into(),
            cap: x.exact_call.cap.to_wire(),
            reward: x.exact_call.reward.to_wire(),
        }),
        next_starter: x.next_starter.to_wire(),
        palifico: Some(pb::Palifico {
            trigger: x.palifico.trigger.to_wire(),
            min_players: x.palifico.min_players.into(),
            opener: x.palifico.opener.to_wire(),
            face_change: x.palifico.face_change.to_wire(),
        }),
        push: Some(pb::PushRule { dice: x.push.dice.to_wire(), limit: x.push.limit.to_wire() }),
        pass: Some(pb::PassRule {
            claim: x.pass.claim.to_wire(),
            limit: x.pass.limit.to_wire(),
            challenge: x.pass.challenge.to_wire(),
            min_dice: x.pass.min_dice.into(),
        }),
        losers_see_dice: x.losers_see_dice.to_wire(),
        results_table: x.results_table.to_wire(),
        fibbing: Some(pb::Fibbing {
            hide_percent: x.fibbing.hide_percent.into(),
            misshow_percent: x.fibbing.misshow_percent.into(),
        }),
        game_end: Some(pb::GameEnd {
            end: Some(match x.game_end {
                r::GameEnd::LastPlayerStanding => End::LastPlayerStanding(pb::Empty {}),
                r::GameEnd::SingleRound => End::SingleRound(pb::Empty {}),
                r::GameEnd::Rounds(n) => End::Rounds(n),
                r::GameEnd::Points(n) => End::Points(n),
            }),
        }),
        challenges: Some(pb::Challenges {
            who: x.challenges.who.to_wire(),
            failed_out_of_turn: x.challenges.failed_out_of_turn.to_wire(),
        }),
        stairs: x.stairs.to_wire(),
        wager: Some(pb::Wager { mode: x.wager.mode.to_wire(), stake: x.wager.stake }),
        drinks: Some(pb::Drinks {
            tally: x.drinks.tally.to_wire(),
            per_lost_round: x.drinks.per_lost_round.into(),
            per_die_lost: x.drinks.per_die_lost.into(),
            by_difference: x.drinks.by_difference.to_wire(),
            on_elimination: x.drinks.on_elimination.into(),
            each_round_while_out: x.drinks.each_round_while_out.into(),
            failed_out_of_turn_multiplier: x.drinks.failed_out_of_turn_multiplier.into(),
            spot_on: x.drinks.spot_on.to_wire(),
        }),
        points: Some(pb::Points {
            wrong_watcher: x.points.wrong_watcher.to_wire(),
            other_guesses: x.points.other_guesses.to_wire(),
        }),
        hand: Some(pb::HandRules {
            lives: x.hand.lives.into(),
            undercall: x.hand.undercall.to_wire(),
            five_aces: x.hand.five_aces.to_wire(),
            dogs_life: x.hand.dogs_life.to_wire(),
            show_dice: x.hand.show_dice.to_wire(),
            reroll_drinks: x.hand.reroll_drinks.into(),
            bluff_drinks: x.hand.bluff_drinks.into(),
            betty_ford_drinks: x.hand.betty_ford_drinks.into(),
            catch_percent: x.hand.catch_percent.into(),
        }),
    }
}

/// A rule set from the wire: every field converted, then the whole validated. Sub-messages
/// left out take the engine's defaults.
pub fn rules_from_wire(x: &pb::RuleSet) -> Result<r::RuleSet, ConvertError> {
    use pb::game_end::End;
    let d = r::RuleSet::default();
    let players = match &x.players {
        Some(p) => r::PlayerLimits { min: narrow("players.min", p.min)?, max: narrow("players.max", p.max)? },
        None => d.players,
    };
    let dice = match &x.dice {
        Some(p) => r::DiceRules {
            start: narrow("dice.start", p.start)?,
            max: narrow("dice.max", p.max)?,
            faces: narrow("dice.faces", p.faces)?,
        },
        None => d.dice,
    };
    let exact_call = match &x.exact_call {
        Some(e) => r::ExactCall {
            who: EnumWire::from_wire("exact_call.who", e.who)?,
            min_players: narrow("exact_call.min_players", e.min_players)?,
            in_palifico: EnumWire::from_wire("exact_call.in_palifico", e.in_palifico)?,
            limit: EnumWire::from_wire("exact_call.limit", e.limit)?,
            dice_won: narrow("exact_call.dice_won", e.dice_won)?,
            dice_lost: narrow("exact_call.dice_lost", e.dice_lost)?,
            cap: EnumWire::from_wire("exact_call.cap", e.cap)?,
            reward: EnumWire::from_wire("exact_call.reward", e.reward)?,
        },
        None => d.exact_call,
    };
    let palifico = match &x.palifico {
        Some(p) => r::Palifico {
            trigger: EnumWire::from_wire("palifico.trigger", p.trigger)?,
            min_players: narrow("palifico.min_players", p.min_players)?,
            opener: EnumWire::from_wire("palifico.opener", p.opener)?,
            face_change: EnumWire::from_wire("palifico.face_change", p.face_change)?,
        },
        None => d.palifico,
    };
    let push = match &x.push {
        Some(p) => r::PushRule {
            dice: EnumWire::from_wire("push.dice", p.dice)?,
            limit: EnumWire::from_wire("push.limit", p.limit)?,
        },
        None => d.push,
    };
    let pass = match &x.pass {
        Some(p) => r::PassRule {
            claim: EnumWire::from_wire("pass.claim", p.claim)?,
            limit: EnumWire::from_wire("pass.limit", p.limit)?,
            challenge: EnumWire::from_wire("pass.challenge", p.challenge)?,
            min_dice: narrow("pass.min_dice", p.min_dice)?,
        },
        None => d.pass,
    };
    let fibbing = match &x.fibbing {
        Some(f) => r::Fibbing {
            hide_percent: narrow("fibbing.hide_percent", f.hide_percent)?,
            misshow_percent: narrow("fibbing.misshow_percent", f.misshow_percent)?,
        },
        None => d.fibbing,
    };
    let game_end = match x.game_end.as_ref().and_then(|g| g.end.as_ref()) {
        None | Some(End::LastPlayerStanding(_)) => r::GameEnd::LastPlayerStanding,
        Some(End::SingleRound(_)) => r::GameEnd::SingleRound,
        Some(End::Rounds(n)) => r::GameEnd::Rounds(*n),
        Some(End::Points(n)) => r::GameEnd::Points(*n),
    };
    let challenges = match &x.challenges {
        Some(c) => r::Challenges {
            who: EnumWire::from_wire("challenges.who", c.who)?,
            failed_out_of_turn: EnumWire::from_wire("challenges.failed_out_of_turn", c.failed_out_of_turn)?,
        },
        None => d.challenges,
    };
    let wager = match &x.wager {
        Some(w) => r::Wager { mode: EnumWire::from_wire("wager.mode", w.mode)?, stake: w.stake },
        None => d.wager,
    };
    let drinks = match &x.drinks {
        Some(k) => r::Drinks {
            tally: EnumWire::from_wire("drinks.tally", k.tally)?,
            per_lost_round: narrow("drinks.per_lost_round", k.per_lost_round)?,
            per_die_lost: narrow("drinks.per_die_lost", k.per_die_lost)?,
            by_difference: EnumWire::from_wire("drinks.by_difference", k.by_difference)?,
            on_elimination: narrow("drinks.on_elimination", k.on_elimination)?,
            each_round_while_out: narrow("drinks.each_round_while_out", k.each_round_while_out)?,
            failed_out_of_turn_multiplier: narrow(
                "drinks.failed_out_of_turn_multiplier",
                k.failed_out_of_turn_multiplier,
            )?,
            spot_on: EnumWire::from_wire("drinks.spot_on", k.spot_on)?,
        },
        None => d.drinks,
    };
    let points = match &x.points {
        Some(p) => r::Points {
            wrong_watcher: EnumWire::from_wire("points.wrong_watcher", p.wrong_watcher)?,
            other_guesses: EnumWire::from_wire("points.other_guesses", p.other_guesses)?,
        },
        None => d.points,
    };
    let hand = match &x.hand {
        Some(h) => r::HandRules {
            lives: narrow("hand.lives", h.lives)?,
            undercall: EnumWire::from_wire("hand.undercall", h.undercall)?,
            five_aces: EnumWire::from_wire("hand.five_aces", h.five_aces)?,
            dogs_life: EnumWire::from_wire("hand.dogs_life", h.dogs_life)?,
            show_dice: EnumWire::from_wire("hand.show_dice", h.show_dice)?,
            reroll_drinks: narrow("hand.reroll_drinks", h.reroll_drinks)?,
            bluff_drinks: narrow("hand.bluff_drinks", h.bluff_drinks)?,
            betty_ford_drinks: narrow("hand.betty_ford_drinks", h.betty_ford_drinks)?,
            catch_percent: narrow("hand.catch_percent", h.catch_percent)?,
        },
        None => d.hand,
    };
    let rules = r::RuleSet {
        name: x.name.clone(),
        family: EnumWire::from_wire("family", x.family)?,
        players,
        dice,
        first_starter: EnumWire::from_wire("first_starter", x.first_starter)?,
        wilds: EnumWire::from_wire("wilds", x.wilds)?,
        wild_bids: EnumWire::from_wire("wild_bids", x.wild_bids)?,
        opening_on_wilds: EnumWire::from_wire("opening_on_wilds", x.opening_on_wilds)?,
        bidding: EnumWire::from_wire("bidding", x.bidding)?,
        dudo_penalty: EnumWire::from_wire("dudo_penalty", x.dudo_penalty)?,
        dice_lost_on_dudo: narrow("dice_lost_on_dudo", x.dice_lost_on_dudo)?,
        exact_call,
        next_starter: EnumWire::from_wire("next_starter", x.next_starter)?,
        palifico,
        push,
        pass,
        losers_see_dice: EnumWire::from_wire("losers_see_dice", x.losers_see_dice)?,
        results_table: EnumWire::from_wire("results_table", x.results_table)?,
        fibbing,
        game_end,
        challenges,
        stairs: EnumWire::from_wire("stairs", x.stairs)?,
        wager,
        drinks,
        points,
        hand,
    };
    rules.validate().map_err(|e| ConvertError {
        // `validate` names its fields statically; anything else is the rule set's.
        field: match e.field {
            std::borrow::Cow::Borrowed(field) => field,
            std::borrow::Cow::Owned(_) => "rules",
        },
        problem: e.problem,
    })?;
    Ok(rules)
}
