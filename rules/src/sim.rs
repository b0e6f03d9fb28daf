//! Playing whole games between bots, without a server.
//!
//! The loop asks every seat that may act (the seat whose turn it is, and anyone who may make
//! an exact call out of turn) in seat order, applies the first action offered, and repeats.
//! `dudo simulate` runs it on every core; the benchmarks and property tests use it too.

use crate::action::Seat;
use crate::bots::{Bot, Reads};
use crate::dice::Seed;
use crate::error::RuleError;
use std::sync::Arc;

use crate::dice::DiceSource;
use crate::game::{Discard, EventSink, Game, Legal, StartError, View};
use crate::ruleset::RuleSet;

/// How a simulated game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Seats from first place to last.
    pub standings: Vec<Seat>,
    pub rounds: u32,
    pub actions: u64,
}

/// Why a simulated game stopped early: a bot offered an action the rules refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Start(#[from] StartError),
    #[error("bot {bot} at seat {seat} offered {action}: {error}")]
    IllegalAction { bot: &'static str, seat: Seat, action: String, error: RuleError },
    #[error("the game did not end within {0} actions")]
    TooLong(u64),
}

/// Plays one game between `bots` (one per seat) with dice from `seed`, discarding events.
pub fn play(rules: &Arc<RuleSet>, bots: &mut [Box<dyn Bot>], seed: Seed) -> Result<Outcome, SimError> {
    play_into(rules, bots, seed, &mut Discard)
}

/// [`play`], writing every event into `events`.
pub fn play_into(
    rules: &Arc<RuleSet>,
    bots: &mut [Box<dyn Bot>],
    seed: Seed,
    events: &mut impl EventSink,
) -> Result<Outcome, SimError> {
    Runner::default().play_into(rules, bots, seed, events)
}

/// Games played one after another on the same buffers: the game (dealt again with
/// `Game::restart`, which keeps its allocations and skips checking the rules again), each
/// seat's view and the legal actions. A long simulation allocates once per thread, not per
/// game or per move; each game is the one [`play`] plays with the same seed.
#[derive(Default)]
pub struct Runner {
    /// The last game, kept for the next with the same rules and seats.
    game: Option<Game>,
    /// A view per seat and one set of legal actions, refilled for each question.
    views: Vec<View>,
    legal: Legal,
    /// What each seat's bot reads of its view this game: only that is filled.
    reads: Vec<Reads>,
    /// Where the dice come from.
    dice: Dice,
}

/// Which generator deals a simulation's dice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dice {
    /// ChaCha12, as every table on a server: the same seed deals the same game there.
    #[default]
    Secure,
    /// Xoshiro256++ ([`DiceSource::fast`]): quicker, and not the dice a server would deal
    /// from the same seed. For statistics only.
    Fast,
    /// By seat and roll ([`DiceSource::dealt`]): a duplicate tournament's deals.
    Dealt,
}

impl Runner {
    /// A runner whose games are dealt by `dice`.
    pub fn new(dice: Dice) -> Self {
        Runner { dice, ..Runner::default() }
    }

    /// [`play`], on this runner's buffers.
    pub fn play(
        &mut self,
        rules: &Arc<RuleSet>,
        bots: &mut [Box<dyn Bot>],
        seed: Seed,
    ) -> Result<Outcome, SimError> {
        self.play_into(rules, bots, seed, &mut Discard)
    }

    /// [`play_into`], on this runner's buffers.
    pub fn play_into(
        &mut self,
        rules: &Arc<RuleSet>,
        bots: &mut [Box<dyn Bot>],
        seed: Seed,
        events: &mut impl EventSink,
    ) -> Result<Outcome, SimError> {
        let dice = match self.dice {
            Dice::Secure => DiceSource::new(seed),
            Dice::Fast => DiceSource::fast(seed),
            Dice::Dealt => DiceSource::dealt(seed),
        };
        // Dealt again where it lies: a game is large enough that moving it costs.
        let game = match self.game.as_mut() {
            Some(game) if game.seats() == bots.len() && Arc::ptr_eq(game.rules_arc(), rules) => {
                game.restart(dice, events);
                game
            }
            _ => self.game.insert(Game::start_into(Arc::clone(rules), bots.len(), dice, None, events)?),
        };
        self.views.resize_with(bots.len(), View::default);
        self.reads.clear();
        self.reads.extend(bots.iter().map(|b| b.reads(game.rules())));
        let (views, legal, reads) = (&mut self.views, &mut self.legal, &self.reads);
        // Every action raises a bid or ends a round, so games are finite; this bounds bugs.
        let limit = 1_000_000u64;
        let mut actions = 0u64;
        while !game.is_over() {
            if actions >= limit {
                return Err(SimError::TooLong(limit));
            }
            let (seat, action) = next_action(game, bots, views, legal, reads);
            game.apply_into(seat, &action, events).map_err(|error| SimError::IllegalAction {
                bot: bots[seat].name(),
                seat,
                action: action.to_string(),
                error,
            })?;
            actions += 1;
        }
        Ok(Outcome { standings: game.standings(), rounds: game.round(), actions })
    }
}

