//! The common-hand game: everyone has dice, claims are about all the dice on the table.
//!
//! [`Game`] is a deterministic state machine in the OpenSpiel mould: [`Game::legal`] for any
//! seat at any moment, [`Game::apply`] returning the events an action caused (or a
//! [`RuleError`] with the state untouched: every check runs before anything changes),
//! [`Game::view`] for exactly what one seat may know, [`Game::spectator_view`],
//! [`Game::is_over`] and [`Game::standings`]. The individual-hand family joins as a second
//! game kind behind the same methods.

use std::sync::Arc;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::action::{Action, Seat};
use crate::bid::{Bid, BidProblem, BidRange, Bidding, FaceRule};
use crate::dice::{DiceSource, Seed};
use crate::error::RuleError;
use crate::event::{Audience, Event, EventKind, ResultRow, SeatSet, Showdown};
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

#[derive(Clone, Debug, PartialEq)]
struct Player {
    /// Dice this player owns: under the cup plus pushed.
    dice_count: u16,
    /// True faces under the cup.
    cup: Vec<u8>,
    /// What the owner was shown of each cup die (fibbing may hide or misshow).
    sight: Vec<Option<u8>>,
    /// Dice pushed out of the cup this round, true faces, seen by all.
    pushed: Vec<u8>,
    /// Finishing place once out of the game.
    place: Option<usize>,
    /// Left the table (or was removed) rather than losing its dice.
    left: bool,
    /// Had its special round already (000: "ex-Palifico").
    had_palifico: bool,
    /// Dropped to one die in the last round (003's trigger).
    just_reached_one_die: bool,
    exact_used: bool,
    passed_this_roll: bool,
    passed_this_round: bool,
    pushed_this_round: bool,
}

impl Player {
    fn active(&self) -> bool {
        self.place.is_none()
    }
}

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
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

/// A game of the common-hand family.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    rules: Arc<RuleSet>,
    dice: DiceSource,
    players: Vec<Player>,
    phase: Phase,
    round: u32,
    starter: Seat,
    turn: Seat,
    claims: Vec<Claim>,
    /// The bid in force and who made it.
    current: Option<(Seat, Bid)>,
    /// The wild face this round, if any.
    wild: Option<u8>,
    /// Seats this round is a Palifico / special round for; empty in a normal round.
    palifico: SeatSet,
    pushes_this_round: u32,
    last_natural_quantity: u16,
    /// Seats in the order they went out.
    out_order: Vec<Seat>,
    /// Set when the game ends: first place to last.
    final_standings: Vec<Seat>,
    last_result: Option<RoundResult>,
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
}

impl Legal {
    pub fn is_empty(&self) -> bool {
        self.bids.is_empty() && !self.push && !self.pass && self.dudo.is_empty() && !self.calza
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
        out
    }

    /// The least legal bid on `face`, if any.
    pub fn min_bid(&self, face: u8) -> Option<Bid> {
        self.bids.iter().find(|r| r.face == face).map(|r| Bid::new(r.min_quantity, face))
    }
}

/// One player as every seat sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// What one seat, or a spectator, may know. The hidden-information boundary is here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    pub last_result: Option<RoundResult>,
    /// Seats from first place to last, once the game is over.
    pub standings: Vec<Seat>,
}

impl View {
    /// Dice in play this round.
    pub fn total_dice(&self) -> u16 {
        self.players.iter().filter(|p| p.place.is_none()).map(|p| p.dice).sum()
    }
}

/// The name the table's rules give the exact call.
pub fn exact_call_name(rules: &RuleSet) -> &'static str {
    match (rules.exact_call.who, rules.exact_call.limit) {
        (_, ExactLimit::OncePerGame) => "exact",
        (ExactCaller::OnTurn, _) => "jonti",
        _ => "calza",
    }
}

impl Game {
    /// Starts a game of `seats` players with dice from `seed`: the roll-off (if the rules
    /// want one) and the first round's roll are the returned events.
    pub fn start(
        rules: impl Into<Arc<RuleSet>>,
        seats: usize,
        seed: Seed,
    ) -> Result<(Game, Vec<Event>), StartError> {
        let mut events = Vec::new();
        let game = Game::start_into(rules.into(), seats, DiceSource::new(seed), None, &mut events)?;
        Ok((game, events))
    }

    /// Starts a game with a given dice source and, optionally, per-seat starting dice
    /// (handicaps and teaching positions; scripts use it).
    pub fn start_with(
        rules: impl Into<Arc<RuleSet>>,
        seats: usize,
        dice: DiceSource,
        start_dice: Option<Vec<u16>>,
    ) -> Result<(Game, Vec<Event>), StartError> {
        let mut events = Vec::new();
        let game = Game::start_into(rules.into(), seats, dice, start_dice, &mut events)?;
        Ok((game, events))
    }

