//! The individual-hand games of seed 002: one set of dice passed from player to player under
//! a cup, each claim about the hand now under it.
//!
//! A turn: the receiver either challenges the claim it was handed (the cup is lifted) or
//! accepts (and looks); the holder then rolls some dice (the number is public, which dice is
//! not), and passes the cup on with a better claim. Poker dice and Stanford play for lives,
//! with the five-aces test and the dog's life; Mexican plays for drinks, with the Mexican
//! shown and the cup-catching forfeit decided by the server's dice.
//!
//! Who sees the dice: the holder once it has looked, and the player who passed them until
//! they are re-rolled; dice rolled outside the box (Stanford) or the Mexican's one, everyone.

use std::sync::Arc;

use rand::Rng;

use crate::action::{Action, Seat};
use crate::dice::DiceSource;
use crate::error::RuleError;
use crate::event::{Audience, Event, EventKind, SeatSet};
use crate::hand::{Hand, HandGame};
use crate::ruleset::*;
use crate::view::{
    EventSink, HandView, Legal, Phase, PlayerView, RollOptions, StartError, View, drink, emit, roll_off,
};

mod position;

#[derive(Clone, Debug, PartialEq)]
struct HandPlayer {
    lives: u8,
    drinks: u32,
    place: Option<usize>,
    left: bool,
}

/// Where a turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The holder was handed the cup with a claim and has not yet looked.
    Receiving,
    /// The holder has the cup: it may roll, then claim.
    Holding,
    /// Poker dice: the holder accepted five aces and must roll them; tries made so far.
    FiveAces(u8),
    /// A player out of lives decides on the dog's life; then `next` starts a hand.
    DogsLife { seat: Seat, next: Seat },
}

/// A game of the individual-hand family.
#[derive(Clone, Debug, PartialEq)]
pub struct IndividualHand {
    rules: Arc<RuleSet>,
    game: HandGame,
    dice: DiceSource,
    players: Vec<HandPlayer>,
    /// Hands begun (the "rounds" of these games).
    hand_no: u32,
    /// Actions played this game.
    moves: u64,
    starter: Seat,
    holder: Seat,
    step: Step,
    /// True faces under the cup, by position.
    cup: Vec<u8>,
    /// Dice in view of all.
    shown: Vec<bool>,
    /// Seats that know the exact dice under the cup.
    known_to: SeatSet,
    /// The claim in force: who made it and the hand it means.
    claim: Option<(Seat, Hand)>,
    /// Rolls by the holder this turn.
    rolls: u8,
    /// Whether this turn's holder must roll before claiming (a new hand; Mexican always).
    must_roll: bool,
    dogs_life_taken: bool,
    out_order: Vec<Seat>,
    over: bool,
    final_standings: Vec<Seat>,
}

impl IndividualHand {
    pub fn start_into(
        rules: Arc<RuleSet>,
        seats: usize,
        dice: DiceSource,
        events: &mut impl EventSink,
    ) -> Result<IndividualHand, StartError> {
        rules.validate().map_err(StartError::Rules)?;
        let game = rules.family.hand_game().ok_or_else(|| {
            StartError::Rules(InvalidRules {
                field: "family".into(),
                problem: "not an individual-hand game".into(),
            })
        })?;
        let (min, max) = (usize::from(rules.players.min), usize::from(rules.players.max));
        if seats < min || seats > max {
            return Err(StartError::Seats { seats, min, max });
        }
        let lives = rules.hand.lives;
        let mut g = IndividualHand {
            game,
            dice,
            players: vec![HandPlayer { lives, drinks: 0, place: None, left: false }; seats],
            hand_no: 0,
            moves: 0,
            starter: 0,
            holder: 0,
            step: Step::Holding,
            cup: vec![1; game.dice()],
            shown: vec![false; game.dice()],
            known_to: SeatSet::default(),
            claim: None,
            rolls: 0,
            must_roll: true,
            dogs_life_taken: false,
            out_order: Vec::new(),
            over: false,
            final_standings: Vec::new(),
            rules,
        };
        g.begin(events);
        Ok(g)
    }