/// The next move of a game between `bots`: a call out of turn, asked of those who may make
/// one closest to the last claim first, or else the move of the seat whose turn it is.
/// `views` and `legal` are buffers, refilled with what each bot `reads`.
pub(crate) fn next_action(
    game: &Game,
    bots: &mut [Box<dyn Bot>],
    views: &mut [View],
    legal: &mut Legal,
    reads: &[Reads],
) -> (Seat, crate::Action) {
    let view_of = |game: &Game, seat: Seat, view: &mut View| match reads.get(seat) {
        Some(Reads::Moves) => {
            view.seat = Some(seat);
            view.moves = game.moves();
        }
        _ => game.view_into(Some(seat), view),
    };
    let turn = game.turn().unwrap_or(0);
    for seat in game.seats_to_ask() {
        if seat == turn {
            continue;
        }
        game.legal_into(seat, legal);
        view_of(game, seat, &mut views[seat]);
        if let Some(a) = bots[seat].interject(game.rules(), &views[seat], legal) {
            return (seat, a);
        }
    }
    match bots[turn].act_in(game, turn) {
        Some(action) => (turn, action),
        None => {
            game.legal_into(turn, legal);
            view_of(game, turn, &mut views[turn]);
            (turn, bots[turn].act(game.rules(), &views[turn], legal))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bots, presets, seed_from_u64};

    #[test]
    fn every_bot_plays_every_preset_to_the_end() {
        for preset in presets::NAMES {
            let rules = Arc::new(presets::by_name(preset).unwrap_or_else(|| panic!("{preset}")));
            let seats = usize::from(rules.players.min.max(3).min(rules.players.max));
            for name in bots::NAMES {
                for game in 0..5u64 {
                    let mut table: Vec<Box<dyn Bot>> =
                        (0..seats).filter_map(|s| bots::by_name(name, game * 10 + s as u64)).collect();
                    let outcome = play(&rules, &mut table, seed_from_u64(game));
                    assert!(outcome.is_ok(), "{name} on {preset}: {:?}", outcome.err());
                }
            }
        }
    }

    /// A bot that reads only the move count, and picks without the list of legal actions,
    /// decides as it would given its whole view and the list: the same bots behind
    /// [`SeesEverything`] (which takes none of the shortcuts) play the same games.
    #[test]
    fn bots_that_read_less_decide_the_same() {
        for preset in presets::NAMES {
            let rules = Arc::new(presets::by_name(preset).unwrap_or_else(|| panic!("{preset}")));
            let seats = usize::from(rules.players.min.max(3).min(rules.players.max));
            for game in 0..30u64 {
                let table = || -> Vec<Box<dyn Bot>> {
                    (0..seats).filter_map(|s| bots::by_name("random", game * 10 + s as u64)).collect()
                };
                let ours = play(&rules, &mut table(), seed_from_u64(game));
                let mut seeing: Vec<Box<dyn Bot>> =
                    table().into_iter().map(|b| Box::new(SeesEverything(b)) as Box<dyn Bot>).collect();
                let full = play(&rules, &mut seeing, seed_from_u64(game));
                assert_eq!(ours, full, "{preset}, game {game}");
            }
        }
    }

    /// A bot as the trait's defaults ask it: its whole view filled, the legal actions listed.
    struct SeesEverything(Box<dyn Bot>);

    impl Bot for SeesEverything {
        fn name(&self) -> &'static str {
            self.0.name()
        }
        fn act(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> crate::Action {
            self.0.act(rules, view, legal)
        }
        fn interject(&mut self, rules: &RuleSet, view: &View, legal: &Legal) -> Option<crate::Action> {
            self.0.interject(rules, view, legal)
        }
    }

    /// A runner deals each game again on the last one's buffers: the games are the very ones
    /// a fresh game plays, events and all, whatever came before.
    #[test]
    fn a_runner_plays_the_games_fresh_ones_do() {
        use crate::game::EventSink;
        #[derive(Default, PartialEq, Debug)]
        struct Kept(Vec<crate::Event>);
        impl EventSink for Kept {
            fn push(&mut self, event: crate::Event) {
                self.0.push(event);
            }
        }
        let mut runner = Runner::default();
        for preset in presets::NAMES {
            let rules = Arc::new(presets::by_name(preset).unwrap_or_else(|| panic!("{preset}")));
            let seats = usize::from(rules.players.min.max(3).min(rules.players.max));
            for game in 0..6u64 {
                let name = bots::NAMES[game as usize % bots::NAMES.len()];
                let table = || -> Vec<Box<dyn Bot>> {
                    (0..seats).filter_map(|s| bots::by_name(name, game * 10 + s as u64)).collect()
                };
                let (mut fresh, mut reused) = (Kept::default(), Kept::default());
                let a = play_into(&rules, &mut table(), seed_from_u64(game), &mut fresh);
                let b = runner.play_into(&rules, &mut table(), seed_from_u64(game), &mut reused);
                assert_eq!(a, b, "{preset}, game {game}");
                assert_eq!(fresh, reused, "{preset}, game {game}: the same events");
            }
        }
    }
}
