//! The one place the engine's types and the `dudo.v1` wire types meet.
//!
//! Everything goes both ways: the server turns the engine's events, views and legal actions
//! into wire messages and reads rule sets and actions from clients; clients (the CLI, the bot
//! SDK) read events, views and legal actions back into the engine's types so they can use its
//! helpers (describing events, parsing calls, odds). Every field that is narrower in the
//! engine than on the wire is range-checked, and a bad value is an error naming the field,
//! never a panic, whichever side sent it.
//!
//! By message family, a file each: `rules` (rule sets), `actions` (actions, and why a seat
//! leaves or a game stops), `events`, `views` (views and legal actions) and `standings`
//! (a tournament's); this file holds the error and the small helpers they share.

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
    pub field: std::borrow::Cow<'static, str>,
    pub problem: String,
}

fn bad(field: &'static str, problem: impl Into<String>) -> ConvertError {
    ConvertError { field: field.into(), problem: problem.into() }
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

mod actions;
mod events;
mod rules;
mod standings;
mod views;

pub use actions::*;
pub use events::*;
pub use rules::*;
pub use standings::*;
pub use views::*;

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
