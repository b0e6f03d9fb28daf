//! [`Game`]: one interface for every game kind. The rule set's `family` picks the kind; each
//! method forwards to it. Adding a kind is a variant here and a module beside this one.

use std::sync::Arc;

use rand::Rng;

use super::{CommonHand, EventSink, Legal, StartError, View};
use crate::action::{Action, Seat};
use crate::bid::Bid;
use crate::dice::{DiceSource, Seed};
use crate::error::RuleError;
use crate::event::Event;
use crate::individual::IndividualHand;
use crate::ruleset::{Family, RuleSet};

/// A game of any kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Game {
    /// Everyone has dice; claims are about all the dice on the table (000, 001, 002, 003, 004).
    CommonHand(CommonHand),
    /// One hand passed round under a cup; claims are about that hand (002).
    IndividualHand(IndividualHand),
}

/// Two iterators as one, for methods whose kinds iterate differently.
enum Either<A, B> {
    A(A),
    B(B),
}

impl<A: Iterator<Item = Seat>, B: Iterator<Item = Seat>> Iterator for Either<A, B> {
    type Item = Seat;
    fn next(&mut self) -> Option<Seat> {
        match self {
            Either::A(a) => a.next(),
            Either::B(b) => b.next(),
        }
    }
}

macro_rules! each {
    ($self:expr, $g:ident => $body:expr) => {
        match $self {
            Game::CommonHand($g) => $body,
            Game::IndividualHand($g) => $body,
        }
    };
}

impl Game {
    /// Starts a game of `seats` players with dice from `seed`; the opening events (roll-off,
    /// first roll) are returned with it.
    pub fn start(
        rules: impl Into<Arc<RuleSet>>,
        seats: usize,
        seed: Seed,
    ) -> Result<(Game, Vec<Event>), StartError> {
        Game::start_with(rules, seats, DiceSource::new(seed), None)
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
        Ok(match rules.family {
            Family::CommonHand => {
                Game::CommonHand(CommonHand::start_into(rules, seats, dice, start_dice, events)?)
            }
            _ => Game::IndividualHand(IndividualHand::start_into(rules, seats, dice, events)?),
        })
    }

    /// A game `view`'s seat cannot tell from the one it is in, `cups[seat]` the dice under
    /// each cup and later rolls from `dice` (`position.rs`): how a bot plays its guesses at
    /// the hidden dice forward. The common-hand games only; `None` for the others, a
    /// spectator's or a finished game's view, or cups that do not hold each seat's dice.
    pub fn from_view(rules: Arc<RuleSet>, view: &View, cups: &[Vec<u8>], dice: DiceSource) -> Option<Game> {
        match rules.family {
            Family::CommonHand => CommonHand::from_view(rules, view, cups, dice).map(Game::CommonHand),
            _ => None,
        }
    }

    /// The individual-hand game `view`'s seat cannot tell from the one it is in, `cup` the
    /// dice under the cup and later rolls from `dice` (`individual/position.rs`). `None` for
    /// the common-hand games, a spectator's or a finished game's view, the dog's life being
    /// decided, or a cup that disagrees with what the view sees.
    pub fn from_hand_view(rules: Arc<RuleSet>, view: &View, cup: &[u8], dice: DiceSource) -> Option<Game> {
        IndividualHand::from_view(rules, view, cup, dice).map(Game::IndividualHand)
    }

    /// Starts this table's game afresh with new dice, reusing its memory.
    pub fn restart(&mut self, dice: DiceSource, events: &mut impl EventSink) {
        each!(self, g => g.restart(dice, events))
    }

    pub fn rules(&self) -> &RuleSet {
        each!(self, g => g.rules())
    }
    /// The rules, shared (an `Arc` the caller may compare with its own).
    pub fn rules_arc(&self) -> &Arc<RuleSet> {
        each!(self, g => g.rules_arc())
    }
    pub fn seats(&self) -> usize {
        each!(self, g => g.seats())
    }
    pub fn is_over(&self) -> bool {
        each!(self, g => g.is_over())
    }
    /// Rounds begun so far (hands, in the individual-hand games).
    pub fn round(&self) -> u32 {
        each!(self, g => g.round())
    }
    /// Actions applied so far this game (`View::moves`).
    pub fn moves(&self) -> u64 {
        each!(self, g => g.moves())
    }
    /// Whose move it is, if the game is on.
    pub fn turn(&self) -> Option<Seat> {
        each!(self, g => g.turn())
    }
    /// Whether this round is a Palifico (special) round (common hand only).
    pub fn in_palifico(&self) -> bool {
        match self {
            Game::CommonHand(g) => g.in_palifico(),
            Game::IndividualHand(_) => false,
        }
    }
    /// The bid in force and who made it (common hand only).
    pub fn current_bid(&self) -> Option<(Seat, Bid)> {
        match self {
            Game::CommonHand(g) => g.current_bid(),
            Game::IndividualHand(_) => None,
        }
    }
    /// How many dice on the table count for `face` now, as the showdown would count them
    /// (wilds, stairs, pushed dice): the truth of a bid on it (common hand only).
    pub fn bid_count(&self, face: u8) -> Option<u16> {
        match self {
            Game::CommonHand(g) => Some(g.count(face)),
            Game::IndividualHand(_) => None,
        }
    }
    /// Dice a seat holds (common hand), or lives it has left (individual hand).
    pub fn dice_count(&self, seat: Seat) -> u16 {
        each!(self, g => g.dice_count(seat))
    }
    pub fn is_active(&self, seat: Seat) -> bool {
        each!(self, g => g.is_active(seat))
    }
    /// The dice source, for the script runner's mismatch check.
    pub fn dice_source_mut(&mut self) -> &mut DiceSource {
        each!(self, g => g.dice_source_mut())
    }
    /// Seats from first place to last (see each kind for how a game in progress ranks).
    pub fn standings(&self) -> Vec<Seat> {
        each!(self, g => g.standings())
    }

