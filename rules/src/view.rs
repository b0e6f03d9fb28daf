//! The vocabulary both game kinds speak: what a seat sees ([`View`], [`PlayerView`],
//! [`HandView`]) and may do ([`Legal`], [`RollOptions`]), the claims of a round, where a game
//! is ([`Phase`]), where events go ([`EventSink`]), the steps every kind may take (the
//! roll-off, a drink) and why a game cannot start. The common hand (`game`) and the
//! individual hand (`individual`) both build on it; neither names the other's module for it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::action::{Action, Seat};
use crate::bid::{Bid, BidRange};
use crate::dice::DiceSource;
use crate::event::{Audience, Event, EventKind, Showdown};
use crate::ruleset::*;

/// Where events go. [`Game::apply`] collects them into a `Vec`; playouts discard them.
pub trait EventSink {
    fn push(&mut self, event: Event);
    /// Whether events are wanted at all: a sink that drops them spares the engine building them.
    fn wants(&self) -> bool {
        true
    }
}

impl EventSink for Vec<Event> {
    fn push(&mut self, event: Event) {
        Vec::push(self, event);
    }
}

/// Discards events: for playouts that only want the result.
pub struct Discard;

impl EventSink for Discard {
    fn push(&mut self, _: Event) {}
    fn wants(&self) -> bool {
        false
    }
}

/// A claim made this round, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub seat: Seat,
    pub kind: ClaimKind,
}

/// What a claim said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    Bid(Bid),
    /// A bid made with a push and re-roll.
    PushBid(Bid),
    Pass,
}

impl ClaimKind {
    pub fn bid(self) -> Option<Bid> {
        match self {
            ClaimKind::Bid(b) | ClaimKind::PushBid(b) => Some(b),
            ClaimKind::Pass => None,
        }
    }
}

/// Where the game is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    #[default]
    Bidding,
    Over,
}

/// The end of the last round, as everyone saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundResult {
    pub round: u32,
    pub dice: Vec<Vec<u8>>,
    pub showdown: Showdown,
    pub winner: Seat,
    pub loser: Seat,
}

/// Everything one seat may do right now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Legal {
    /// For each face, the quantities that would be a legal bid.
    pub bids: Vec<BidRange>,
    /// Whether a push and re-roll (with a bid from `bids`) is allowed.
    pub push: bool,
    pub pass: bool,
    /// Seats whose claim may be challenged; the first is the last claim.
    pub dudo: Vec<Seat>,
    pub calza: bool,
    /// Stop guessing for the round (001's Watch).
    pub watch: bool,
    /// Individual hand: take the cup without challenging.
    pub accept: bool,
    /// Individual hand: how the dice may be re-rolled now, if at all.
    pub roll: Option<RollOptions>,
    /// Individual hand: the weakest claim allowed now; every better hand up to `claim_to` is
    /// allowed too.
    pub claim_from: Option<crate::hand::Hand>,
    /// Individual hand: the strongest claim allowed now, when it is not the top hand (`None`:
    /// up to the top). Claiming the Mexican means showing a one: with none under the cup, the
    /// best claim is the hand below it.
    #[serde(default)]
    pub claim_to: Option<crate::hand::Hand>,
    /// Individual hand: the hand under the cup, which this seat has seen whole, is itself a
    /// claim allowed now (not an undercall): claiming the truth is on offer.
    #[serde(default)]
    pub claim_held: bool,
    /// Individual hand: take or decline the dog's life.
    pub dogs_life: bool,
    /// Individual hand: which game, so the actions can be listed.
    pub hand_game: Option<crate::hand::HandGame>,
}

/// How an individual-hand roll may be made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollOptions {
    /// Every die must be rolled (a new hand, Mexican, the five-aces test's first try).
    pub all: bool,
    /// Dice may be left in view of all (Stanford).
    pub may_show: bool,
    /// Drinks this roll costs (Mexican's "take a drink for another roll").
    pub drinks: u8,
}