    pub fn restart(&mut self, dice: DiceSource, events: &mut impl EventSink) {
        self.dice = dice;
        for p in &mut self.players {
            *p = HandPlayer { lives: self.rules.hand.lives, drinks: 0, place: None, left: false };
        }
        self.hand_no = 0;
        self.moves = 0;
        self.dogs_life_taken = false;
        self.out_order.clear();
        self.over = false;
        self.final_standings.clear();
        self.begin(events);
    }

    fn begin(&mut self, events: &mut impl EventSink) {
        let n = self.players.len();
        emit(events, || EventKind::GameStarted { seats: n, dice: vec![self.game.dice() as u16; n] });
        let starter = match self.rules.first_starter {
            FirstStarter::FirstSeat => 0,
            FirstStarter::RollOff => roll_off(&mut self.dice, self.players.len(), 6, events),
        };
        emit(events, || EventKind::StarterChosen { seat: starter });
        self.begin_hand(starter, events);
    }

    fn begin_hand(&mut self, starter: Seat, events: &mut impl EventSink) {
        self.hand_no += 1;
        let starter = self.self_or_next_active(starter);
        self.starter = starter;
        self.holder = starter;
        self.step = Step::Holding;
        self.claim = None;
        self.rolls = 0;
        self.must_roll = true;
        self.known_to = SeatSet::default();
        self.shown.iter_mut().for_each(|s| *s = false);
        let hand = self.hand_no;
        emit(events, || EventKind::HandStarted { hand, starter });
    }

    fn mexican(&self) -> bool {
        matches!(self.game, HandGame::Mexican | HandGame::MexicanTwoDice)
    }

    // ----- simple accessors the dispatcher forwards -----

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The rules, shared: what a caller compares to know the game is played by the same.
    pub fn rules_arc(&self) -> &Arc<RuleSet> {
        &self.rules
    }
    pub fn seats(&self) -> usize {
        self.players.len()
    }
    pub fn is_over(&self) -> bool {
        self.over
    }
    pub fn round(&self) -> u32 {
        self.hand_no
    }
    pub fn moves(&self) -> u64 {
        self.moves
    }
    pub fn turn(&self) -> Option<Seat> {
        if self.over {
            return None;
        }
        Some(match self.step {
            Step::DogsLife { seat, .. } => seat,
            _ => self.holder,
        })
    }
    /// Lives left (the individual-hand games have no dice of their own).
    pub fn dice_count(&self, seat: Seat) -> u16 {
        self.players.get(seat).map_or(0, |p| u16::from(p.lives))
    }
    pub fn is_active(&self, seat: Seat) -> bool {
        self.players.get(seat).is_some_and(|p| p.place.is_none())
    }
    pub fn dice_source_mut(&mut self) -> &mut DiceSource {
        &mut self.dice
    }
    pub fn standings(&self) -> Vec<Seat> {
        if self.over {
            return self.final_standings.clone();
        }
        let mut s: Vec<Seat> = (0..self.players.len()).filter(|&i| self.is_active(i)).collect();
        s.extend(self.out_order.iter().rev());
        s
    }

    fn active_count(&self) -> usize {
        self.players.iter().filter(|p| p.place.is_none()).count()
    }

    fn next_active(&self, seat: Seat) -> Seat {
        let n = self.players.len();
        (1..=n).map(|i| (seat + i) % n).find(|&s| self.is_active(s)).unwrap_or(seat)
    }

    fn self_or_next_active(&self, seat: Seat) -> Seat {
        if self.is_active(seat) { seat } else { self.next_active(seat) }
    }

    /// The top hand, whose claim cannot be beaten.
    fn top(&self) -> Hand {
        self.game.top()
    }

    // ----- checks -----