    /// [`Game::start_with`] writing the opening events into any sink.
    pub fn start_into(
        rules: Arc<RuleSet>,
        seats: usize,
        dice: DiceSource,
        start_dice: Option<Vec<u16>>,
        events: &mut impl EventSink,
    ) -> Result<Game, StartError> {
        rules.validate().map_err(StartError::Rules)?;
        let (min, max) = (usize::from(rules.players.min), usize::from(rules.players.max));
        if seats < min || seats > max {
            return Err(StartError::Seats { seats, min, max });
        }
        let start = u16::from(rules.dice.start);
        if let Some(c) = &start_dice {
            // Handicaps may start above the maximum; exact calls still win back only up to it.
            if c.len() != seats || c.iter().any(|&n| n == 0 || n > 40) {
                return Err(StartError::StartDice);
            }
        }
        let count = |seat: usize| start_dice.as_ref().map_or(start, |c| c[seat]);
        let players = (0..seats)
            .map(|seat| Player {
                dice_count: count(seat),
                cup: Vec::with_capacity(usize::from(count(seat))),
                sight: Vec::with_capacity(usize::from(count(seat))),
                pushed: Vec::new(),
                place: None,
                left: false,
                had_palifico: false,
                just_reached_one_die: false,
                exact_used: false,
                passed_this_roll: false,
                passed_this_round: false,
                pushed_this_round: false,
            })
            .collect();
        let mut game = Game {
            rules,
            dice,
            players,
            phase: Phase::Bidding,
            round: 0,
            starter: 0,
            turn: 0,
            claims: Vec::with_capacity(8),
            current: None,
            wild: None,
            palifico: SeatSet::default(),
            pushes_this_round: 0,
            last_natural_quantity: 0,
            out_order: Vec::new(),
            final_standings: Vec::new(),
            last_result: None,
        };
        emit(events, || EventKind::GameStarted { seats, dice: (0..seats).map(count).collect() });
        let starter = match game.rules.first_starter {
            FirstStarter::FirstSeat => 0,
            FirstStarter::RollOff => game.roll_off(events),
        };
        emit(events, || EventKind::StarterChosen { seat: starter });
        game.start_round(starter, events);
        Ok(game)
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }
    pub fn seats(&self) -> usize {
        self.players.len()
    }
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }
    pub fn round(&self) -> u32 {
        self.round
    }
    /// Whose turn it is, if the game is on.
    pub fn turn(&self) -> Option<Seat> {
        (!self.is_over()).then_some(self.turn)
    }
    pub fn current_bid(&self) -> Option<(Seat, Bid)> {
        self.current
    }
    pub fn dice_count(&self, seat: Seat) -> u16 {
        self.players.get(seat).map_or(0, |p| p.dice_count)
    }
    pub fn is_active(&self, seat: Seat) -> bool {
        self.players.get(seat).is_some_and(Player::active)
    }
    /// The dice source, for the script runner's mismatch check.
    pub fn dice_source_mut(&mut self) -> &mut DiceSource {
        &mut self.dice
    }

    /// Seats from first place to last: final once the game is over; while it is on, the
    /// players still in (in seat order) and then the eliminated, last out first.
    pub fn standings(&self) -> Vec<Seat> {
        if self.is_over() {
            return self.final_standings.clone();
        }
        let mut s: Vec<Seat> = (0..self.players.len()).filter(|&i| self.players[i].active()).collect();
        s.extend(self.out_order.iter().rev());
        s
    }

    fn active_count(&self) -> usize {
        self.players.iter().filter(|p| p.active()).count()
    }

    fn total_dice(&self) -> u16 {
        self.players.iter().filter(|p| p.active()).map(|p| p.dice_count).sum()
    }

    /// The next seat still in the game after `seat`, in play order.
    fn next_active(&self, seat: Seat) -> Seat {
        let n = self.players.len();
        (1..=n).map(|i| (seat + i) % n).find(|&s| self.players[s].active()).unwrap_or(seat)
    }

    /// `seat` if still in, else the next seat that is.
    fn self_or_next_active(&self, seat: Seat) -> Seat {
        if self.players.get(seat).is_some_and(Player::active) { seat } else { self.next_active(seat) }
    }

    fn losers_seeing(&self) -> SeatSet {
        let mut set = SeatSet::default();
        if self.rules.losers_see_dice == LosersSeeDice::AllDice {
            for (i, p) in self.players.iter().enumerate() {
                if !p.active() && !p.left {
                    set.insert(i);
                }
            }
        }
        set
    }

    // ----- the roll-off and rounds -----

    fn roll_off(&mut self, events: &mut impl EventSink) -> Seat {
        let mut contenders: Vec<Seat> = (0..self.players.len()).collect();
        let mut throw = Vec::with_capacity(1);
        loop {
            let mut rolls = Vec::with_capacity(contenders.len());
            for &s in &contenders {
                self.dice.roll_into(s, 1, self.rules.dice.faces, &mut throw);
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

    fn start_round(&mut self, usual_starter: Seat, events: &mut impl EventSink) {
        self.round += 1;
        self.claims.clear();
        self.current = None;
        self.pushes_this_round = 0;
        self.last_natural_quantity = 0;
        self.palifico = SeatSet::default();
        let trigger = self.rules.palifico.trigger;
        let special_possible = trigger != PalificoTrigger::Off
            && self.active_count() >= usize::from(self.rules.palifico.min_players);
        for (i, p) in self.players.iter_mut().enumerate() {
            let fresh =
                p.just_reached_one_die && (trigger == PalificoTrigger::EveryTimeOnOneDie || !p.had_palifico);
            if p.active() && special_possible && fresh && p.dice_count == 1 {
                self.palifico.insert(i);
                p.had_palifico = true;
            }
            p.just_reached_one_die = false;
            p.pushed.clear();
            p.passed_this_roll = false;
            p.passed_this_round = false;
            p.pushed_this_round = false;
        }
        self.wild = if self.palifico.is_empty() { self.rules.wild_face() } else { None };
        let mut starter = self.self_or_next_active(usual_starter);
        if !self.palifico.is_empty()
            && self.rules.palifico.opener == PalificoOpener::OneDiePlayer
            && !self.palifico.contains(starter)
        {
            let n = self.players.len();
            if let Some(s) = (0..n).map(|i| (starter + i) % n).find(|&s| self.palifico.contains(s)) {
                starter = s;
            }
        }
        self.starter = starter;
        self.turn = starter;
        emit(events, || EventKind::RoundStarted {
            round: self.round,
            starter,
            dice_counts: self.players.iter().map(|p| if p.active() { p.dice_count } else { 0 }).collect(),
            palifico: self.palifico.iter().collect(),
            wild: self.wild,
        });
        for seat in 0..self.players.len() {
            if self.players[seat].active() {
                let n = usize::from(self.players[seat].dice_count);
                self.roll_cup(seat, n, events);
            }
        }
    }

    /// Rolls `n` fresh dice into the seat's cup (keeping nothing else under it) and tells
    /// the owner what it sees and the all-seeing audience what is true.
    fn roll_cup(&mut self, seat: Seat, n: usize, events: &mut impl EventSink) {
        let faces = self.rules.dice.faces;
        let fib = self.rules.fibbing;
        let mut cup = std::mem::take(&mut self.players[seat].cup);
        let mut sight = std::mem::take(&mut self.players[seat].sight);
        self.dice.roll_into(seat, n, faces, &mut cup);
        sight.clear();
        if fib.hide_percent == 0 && fib.misshow_percent == 0 {
            cup.sort_unstable();
            sight.extend(cup.iter().map(|&d| Some(d)));
        } else {
            let mut pairs: Vec<(Option<u8>, u8)> = Vec::with_capacity(cup.len());
            for &d in &cup {
                let seen = if self.dice.chance(fib.hide_percent) {
                    None
                } else if self.dice.chance(fib.misshow_percent) {
                    Some(self.dice.other_face(d, faces))
                } else {
                    Some(d)
                };
                pairs.push((seen, d));
            }
            // Order by what the owner sees (hidden last), so positions reveal nothing more.
            pairs.sort_unstable_by_key(|&(seen, d)| (seen.is_none(), seen, d));
            cup.clear();
            cup.extend(pairs.iter().map(|x| x.1));
            sight.extend(pairs.iter().map(|x| x.0));
        }
        let p = &mut self.players[seat];
        p.cup = cup;
        p.sight = sight;
        if !events.wants() {
            return;
        }
        // Always the same two events, whether or not fibbing changed anything: the owner's
        // sight, and the truth (sorted, so its order says nothing about what the owner saw).
        let sight = p.sight.clone();
        let mut truth = p.cup.clone();
        truth.sort_unstable();
        let losers = self.losers_seeing();
        events.push(Event {
            audience: Audience::Seats { seats: SeatSet::single(seat) },
            kind: EventKind::DiceRolled { seat, dice: sight },
        });
        events.push(Event {
            audience: Audience::Hidden { seats: losers },
            kind: EventKind::DiceRolled { seat, dice: truth.into_iter().map(Some).collect() },
        });
    }

    // ----- what is legal -----

    fn bidding_for(&self, seat: Seat) -> Bidding {
        let face_rule = if self.palifico.is_empty() {
            FaceRule::Free
        } else {
            match self.rules.palifico.face_change {
                PalificoFaceChange::Locked => FaceRule::Locked,
                PalificoFaceChange::ExPalificoMayRaise => {
                    if self.players[seat].had_palifico && !self.palifico.contains(seat) {
                        FaceRule::RaiseWithoutLoweringQuantity
                    } else {
                        FaceRule::Locked
                    }
                }
                PalificoFaceChange::OneDiePlayersMayChange => {
                    if self.players[seat].dice_count == 1 {
                        FaceRule::Free
                    } else {
                        FaceRule::Locked
                    }
                }
            }
        };
        Bidding {
            faces: self.rules.dice.faces,
            total_dice: self.total_dice(),
            wild: self.wild,
            wild_bids: self.rules.wild_bids,
            // The West Coast variant exists for opening on ones; forbidding it would void it.
            opening_on_wilds: if self.rules.wilds == Wilds::OnesUnlessOpenedOnOnes {
                OpeningOnWilds::Allowed
            } else {
                self.rules.opening_on_wilds
            },
            system: self.rules.bidding,
            face_rule,
            last_natural_quantity: self.last_natural_quantity,
        }
    }

    fn check_seat(&self, seat: Seat) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        match self.players.get(seat) {
            None => Err(RuleError::NoSuchSeat { seat }),
            Some(p) if !p.active() => Err(RuleError::OutOfTheGame { seat }),
            Some(_) => Ok(()),
        }
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if seat == self.turn { Ok(()) } else { Err(RuleError::NotYourTurn { seat, turn: self.turn }) }
    }

    fn check_bid(&self, seat: Seat, bid: Bid) -> Result<(), RuleError> {
        let bidding = self.bidding_for(seat);
        let current = self.current.map(|c| c.1);
        bidding.check_raise(current, bid).map_err(|problem| match problem {
            BidProblem::FaceOutOfRange => RuleError::FaceOutOfRange { face: bid.face, faces: bidding.faces },
            BidProblem::QuantityOutOfRange => {
                RuleError::QuantityOutOfRange { quantity: bid.quantity, total: bidding.total_dice }
            }
            BidProblem::OpeningOnWilds => RuleError::OpeningOnWilds { face: bid.face },
            BidProblem::FaceLocked => RuleError::FaceLocked { face: current.map_or(bid.face, |b| b.face) },
            BidProblem::NotHigher(rule) => match current {
                Some(current) => RuleError::BidNotHigher { bid, current, rule },
                None => RuleError::NoBidYet,
            },
        })
    }

    /// The seats whose claims may be challenged now, the last claim first.
    fn challengeable(&self, challenger: Seat) -> Vec<Seat> {
        let mut out: Vec<Seat> = Vec::new();
        let add = |s: Seat, out: &mut Vec<Seat>| {
            if s != challenger && !out.contains(&s) {
                out.push(s);
            }
        };
        let mut recent = self.claims.iter().rev();
        let Some(last) = recent.next() else {
            return out;
        };
        add(last.seat, &mut out);
        if last.kind == ClaimKind::Pass {
            match self.rules.pass.challenge {
                PassChallenge::LastOrOneBeforeAPass => {
                    if let Some(prev) = recent.next() {
                        add(prev.seat, &mut out);
                    }
                }
                PassChallenge::AnyConsecutivePass => {
                    for c in recent.take_while(|c| c.kind == ClaimKind::Pass) {
                        add(c.seat, &mut out);
                    }
                }
            }
        }
        out
    }

    fn check_push(&self, seat: Seat, dice: &[u8], bid: Bid) -> Result<(), RuleError> {
        let rule = self.rules.push;
        let refuse = |why| Err(RuleError::PushNotAllowed { why });
        if rule.dice == PushDice::Off {
            return refuse("this table plays without push and re-roll");
        }
        if self.current.is_none() {
            return refuse("a push raises a bid; open the round with a plain bid");
        }
        let p = &self.players[seat];
        match rule.limit {
            PushLimit::Unlimited => {}
            PushLimit::OncePerPlayerPerRound if p.pushed_this_round => {
                return refuse("you have already pushed this round");
            }
            PushLimit::OncePerRound if self.pushes_this_round > 0 => {
                return refuse("someone has already pushed this round");
            }
            _ => {}
        }
        if dice.is_empty() {
            return refuse("a push shows at least one die");
        }
        if dice.len() >= p.cup.len() {
            return refuse("at least one die must stay under the cup to be re-rolled");
        }
        let mut seen = p.sight.clone();
        for &face in dice {
            match seen.iter().position(|&s| s == Some(face)) {
                Some(i) => {
                    seen.swap_remove(i);
                }
                None => {
                    return Err(RuleError::PushDieMissing {
                        face,
                        why: "you see no such die under your cup",
                    });
                }
            }
        }
        if rule.dice == PushDice::MatchingBidFace {
            if dice.iter().any(|&d| d != bid.face) {
                return refuse("the pushed dice must all show the face of the new bid");
            }
            if usize::from(bid.quantity) <= dice.len() {
                return refuse("the new bid must claim more than the dice shown");
            }
        }
        self.check_bid(seat, bid)
    }

    fn check_pass(&self, seat: Seat) -> Result<(), RuleError> {
        let rule = self.rules.pass;
        let refuse = |why| Err(RuleError::PassNotAllowed { why });
        if rule.claim == PassClaim::Off {
            return refuse("this table plays without passing");
        }
        if self.current.is_none() {
            return refuse("the round must be opened with a bid");
        }
        let p = &self.players[seat];
        if p.dice_count < u16::from(rule.min_dice) {
            return refuse("you hold too few dice to pass");
        }
        match rule.limit {
            PassLimit::OncePerRoll if p.passed_this_roll => refuse("you have passed on these dice already"),
            PassLimit::OncePerRound if p.passed_this_round => refuse("you have passed this round already"),
            _ => Ok(()),
        }
    }

    fn check_calza(&self, seat: Seat) -> Result<(), RuleError> {
        let e = self.rules.exact_call;
        let call = exact_call_name(&self.rules);
        let refuse = |why| Err(RuleError::ExactCallNotAllowed { call, why });
        self.check_seat(seat)?;
        if e.who == ExactCaller::Off {
            return refuse("this table plays without an exact call");
        }
        let Some((bidder, _)) = self.current else {
            return refuse("there is no bid to call exact");
        };
        if self.active_count() < usize::from(e.min_players) {
            return refuse("too few players are left in the game");
        }
        if !self.palifico.is_empty() && e.in_palifico == InPalifico::Forbidden {
            return refuse("it is not allowed in a Palifico round");
        }
        if e.limit == ExactLimit::OncePerGame && self.players[seat].exact_used {
            return refuse("each player gets one per game, and you have used yours");
        }
        match e.who {
            ExactCaller::NotBidderNorNext => {
                if seat == bidder {
                    return refuse("the player who made the bid may not call it");
                }
                if seat == self.turn {
                    return refuse("the player due to answer the bid may not call it");
                }
            }
            ExactCaller::OnTurn => {
                self.check_turn(seat)?;
                // After passes the turn can come back to the bidder; calling your own bid
                // exact is not a call on someone else's claim.
                if seat == bidder {
                    return refuse("the player who made the bid may not call it");
                }
            }
            ExactCaller::Off => {}
        }
        Ok(())
    }

    /// Checks `action` for `seat` without changing anything.
    pub fn check(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.check_seat(seat)?;
        match action {
            Action::Bid(bid) => {
                self.check_turn(seat)?;
                self.check_bid(seat, *bid)
            }
            Action::Push { dice, bid } => {
                self.check_turn(seat)?;
                self.check_push(seat, dice, *bid)
            }
            Action::Pass => {
                self.check_turn(seat)?;
                self.check_pass(seat)
            }
            Action::Dudo { target } => {
                self.check_turn(seat)?;
                let targets = self.challengeable(seat);
                match (target, targets.first()) {
                    (_, None) => Err(RuleError::NoBidYet),
                    (None, Some(_)) => Ok(()),
                    (Some(t), _) if targets.contains(t) => Ok(()),
                    (Some(t), _) => Err(RuleError::NotChallengeable { target: *t }),
                }
            }
            Action::Calza => self.check_calza(seat),
        }
    }

    /// Everything `seat` may do now (empty when nothing).
    pub fn legal(&self, seat: Seat) -> Legal {
        if self.check_seat(seat).is_err() {
            return Legal::default();
        }
        let calza = self.check_calza(seat).is_ok();
        if seat != self.turn {
            return Legal { calza, ..Legal::default() };
        }
        let bidding = self.bidding_for(seat);
        let current = self.current.map(|c| c.1);
        let push = self.rules.push.dice != PushDice::Off
            && current.is_some()
            && match self.rules.push.limit {
                PushLimit::Unlimited => true,
                PushLimit::OncePerPlayerPerRound => !self.players[seat].pushed_this_round,
                PushLimit::OncePerRound => self.pushes_this_round == 0,
            }
            && self.players[seat].sight.iter().flatten().count() >= 1
            && self.players[seat].cup.len() >= 2;
        let bids = bidding.ranges(current);
        Legal {
            push: push && !bids.is_empty(),
            bids,
            pass: self.check_pass(seat).is_ok(),
            dudo: self.challengeable(seat),
            calza,
        }
    }

    /// A uniformly random legal action for `seat` (pushes aside), chosen without building
    /// the list of actions: the fast path for random playouts. `None` when it may do nothing.
    pub fn random_legal_action(&self, seat: Seat, rng: &mut impl Rng) -> Option<Action> {
        if self.check_seat(seat).is_err() {
            return None;
        }
        let calza = self.check_calza(seat).is_ok();
        if seat != self.turn {
            return calza.then_some(Action::Calza);
        }
        let bidding = self.bidding_for(seat);
        let current = self.current.map(|c| c.1);
        let mut mins = [0u16; 10];
        let mut bids = 0u32;
        for face in 1..=bidding.faces {
            if let Some(min) = bidding.min_quantity(current, face) {
                mins[usize::from(face)] = min;
                bids += u32::from(bidding.total_dice - min) + 1;
            }
        }
        let pass = self.check_pass(seat).is_ok();
        let targets = match (self.claims.is_empty(), self.rules.pass.claim) {
            (true, _) => Vec::new(),
            // Without passes the only claim to challenge is the last bid.
            (false, PassClaim::Off) => vec![self.claims[self.claims.len() - 1].seat],
            (false, _) => self.challengeable(seat),
        };
        let n = bids + u32::from(pass) + targets.len() as u32 + u32::from(calza);
        if n == 0 {
            return None;
        }
        let mut k = rng.random_range(0..n);
        for face in 1..=bidding.faces {
            let min = mins[usize::from(face)];
            if min > 0 {
                let count = u32::from(bidding.total_dice - min) + 1;
                if k < count {
                    return Some(Action::Bid(Bid::new(min + k as u16, face)));
                }
                k -= count;
            }
        }
        if pass {
            if k == 0 {
                return Some(Action::Pass);
            }
            k -= 1;
        }
        match k as usize {
            0 if !targets.is_empty() => Some(Action::Dudo { target: None }),
            i if i < targets.len() => Some(Action::Dudo { target: Some(targets[i]) }),
            _ => calza.then_some(Action::Calza),
        }
    }

    /// Seats that may act now: the seat whose turn it is, and anyone with an exact call.
    pub fn seats_to_ask(&self) -> Vec<Seat> {
        if self.is_over() {
            return Vec::new();
        }
        let mut out = vec![self.turn];
        if self.rules.exact_call.who == ExactCaller::NotBidderNorNext && self.current.is_some() {
            out.extend((0..self.players.len()).filter(|&s| s != self.turn && self.check_calza(s).is_ok()));
        }
        out
    }

    // ----- applying actions -----

    /// Applies `action` by `seat`: the events it caused, or why it is refused (state unchanged).
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }

    /// [`Game::apply`] writing events into any sink.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut impl EventSink,
    ) -> Result<(), RuleError> {
        self.check(seat, action)?;
        match action {
            Action::Bid(bid) => {
                self.make_bid(seat, *bid, ClaimKind::Bid(*bid), events);
            }
            Action::Push { dice, bid } => {
                self.push_and_reroll(seat, dice, events);
                self.make_bid(seat, *bid, ClaimKind::PushBid(*bid), events);
            }
            Action::Pass => {
                let p = &mut self.players[seat];
                p.passed_this_roll = true;
                p.passed_this_round = true;
                self.claims.push(Claim { seat, kind: ClaimKind::Pass });
                emit(events, || EventKind::Passed { seat });
                self.turn = self.next_active(seat);
            }
            Action::Dudo { target } => {
                let target = match target {
                    Some(t) => *t,
                    None => self.challengeable(seat).first().copied().unwrap_or(seat),
                };
                emit(events, || EventKind::DudoCalled { seat, target });
                self.settle_dudo(seat, target, events);
            }
            Action::Calza => {
                emit(events, || EventKind::CalzaCalled { seat });
                self.players[seat].exact_used = true;
                self.settle_calza(seat, events);
            }
        }
        Ok(())
    }

    fn make_bid(&mut self, seat: Seat, bid: Bid, kind: ClaimKind, events: &mut impl EventSink) {
        if self.claims.is_empty()
            && self.rules.wilds == Wilds::OnesUnlessOpenedOnOnes
            && self.wild == Some(1)
            && bid.face == 1
        {
            self.wild = None;
            emit(events, || EventKind::WildsOff);
        }
        if self.wild != Some(bid.face) {
            self.last_natural_quantity = bid.quantity;
        }
        self.claims.push(Claim { seat, kind });
        self.current = Some((seat, bid));
        emit(events, || EventKind::BidMade { seat, bid });
        self.turn = self.next_active(seat);
    }

    fn push_and_reroll(&mut self, seat: Seat, dice: &[u8], events: &mut impl EventSink) {
        let mut shown = Vec::with_capacity(dice.len());
        {
            let p = &mut self.players[seat];
            for &face in dice {
                if let Some(i) = p.sight.iter().position(|&s| s == Some(face)) {
                    p.sight.remove(i);
                    shown.push(p.cup.remove(i));
                }
            }
            p.pushed.extend_from_slice(&shown);
            p.pushed_this_round = true;
            p.passed_this_roll = false;
        }
        self.pushes_this_round += 1;
        emit(events, || EventKind::DicePushed { seat, pushed: shown });
        let n = self.players[seat].cup.len();
        self.roll_cup(seat, n, events);
    }

    /// How many dice on the table match `face`, wilds included when they count.
    fn count(&self, face: u8) -> u16 {
        let wild = self.wild.filter(|&w| w != face);
        let mut n = 0u16;
        for p in self.players.iter().filter(|p| p.active()) {
            for &d in p.cup.iter().chain(p.pushed.iter()) {
                if d == face || Some(d) == wild {
                    n += 1;
                }
            }
        }
        n
    }

    fn pass_is_true(&self, seat: Seat) -> bool {
        let p = &self.players[seat];
        let mut seen = [false; 10];
        let mut dice = p.cup.iter().chain(p.pushed.iter());
        match self.rules.pass.claim {
            PassClaim::AllSameFace => {
                let first = dice.next().copied();
                dice.all(|&d| Some(d) == first)
            }
            PassClaim::AllDifferent => dice.all(|&d| !std::mem::replace(&mut seen[usize::from(d)], true)),
            PassClaim::Off => false,
        }
    }

    /// Every player's true dice, each sorted: the order must not echo what the owner saw.
    fn reveal(&self) -> Vec<Vec<u8>> {
        self.players
            .iter()
            .map(|p| {
                let mut dice: Vec<u8> = if p.active() {
                    p.cup.iter().chain(p.pushed.iter()).copied().collect()
                } else {
                    Vec::new()
                };
                dice.sort_unstable();
                dice
            })
            .collect()
    }

    fn settle_dudo(&mut self, challenger: Seat, target: Seat, events: &mut impl EventSink) {
        let claim = self.claims.iter().rev().find(|c| c.seat == target).copied();
        let (showdown, claim_true) = match claim.map(|c| c.kind) {
            Some(ClaimKind::Pass) => {
                let t = self.pass_is_true(target);
                (Showdown::DudoOnPass { pass_was_true: t }, t)
            }
            Some(ClaimKind::Bid(bid) | ClaimKind::PushBid(bid)) => {
                let actual = self.count(bid.face);
                (Showdown::DudoOnBid { bid, actual }, actual >= bid.quantity)
            }
            None => return,
        };
        let (winner, loser) = if claim_true { (target, challenger) } else { (challenger, target) };
        let dice = self.reveal();
        emit(events, || EventKind::DiceRevealed { dice: dice.clone() });
        emit(events, || EventKind::RoundSettled { showdown, winner, loser });
        self.last_result = Some(RoundResult { round: self.round, dice, showdown, winner, loser });
        let results = self.results_rows();
        let lost = match self.rules.dudo_penalty {
            DudoPenalty::LoseDice => u16::from(self.rules.dice_lost_on_dudo),
        };
        self.lose_dice(loser, lost, events);
        let next = match self.rules.next_starter {
            NextStarter::Loser => loser,
            NextStarter::Winner => winner,
        };
        self.end_round(winner, loser, next, results, events);
    }

    fn settle_calza(&mut self, caller: Seat, events: &mut impl EventSink) {
        let Some((bidder, bid)) = self.current else {
            return;
        };
        let actual = self.count(bid.face);
        let right = actual == bid.quantity;
        let showdown = Showdown::Calza { bid, actual };
        let (winner, loser) = if right { (caller, bidder) } else { (bidder, caller) };
        let dice = self.reveal();
        emit(events, || EventKind::DiceRevealed { dice: dice.clone() });
        emit(events, || EventKind::RoundSettled { showdown, winner, loser });
        self.last_result = Some(RoundResult { round: self.round, dice, showdown, winner, loser });
        let results = self.results_rows();
        let e = self.rules.exact_call;
        if right {
            let p = &mut self.players[caller];
            let gain = u16::from(e.dice_won).min(u16::from(self.rules.dice.max).saturating_sub(p.dice_count));
            p.dice_count += gain;
            emit(events, || EventKind::DiceWon { seat: caller, count: gain, now: p.dice_count });
        } else {
            self.lose_dice(caller, u16::from(e.dice_lost), events);
        }
        // The caller's dice changed either way (000 example, round seven).
        let next = match self.rules.next_starter {
            NextStarter::Loser => caller,
            NextStarter::Winner => winner,
        };
        self.end_round(winner, loser, next, results, events);
    }

    fn lose_dice(&mut self, seat: Seat, count: u16, events: &mut impl EventSink) {
        let p = &mut self.players[seat];
        let lost = count.min(p.dice_count);
        p.dice_count -= lost;
        if p.dice_count == 1 && lost > 0 {
            p.just_reached_one_die = true;
        }
        let left = p.dice_count;
        emit(events, || EventKind::DiceLost { seat, count: lost, left });
        if left == 0 {
            let place = self.active_count();
            let p = &mut self.players[seat];
            p.place = Some(place);
            // The cup was revealed; nothing stays under it.
            p.cup.clear();
            p.sight.clear();
            p.pushed.clear();
            self.out_order.push(seat);
            emit(events, || EventKind::Eliminated { seat, place });
        }
    }

    /// Seed 000's results table, counted while every player of the round still holds dice.
    fn results_rows(&self) -> Option<Vec<ResultRow>> {
        (self.rules.results_table == ResultsTable::On).then(|| {
            self.claims
                .iter()
                .filter_map(|c| {
                    c.kind.bid().map(|bid| {
                        let actual = self.count(bid.face);
                        ResultRow { seat: c.seat, bid, actual, was_true: actual >= bid.quantity }
                    })
                })
                .collect()
        })
    }

    fn end_round(
        &mut self,
        winner: Seat,
        loser: Seat,
        next_starter: Seat,
        results: Option<Vec<ResultRow>>,
        events: &mut impl EventSink,
    ) {
        if let Some(rows) = results {
            emit(events, || EventKind::ResultsTable { rows });
        }
        if self.rules.game_end == GameEnd::SingleRound {
            let mut standings = vec![winner];
            standings.extend((0..self.players.len()).filter(|&s| s != winner && s != loser));
            if loser != winner {
                standings.push(loser);
            }
            self.finish(standings, events);
            return;
        }
        if self.active_count() <= 1 {
            self.finish_last_standing(events);
            return;
        }
        self.start_round(next_starter, events);
    }

    fn finish_last_standing(&mut self, events: &mut impl EventSink) {
        let mut standings: Vec<Seat> =
            (0..self.players.len()).filter(|&s| self.players[s].active()).collect();
        standings.extend(self.out_order.iter().rev());
        self.finish(standings, events);
    }

    fn finish(&mut self, standings: Vec<Seat>, events: &mut impl EventSink) {
        for (i, &s) in standings.iter().enumerate() {
            if self.players[s].place.is_none() {
                self.players[s].place = Some(i + 1);
            }
        }
        self.phase = Phase::Over;
        self.final_standings = standings.clone();
        emit(events, || EventKind::GameOver { standings });
    }

    /// Takes `seat` out of the game because it left, or the host removed it (000: only
    /// before the first bid of a round). It finishes below everyone still in.
    pub fn remove(&mut self, seat: Seat) -> Result<Vec<Event>, RuleError> {
        self.check_seat(seat)?;
        if !self.claims.is_empty() {
            return Err(RuleError::LeaveMidRound { seat });
        }
        let mut events: Vec<Event> = Vec::new();
        let place = self.active_count();
        let p = &mut self.players[seat];
        p.place = Some(place);
        p.left = true;
        p.dice_count = 0;
        p.cup.clear();
        p.sight.clear();
        self.out_order.push(seat);
        if self.turn == seat {
            self.turn = self.next_active(seat);
            self.starter = self.turn;
        }
        self.palifico = SeatSet(self.palifico.0 & !SeatSet::single(seat).0);
        if !self.palifico.is_empty() && self.active_count() < usize::from(self.rules.palifico.min_players) {
            self.palifico = SeatSet::default();
        }
        if self.palifico.is_empty() && self.wild.is_none() {
            self.wild = self.rules.wild_face();
        }
        // The round goes on without the seat; the event carries what that changed.
        let (starter, palifico, wild) = (self.starter, self.palifico.iter().collect(), self.wild);
        emit(&mut events, || EventKind::SeatLeft { seat, place, starter, palifico, wild });
        if self.active_count() <= 1 {
            self.finish_last_standing(&mut events);
        }
        Ok(events)
    }

    // ----- views -----

    /// What `seat` may know.
    pub fn view(&self, seat: Seat) -> View {
        let mut v = self.spectator_view();
        let Some(p) = self.players.get(seat) else {
            return v;
        };
        v.seat = Some(seat);
        v.my_dice = p.sight.clone();
        if !p.active() && !p.left && self.rules.losers_see_dice == LosersSeeDice::AllDice && !self.is_over() {
            v.all_dice = Some(self.reveal());
        }
        v
    }

    /// What a spectator may know: everything public, no dice under cups.
    pub fn spectator_view(&self) -> View {
        View {
            seat: None,
            phase: self.phase,
            round: self.round,
            starter: self.starter,
            turn: self.turn(),
            players: self
                .players
                .iter()
                .map(|p| PlayerView {
                    dice: p.dice_count,
                    pushed: p.pushed.clone(),
                    place: p.place,
                    left: p.left,
                    had_palifico: p.had_palifico,
                    exact_used: p.exact_used,
                })
                .collect(),
            my_dice: Vec::new(),
            all_dice: None,
            claims: self.claims.clone(),
            current_bid: self.current,
            wild: self.wild,
            palifico: self.palifico.iter().collect(),
            last_result: self.last_result.clone(),
            standings: if self.is_over() { self.final_standings.clone() } else { Vec::new() },
        }
    }
}

fn public(kind: EventKind) -> Event {
    Event { audience: Audience::Everyone, kind }
}

/// Emits a public event, building it only if the sink wants it.
fn emit(events: &mut impl EventSink, kind: impl FnOnce() -> EventKind) {
    if events.wants() {
        events.push(public(kind()));
    }
}

/// Why a game could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Rules(#[from] InvalidRules),
    #[error("this rule set seats {min} to {max} players, not {seats}")]
    Seats { seats: usize, min: usize, max: usize },
    #[error("starting dice per seat must be given for every seat, each from 1 to 40")]
    StartDice,
}