impl Legal {
    /// The kinds of action this allows, named as [`Action::kind`] names them, with a bid that
    /// opens a round (no claim to challenge yet) told apart as `opening bid`.
    pub fn kinds(&self) -> impl Iterator<Item = &'static str> {
        let opening = self.dudo.is_empty() && self.claim_from.is_none() && !self.accept;
        [
            (!self.bids.is_empty() && opening, "opening bid"),
            (!self.bids.is_empty() && !opening, "bid"),
            (self.push, "push"),
            (self.pass, "pass"),
            (!self.dudo.is_empty(), "dudo"),
            (self.calza, "calza"),
            (self.watch, "watch"),
            (self.accept, "accept"),
            (self.roll.is_some(), "roll"),
            (self.claim_from.is_some() || self.claim_held, "claim"),
            (self.dogs_life, "dog's life"),
        ]
        .into_iter()
        .filter_map(|(on, kind)| on.then_some(kind))
    }

    pub fn is_empty(&self) -> bool {
        self.bids.is_empty()
            && !self.push
            && !self.pass
            && self.dudo.is_empty()
            && !self.calza
            && !self.watch
            && !self.accept
            && self.roll.is_none()
            && self.claim_from.is_none()
            && !self.dogs_life
    }

    /// Every legal action except pushes (whose dice choices multiply the list; see `push`).
    pub fn actions(&self) -> Vec<Action> {
        let mut out = Vec::new();
        for r in &self.bids {
            out.extend((r.min_quantity..=r.max_quantity).map(|q| Action::Bid(Bid::new(q, r.face))));
        }
        if self.pass {
            out.push(Action::Pass);
        }
        if let Some((_, earlier)) = self.dudo.split_first() {
            // The last claim is the default target; earlier ones are named.
            out.push(Action::Dudo { target: None });
            out.extend(earlier.iter().map(|&s| Action::Dudo { target: Some(s) }));
        }
        if self.calza {
            out.push(Action::Calza);
        }
        if self.watch {
            out.push(Action::Watch);
        }
        if self.accept {
            out.push(Action::Accept);
        }
        if let (Some(roll), Some(game)) = (self.roll, self.hand_game) {
            let n = game.dice();
            if roll.all {
                out.push(Action::Roll { dice: (0..n).collect(), show: Vec::new() });
            } else {
                // Every non-empty set of positions (showing nothing: a choice of its own).
                for mask in 1u32..(1 << n) {
                    let dice = (0..n).filter(|i| mask & (1 << i) != 0).collect();
                    out.push(Action::Roll { dice, show: Vec::new() });
                }
            }
        }
        if let (Some(from), Some(game)) = (&self.claim_from, self.hand_game) {
            let floor = game.value(&from.dice);
            let ceiling = self.claim_to.as_ref().map_or(u64::MAX, |to| game.value(&to.dice));
            out.extend(
                game.ordered()
                    .iter()
                    .filter(|h| (floor..=ceiling).contains(&h.0))
                    .map(|h| Action::Claim(h.1.clone())),
            );
        }
        if self.dogs_life {
            out.push(Action::DogsLife { bark: true });
            out.push(Action::DogsLife { bark: false });
        }
        out
    }

    /// The least legal bid on `face`, if any.
    pub fn min_bid(&self, face: u8) -> Option<Bid> {
        self.bids.iter().find(|r| r.face == face).map(|r| Bid::new(r.min_quantity, face))
    }

    /// [`crate::action::parse_call`] at a seat that knows what it may do: a push without a
    /// bid ("push 5 5") raises to the least legal bid on the highest face pushed, as players
    /// say it at a table.
    pub fn parse_call(&self, input: &str) -> Result<Action, crate::action::CallParseError> {
        let parsed = crate::action::parse_call(input);
        if parsed.is_ok() {
            return parsed;
        }
        let lower = input.trim().to_ascii_lowercase();
        let words: Vec<&str> =
            lower.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).collect();
        let Some((&"push", dice_words)) = words.split_first() else { return parsed };
        let Some(dice) = dice_words.iter().map(|w| crate::action::parse_face(w)).collect::<Option<Vec<u8>>>()
        else {
            return parsed;
        };
        let Some(bid) = dice.iter().max().and_then(|&face| self.min_bid(face)) else { return parsed };
        Ok(Action::Push { dice, bid })
    }
}

/// One player as every seat sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerView {
    pub dice: u16,
    /// Dice pushed this round, in view of all.
    pub pushed: Vec<u8>,
    /// Finishing place, once out.
    pub place: Option<usize>,
    pub left: bool,
    /// Has had a Palifico round (000's "ex-Palifico" once it is over).
    pub had_palifico: bool,
    pub exact_used: bool,
    /// Points (001's game).
    pub score: i64,
    /// Money won or lost (002's gambling).
    pub money: i64,
    /// Drinks taken (002's drinking game).
    pub drinks: u32,
    /// Watching this round (001).
    pub watching: bool,
    /// This round's last guess (001).
    pub last_guess: Option<Bid>,
    /// Lives left (individual-hand games).
    pub lives: u8,
}