    fn check_seat(&self, seat: Seat) -> Result<(), RuleError> {
        if self.over {
            return Err(RuleError::GameOver);
        }
        match self.players.get(seat) {
            None => Err(RuleError::NoSuchSeat { seat }),
            Some(p)
                if p.place.is_some() && !matches!(self.step, Step::DogsLife { seat: s, .. } if s == seat) =>
            {
                Err(RuleError::OutOfTheGame { seat })
            }
            Some(_) => Ok(()),
        }
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        match self.turn() {
            Some(t) if t == seat => Ok(()),
            Some(turn) => Err(RuleError::NotYourTurn { seat, turn }),
            None => Err(RuleError::GameOver),
        }
    }

    /// The roll the holder may make now, if any.
    fn roll_options(&self, seat: Seat) -> Result<RollOptions, RuleError> {
        let refuse = |why| Err(RuleError::RollNotAllowed { why });
        let may_show = self.rules.hand.show_dice == ShowDice::Allowed;
        match self.step {
            Step::DogsLife { .. } => refuse("the dog's life is being decided"),
            Step::FiveAces(tries) => {
                if tries >= 3 {
                    return refuse("three tries are all the five-aces test allows");
                }
                Ok(RollOptions { all: tries == 0, may_show: false, drinks: 0 })
            }
            Step::Receiving if self.top_claimed() => {
                Ok(RollOptions { all: true, may_show: false, drinks: 0 })
            }
            Step::Receiving | Step::Holding => {
                let _ = seat;
                if self.mexican() {
                    // Each roll is of all the dice; after the first, another costs drinks.
                    let drinks = if self.rolls == 0 { 0 } else { self.rules.hand.reroll_drinks };
                    return Ok(RollOptions { all: true, may_show: false, drinks });
                }
                if self.rolls > 0 {
                    return refuse("one roll per turn");
                }
                Ok(RollOptions { all: self.claim.is_none(), may_show, drinks: 0 })
            }
        }
    }

    fn check_roll(&self, seat: Seat, dice: &[usize], show: &[usize]) -> Result<(), RuleError> {
        let opts = self.roll_options(seat)?;
        let n = self.game.dice();
        let refuse = |why| Err(RuleError::RollNotAllowed { why });
        if dice.is_empty() {
            return refuse("name at least one die to roll, or claim without rolling");
        }
        if let Some(&position) = dice.iter().chain(show).find(|&&d| d >= n) {
            return Err(RuleError::NoSuchDie { position, dice: n });
        }
        let (mut rolled, mut shown) = ([false; 8], [false; 8]);
        for &d in dice {
            if std::mem::replace(&mut rolled[d], true) {
                return refuse("each die is named once");
            }
        }
        for &d in show {
            if std::mem::replace(&mut shown[d], true) {
                return refuse("each die is named once");
            }
        }
        if opts.all && dice.len() != n {
            return refuse("every die must be rolled now");
        }
        if !show.is_empty() && !opts.may_show {
            return refuse("dice may not be rolled outside the box at this table");
        }
        Ok(())
    }

    fn claim_floor(&self) -> Option<Hand> {
        match &self.claim {
            None => self.game.ordered().first().map(|h| h.1.clone()),
            Some((_, c)) => self.game.better(c),
        }
    }

    /// The hand a claim stands for (an undercall taken as "better"), or why it is refused.
    fn effective_claim(&self, spoken: &Hand) -> Result<Hand, RuleError> {
        if spoken.dice.len() != self.game.dice() || spoken.dice.iter().any(|&d| !(1..=6).contains(&d)) {
            return Err(RuleError::BadHand { dice: self.game.dice() });
        }
        // Claims from clients may come in any order: store them as players write them.
        let spoken = Hand::new(spoken.dice.clone());
        let Some((_, current)) = &self.claim else { return Ok(spoken) };
        if self.game.value(&spoken.dice) > self.game.value(&current.dice) {
            return Ok(spoken);
        }
        match self.rules.hand.undercall {
            Undercall::TreatedAsBetter => self.game.better(current).ok_or(RuleError::ClaimNotAllowed {
                why: "nothing beats the claim in force: challenge it or accept it",
            }),
            Undercall::Refused => Err(RuleError::ClaimNotHigher {
                claim: spoken.text(self.game),
                current: current.text(self.game),
            }),
        }
    }