    /// Checks `action` for `seat` without changing anything.
    pub fn check(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        each!(self, g => g.check(seat, action))
    }
    /// Everything `seat` may do now (empty when nothing).
    pub fn legal(&self, seat: Seat) -> Legal {
        let mut legal = Legal::default();
        self.legal_into(seat, &mut legal);
        legal
    }
    /// Writes everything `seat` may do now into `out`, reusing its allocations.
    pub fn legal_into(&self, seat: Seat, out: &mut Legal) {
        each!(self, g => g.legal_into(seat, out))
    }
    /// A uniformly random legal action for `seat`, for playouts.
    pub fn random_legal_action(&self, seat: Seat, rng: &mut impl Rng) -> Option<Action> {
        each!(self, g => g.random_legal_action(seat, rng))
    }
    /// What a seat that does not answer in time does (the server's turn clock applies it
    /// until the turn moves on). Common hand: open with the lowest bid, else challenge.
    /// Individual hand: 002's Königswinter rule, "deemed to have accepted the bid and to be
    /// passing the dice, unrolled, on as Better" (rolling first where a roll is required);
    /// the dog's life is declined.
    pub fn default_action(&self, seat: Seat) -> Option<Action> {
        let legal = self.legal(seat);
        if legal.is_empty() {
            return None;
        }
        if legal.hand_game.is_some() {
            if legal.dogs_life {
                return Some(Action::DogsLife { bark: false });
            }
            if let Some(floor) = legal.claim_from.clone() {
                let claim = Action::Claim(floor);
                if self.check(seat, &claim).is_ok() {
                    return Some(claim);
                }
            }
            if let (Some(roll), Some(game)) = (legal.roll, legal.hand_game)
                && (roll.all || roll.drinks == 0)
            {
                return Some(Action::Roll { dice: (0..game.dice()).collect(), show: Vec::new() });
            }
            if legal.accept {
                return Some(Action::Accept);
            }
            return legal.dudo.first().map(|_| Action::Dudo { target: None });
        }
        if self.current_bid().is_none()
            && let Some(r) = legal.bids.first()
        {
            return Some(Action::Bid(Bid::new(r.min_quantity, r.face)));
        }
        if !legal.dudo.is_empty() {
            return Some(Action::Dudo { target: None });
        }
        legal.actions().into_iter().next()
    }

    /// Seats that may act now: the seat whose turn it is first, then anyone who may act out
    /// of turn, closest to the last claim first.
    pub fn seats_to_ask(&self) -> impl Iterator<Item = Seat> + '_ {
        match self {
            Game::CommonHand(g) => Either::A(g.seats_to_ask()),
            Game::IndividualHand(g) => Either::B(g.seats_to_ask()),
        }
    }

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
        each!(self, g => g.apply_into(seat, action, events))
    }
    /// Ends the game now (the table stopped it), ranked as a game of rounds ends.
    pub fn stop(&mut self) -> Vec<Event> {
        each!(self, g => g.stop())
    }
    /// Takes `seat` out of the game: it left, or the host removed it (between rounds).
    pub fn remove(&mut self, seat: Seat) -> Result<Vec<Event>, RuleError> {
        each!(self, g => g.remove(seat))
    }

    /// What `seat` may know.
    pub fn view(&self, seat: Seat) -> View {
        let mut v = View::default();
        self.view_into(Some(seat), &mut v);
        v
    }
    /// What a spectator may know.
    pub fn spectator_view(&self) -> View {
        let mut v = View::default();
        self.view_into(None, &mut v);
        v
    }
    /// Writes what `seat` (or a spectator, for `None`) may know into `out`, reusing memory.
    pub fn view_into(&self, seat: Option<Seat>, out: &mut View) {
        each!(self, g => g.view_into(seat, out))
    }
}