/// What one seat, or a spectator, may know. The hidden-information boundary is here.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Whose view this is; `None` for a spectator.
    pub seat: Option<Seat>,
    pub phase: Phase,
    pub round: u32,
    pub starter: Seat,
    /// Whose turn it is (none once the game is over).
    pub turn: Option<Seat>,
    pub players: Vec<PlayerView>,
    /// Your dice under the cup as you were shown them (`None`: hidden from you).
    pub my_dice: Vec<Option<u8>>,
    /// Every player's true dice, when you may see them (an eliminated player when losers see dice).
    pub all_dice: Option<Vec<Vec<u8>>>,
    pub claims: Vec<Claim>,
    pub current_bid: Option<(Seat, Bid)>,
    pub wild: Option<u8>,
    pub palifico: Vec<Seat>,
    pub last_result: Option<Arc<RoundResult>>,
    /// Seats from first place to last, once the game is over.
    pub standings: Vec<Seat>,
    /// The cup of an individual-hand game, as this viewer may see it.
    pub hand: Option<HandView>,
    /// Actions played so far this game, by anyone: a count every seat sees the same, which
    /// bots seed each decision from (so a seeded game plays the same wherever it is run).
    #[serde(default)]
    pub moves: u64,
}

/// An individual-hand game's cup and claim, as one viewer may see them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandView {
    /// Who holds the cup now.
    pub holder: Seat,
    /// Whether the holder has taken it (and looked), rather than still deciding to challenge.
    pub accepted: bool,
    /// Each die as this viewer sees it: `None` under the cup and unknown to the viewer.
    pub dice: Vec<Option<u8>>,
    /// Dice in view of all.
    pub shown: Vec<bool>,
    /// The claim in force: who made it, and the hand it means.
    pub claim: Option<(Seat, crate::hand::Hand)>,
    /// Rolls made by the holder this turn.
    pub rolls_this_turn: u8,
    /// The five-aces test under way: tries made.
    pub five_aces_tries: Option<u8>,
    /// A player deciding on the dog's life.
    pub dogs_life_pending: Option<Seat>,
    /// Whether the dog's life has been taken.
    pub dogs_life_taken: bool,
}

impl View {
    /// Dice in play this round.
    pub fn total_dice(&self) -> u16 {
        self.players.iter().filter(|p| p.place.is_none()).map(|p| p.dice).sum()
    }
}

/// The roll-off for the first starter (000, 001, 002): everyone throws one die, the highest
/// starts, and the tied throw again among themselves until one is left.
pub(crate) fn roll_off(dice: &mut DiceSource, seats: usize, faces: u8, events: &mut impl EventSink) -> Seat {
    let mut contenders: Vec<Seat> = (0..seats).collect();
    let mut throw = Vec::with_capacity(1);
    loop {
        let mut rolls = Vec::with_capacity(contenders.len());
        for &s in &contenders {
            dice.roll_into(s, 1, faces, &mut throw);
            rolls.push((s, throw.first().copied().unwrap_or(1)));
        }
        let best = rolls.iter().map(|r| r.1).max().unwrap_or(1);
        contenders = rolls.iter().filter(|r| r.1 == best).map(|r| r.0).collect();
        emit(events, || EventKind::RollOff { rolls });
        if let [winner] = contenders[..] {
            return winner;
        }
    }
}

fn public(kind: EventKind) -> Event {
    Event { audience: Audience::Everyone, kind }
}

/// Emits a public event, building it only if the sink wants it.
/// A public event, built only if the sink keeps events (simulations discard them).
pub(crate) fn emit(events: &mut impl EventSink, kind: impl FnOnce() -> EventKind) {
    if events.wants() {
        events.push(public(kind()));
    }
}

/// Adds `drinks` to a player's tally (002's drinking game, both game kinds) and says so.
pub(crate) fn drink(tally: &mut u32, seat: Seat, drinks: u32, events: &mut impl EventSink) {
    if drinks == 0 {
        return;
    }
    *tally = tally.saturating_add(drinks);
    let total = *tally;
    emit(events, || EventKind::Drank { seat, drinks, total });
}

/// "2 to 6 players", or "exactly 2 players" where the two are one.
pub fn seats_allowed(min: usize, max: usize) -> String {
    if min == max { format!("exactly {min} players") } else { format!("{min} to {max} players") }
}

/// Why a game could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Rules(#[from] InvalidRules),
    #[error("this rule set seats {}, not {seats}", seats_allowed(*.min, *.max))]
    Seats { seats: usize, min: usize, max: usize },
    #[error("starting dice per seat must be given for every seat, each from 1 to 40")]
    StartDice,
}