    fn check_claim(&self, spoken: &Hand) -> Result<(), RuleError> {
        let refuse = |why| Err(RuleError::ClaimNotAllowed { why });
        match self.step {
            Step::FiveAces(_) => return refuse("roll for the five aces"),
            Step::DogsLife { .. } => return refuse("the dog's life is being decided"),
            Step::Receiving | Step::Holding => {}
        }
        if self.must_roll && self.rolls == 0 {
            return refuse("roll the dice before claiming");
        }
        let claim = self.effective_claim(spoken)?;
        if self.game.is_mexican(&claim.dice) && !self.cup.contains(&1) {
            return refuse("claiming Mexican means showing a one, and there is none under the cup");
        }
        Ok(())
    }

    /// Whether the claim in force is the top hand, which nothing beats.
    fn top_claimed(&self) -> bool {
        let top = self.game.value(&self.top().dice);
        self.claim.as_ref().is_some_and(|(_, c)| self.game.value(&c.dice) >= top)
    }

    pub fn check(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        self.check_seat(seat)?;
        self.check_turn(seat)?;
        if self.step == Step::Receiving && self.top_claimed() {
            // Nothing beats the top hand: challenge it, or accept it and what follows it
            // (Mexican: the catch; poker dice: the five-aces test), or only challenge.
            let test = !self.mexican() && self.rules.hand.five_aces == FiveAces::On;
            match action {
                Action::Dudo { .. } => {}
                Action::Accept if self.mexican() || test => {}
                Action::Roll { .. } if test => {}
                _ if self.mexican() || test => {
                    return Err(RuleError::ClaimNotAllowed {
                        why: "nothing beats the top hand: challenge it, or accept what follows",
                    });
                }
                _ => {
                    return Err(RuleError::ClaimNotAllowed {
                        why: "nothing beats the top hand and this table plays without the five-aces test: challenge it",
                    });
                }
            }
        }
        match action {
            Action::Dudo { target } => match (self.step, &self.claim) {
                (Step::Receiving, Some((claimant, _))) if target.is_none_or(|t| t == *claimant) => Ok(()),
                (Step::Receiving, _) => Err(RuleError::NotChallengeable { target: target.unwrap_or(seat) }),
                (_, None) => Err(RuleError::NoBidYet),
                _ => Err(RuleError::ChallengeNotAllowed {
                    why: "you have taken the cup; a claim is challenged only when it is handed to you",
                }),
            },
            Action::Accept => match self.step {
                Step::Receiving => Ok(()),
                _ => Err(RuleError::AcceptNotAllowed { why: "you hold the cup already" }),
            },
            Action::Roll { dice, show } => self.check_roll(seat, dice, show),
            Action::Claim(hand) => self.check_claim(hand),
            Action::DogsLife { .. } => match self.step {
                Step::DogsLife { seat: s, .. } if s == seat => Ok(()),
                _ => Err(RuleError::NoDogsLife),
            },
            other => Err(RuleError::NotInThisGame { call: other.to_string() }),
        }
    }

