//! Games: the one interface every game kind sits behind, and the common-hand kind.
//!
//! [`Game`] is a deterministic state machine in the OpenSpiel mould: [`Game::legal`] for any
//! seat at any moment, [`Game::apply`] returning the events an action caused (or a
//! [`RuleError`] with the state untouched: every check runs before anything changes),
//! [`Game::view`] for exactly what one seat may know, [`Game::spectator_view`],
//! [`Game::is_over`] and [`Game::standings`]. Behind it sit two kinds (`dispatch.rs`):
//! [`CommonHand`] here (everyone has dice, claims are about all the dice on the table) and
//! the individual-hand games (`individual.rs`: one hand passed round under a cup). What both
//! kinds speak (views, legal actions, claims, the event sink) is `view.rs`'s, re-exported here.

mod dispatch;
mod legal;
mod position;
mod settle;

pub use dispatch::Game;

pub use crate::view::{
    Claim, ClaimKind, Discard, EventSink, HandView, Legal, Phase, PlayerView, RollOptions, RoundResult,
    StartError, View, seats_allowed,
};
pub(crate) use crate::view::{drink, emit, roll_off};

use std::sync::Arc;

use crate::action::{Action, Seat};
use crate::bid::{Bid, BidProblem, BidRange, Bidding, FaceRule};
use crate::dice::DiceSource;
use crate::error::RuleError;
use crate::event::{Audience, Counted, Event, EventKind, ResultRow, SeatSet, Showdown};
use crate::ruleset::*;

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
    /// Points (001's game).
    score: i64,
    /// Money won or lost (002's gambling).
    money: i64,
    /// Drinks taken (002's drinking game).
    drinks: u32,
    /// Stopped guessing this round (001's Watch).
    watching: bool,
    /// This round's last guess (001: watchers' guesses still count).
    last_guess: Option<Bid>,
}

impl Player {
    fn new(dice: u16) -> Self {
        Player {
            dice_count: dice,
            cup: Vec::new(),
            sight: Vec::new(),
            pushed: Vec::new(),
            place: None,
            left: false,
            had_palifico: false,
            just_reached_one_die: false,
            exact_used: false,
            passed_this_roll: false,
            passed_this_round: false,
            pushed_this_round: false,
            score: 0,
            money: 0,
            drinks: 0,
            watching: false,
            last_guess: None,
        }
    }

    fn active(&self) -> bool {
        self.place.is_none()
    }
}

/// A game of the common-hand family.
#[derive(Clone, Debug, PartialEq)]
pub struct CommonHand {
    rules: Arc<RuleSet>,
    dice: DiceSource,
    players: Vec<Player>,
    /// Dice each seat started with (handicaps may differ from the rule set's).
    initial_dice: Vec<u16>,
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
    last_result: Option<Arc<RoundResult>>,
    /// The last game's result, kept by `restart` so the next game's reveals reuse its memory.
    spare_result: Option<Arc<RoundResult>>,
    /// Dice held by players still in, fixed for a round (counts only change between rounds).
    dice_in_play: u16,
    /// Actions played this game.
    moves: u64,
}

/// The name the table's rules give the exact call.
pub fn exact_call_name(rules: &RuleSet) -> &'static str {
    match (rules.exact_call.who, rules.exact_call.limit) {
        (_, ExactLimit::OncePerGame) => "exact",
        (ExactCaller::OnTurn, _) => "jonti",
        _ => "calza",
    }
}

impl CommonHand {
    /// Starts a common-hand game, writing the opening events into `events`.
    pub fn start_into(
        rules: Arc<RuleSet>,
        seats: usize,
        dice: DiceSource,
        start_dice: Option<Vec<u16>>,
        events: &mut impl EventSink,
    ) -> Result<CommonHand, StartError> {
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
        let players = (0..seats).map(|seat| Player::new(count(seat))).collect();
        let mut game = CommonHand {
            rules,
            dice,
            players,
            initial_dice: (0..seats).map(count).collect(),
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
            spare_result: None,
            moves: 0,
            dice_in_play: 0,
        };
        game.begin(events);
        Ok(game)
    }

    /// Starts this table's game afresh with new dice: same rules, seats and starting dice,
    /// and the allocations of the last game reused (simulations play many games in a row).
    pub fn restart(&mut self, dice: DiceSource, events: &mut impl EventSink) {
        self.dice = dice;
        for (p, &n) in self.players.iter_mut().zip(&self.initial_dice) {
            // Keep the dice buffers; everything else is as new.
            let (cup, sight, pushed) =
                (std::mem::take(&mut p.cup), std::mem::take(&mut p.sight), std::mem::take(&mut p.pushed));
            *p = Player { cup, sight, pushed, ..Player::new(n) };
            p.cup.clear();
            p.sight.clear();
            p.pushed.clear();
        }
        self.phase = Phase::Bidding;
        self.round = 0;
        self.moves = 0;
        self.starter = 0;
        self.turn = 0;
        self.claims.clear();
        self.current = None;
        self.wild = None;
        self.palifico = SeatSet::default();
        self.pushes_this_round = 0;
        self.last_natural_quantity = 0;
        self.out_order.clear();
        self.final_standings.clear();
        self.spare_result = self.last_result.take();
        self.begin(events);
    }

