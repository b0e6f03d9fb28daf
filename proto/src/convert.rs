//! The one place the engine's types and the `dudo.v1` wire types meet.
//!
//! Everything goes both ways: the server turns the engine's events, views and legal actions
//! into wire messages and reads rule sets and actions from clients; clients (the CLI, the bot
//! SDK) read events, views and legal actions back into the engine's types so they can use its
//! helpers (describing events, parsing calls, odds). Every field that is narrower in the
//! engine than on the wire is range-checked, and a bad value is an error naming the field,
//! never a panic, whichever side sent it.

use crate::v1 as pb;
use dudo_rules::action::Action;
use dudo_rules::bid::{Bid, BidRange};
use dudo_rules::event::{Audience, Counted, Event, EventKind, ResultRow, Showdown};
use dudo_rules::game::{Claim, ClaimKind, HandView, Legal, PlayerView, RoundResult, View};
use dudo_rules::hand::Hand;
use dudo_rules::ruleset as r;

use crate::{LeaveWhy, StopWhy, TableEvent};

/// A wire value the engine cannot take, with the field at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {problem}")]
pub struct ConvertError {
    pub field: &'static str,
    pub problem: String,
}

fn bad(field: &'static str, problem: impl Into<String>) -> ConvertError {
    ConvertError { field, problem: problem.into() }
}

fn narrow<T: TryFrom<u32>>(field: &'static str, v: u32) -> Result<T, ConvertError> {
    T::try_from(v).map_err(|_| bad(field, format!("{v} is out of range")))
}

fn seat(field: &'static str, v: u32) -> Result<usize, ConvertError> {
    narrow::<usize>(field, v)
}