    /// Everything `seat` may do now, derived from [`IndividualHand::check`] as bid ranges are
    /// from the bid check: each call is on offer when `check` accepts it.
    pub fn legal_into(&self, seat: Seat, out: &mut Legal) {
        *out = Legal {
            bids: std::mem::take(&mut out.bids),
            dudo: std::mem::take(&mut out.dudo),
            ..Legal::default()
        };
        out.bids.clear();
        out.dudo.clear();
        if self.check_seat(seat).is_err() || self.check_turn(seat).is_err() {
            return;
        }
        out.hand_game = Some(self.game);
        let accepted = |action: &Action| self.check(seat, action).is_ok();
        out.dogs_life = accepted(&Action::DogsLife { bark: true });
        out.accept = accepted(&Action::Accept);
        if accepted(&Action::Dudo { target: None })
            && let Some((claimant, _)) = self.claim
        {
            out.dudo.push(claimant);
        }
        // Rolling every die, showing none, is within every roll the options allow.
        let all: Vec<usize> = (0..self.game.dice()).collect();
        if accepted(&Action::Roll { dice: all, show: Vec::new() }) {
            out.roll = self.roll_options(seat).ok();
        }
        // A claim is refused either for the state of the turn (every claim alike) or, the
        // Mexican alone, for want of a one under the cup; the Mexican is the top hand. So the
        // claims allowed run from the floor, if it is allowed, to the top or the hand below it.
        let claim = |hand: &Hand| accepted(&Action::Claim(hand.clone()));
        out.claim_from = self.claim_floor().filter(|floor| claim(floor));
        if let Some(floor) = &out.claim_from {
            let hands = self.game.ordered();
            if let [.., (below, under_top), (_, top)] = hands
                && !claim(top)
                && self.game.value(&floor.dice) <= *below
            {
                out.claim_to = Some(under_top.clone());
            }
            // The truth, when this seat has seen it whole and it is no undercall.
            if self.known_to.contains(seat) && self.cup.len() == self.game.dice() {
                let held = Hand::new(self.cup.clone());
                let value = self.game.value(&held.dice);
                out.claim_held = value >= self.game.value(&floor.dice)
                    && out.claim_to.as_ref().is_none_or(|to| value <= self.game.value(&to.dice))
                    && claim(&held);
            }
        }
    }

    /// A uniformly random legal action for `seat`: every action [`Legal::actions`] lists is
    /// accepted.
    pub fn random_legal_action(&self, seat: Seat, rng: &mut impl Rng) -> Option<Action> {
        let mut legal = Legal::default();
        self.legal_into(seat, &mut legal);
        let actions = legal.actions();
        actions.get(rng.random_range(0..actions.len().max(1))).cloned()
    }