    /// The opening of a game: the roll-off (if the rules want one) and the first round.
    fn begin(&mut self, events: &mut impl EventSink) {
        let dice = &self.initial_dice;
        emit(events, || EventKind::GameStarted { seats: dice.len(), dice: dice.clone() });
        let starter = match self.rules.first_starter {
            FirstStarter::FirstSeat => 0,
            FirstStarter::RollOff => {
                roll_off(&mut self.dice, self.players.len(), self.rules.dice.faces, events)
            }
        };
        emit(events, || EventKind::StarterChosen { seat: starter });
        self.start_round(starter, events);
    }

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
        self.phase == Phase::Over
    }

    pub fn round(&self) -> u32 {
        self.round
    }

    /// Actions applied so far this game (`View::moves`).
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Whose turn it is, if the game is on.
    pub fn turn(&self) -> Option<Seat> {
        (!self.is_over()).then_some(self.turn)
    }

    /// Whether this round is a Palifico (special) round for some seat.
    pub fn in_palifico(&self) -> bool {
        !self.palifico.is_empty()
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
        self.dice_in_play
    }

    fn count_dice_in_play(&self) -> u16 {
        self.players.iter().filter(|p| p.active()).map(|p| p.dice_count).sum()
    }

    /// The next seat still in the game after `seat`, in play order.
    fn next_active(&self, seat: Seat) -> Seat {
        let n = self.players.len();
        (1..=n).map(|i| (seat + i) % n).find(|&s| self.players[s].active()).unwrap_or(seat)
    }

    /// The next seat after `seat` that still plays this round: in the game and not watching.
    fn next_to_act(&self, seat: Seat) -> Seat {
        let n = self.players.len();
        (1..=n)
            .map(|i| (seat + i) % n)
            .find(|&s| self.players[s].active() && !self.players[s].watching)
            .unwrap_or(seat)
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
            p.watching = false;
            p.last_guess = None;
        }
        let while_out = u32::from(self.rules.drinks.each_round_while_out);
        if self.rules.drinks.tally == DrinksTally::On && while_out > 0 && self.round > 1 {
            for seat in 0..self.players.len() {
                if !self.players[seat].active() && !self.players[seat].left {
                    self.drink(seat, while_out, events);
                }
            }
        }
        self.dice_in_play = self.count_dice_in_play();
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
        if fib.hide_percent == 0 && fib.misshow_percent == 0 {
            // The common path: the owner sees exactly what it rolled.
            let p = &mut self.players[seat];
            self.dice.roll_into(seat, n, faces, &mut p.cup);
            p.cup.sort_unstable();
            p.sight.clear();
            p.sight.extend(p.cup.iter().map(|&d| Some(d)));
        } else {
            let mut cup = std::mem::take(&mut self.players[seat].cup);
            self.dice.roll_into(seat, n, faces, &mut cup);
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
            let p = &mut self.players[seat];
            p.sight.clear();
            p.sight.extend(pairs.iter().map(|x| x.0));
            p.cup = cup;
        }
        let p = &self.players[seat];
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

    /// Ends the game now, whatever its state (the table stopped it: a length limit). Players
    /// still in rank as a game of rounds ends (points, money, fewest drinks, dice, seat);
    /// those already out follow. Nothing for a game already over.
    pub fn stop(&mut self) -> Vec<Event> {
        let mut events: Vec<Event> = Vec::new();
        if !self.is_over() {
            self.finish_ranked(&mut events);
        }
        events
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
        self.dice_in_play = self.count_dice_in_play();
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

    /// Writes what `seat` (or a spectator, for `None`) may know into `out`, reusing its
    /// allocations: bots asked many times a game keep one view each.
    pub fn view_into(&self, seat: Option<Seat>, out: &mut View) {
        out.seat = seat;
        out.phase = self.phase;
        out.round = self.round;
        out.moves = self.moves;
        out.starter = self.starter;
        out.turn = self.turn();
        out.players.resize_with(self.players.len(), PlayerView::default);
        for (v, p) in out.players.iter_mut().zip(&self.players) {
            v.dice = p.dice_count;
            if !(v.pushed.is_empty() && p.pushed.is_empty()) {
                v.pushed.clear();
                v.pushed.extend_from_slice(&p.pushed);
            }
            v.place = p.place;
            v.left = p.left;
            v.had_palifico = p.had_palifico;
            v.exact_used = p.exact_used;
            v.score = p.score;
            v.money = p.money;
            v.drinks = p.drinks;
            v.watching = p.watching;
            v.last_guess = p.last_guess;
            v.lives = 0;
        }
        out.claims.clear();
        out.claims.extend_from_slice(&self.claims);
        out.current_bid = self.current;
        out.wild = self.wild;
        out.palifico.clear();
        if !self.palifico.is_empty() {
            out.palifico.extend(self.palifico.iter());
        }
        // Views asked again and again keep the same result: skip the reference-count traffic.
        match (&out.last_result, &self.last_result) {
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => {}
            _ => out.last_result.clone_from(&self.last_result),
        }
        out.standings.clear();
        if self.is_over() {
            out.standings.extend_from_slice(&self.final_standings);
        }
        out.my_dice.clear();
        out.all_dice = None;
        out.hand = None;
        let Some(p) = seat.and_then(|s| self.players.get(s)) else {
            out.seat = None;
            return;
        };
        out.my_dice.extend_from_slice(&p.sight);
        if !p.active() && !p.left && self.rules.losers_see_dice == LosersSeeDice::AllDice && !self.is_over() {
            out.all_dice = Some(self.reveal());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_without_a_bid_raises_to_the_least_legal_bid_on_its_face() {
        let legal = Legal {
            bids: vec![BidRange { face: 5, min_quantity: 4, max_quantity: 20 }],
            push: true,
            ..Default::default()
        };
        assert_eq!(legal.parse_call("push 5 5"), Ok(Action::Push { dice: vec![5, 5], bid: Bid::new(4, 5) }));
        assert_eq!(legal.parse_call("3 fives"), Ok(Action::Bid(Bid::new(3, 5))));
        assert!(legal.parse_call("push 6").is_err());
    }
}