fn wire(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

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

// ----- rule sets, both ways -----

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

// ----- actions, both ways -----

fn bid_to_wire(b: Bid) -> pb::Bid {
    pb::Bid { quantity: b.quantity.into(), face: b.face.into() }
}

fn bid_from_wire(field: &'static str, b: Option<&pb::Bid>) -> Result<Bid, ConvertError> {
    let b = b.ok_or_else(|| bad(field, "a bid is needed"))?;
    Ok(Bid::new(narrow(field, b.quantity)?, narrow(field, b.face)?))
}

fn hand_to_wire(h: &Hand) -> pb::Hand {
    pb::Hand { dice: h.dice.iter().map(|&d| d.into()).collect() }
}

fn hand_from_wire(field: &'static str, h: Option<&pb::Hand>) -> Result<Hand, ConvertError> {
    let h = h.ok_or_else(|| bad(field, "a hand is needed"))?;
    if h.dice.len() > 16 {
        return Err(bad(field, "too many dice for a hand"));
    }
    Ok(Hand::new(h.dice.iter().map(|&d| narrow(field, d)).collect::<Result<_, _>>()?))
}

/// Lists of dice or positions are short; a client cannot make the engine copy megabytes.
fn small_list<T: TryFrom<u32>>(field: &'static str, v: &[u32]) -> Result<Vec<T>, ConvertError> {
    if v.len() > 64 {
        return Err(bad(field, "too many entries"));
    }
    v.iter().map(|&x| narrow(field, x)).collect()
}

pub fn action_to_wire(a: &Action) -> pb::Action {
    use pb::action::Action as A;
    let action = match a {
        Action::Bid(b) => A::Bid(bid_to_wire(*b)),
        Action::Push { dice, bid } => {
            A::Push(pb::Push { dice: dice.iter().map(|&d| d.into()).collect(), bid: Some(bid_to_wire(*bid)) })
        }
        Action::Pass => A::Pass(pb::Empty {}),
        Action::Dudo { target } => A::Dudo(pb::Dudo { target: target.map(wire) }),
        Action::Calza => A::Calza(pb::Empty {}),
        Action::Watch => A::Watch(pb::Empty {}),
        Action::Accept => A::Accept(pb::Empty {}),
        Action::Roll { dice, show } => A::Roll(pb::Roll {
            dice: dice.iter().map(|&d| wire(d)).collect(),
            show: show.iter().map(|&d| wire(d)).collect(),
        }),
        Action::Claim(h) => A::Claim(hand_to_wire(h)),
        Action::DogsLife { bark } => A::DogsLife(pb::DogsLifeChoice { bark: *bark }),
    };
    pb::Action { action: Some(action) }
}

pub fn action_from_wire(a: &pb::Action) -> Result<Action, ConvertError> {
    use pb::action::Action as A;
    Ok(match a.action.as_ref().ok_or_else(|| bad("action", "no action given"))? {
        A::Bid(b) => Action::Bid(bid_from_wire("bid", Some(b))?),
        A::Push(p) => Action::Push {
            dice: small_list("push.dice", &p.dice)?,
            bid: bid_from_wire("push.bid", p.bid.as_ref())?,
        },
        A::Pass(_) => Action::Pass,
        A::Dudo(d) => Action::Dudo { target: d.target.map(|t| seat("dudo.target", t)).transpose()? },
        A::Calza(_) => Action::Calza,
        A::Watch(_) => Action::Watch,
        A::Accept(_) => Action::Accept,
        A::Roll(r) => {
            Action::Roll { dice: small_list("roll.dice", &r.dice)?, show: small_list("roll.show", &r.show)? }
        }
        A::Claim(h) => Action::Claim(hand_from_wire("claim", Some(h))?),
        A::DogsLife(c) => Action::DogsLife { bark: c.bark },
    })
}

// ----- events, views and legal actions, outward -----

fn seats_to_wire(s: &[usize]) -> Vec<u32> {
    s.iter().map(|&x| wire(x)).collect()
}

fn dice_to_wire(d: &[u8]) -> Vec<u32> {
    d.iter().map(|&x| x.into()).collect()
}

/// Hidden dice travel as 0.
fn sight_to_wire(d: &[Option<u8>]) -> Vec<u32> {
    d.iter().map(|x| x.map_or(0, u32::from)).collect()
}

fn showdown_to_wire(s: &Showdown) -> pb::Showdown {
    use pb::showdown::Showdown as S;
    let count =
        |bid: &Bid, actual: &u16| pb::BidCount { bid: Some(bid_to_wire(*bid)), actual: (*actual).into() };
    pb::Showdown {
        showdown: Some(match s {
            Showdown::DudoOnBid { bid, actual } => S::DudoOnBid(count(bid, actual)),
            Showdown::DudoOnPass { pass_was_true } => S::DudoOnPass(*pass_was_true),
            Showdown::Calza { bid, actual } => S::Calza(count(bid, actual)),
            Showdown::GuessesChecked { bid, actual } => S::GuessesChecked(count(bid, actual)),
        }),
    }
}

fn audience_to_wire(a: Audience) -> pb::Audience {
    use pb::audience::To;
    pb::Audience {
        to: Some(match a {
            Audience::Everyone => To::Everyone(pb::Empty {}),
            Audience::Seats { seats } => To::Seats(pb::Seats { seats: seats.iter().map(wire).collect() }),
            Audience::Hidden { seats } => To::Hidden(pb::Seats { seats: seats.iter().map(wire).collect() }),
        }),
    }
}

fn results_to_wire(rows: &[ResultRow]) -> pb::Results {
    pb::Results {
        rows: rows
            .iter()
            .map(|r| pb::ResultRow {
                seat: wire(r.seat),
                bid: Some(bid_to_wire(r.bid)),
                actual: r.actual.into(),
                was_true: r.was_true,
            })
            .collect(),
    }
}

/// An event on the wire, with the table's sequence number.
/// A log entry on the wire: the engine's events and the table's own share one message.
pub fn event_to_wire(seq: u64, e: &TableEvent) -> pb::Event {
    use pb::event::Kind as K;
    let kind = match e {
        TableEvent::Game(e) => return game_event_to_wire(seq, e),
        TableEvent::DiceCommitted { round, commitments, table } => K::DiceCommitted(pb::DiceCommitted {
            round: *round,
            commitments: commitments
                .iter()
                .map(|(s, h)| pb::SeatHash { seat: wire(*s), hash: h.clone() })
                .collect(),
            table: table.clone(),
        }),
        TableEvent::DiceSalts { round, salts } => K::DiceSalts(pb::DiceSalts {
            round: *round,
            salts: salts
                .iter()
                .map(|(s, salt, dice)| pb::SeatSalt {
                    seat: wire(*s),
                    salt: salt.clone(),
                    dice: dice_to_wire(dice),
                })
                .collect(),
        }),
        TableEvent::TurnTimedOut { seat, action } => {
            K::TurnTimedOut(pb::TurnTimedOut { seat: wire(*seat), action: Some(action_to_wire(action)) })
        }
        TableEvent::GameStopped { why, limit } => {
            K::GameStopped(pb::GameStop { why: stop_why_to_wire(*why) as i32, limit: *limit })
        }
        TableEvent::CallWindowLapsed { seats, cut_short } => K::CallWindowLapsed(pb::CallWindowLapsed {
            seats: seats.iter().map(|&s| wire(s)).collect(),
            cut_short: cut_short.iter().map(|&s| wire(s)).collect(),
        }),
        TableEvent::SeatLeaving { seat, why, at_round_end } => K::SeatLeaving(pb::SeatLeaving {
            seat: wire(*seat),
            why: leave_why_to_wire(*why) as i32,
            at_round_end: *at_round_end,
        }),
    };
    pb::Event { seq, audience: Some(audience_to_wire(Audience::Everyone)), kind: Some(kind) }
}

/// One of the engine's events on the wire.
pub fn game_event_to_wire(seq: u64, e: &Event) -> pb::Event {
    use pb::event::Kind as K;
    let only = |s: usize| pb::SeatOnly { seat: wire(s) };
    let kind = match &e.kind {
        EventKind::GameStarted { seats, dice } => K::GameStarted(pb::GameStarted {
            seats: wire(*seats),
            dice: dice.iter().map(|&d| d.into()).collect(),
        }),
        EventKind::RollOff { rolls } => K::RollOff(pb::RollOff {
            rolls: rolls.iter().map(|&(s, f)| pb::SeatFace { seat: wire(s), face: f.into() }).collect(),
        }),
        EventKind::StarterChosen { seat } => K::StarterChosen(only(*seat)),
        EventKind::RoundStarted { round, starter, dice_counts, palifico, wild } => {
            K::RoundStarted(pb::RoundStarted {
                round: *round,
                starter: wire(*starter),
                dice_counts: dice_counts.iter().map(|&d| d.into()).collect(),
                palifico: seats_to_wire(palifico),
                wild: wild.map(u32::from),
            })
        }
        EventKind::DiceRolled { seat, dice } => {
            K::DiceRolled(pb::DiceRolled { seat: wire(*seat), dice: sight_to_wire(dice) })
        }
        EventKind::WildsOff => K::WildsOff(pb::Empty {}),
        EventKind::BidMade { seat, bid } => {
            K::BidMade(pb::BidMade { seat: wire(*seat), bid: Some(bid_to_wire(*bid)) })
        }
        EventKind::DicePushed { seat, pushed } => {
            K::DicePushed(pb::DicePushed { seat: wire(*seat), pushed: dice_to_wire(pushed) })
        }
        EventKind::Passed { seat } => K::Passed(only(*seat)),
        EventKind::DudoCalled { seat, target } => {
            K::DudoCalled(pb::DudoCalled { seat: wire(*seat), target: wire(*target) })
        }
        EventKind::CalzaCalled { seat } => K::CalzaCalled(only(*seat)),
        EventKind::DiceRevealed { dice, counted } => K::DiceRevealed(pb::DiceRevealed {
            dice: dice.iter().map(|d| pb::Dice { dice: dice_to_wire(d) }).collect(),
            counted: counted.as_ref().map_or_else(Vec::new, |c| {
                c.marks
                    .iter()
                    .enumerate()
                    .map(|(seat, marks)| pb::CountedDice {
                        dice: marks.clone(),
                        count: u32::from(c.count(seat)),
                    })
                    .collect()
            }),
            face: counted.as_ref().map(|c| u32::from(c.face)),
            total: counted.as_ref().map(|c| u32::from(c.total)),
        }),
        EventKind::RoundSettled { showdown, winner, loser } => K::RoundSettled(pb::RoundSettled {
            showdown: Some(showdown_to_wire(showdown)),
            winner: wire(*winner),
            loser: wire(*loser),
        }),
        EventKind::DiceLost { seat, count, left } => {
            K::DiceLost(pb::DiceLost { seat: wire(*seat), count: (*count).into(), left: (*left).into() })
        }
        EventKind::DiceWon { seat, count, now } => {
            K::DiceWon(pb::DiceWon { seat: wire(*seat), count: (*count).into(), now: (*now).into() })
        }
        EventKind::DiceGiven { from, to, count } => {
            K::DiceGiven(pb::DiceGiven { from: wire(*from), to: wire(*to), count: (*count).into() })
        }
        EventKind::Watched { seat } => K::Watched(only(*seat)),
        EventKind::Scored { seat, points, total, discarded } => {
            K::Scored(pb::Scored { seat: wire(*seat), points: *points, total: *total, discarded: *discarded })
        }
        EventKind::Paid { from, to, amount } => {
            K::Paid(pb::Paid { from: wire(*from), to: wire(*to), amount: *amount })
        }
        EventKind::Drank { seat, drinks, total } => {
            K::Drank(pb::Drank { seat: wire(*seat), drinks: *drinks, total: *total })
        }
        EventKind::Eliminated { seat, place } => {
            K::Eliminated(pb::Placed { seat: wire(*seat), place: wire(*place) })
        }
        EventKind::SeatLeft { seat, place, starter, palifico, wild } => K::SeatLeft(pb::SeatLeft {
            seat: wire(*seat),
            place: wire(*place),
            starter: wire(*starter),
            palifico: seats_to_wire(palifico),
            wild: wild.map(u32::from),
        }),
        EventKind::ResultsTable { rows } => K::ResultsTable(results_to_wire(rows)),
        EventKind::HandStarted { hand, starter } => {
            K::HandStarted(pb::HandStarted { hand: *hand, starter: wire(*starter) })
        }
        EventKind::Accepted { seat } => K::Accepted(only(*seat)),
        EventKind::HandRolled { seat, count } => {
            K::HandRolled(pb::HandRolled { seat: wire(*seat), count: wire(*count) })
        }
        EventKind::HandSeen { seat, dice } => {
            K::HandSeen(pb::HandSeen { seat: wire(*seat), dice: dice_to_wire(dice) })
        }
        EventKind::DiceShown { seat, dice } => K::DiceShown(pb::DiceShown {
            seat: wire(*seat),
            dice: dice.iter().map(|&(p, f)| pb::PositionFace { position: wire(p), face: f.into() }).collect(),
        }),
        EventKind::Claimed { seat, spoken, claim } => K::Claimed(pb::Claimed {
            seat: wire(*seat),
            spoken: Some(hand_to_wire(spoken)),
            claim: Some(hand_to_wire(claim)),
        }),
        EventKind::HandRevealed { dice } => K::HandRevealed(pb::HandRevealed { dice: dice_to_wire(dice) }),
        EventKind::ChallengeSettled { claim, hand, winner, loser } => {
            K::ChallengeSettled(pb::ChallengeSettled {
                claim: Some(hand_to_wire(claim)),
                hand: Some(hand_to_wire(hand)),
                winner: wire(*winner),
                loser: wire(*loser),
            })
        }
        EventKind::FiveAces { seat, made } => {
            K::FiveAces(pb::FiveAcesTried { seat: wire(*seat), made: *made })
        }
        EventKind::CupCaught { seat, caught, drinks } => {
            K::CupCaught(pb::CupCaught { seat: wire(*seat), caught: *caught, drinks: *drinks })
        }
        EventKind::LifeLost { seat, lives } => {
            K::LifeLost(pb::LifeLost { seat: wire(*seat), lives: (*lives).into() })
        }
        EventKind::DogsLife { seat, barked } => {
            K::DogsLife(pb::DogsLifeTaken { seat: wire(*seat), barked: *barked })
        }
        EventKind::GameOver { standings, points, money, drinks } => K::GameOver(pb::GameOver {
            standings: seats_to_wire(standings),
            points: points.clone(),
            money: money.clone(),
            drinks: drinks.clone(),
        }),
    };
    pb::Event { seq, audience: Some(audience_to_wire(e.audience)), kind: Some(kind) }
}

fn claim_to_wire(c: &Claim) -> pb::Claim {
    use pb::claim::Kind;
    pb::Claim {
        seat: wire(c.seat),
        kind: Some(match c.kind {
            ClaimKind::Bid(b) => Kind::Bid(bid_to_wire(b)),
            ClaimKind::PushBid(b) => Kind::PushBid(bid_to_wire(b)),
            ClaimKind::Pass => Kind::Pass(pb::Empty {}),
        }),
    }
}

fn player_to_wire(p: &PlayerView) -> pb::PlayerView {
    pb::PlayerView {
        dice: p.dice.into(),
        pushed: dice_to_wire(&p.pushed),
        place: p.place.map(wire),
        left: p.left,
        had_palifico: p.had_palifico,
        exact_used: p.exact_used,
        score: p.score,
        money: p.money,
        drinks: p.drinks,
        watching: p.watching,
        last_guess: p.last_guess.map(bid_to_wire),
        lives: p.lives.into(),
    }
}

fn result_to_wire(r: &RoundResult) -> pb::RoundResult {
    pb::RoundResult {
        round: r.round,
        dice: r.dice.iter().map(|d| pb::Dice { dice: dice_to_wire(d) }).collect(),
        showdown: Some(showdown_to_wire(&r.showdown)),
        winner: wire(r.winner),
        loser: wire(r.loser),
    }
}

fn hand_view_to_wire(h: &HandView) -> pb::HandView {
    pb::HandView {
        holder: wire(h.holder),
        accepted: h.accepted,
        dice: sight_to_wire(&h.dice),
        shown: h.shown.clone(),
        claim: h
            .claim
            .as_ref()
            .map(|(s, hand)| pb::SeatHand { seat: wire(*s), hand: Some(hand_to_wire(hand)) }),
        rolls_this_turn: h.rolls_this_turn.into(),
        five_aces_tries: h.five_aces_tries.map(u32::from),
        dogs_life_pending: h.dogs_life_pending.map(wire),
        dogs_life_taken: h.dogs_life_taken,
    }
}

pub fn view_to_wire(v: &View) -> pb::View {
    pb::View {
        seat: v.seat.map(wire),
        over: v.phase == dudo_rules::game::Phase::Over,
        round: v.round,
        starter: wire(v.starter),
        turn: v.turn.map(wire),
        players: v.players.iter().map(player_to_wire).collect(),
        my_dice: sight_to_wire(&v.my_dice),
        all_dice: v.all_dice.iter().flatten().map(|d| pb::Dice { dice: dice_to_wire(d) }).collect(),
        sees_all_dice: v.all_dice.is_some(),
        claims: v.claims.iter().map(claim_to_wire).collect(),
        current_bid: v.current_bid.map(|(s, b)| pb::SeatBid { seat: wire(s), bid: Some(bid_to_wire(b)) }),
        wild: v.wild.map(u32::from),
        palifico: seats_to_wire(&v.palifico),
        last_result: v.last_result.as_deref().map(result_to_wire),
        standings: seats_to_wire(&v.standings),
        hand: v.hand.as_ref().map(hand_view_to_wire),
        moves: v.moves,
    }
}

pub fn legal_to_wire(l: &Legal) -> pb::Legal {
    pb::Legal {
        bids: l
            .bids
            .iter()
            .map(|r: &BidRange| pb::BidRange {
                face: r.face.into(),
                min_quantity: r.min_quantity.into(),
                max_quantity: r.max_quantity.into(),
            })
            .collect(),
        push: l.push,
        pass: l.pass,
        dudo: seats_to_wire(&l.dudo),
        calza: l.calza,
        watch: l.watch,
        accept: l.accept,
        roll: l.roll.map(|o| pb::RollOptions { all: o.all, may_show: o.may_show, drinks: o.drinks.into() }),
        claim_from: l.claim_from.as_ref().map(hand_to_wire),
        dogs_life: l.dogs_life,
        claim_to: l.claim_to.as_ref().map(hand_to_wire),
        claim_held: l.claim_held,
    }
}

// ----- events, views and legal actions, inward (for clients) -----

/// Any length: these come from the server, whose messages are bounded by the transport.
fn list<T: TryFrom<u32>>(field: &'static str, v: &[u32]) -> Result<Vec<T>, ConvertError> {
    v.iter().map(|&x| narrow(field, x)).collect()
}

fn seats_from_wire(field: &'static str, v: &[u32]) -> Result<Vec<usize>, ConvertError> {
    list(field, v)
}

/// 0 on the wire is a die hidden from the viewer.
fn sight_from_wire(field: &'static str, v: &[u32]) -> Result<Vec<Option<u8>>, ConvertError> {
    v.iter().map(|&x| if x == 0 { Ok(None) } else { narrow(field, x).map(Some) }).collect()
}

fn opt_face(field: &'static str, v: Option<u32>) -> Result<Option<u8>, ConvertError> {
    v.map(|x| narrow(field, x)).transpose()
}

fn dice_rows(field: &'static str, rows: &[pb::Dice]) -> Result<Vec<Vec<u8>>, ConvertError> {
    rows.iter().map(|d| list(field, &d.dice)).collect()
}

/// A reveal's counts, checked against its dice: a mark list per seat, a mark per die, each
/// seat's count its marks, the total their sum. None when the claim was not a count.
fn counted_from_wire(x: &pb::DiceRevealed, dice: &[Vec<u8>]) -> Result<Option<Counted>, ConvertError> {
    let Some(face) = x.face else {
        if !x.counted.is_empty() || x.total.is_some() {
            return Err(bad("dice_revealed.face", "none given, but dice were counted"));
        }
        return Ok(None);
    };
    let face = narrow("dice_revealed.face", face)?;
    let total: u16 =
        narrow("dice_revealed.total", x.total.ok_or_else(|| bad("dice_revealed.total", "none given"))?)?;
    if x.counted.len() != dice.len() {
        let problem = format!("{} seats counted, {} revealed", x.counted.len(), dice.len());
        return Err(bad("dice_revealed.counted", problem));
    }
    let mut sum = 0u32;
    for (c, d) in x.counted.iter().zip(dice) {
        if c.dice.len() != d.len() {
            let problem = format!("{} marks for {} dice", c.dice.len(), d.len());
            return Err(bad("dice_revealed.counted", problem));
        }
        let marked = c.dice.iter().filter(|&&m| m).count();
        if usize::try_from(c.count).ok() != Some(marked) {
            let problem = format!("a count of {} for {marked} dice marked", c.count);
            return Err(bad("dice_revealed.counted.count", problem));
        }
        sum = sum.saturating_add(c.count);
    }
    if sum != u32::from(total) {
        return Err(bad("dice_revealed.total", format!("{total}, but the seats' counts add up to {sum}")));
    }
    Ok(Some(Counted { face, marks: x.counted.iter().map(|c| c.dice.clone()).collect(), total }))
}

fn showdown_from_wire(s: Option<&pb::Showdown>) -> Result<Showdown, ConvertError> {
    use pb::showdown::Showdown as S;
    let count = |c: &pb::BidCount| -> Result<(Bid, u16), ConvertError> {
        Ok((bid_from_wire("showdown.bid", c.bid.as_ref())?, narrow("showdown.actual", c.actual)?))
    };
    Ok(match s.and_then(|s| s.showdown.as_ref()).ok_or_else(|| bad("showdown", "none given"))? {
        S::DudoOnBid(c) => {
            let (bid, actual) = count(c)?;
            Showdown::DudoOnBid { bid, actual }
        }
        S::DudoOnPass(t) => Showdown::DudoOnPass { pass_was_true: *t },
        S::Calza(c) => {
            let (bid, actual) = count(c)?;
            Showdown::Calza { bid, actual }
        }
        S::GuessesChecked(c) => {
            let (bid, actual) = count(c)?;
            Showdown::GuessesChecked { bid, actual }
        }
    })
}

fn audience_from_wire(a: Option<&pb::Audience>) -> Result<Audience, ConvertError> {
    use pb::audience::To;
    let set = |s: &pb::Seats| -> Result<dudo_rules::event::SeatSet, ConvertError> {
        Ok(seats_from_wire("audience.seats", &s.seats)?.into())
    };
    Ok(match a.and_then(|a| a.to.as_ref()).ok_or_else(|| bad("audience", "none given"))? {
        To::Everyone(_) => Audience::Everyone,
        To::Seats(s) => Audience::Seats { seats: set(s)? },
        To::Hidden(s) => Audience::Hidden { seats: set(s)? },
    })
}

/// An event from the wire, and its sequence number.
pub fn event_from_wire(e: &pb::Event) -> Result<(u64, TableEvent), ConvertError> {
    use pb::event::Kind as K;
    let s = |field: &'static str, v: u32| seat(field, v);
    let table_event = match e.kind.as_ref().ok_or_else(|| bad("event.kind", "none given"))? {
        K::DiceCommitted(x) => TableEvent::DiceCommitted {
            round: x.round,
            commitments: x
                .commitments
                .iter()
                .map(|c| Ok((s("dice_committed.seat", c.seat)?, c.hash.clone())))
                .collect::<Result<_, ConvertError>>()?,
            table: x.table.clone(),
        },
        K::DiceSalts(x) => TableEvent::DiceSalts {
            round: x.round,
            salts: x
                .salts
                .iter()
                .map(|c| {
                    Ok((s("dice_salts.seat", c.seat)?, c.salt.clone(), list("dice_salts.dice", &c.dice)?))
                })
                .collect::<Result<_, ConvertError>>()?,
        },
        K::TurnTimedOut(x) => TableEvent::TurnTimedOut {
            seat: s("turn_timed_out.seat", x.seat)?,
            action: action_from_wire(
                x.action.as_ref().ok_or_else(|| bad("turn_timed_out.action", "none given"))?,
            )?,
        },
        K::GameStopped(x) => TableEvent::GameStopped {
            why: stop_why_from_wire(x.why)
                .ok_or_else(|| bad("game_stopped.why", format!("{} is not a reason", x.why)))?,
            limit: x.limit,
        },
        K::CallWindowLapsed(x) => TableEvent::CallWindowLapsed {
            seats: x.seats.iter().map(|&v| s("call_window_lapsed.seats", v)).collect::<Result<_, _>>()?,
            cut_short: x
                .cut_short
                .iter()
                .map(|&v| s("call_window_lapsed.cut_short", v))
                .collect::<Result<_, _>>()?,
        },
        K::SeatLeaving(x) => TableEvent::SeatLeaving {
            seat: s("seat_leaving.seat", x.seat)?,
            why: leave_why_from_wire(x.why)
                .ok_or_else(|| bad("seat_leaving.why", format!("{} is not a reason", x.why)))?,
            at_round_end: x.at_round_end,
        },
        _ => {
            let (seq, event) = game_event_from_wire(e)?;
            return Ok((seq, TableEvent::Game(event)));
        }
    };
    Ok((e.seq, table_event))
}

/// One of the engine's events from the wire (an error for the table's own).
pub fn game_event_from_wire(e: &pb::Event) -> Result<(u64, Event), ConvertError> {
    use pb::event::Kind as K;
    let s = |field: &'static str, v: u32| seat(field, v);
    let kind = match e.kind.as_ref().ok_or_else(|| bad("event.kind", "none given"))? {
        K::DiceCommitted(_)
        | K::DiceSalts(_)
        | K::TurnTimedOut(_)
        | K::GameStopped(_)
        | K::CallWindowLapsed(_)
        | K::SeatLeaving(_) => {
            return Err(bad("event.kind", "a table's own event, not the engine's"));
        }
        K::GameStarted(x) => EventKind::GameStarted {
            seats: s("game_started.seats", x.seats)?,
            dice: list("game_started.dice", &x.dice)?,
        },
        K::RollOff(x) => EventKind::RollOff {
            rolls: x
                .rolls
                .iter()
                .map(|r| Ok((s("roll_off.seat", r.seat)?, narrow("roll_off.face", r.face)?)))
                .collect::<Result<_, ConvertError>>()?,
        },
        K::StarterChosen(x) => EventKind::StarterChosen { seat: s("starter_chosen.seat", x.seat)? },
        K::RoundStarted(x) => EventKind::RoundStarted {
            round: x.round,
            starter: s("round_started.starter", x.starter)?,
            dice_counts: list("round_started.dice_counts", &x.dice_counts)?,
            palifico: seats_from_wire("round_started.palifico", &x.palifico)?,
            wild: opt_face("round_started.wild", x.wild)?,
        },
        K::DiceRolled(x) => EventKind::DiceRolled {
            seat: s("dice_rolled.seat", x.seat)?,
            dice: sight_from_wire("dice_rolled.dice", &x.dice)?,
        },
        K::WildsOff(_) => EventKind::WildsOff,
        K::BidMade(x) => EventKind::BidMade {
            seat: s("bid_made.seat", x.seat)?,
            bid: bid_from_wire("bid_made.bid", x.bid.as_ref())?,
        },
        K::DicePushed(x) => EventKind::DicePushed {
            seat: s("dice_pushed.seat", x.seat)?,
            pushed: list("dice_pushed.pushed", &x.pushed)?,
        },
        K::Passed(x) => EventKind::Passed { seat: s("passed.seat", x.seat)? },
        K::DudoCalled(x) => EventKind::DudoCalled {
            seat: s("dudo_called.seat", x.seat)?,
            target: s("dudo_called.target", x.target)?,
        },
        K::CalzaCalled(x) => EventKind::CalzaCalled { seat: s("calza_called.seat", x.seat)? },
        K::DiceRevealed(x) => {
            let dice = dice_rows("dice_revealed.dice", &x.dice)?;
            let counted = counted_from_wire(x, &dice)?;
            EventKind::DiceRevealed { dice, counted }
        }
        K::RoundSettled(x) => EventKind::RoundSettled {
            showdown: showdown_from_wire(x.showdown.as_ref())?,
            winner: s("round_settled.winner", x.winner)?,
            loser: s("round_settled.loser", x.loser)?,
        },
        K::DiceLost(x) => EventKind::DiceLost {
            seat: s("dice_lost.seat", x.seat)?,
            count: narrow("dice_lost.count", x.count)?,
            left: narrow("dice_lost.left", x.left)?,
        },
        K::DiceWon(x) => EventKind::DiceWon {
            seat: s("dice_won.seat", x.seat)?,
            count: narrow("dice_won.count", x.count)?,
            now: narrow("dice_won.now", x.now)?,
        },
        K::DiceGiven(x) => EventKind::DiceGiven {
            from: s("dice_given.from", x.from)?,
            to: s("dice_given.to", x.to)?,
            count: narrow("dice_given.count", x.count)?,
        },
        K::Watched(x) => EventKind::Watched { seat: s("watched.seat", x.seat)? },
        K::Scored(x) => EventKind::Scored {
            seat: s("scored.seat", x.seat)?,
            points: x.points,
            total: x.total,
            discarded: x.discarded,
        },
        K::Paid(x) => {
            EventKind::Paid { from: s("paid.from", x.from)?, to: s("paid.to", x.to)?, amount: x.amount }
        }
        K::Drank(x) => EventKind::Drank { seat: s("drank.seat", x.seat)?, drinks: x.drinks, total: x.total },
        K::Eliminated(x) => EventKind::Eliminated {
            seat: s("eliminated.seat", x.seat)?,
            place: s("eliminated.place", x.place)?,
        },
        K::SeatLeft(x) => EventKind::SeatLeft {
            seat: s("seat_left.seat", x.seat)?,
            place: s("seat_left.place", x.place)?,
            starter: s("seat_left.starter", x.starter)?,
            palifico: seats_from_wire("seat_left.palifico", &x.palifico)?,
            wild: opt_face("seat_left.wild", x.wild)?,
        },
        K::ResultsTable(x) => EventKind::ResultsTable {
            rows: x
                .rows
                .iter()
                .map(|r| {
                    Ok(ResultRow {
                        seat: s("results_table.seat", r.seat)?,
                        bid: bid_from_wire("results_table.bid", r.bid.as_ref())?,
                        actual: narrow("results_table.actual", r.actual)?,
                        was_true: r.was_true,
                    })
                })
                .collect::<Result<_, ConvertError>>()?,
        },
        K::HandStarted(x) => {
            EventKind::HandStarted { hand: x.hand, starter: s("hand_started.starter", x.starter)? }
        }
        K::Accepted(x) => EventKind::Accepted { seat: s("accepted.seat", x.seat)? },
        K::HandRolled(x) => EventKind::HandRolled {
            seat: s("hand_rolled.seat", x.seat)?,
            count: s("hand_rolled.count", x.count)?,
        },
        K::HandSeen(x) => {
            EventKind::HandSeen { seat: s("hand_seen.seat", x.seat)?, dice: list("hand_seen.dice", &x.dice)? }
        }
        K::DiceShown(x) => EventKind::DiceShown {
            seat: s("dice_shown.seat", x.seat)?,
            dice: x
                .dice
                .iter()
                .map(|d| Ok((s("dice_shown.position", d.position)?, narrow("dice_shown.face", d.face)?)))
                .collect::<Result<_, ConvertError>>()?,
        },
        K::Claimed(x) => EventKind::Claimed {
            seat: s("claimed.seat", x.seat)?,
            spoken: hand_from_wire("claimed.spoken", x.spoken.as_ref())?,
            claim: hand_from_wire("claimed.claim", x.claim.as_ref())?,
        },
        K::HandRevealed(x) => EventKind::HandRevealed { dice: list("hand_revealed.dice", &x.dice)? },
        K::ChallengeSettled(x) => EventKind::ChallengeSettled {
            claim: hand_from_wire("challenge_settled.claim", x.claim.as_ref())?,
            hand: hand_from_wire("challenge_settled.hand", x.hand.as_ref())?,
            winner: s("challenge_settled.winner", x.winner)?,
            loser: s("challenge_settled.loser", x.loser)?,
        },
        K::FiveAces(x) => EventKind::FiveAces { seat: s("five_aces.seat", x.seat)?, made: x.made },
        K::CupCaught(x) => {
            EventKind::CupCaught { seat: s("cup_caught.seat", x.seat)?, caught: x.caught, drinks: x.drinks }
        }
        K::LifeLost(x) => EventKind::LifeLost {
            seat: s("life_lost.seat", x.seat)?,
            lives: narrow("life_lost.lives", x.lives)?,
        },
        K::DogsLife(x) => EventKind::DogsLife { seat: s("dogs_life.seat", x.seat)?, barked: x.barked },
        K::GameOver(x) => EventKind::GameOver {
            standings: seats_from_wire("game_over.standings", &x.standings)?,
            points: x.points.clone(),
            money: x.money.clone(),
            drinks: x.drinks.clone(),
        },
    };
    Ok((e.seq, Event { audience: audience_from_wire(e.audience.as_ref())?, kind }))
}

fn claim_from_wire(c: &pb::Claim) -> Result<Claim, ConvertError> {
    use pb::claim::Kind;
    Ok(Claim {
        seat: seat("claims.seat", c.seat)?,
        kind: match c.kind.as_ref().ok_or_else(|| bad("claims.kind", "none given"))? {
            Kind::Bid(b) => ClaimKind::Bid(bid_from_wire("claims.bid", Some(b))?),
            Kind::PushBid(b) => ClaimKind::PushBid(bid_from_wire("claims.push_bid", Some(b))?),
            Kind::Pass(_) => ClaimKind::Pass,
        },
    })
}

fn player_from_wire(p: &pb::PlayerView) -> Result<PlayerView, ConvertError> {
    Ok(PlayerView {
        dice: narrow("players.dice", p.dice)?,
        pushed: list("players.pushed", &p.pushed)?,
        place: p.place.map(|x| seat("players.place", x)).transpose()?,
        left: p.left,
        had_palifico: p.had_palifico,
        exact_used: p.exact_used,
        score: p.score,
        money: p.money,
        drinks: p.drinks,
        watching: p.watching,
        last_guess: p
            .last_guess
            .as_ref()
            .map(|b| bid_from_wire("players.last_guess", Some(b)))
            .transpose()?,
        lives: narrow("players.lives", p.lives)?,
    })
}

fn hand_view_from_wire(h: &pb::HandView) -> Result<HandView, ConvertError> {
    Ok(HandView {
        holder: seat("hand.holder", h.holder)?,
        accepted: h.accepted,
        dice: sight_from_wire("hand.dice", &h.dice)?,
        shown: h.shown.clone(),
        claim: h
            .claim
            .as_ref()
            .map(|c| {
                Ok((seat("hand.claim.seat", c.seat)?, hand_from_wire("hand.claim.hand", c.hand.as_ref())?))
            })
            .transpose()?,
        rolls_this_turn: narrow("hand.rolls_this_turn", h.rolls_this_turn)?,
        five_aces_tries: h.five_aces_tries.map(|x| narrow("hand.five_aces_tries", x)).transpose()?,
        dogs_life_pending: h.dogs_life_pending.map(|x| seat("hand.dogs_life_pending", x)).transpose()?,
        dogs_life_taken: h.dogs_life_taken,
    })
}

/// A view from the wire.
pub fn view_from_wire(v: &pb::View) -> Result<View, ConvertError> {
    Ok(View {
        seat: v.seat.map(|s| seat("view.seat", s)).transpose()?,
        phase: if v.over { dudo_rules::game::Phase::Over } else { dudo_rules::game::Phase::Bidding },
        round: v.round,
        starter: seat("view.starter", v.starter)?,
        turn: v.turn.map(|s| seat("view.turn", s)).transpose()?,
        players: v.players.iter().map(player_from_wire).collect::<Result<_, _>>()?,
        my_dice: sight_from_wire("view.my_dice", &v.my_dice)?,
        all_dice: if v.sees_all_dice { Some(dice_rows("view.all_dice", &v.all_dice)?) } else { None },
        claims: v.claims.iter().map(claim_from_wire).collect::<Result<_, _>>()?,
        current_bid: v
            .current_bid
            .as_ref()
            .map(|b| {
                Ok((
                    seat("view.current_bid.seat", b.seat)?,
                    bid_from_wire("view.current_bid", b.bid.as_ref())?,
                ))
            })
            .transpose()?,
        wild: opt_face("view.wild", v.wild)?,
        palifico: seats_from_wire("view.palifico", &v.palifico)?,
        last_result: v
            .last_result
            .as_ref()
            .map(|r| {
                Ok(std::sync::Arc::new(RoundResult {
                    round: r.round,
                    dice: dice_rows("view.last_result.dice", &r.dice)?,
                    showdown: showdown_from_wire(r.showdown.as_ref())?,
                    winner: seat("view.last_result.winner", r.winner)?,
                    loser: seat("view.last_result.loser", r.loser)?,
                }))
            })
            .transpose()?,
        standings: seats_from_wire("view.standings", &v.standings)?,
        hand: v.hand.as_ref().map(hand_view_from_wire).transpose()?,
        moves: v.moves,
    })
}

/// Legal actions from the wire; the rule set says which individual-hand game (if any) they
/// are for, which the engine needs to list them.
pub fn legal_from_wire(l: &pb::Legal, rules: &r::RuleSet) -> Result<Legal, ConvertError> {
    let mut legal = Legal {
        bids: l
            .bids
            .iter()
            .map(|b| {
                Ok(BidRange {
                    face: narrow("legal.bids.face", b.face)?,
                    min_quantity: narrow("legal.bids.min_quantity", b.min_quantity)?,
                    max_quantity: narrow("legal.bids.max_quantity", b.max_quantity)?,
                })
            })
            .collect::<Result<_, ConvertError>>()?,
        push: l.push,
        pass: l.pass,
        dudo: seats_from_wire("legal.dudo", &l.dudo)?,
        calza: l.calza,
        watch: l.watch,
        accept: l.accept,
        roll: l
            .roll
            .map(|o| {
                Ok::<_, ConvertError>(dudo_rules::game::RollOptions {
                    all: o.all,
                    may_show: o.may_show,
                    drinks: narrow("legal.roll.drinks", o.drinks)?,
                })
            })
            .transpose()?,
        claim_from: l.claim_from.as_ref().map(|h| hand_from_wire("legal.claim_from", Some(h))).transpose()?,
        claim_to: l.claim_to.as_ref().map(|h| hand_from_wire("legal.claim_to", Some(h))).transpose()?,
        claim_held: l.claim_held,
        dogs_life: l.dogs_life,
        hand_game: rules.family.hand_game(),
    };
    // The engine's "nothing to do" is the default value, game or not.
    if legal.is_empty() {
        legal.hand_game = None;
    }
    Ok(legal)
}

/// Which of the server's limits stopped a game, on the wire.
pub fn leave_why_to_wire(why: LeaveWhy) -> pb::LeaveWhy {
    match why {
        LeaveWhy::Left => pb::LeaveWhy::Left,
        LeaveWhy::Removed => pb::LeaveWhy::Removed,
        LeaveWhy::Away => pb::LeaveWhy::Away,
        LeaveWhy::TimedOut => pb::LeaveWhy::TimedOut,
    }
}

pub fn leave_why_from_wire(why: i32) -> Option<LeaveWhy> {
    Some(match pb::LeaveWhy::try_from(why).ok()? {
        pb::LeaveWhy::Left => LeaveWhy::Left,
        pb::LeaveWhy::Removed => LeaveWhy::Removed,
        pb::LeaveWhy::Away => LeaveWhy::Away,
        pb::LeaveWhy::TimedOut => LeaveWhy::TimedOut,
    })
}

pub fn stop_why_to_wire(why: StopWhy) -> pb::game_stop::Why {
    match why {
        StopWhy::Moves => pb::game_stop::Why::Moves,
        StopWhy::Time => pb::game_stop::Why::Time,
        StopWhy::Size => pb::game_stop::Why::Size,
        StopWhy::Memory => pb::game_stop::Why::Memory,
    }
}

/// Which of the server's limits stopped a game, from the wire (`None`: not a reason).
pub fn stop_why_from_wire(why: i32) -> Option<StopWhy> {
    match pb::game_stop::Why::try_from(why).ok()? {
        pb::game_stop::Why::Moves => Some(StopWhy::Moves),
        pb::game_stop::Why::Time => Some(StopWhy::Time),
        pb::game_stop::Why::Size => Some(StopWhy::Size),
        pb::game_stop::Why::Memory => Some(StopWhy::Memory),
        pb::game_stop::Why::Unspecified => None,
    }
}

/// A tournament's standings for the wire: `games` ended, `name` gives an entrant's name.
pub fn standings_to_wire(
    s: &dudo_tournament::Standings,
    games: u64,
    name: impl Fn(usize) -> String,
) -> pb::TournamentStandings {
    let low = |i: Option<(f64, f64)>| i.map(|i| i.0);
    let high = |i: Option<(f64, f64)>| i.map(|i| i.1);
    pb::TournamentStandings {
        entrants: s
            .entrants
            .iter()
            .map(|e| pb::TournamentStanding {
                entrant: e.entrant as u32,
                name: name(e.entrant),
                games: e.games,
                wins: e.wins,
                mean_points: e.mean_points,
                low: low(e.interval),
                high: high(e.interval),
                mean_place: e.mean_place,
                deals: e.deals,
                points: e.points,
                // The server's to say (the engine's standings know nothing of benches).
                benched: String::new(),
            })
            .collect(),
        pairs: s
            .pairs
            .iter()
            .map(|c| pb::TournamentPair {
                better: c.better as u32,
                worse: c.worse as u32,
                difference: c.difference,
                low: low(c.interval),
                high: high(c.interval),
                deals: c.deals,
                ahead: c.ahead(),
            })
            .collect(),
        games,
    }
}

/// The standings a server sent, in the tournament crate's terms.
pub fn standings_from_wire(s: &pb::TournamentStandings) -> dudo_tournament::Standings {
    let interval = |low: Option<f64>, high: Option<f64>| low.zip(high);
    dudo_tournament::Standings {
        entrants: s
            .entrants
            .iter()
            .map(|e| dudo_tournament::Standing {
                entrant: e.entrant as usize,
                games: e.games,
                wins: e.wins,
                points: e.points,
                mean_points: e.mean_points,
                interval: interval(e.low, e.high),
                mean_place: e.mean_place,
                deals: e.deals,
            })
            .collect(),
        pairs: s
            .pairs
            .iter()
            .map(|c| dudo_tournament::Comparison {
                better: c.better as usize,
                worse: c.worse as usize,
                difference: c.difference,
                interval: interval(c.low, c.high),
                deals: c.deals,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use dudo_rules::{Game, presets, seed_from_u64};

    use super::*;

    #[test]
    fn every_preset_round_trips() {
        for name in presets::NAMES {
            let rules = presets::by_name(name).unwrap();
            assert_eq!(rules_from_wire(&rules_to_wire(&rules)).as_ref(), Ok(&rules), "{name}");
        }
    }

    #[test]
    fn bad_values_name_their_field() {
        // Proto3 cannot tell an absent number from zero: a bare rule set is refused, not guessed.
        let bare = pb::RuleSet { name: "bare".into(), ..Default::default() };
        assert_eq!(rules_from_wire(&bare).unwrap_err().field, "dice_lost_on_dudo");
        let mut wrong = rules_to_wire(&presets::fibbing());
        wrong.wilds = 99;
        assert_eq!(rules_from_wire(&wrong).unwrap_err().field, "wilds");
        let mut wide = rules_to_wire(&presets::fibbing());
        wide.dice = Some(pb::DiceRules { start: 5, max: 5, faces: 300 });
        assert_eq!(rules_from_wire(&wide).unwrap_err().field, "dice.faces");
        let mut invalid = rules_to_wire(&presets::fibbing());
        invalid.dice = Some(pb::DiceRules { start: 5, max: 5, faces: 12 });
        assert_eq!(rules_from_wire(&invalid).unwrap_err().field, "dice.faces");
    }

    #[test]
    fn actions_round_trip_and_hostile_ones_are_refused() {
        let hand = Hand::new(vec![3, 3, 4, 2, 1]);
        for a in [
            Action::Bid(Bid::new(3, 5)),
            Action::Push { dice: vec![5, 5], bid: Bid::new(6, 5) },
            Action::Pass,
            Action::Dudo { target: None },
            Action::Dudo { target: Some(2) },
            Action::Calza,
            Action::Watch,
            Action::Accept,
            Action::Roll { dice: vec![0, 2], show: vec![1] },
            Action::Claim(hand),
            Action::DogsLife { bark: true },
        ] {
            assert_eq!(action_from_wire(&action_to_wire(&a)), Ok(a.clone()), "{a}");
        }
        assert!(action_from_wire(&pb::Action { action: None }).is_err());
        let huge = pb::Action {
            action: Some(pb::action::Action::Roll(pb::Roll { dice: vec![0; 100_000], show: vec![] })),
        };
        assert_eq!(action_from_wire(&huge).unwrap_err().field, "roll.dice");
        let wide = pb::Action { action: Some(pb::action::Action::Bid(pb::Bid { quantity: 1, face: 1000 })) };
        assert_eq!(action_from_wire(&wide).unwrap_err().field, "bid");
    }

    #[test]
    fn whole_games_of_every_preset_go_on_the_wire() {
        for name in presets::NAMES {
            let rules = presets::by_name(name).unwrap();
            let seats = if *name == "openspiel" { 2 } else { 4 };
            let (mut game, events) = Game::start(rules, seats, seed_from_u64(3)).unwrap();
            let rules = game.rules().clone();
            let mut seq = 0u64;
            for e in events {
                let e = TableEvent::Game(e);
                assert_eq!(event_from_wire(&event_to_wire(seq, &e)), Ok((seq, e.clone())), "{name}");
                seq += 1;
            }
            let mut steps = 0;
            while let Some(turn) = game.turn() {
                for seat in 0..seats {
                    let view = game.view(seat);
                    assert_eq!(view_from_wire(&view_to_wire(&view)).as_ref(), Ok(&view), "{name}");
                    let legal = game.legal(seat);
                    assert_eq!(
                        legal_from_wire(&legal_to_wire(&legal), &rules).as_ref(),
                        Ok(&legal),
                        "{name}"
                    );
                }
                let action = game.default_action(turn).unwrap();
                assert_eq!(action_from_wire(&action_to_wire(&action)).as_ref(), Ok(&action));
                for e in game.apply(turn, &action).unwrap() {
                    assert_eq!(
                        game_event_from_wire(&game_event_to_wire(seq, &e)),
                        Ok((seq, e.clone())),
                        "{name}"
                    );
                    let e = TableEvent::Game(e);
                    assert_eq!(event_from_wire(&event_to_wire(seq, &e)), Ok((seq, e.clone())), "{name}");
                    seq += 1;
                }
                steps += 1;
                if steps > 3000 {
                    break;
                }
            }
            let view = game.spectator_view();
            assert_eq!(view_from_wire(&view_to_wire(&view)).as_ref(), Ok(&view), "{name}");
        }
    }

    #[test]
    fn a_reveal_s_counts_round_trip_and_inconsistent_ones_are_refused() {
        let dice = vec![vec![1, 5, 6], vec![], vec![2, 5]];
        let counted =
            Counted { face: 5, marks: vec![vec![true, true, false], vec![], vec![false, true]], total: 3 };
        let reveal = |counted: Option<Counted>| {
            TableEvent::Game(Event {
                audience: Audience::Everyone,
                kind: EventKind::DiceRevealed { dice: dice.clone(), counted },
            })
        };
        for e in [reveal(Some(counted.clone())), reveal(None)] {
            assert_eq!(event_from_wire(&event_to_wire(7, &e)), Ok((7, e.clone())));
        }
        let wire = event_to_wire(7, &reveal(Some(counted)));
        let Some(pb::event::Kind::DiceRevealed(good)) = wire.kind.clone() else { panic!("{wire:?}") };
        assert_eq!(good.counted.iter().map(|c| c.count).collect::<Vec<_>>(), [2, 0, 1]);
        let refused = |change: &dyn Fn(&mut pb::DiceRevealed)| {
            let mut x = good.clone();
            change(&mut x);
            let e = pb::Event { kind: Some(pb::event::Kind::DiceRevealed(x)), ..wire.clone() };
            event_from_wire(&e).unwrap_err().field
        };
        assert_eq!(refused(&|x| x.counted[0].dice.push(true)), "dice_revealed.counted");
        assert_eq!(refused(&|x| x.counted.truncate(2)), "dice_revealed.counted");
        assert_eq!(refused(&|x| x.counted[2].count = 2), "dice_revealed.counted.count");
        assert_eq!(refused(&|x| x.total = Some(4)), "dice_revealed.total");
        assert_eq!(refused(&|x| x.total = None), "dice_revealed.total");
        assert_eq!(refused(&|x| x.face = None), "dice_revealed.face");
        assert_eq!(refused(&|x| x.face = Some(300)), "dice_revealed.face");
    }

    #[test]
    fn the_table_s_own_events_round_trip() {
        for e in [
            TableEvent::DiceCommitted {
                round: 2,
                commitments: vec![(0, "ab".into()), (1, "cd".into())],
                table: "ef".into(),
            },
            TableEvent::DiceSalts { round: 2, salts: vec![(1, "00".repeat(16), vec![3, 4])] },
            TableEvent::TurnTimedOut { seat: 1, action: Action::Dudo { target: None } },
            TableEvent::CallWindowLapsed { seats: vec![0, 2], cut_short: vec![1] },
            TableEvent::SeatLeaving { seat: 1, why: LeaveWhy::Removed, at_round_end: true },
        ] {
            assert_eq!(event_from_wire(&event_to_wire(3, &e)), Ok((3, e.clone())));
            assert_eq!(game_event_from_wire(&event_to_wire(3, &e)).unwrap_err().field, "event.kind");
        }
    }
}