    pub fn seats_to_ask(&self) -> impl Iterator<Item = Seat> + '_ {
        self.turn().into_iter()
    }

    // ----- applying -----

    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut impl EventSink,
    ) -> Result<(), RuleError> {
        self.check(seat, action)?;
        self.moves += 1;
        match action {
            Action::Dudo { .. } => self.challenge(seat, events),
            Action::Accept => self.accept(seat, events),
            Action::Roll { dice, show } => {
                if self.step == Step::Receiving {
                    self.accept(seat, events);
                }
                self.roll(seat, dice, show, events);
            }
            Action::Claim(spoken) => {
                if self.step == Step::Receiving {
                    self.accept(seat, events);
                }
                self.make_claim(seat, spoken, events);
            }
            Action::DogsLife { bark } => self.dogs_life(seat, *bark, events),
            _ => {}
        }
        Ok(())
    }

    fn accept(&mut self, seat: Seat, events: &mut impl EventSink) {
        emit(events, || EventKind::Accepted { seat });
        self.known_to.insert(seat);
        self.step = Step::Holding;
        self.see(seat, events);
        let top = self.top();
        if let Some((_, claim)) = &self.claim
            && self.game.value(&claim.dice) >= self.game.value(&top.dice)
        {
            if self.mexican() {
                // Believing a Mexican: catch the cup and drink; a new round follows.
                let drinks = self.catch_cup(seat, 1, events);
                self.drink(seat, drinks, events);
                self.end_round(seat, events);
            } else if self.rules.hand.five_aces == FiveAces::On {
                self.step = Step::FiveAces(0);
            }
        }
    }

    /// Tells `seat` what is under the cup (and keeps it for the replay).
    fn see(&self, seat: Seat, events: &mut impl EventSink) {
        if events.wants() {
            let dice = self.cup.clone();
            events.push(Event {
                audience: Audience::Hidden { seats: SeatSet::single(seat) },
                kind: EventKind::HandSeen { seat, dice },
            });
        }
    }

    fn roll(&mut self, seat: Seat, dice: &[usize], show: &[usize], events: &mut impl EventSink) {
        let opts = self.roll_options(seat).unwrap_or_default();
        let mut fresh = Vec::with_capacity(dice.len());
        self.dice.roll_into(seat, dice.len(), 6, &mut fresh);
        for (&pos, &face) in dice.iter().zip(&fresh) {
            self.cup[pos] = face;
            self.shown[pos] = false;
        }
        self.rolls = self.rolls.saturating_add(1);
        self.known_to = SeatSet::single(seat);
        let count = dice.len();
        emit(events, || EventKind::HandRolled { seat, count });
        if opts.drinks > 0 {
            self.drink(seat, u32::from(opts.drinks), events);
        }
        if let Step::FiveAces(tries) = self.step {
            // The test is rolled in the open.
            self.shown.iter_mut().for_each(|s| *s = true);
            let shown: Vec<(usize, u8)> = self.cup.iter().copied().enumerate().collect();
            emit(events, || EventKind::DiceShown { seat, dice: shown });
            let made = self.cup.iter().all(|&d| d == 6);
            if made || tries + 1 >= 3 {
                emit(events, || EventKind::FiveAces { seat, made });
                let next = self.next_active(seat);
                if made {
                    self.end_round(next, events);
                } else {
                    self.lose_life(seat, next, events);
                }
            } else {
                self.step = Step::FiveAces(tries + 1);
            }
            return;
        }
        for &pos in show {
            self.shown[pos] = true;
        }
        self.see(seat, events);
        if !show.is_empty() {
            let shown: Vec<(usize, u8)> = show.iter().map(|&p| (p, self.cup[p])).collect();
            emit(events, || EventKind::DiceShown { seat, dice: shown });
        }
    }

    fn make_claim(&mut self, seat: Seat, spoken: &Hand, events: &mut impl EventSink) {
        let Ok(claim) = self.effective_claim(spoken) else { return };
        if self.game.is_mexican(&claim.dice)
            && let Some(pos) = self.cup.iter().position(|&d| d == 1)
        {
            // "You must take the 1 out from under the cup, and place it in front of you."
            self.shown[pos] = true;
            emit(events, || EventKind::DiceShown { seat, dice: vec![(pos, 1)] });
        }
        let (spoken, said) = (Hand::new(spoken.dice.clone()), claim.clone());
        emit(events, || EventKind::Claimed { seat, spoken, claim: said });
        self.claim = Some((seat, claim));
        self.holder = self.next_active(seat);
        self.step = Step::Receiving;
        self.rolls = 0;
        // Mexican: the receiver must roll to beat the claim; the others may pass the dice on.
        self.must_roll = self.mexican();
    }

    fn challenge(&mut self, challenger: Seat, events: &mut impl EventSink) {
        let Some((claimant, claim)) = self.claim.clone() else { return };
        emit(events, || EventKind::DudoCalled { seat: challenger, target: claimant });
        let dice = self.cup.clone();
        emit(events, || EventKind::HandRevealed { dice });
        let hand = Hand::new(self.cup.clone());
        let holds = self.game.value(&hand.dice) >= self.game.value(&claim.dice);
        let (winner, loser) = if holds { (claimant, challenger) } else { (challenger, claimant) };
        let (c, h) = (claim.clone(), hand.clone());
        emit(events, || EventKind::ChallengeSettled { claim: c, hand: h, winner, loser });
        if self.mexican() {
            let h = &self.rules.hand;
            let mut drinks = u32::from(h.bluff_drinks);
            // "One is not allowed to bluff when they roll a Betty Ford."
            if !holds && self.game == HandGame::MexicanTwoDice && hand.dice == [5, 4] && claim.dice != [5, 4]
            {
                drinks = u32::from(h.betty_ford_drinks);
            }
            if self.game.is_mexican(&claim.dice) {
                // A Mexican challenged: the loser catches the cup, double if it was genuine.
                drinks = self.catch_cup(loser, if holds { 2 } else { 1 }, events);
            }
            self.drink(loser, drinks, events);
            self.end_round(loser, events);
            return;
        }
        // "The recipient loses a life and the dice pass to the player on the recipient's left
        // who starts again"; a failed claim: "the recipient becomes the starting player".
        let next = if holds { self.next_active(challenger) } else { challenger };
        self.lose_life(loser, next, events);
    }

    /// Mexican's cup catching, decided by the server's dice: caught, one die of drinks;
    /// missed, two dice; all times `times`.
    fn catch_cup(&mut self, seat: Seat, times: u32, events: &mut impl EventSink) -> u32 {
        let caught = self.dice.chance(self.rules.hand.catch_percent);
        let mut roll = Vec::with_capacity(2);
        self.dice.roll_into(seat, if caught { 1 } else { 2 }, 6, &mut roll);
        let drinks = roll.iter().map(|&d| u32::from(d)).sum::<u32>() * times;
        emit(events, || EventKind::CupCaught { seat, caught, drinks });
        drinks
    }

    fn drink(&mut self, seat: Seat, drinks: u32, events: &mut impl EventSink) {
        drink(&mut self.players[seat].drinks, seat, drinks, events);
    }

    fn lose_life(&mut self, seat: Seat, next: Seat, events: &mut impl EventSink) {
        let p = &mut self.players[seat];
        p.lives = p.lives.saturating_sub(1);
        let lives = p.lives;
        emit(events, || EventKind::LifeLost { seat, lives });
        if lives > 0 {
            self.end_round(next, events);
            return;
        }
        if self.rules.hand.dogs_life == DogsLife::Offered && !self.dogs_life_taken {
            self.step = Step::DogsLife { seat, next };
            return;
        }
        self.eliminate(seat, events);
        self.end_round(next, events);
    }

    fn dogs_life(&mut self, seat: Seat, bark: bool, events: &mut impl EventSink) {
        let Step::DogsLife { next, .. } = self.step else { return };
        emit(events, || EventKind::DogsLife { seat, barked: bark });
        if bark {
            self.dogs_life_taken = true;
            self.players[seat].lives = 1;
        } else {
            self.eliminate(seat, events);
        }
        self.end_round(next, events);
    }

    fn eliminate(&mut self, seat: Seat, events: &mut impl EventSink) {
        let place = self.active_count();
        self.players[seat].place = Some(place);
        self.out_order.push(seat);
        emit(events, || EventKind::Eliminated { seat, place });
    }

    /// A hand (round) is over: the game ends, or `next` starts a new hand.
    fn end_round(&mut self, next: Seat, events: &mut impl EventSink) {
        if let GameEnd::Rounds(n) = self.rules.game_end
            && self.hand_no >= n
        {
            // Most lives, then fewest drinks, then seat.
            let mut order: Vec<Seat> = (0..self.players.len()).filter(|&s| self.is_active(s)).collect();
            order.sort_by_key(|&s| (std::cmp::Reverse(self.players[s].lives), self.players[s].drinks, s));
            order.extend(self.out_order.iter().rev());
            self.finish(order, events);
            return;
        }
        if self.active_count() <= 1 {
            let mut order: Vec<Seat> = (0..self.players.len()).filter(|&s| self.is_active(s)).collect();
            order.extend(self.out_order.iter().rev());
            self.finish(order, events);
            return;
        }
        self.begin_hand(next, events);
    }

    fn finish(&mut self, standings: Vec<Seat>, events: &mut impl EventSink) {
        for (i, &s) in standings.iter().enumerate() {
            if self.players[s].place.is_none() {
                self.players[s].place = Some(i + 1);
            }
        }
        self.over = true;
        self.final_standings = standings;
        let (standings, players) = (&self.final_standings, &self.players);
        emit(events, || EventKind::GameOver {
            standings: standings.clone(),
            points: vec![0; players.len()],
            money: vec![0; players.len()],
            drinks: players.iter().map(|p| p.drinks).collect(),
        });
    }

    /// Ends the game now, whatever its state (the table stopped it: a length limit), ranked
    /// as a game of rounds ends: most lives, then fewest drinks, then seat; those already out
    /// follow. Nothing for a game already over.
    pub fn stop(&mut self) -> Vec<Event> {
        let mut events: Vec<Event> = Vec::new();
        if !self.over {
            let mut order: Vec<Seat> = (0..self.players.len()).filter(|&s| self.is_active(s)).collect();
            order.sort_by_key(|&s| (std::cmp::Reverse(self.players[s].lives), self.players[s].drinks, s));
            order.extend(self.out_order.iter().rev());
            self.finish(order, &mut events);
        }
        events
    }

    /// Takes `seat` out between hands (before the first claim of a hand).
    pub fn remove(&mut self, seat: Seat) -> Result<Vec<Event>, RuleError> {
        if self.over {
            return Err(RuleError::GameOver);
        }
        if !self.is_active(seat) {
            return Err(RuleError::OutOfTheGame { seat });
        }
        if self.claim.is_some() || self.rolls > 0 || !matches!(self.step, Step::Holding) {
            return Err(RuleError::LeaveMidRound { seat });
        }
        let mut events = Vec::new();
        let place = self.active_count();
        self.players[seat].place = Some(place);
        self.players[seat].left = true;
        self.out_order.push(seat);
        if self.holder == seat {
            self.holder = self.next_active(seat);
            self.starter = self.holder;
        }
        let starter = self.starter;
        emit(&mut events, || EventKind::SeatLeft { seat, place, starter, palifico: Vec::new(), wild: None });
        if self.active_count() <= 1 {
            let mut order: Vec<Seat> = (0..self.players.len()).filter(|&s| self.is_active(s)).collect();
            order.extend(self.out_order.iter().rev());
            self.finish(order, &mut events);
        }
        Ok(events)
    }

    // ----- views -----

    pub fn view_into(&self, seat: Option<Seat>, out: &mut View) {
        out.seat = seat.filter(|&s| s < self.players.len());
        out.phase = if self.over { Phase::Over } else { Phase::Bidding };
        out.round = self.hand_no;
        out.moves = self.moves;
        out.starter = self.starter;
        out.turn = self.turn();
        out.players.clear();
        out.players.extend(self.players.iter().map(|p| PlayerView {
            place: p.place,
            left: p.left,
            drinks: p.drinks,
            lives: p.lives,
            ..PlayerView::default()
        }));
        out.my_dice.clear();
        out.all_dice = None;
        out.claims.clear();
        out.current_bid = None;
        out.wild = None;
        out.palifico.clear();
        out.last_result = None;
        out.standings.clear();
        if self.over {
            out.standings.extend_from_slice(&self.final_standings);
        }
        let knows = out.seat.is_some_and(|s| self.known_to.contains(s)) || self.over;
        let dice =
            self.cup.iter().zip(&self.shown).map(|(&d, &shown)| (knows || shown).then_some(d)).collect();
        out.hand = Some(HandView {
            holder: self.holder,
            accepted: self.step != Step::Receiving,
            dice,
            shown: self.shown.clone(),
            claim: self.claim.clone(),
            rolls_this_turn: self.rolls,
            five_aces_tries: match self.step {
                Step::FiveAces(t) => Some(t),
                _ => None,
            },
            dogs_life_pending: match self.step {
                Step::DogsLife { seat, .. } => Some(seat),
                _ => None,
            },
            dogs_life_taken: self.dogs_life_taken,
        });
    }
}
