//! Property tests: random rule sets from the whole knob space, random play mixed with random
//! illegal actions. Games end with one winner, nothing panics, no seat is ever shown a die it
//! may not see, every refused action leaves the game exactly as it was, and replaying the
//! accepted actions from the same seed gives the same events. Every reveal says which dice
//! counted, and its count is the one that settled the round.

use dudo_rules::event::Showdown;
use dudo_rules::ruleset::*;
use dudo_rules::{Action, Bid, Event, EventKind, Game, Viewer, bots, presets, seed_from_u64, sim};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn pick<T: Copy>(bits: &mut u64, options: &[T]) -> T {
    let i = (*bits % options.len() as u64) as usize;
    *bits /= options.len() as u64;
    options[i]
}

pub(crate) fn rules_from(preset: usize, mut bits: u64, dice: u8, faces: u8) -> RuleSet {
    let mut r = presets::by_name(presets::NAMES[preset % presets::NAMES.len()]).unwrap();
    r.dice = DiceRules { start: dice, max: dice + pick(&mut bits, &[0, 0, 1, 2]), faces };
    r.wilds = pick(
        &mut bits,
        &[r.wilds, Wilds::None, Wilds::Ones, Wilds::HighestFace, Wilds::OnesUnlessOpenedOnOnes],
    );
    r.wild_bids = pick(
        &mut bits,
        &[
            r.wild_bids,
            WildBids::HalveAndDoublePlusOne,
            WildBids::HalveAndDoubleOrLastPlusOne,
            WildBids::Plain,
        ],
    );
    r.opening_on_wilds = pick(&mut bits, &[r.opening_on_wilds, OpeningOnWilds::Allowed]);
    r.bidding = pick(
        &mut bits,
        &[
            r.bidding,
            BiddingSystem::MoreOfSameFaceOrHigherFace,
            BiddingSystem::MoreDice,
            BiddingSystem::AboveHighestNumber,
            BiddingSystem::HigherProduct,
            BiddingSystem::NeitherFalls,
        ],
    );
    r.dice_lost_on_dudo = pick(&mut bits, &[1, 1, 2]).min(r.dice.max);
    r.next_starter = pick(&mut bits, &[NextStarter::Loser, NextStarter::Winner]);
    r.exact_call.who = pick(
        &mut bits,
        &[r.exact_call.who, ExactCaller::NotBidderNorNext, ExactCaller::OnTurn, ExactCaller::Off],
    );
    if r.exact_call.who == ExactCaller::NotBidderNorNext {
        r.exact_call.min_players = 3;
    }
    r.exact_call.limit = pick(&mut bits, &[r.exact_call.limit, ExactLimit::OncePerGame]);
    r.palifico.trigger = pick(
        &mut bits,
        &[
            r.palifico.trigger,
            PalificoTrigger::Off,
            PalificoTrigger::FirstTimeOnOneDie,
            PalificoTrigger::EveryTimeOnOneDie,
        ],
    );
    r.palifico.face_change = pick(
        &mut bits,
        &[
            r.palifico.face_change,
            PalificoFaceChange::Locked,
            PalificoFaceChange::ExPalificoMayRaise,
            PalificoFaceChange::OneDiePlayersMayChange,
        ],
    );
    r.palifico.opener = pick(&mut bits, &[r.palifico.opener, PalificoOpener::OneDiePlayer]);
    r.push.dice = pick(&mut bits, &[r.push.dice, PushDice::AnyDice, PushDice::MatchingBidFace]);
    r.push.limit = pick(
        &mut bits,
        &[r.push.limit, PushLimit::OncePerPlayerPerRound, PushLimit::OncePerRound, PushLimit::Unlimited],
    );
    r.pass.claim =
        pick(&mut bits, &[r.pass.claim, PassClaim::AllSameFace, PassClaim::AllDifferent, PassClaim::Off]);
    r.pass.challenge = pick(&mut bits, &[r.pass.challenge, PassChallenge::AnyConsecutivePass]);
    r.pass.limit = pick(&mut bits, &[r.pass.limit, PassLimit::OncePerRound]);
    r.losers_see_dice = pick(&mut bits, &[LosersSeeDice::AllDice, LosersSeeDice::Hidden]);
    r.fibbing = pick(
        &mut bits,
        &[Fibbing::default(), Fibbing::default(), Fibbing { hide_percent: 20, misshow_percent: 20 }],
    );
    r.first_starter = pick(&mut bits, &[FirstStarter::RollOff, FirstStarter::FirstSeat]);
    r.dudo_penalty = pick(
        &mut bits,
        &[
            r.dudo_penalty,
            DudoPenalty::LoseDice,
            DudoPenalty::LoseDifference,
            DudoPenalty::GiveToWinner,
            DudoPenalty::Snyd,
            DudoPenalty::NoDice,
        ],
    );
    r.exact_call.reward = pick(&mut bits, &[ExactReward::WinDice, ExactReward::OthersLoseDice]);
    r.exact_call.cap = pick(&mut bits, &[ExactCap::MaxDice, ExactCap::StartingDice]);
    r.challenges.who = pick(&mut bits, &[Challenger::NextPlayer, Challenger::Anyone]);
    r.challenges.failed_out_of_turn = pick(&mut bits, &[OutOfTurnPenalty::Same, OutOfTurnPenalty::Double]);
    r.stairs = pick(&mut bits, &[Stairs::Off, Stairs::On]);
    r.wager.mode =
        pick(&mut bits, &[WagerMode::Off, WagerMode::WinnerTakesAll, WagerMode::LoserPaysWinnerEachRound]);
    r.drinks.tally = pick(&mut bits, &[DrinksTally::Off, DrinksTally::On]);
    r.drinks.each_round_while_out = pick(&mut bits, &[0, 1]);
    r.drinks.by_difference = pick(&mut bits, &[DrinksByDifference::Off, DrinksByDifference::On]);
    r.next_starter = pick(&mut bits, &[r.next_starter, NextStarter::NextInOrder]);
    if r.wild_bids == WildBids::NeverBid && r.wilds == Wilds::None {
        r.wild_bids = WildBids::Plain;
    }
    // Games without lost dice need an end.
    if r.dudo_penalty == DudoPenalty::NoDice && r.game_end == GameEnd::LastPlayerStanding {
        r.game_end = pick(&mut bits, &[GameEnd::Rounds(6), GameEnd::Points(30)]);
    }
    if matches!(r.game_end, GameEnd::Points(_)) {
        r.exact_call.who = ExactCaller::Off;
        r.pass.claim = PassClaim::Off;
        r.push.dice = PushDice::Off;
    }
    if r.game_end == GameEnd::LastPlayerStanding {
        r.game_end =
            pick(&mut bits, &[GameEnd::LastPlayerStanding, GameEnd::LastPlayerStanding, GameEnd::Rounds(8)]);
    }
    r.validate().unwrap();
    r
}

fn random_action(rng: &mut impl Rng, game: &Game) -> (usize, Action) {
    let seats = game.seats();
    let seat = rng.random_range(0..seats + 1);
    let faces = game.rules().dice.faces;
    let action = match rng.random_range(0..5) {
        0 => Action::Bid(Bid::new(rng.random_range(0..30), rng.random_range(0..faces + 2))),
        1 => Action::Dudo {
            target: if rng.random_bool(0.5) { None } else { Some(rng.random_range(0..seats + 1)) },
        },
        2 => Action::Calza,
        3 => Action::Pass,
        _ => Action::Push {
            dice: (0..rng.random_range(0..4)).map(|_| rng.random_range(0..faces + 1)).collect(),
            bid: Bid::new(rng.random_range(1..20), rng.random_range(1..faces + 1)),
        },
    };
    (seat, action)
}

/// The last accepted action's events may not show any seat another's unrevealed dice; only
/// seats out of the game (by the end of the action: rolls follow eliminations) may see them.
fn check_audiences(game: &Game, events: &[Event]) {
    let losers_see = game.rules().losers_see_dice == LosersSeeDice::AllDice;
    for e in events {
        if let EventKind::DiceRolled { seat: owner, .. } = e.kind {
            assert!(!e.audience.admits(Viewer::Spectator, false), "spectator sees dice: {e:?}");
            for s in 0..game.seats() {
                if s != owner && e.audience.admits(Viewer::Seat(s), false) {
                    assert!(losers_see && !game.is_active(s), "seat {s} sees seat {owner}'s dice: {e:?}");
                }
            }
        }
    }
}

fn check_views(game: &Game) {
    let losers_see = game.rules().losers_see_dice == LosersSeeDice::AllDice;
    assert!(game.spectator_view().my_dice.is_empty() && game.spectator_view().all_dice.is_none());
    for s in 0..game.seats() {
        let v = game.view(s);
        if v.all_dice.is_some() {
            assert!(losers_see && !game.is_active(s) && !v.players[s].left, "seat {s} sees all dice");
        }
        if game.dice_count(s) == 0 {
            assert!(v.my_dice.is_empty(), "seat {s} is out but still sees dice");
        }
    }
}

/// What a log's reveals found: reveals of a count, and cups that counted whole (stairs).
#[derive(Default)]
struct Reveals {
    counts: usize,
    whole_cups: usize,
}

/// Every reveal in `log` against the showdown that follows it: the marks line up with the
/// dice, each cup's marks add up to the total, the total is the showdown's `actual` and the
/// face its bid's (no count for a challenged pass). Each mark is also checked on its own,
/// from the round's wild face as the events gave it: a die counts if it shows the face, or
/// the wild face when that counts, or all of a stair's dice do when stairs count.
fn check_reveals(rules: &RuleSet, log: &[Event]) -> Reveals {
    let mut found = Reveals::default();
    let mut wild: Option<u8> = None;
    for (i, e) in log.iter().enumerate() {
        let (dice, counted) = match &e.kind {
            EventKind::RoundStarted { wild: w, .. } | EventKind::SeatLeft { wild: w, .. } => {
                wild = *w;
                continue;
            }
            EventKind::WildsOff => {
                wild = None;
                continue;
            }
            EventKind::DiceRevealed { dice, counted } => (dice, counted),
            _ => continue,
        };
        let Some(EventKind::RoundSettled { showdown, .. }) = log.get(i + 1).map(|e| &e.kind) else {
            panic!("a reveal not followed by the round's settling: {:?}", log.get(i + 1));
        };
        let actual = match showdown {
            Showdown::DudoOnBid { actual, .. }
            | Showdown::Calza { actual, .. }
            | Showdown::GuessesChecked { actual, .. } => Some(*actual),
            Showdown::DudoOnPass { .. } => None,
        };
        let Some(counted) = counted else {
            assert_eq!(actual, None, "a count without marks: {e:?}");
            continue;
        };
        found.counts += 1;
        assert_eq!(
            Some(counted.total),
            actual,
            "the reveal's total is not the showdown's: {e:?} {showdown:?}"
        );
        assert_eq!(showdown.bid().map(|b| b.face), Some(counted.face), "{e:?} {showdown:?}");
        assert_eq!(counted.marks.len(), dice.len(), "a mark list per seat: {e:?}");
        let mut sum = 0u16;
        for (seat, (cup, marks)) in dice.iter().zip(&counted.marks).enumerate() {
            assert_eq!(cup.len(), marks.len(), "seat {seat}: a mark per die: {e:?}");
            assert_eq!(usize::from(counted.count(seat)), marks.iter().filter(|&&m| m).count());
            sum += counted.count(seat);
            let face = counted.face;
            let wild_counts = wild.filter(|&w| w != face);
            let mut sorted = cup.clone();
            sorted.sort_unstable();
            let stair = rules.stairs == Stairs::On
                && (face == 1 || wild == Some(1))
                && cup.len() >= 2
                && sorted.iter().copied().eq(1..=cup.len() as u8);
            if stair && cup.iter().any(|&d| d != face && Some(d) != wild_counts) {
                found.whole_cups += 1;
            }
            for (&d, &m) in cup.iter().zip(marks) {
                let counts = stair || d == face || Some(d) == wild_counts;
                assert_eq!(m, counts, "seat {seat}'s {d} (face {face}, wild {wild:?}): {e:?}");
            }
        }
        assert_eq!(sum, counted.total, "the cups' counts do not add up to the total: {e:?}");
    }
    found
}

/// Bots play whole games of every preset: every reveal of a count carries the engine's own.
#[test]
fn every_preset_s_reveals_carry_the_count_that_settled_the_round() {
    let mut found = Reveals::default();
    for preset in presets::NAMES {
        let rules = std::sync::Arc::new(presets::by_name(preset).unwrap());
        if rules.family.hand_game().is_some() {
            continue;
        }
        let low = usize::from(rules.players.min);
        let high = usize::from(rules.players.max).min(6);
        for game in 0..12u64 {
            let seats = low + (game as usize) % (high - low + 1);
            let name = bots::NAMES[(game as usize) % bots::NAMES.len()];
            let mut table: Vec<Box<dyn bots::Bot>> =
                (0..seats).filter_map(|s| bots::by_name(name, game * 10 + s as u64)).collect();
            let mut log: Vec<Event> = Vec::new();
            sim::play_into(&rules, &mut table, seed_from_u64(game), &mut log)
                .unwrap_or_else(|e| panic!("{preset}, game {game}: {e}"));
            let f = check_reveals(&rules, &log);
            assert!(f.counts > 0, "{preset}, game {game}: no count was revealed");
            found.counts += f.counts;
            found.whole_cups += f.whole_cups;
        }
    }
    assert!(found.whole_cups > 0, "no stair was counted whole: snyd's stairs are not exercised");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_play_is_sound(
        preset in 0usize..4,
        bits in any::<u64>(),
        players in 2usize..7,
        dice in 1u8..6,
        faces in 3u8..10,
        seed in any::<u64>(),
    ) {
        let mut rules = rules_from(preset, bits, dice, faces);
        let players = players.clamp(usize::from(rules.players.min), usize::from(rules.players.max));
        if rules.exact_call.who == ExactCaller::NotBidderNorNext && players < 3 {
            rules.exact_call.who = ExactCaller::OnTurn;
        }
        let (mut game, opening) = Game::start(rules.clone(), players, seed_from_u64(seed)).unwrap();
        check_audiences(&game, &opening);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xD1CE);
        let mut log: Vec<Event> = opening;
        let mut accepted: Vec<(usize, Action)> = Vec::new();
        let mut steps = 0;
        // A points game ends only when someone hits the target exactly, which random play may
        // take as long as it likes: those games are played for a while, not to the end.
        let points_game = matches!(rules.game_end, GameEnd::Points(_));
        while !game.is_over() {
            steps += 1;
            if points_game && steps > 5_000 {
                break;
            }
            prop_assert!(steps < 50_000, "game did not end: {:?} round {}", rules, game.round());
            let (seat, action) = if rng.random_bool(0.3) {
                random_action(&mut rng, &game)
            } else {
                let seat = if rng.random_bool(0.2) {
                    {
                        let ask: Vec<usize> = game.seats_to_ask().collect();
                        ask[rng.random_range(0..ask.len())]
                    }
                } else {
                    game.turn().unwrap()
                };
                let legal = game.legal(seat);
                let actions = legal.actions();
                if actions.is_empty() {
                    continue;
                }
                (seat, actions[rng.random_range(0..actions.len())].clone())
            };
            let before = game.clone();
            match game.apply(seat, &action) {
                Ok(events) => {
                    check_audiences(&game, &events);
                    log.extend(events);
                    accepted.push((seat, action));
                }
                Err(_) => prop_assert!(game == before, "a refused {action:?} changed the game"),
            }
            check_views(&game);
        }
        check_reveals(&rules, &log);
        let finished = game.is_over();
        let standings = game.standings();
        let mut sorted = standings.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..players).collect::<Vec<_>>());
        if finished && rules.game_end == GameEnd::LastPlayerStanding {
            prop_assert_eq!((0..players).filter(|&s| game.dice_count(s) > 0).count(), 1);
            // In snyd the one left holding dice has lost.
            let holder = if rules.dudo_penalty == DudoPenalty::Snyd { standings[players - 1] } else { standings[0] };
            prop_assert!(game.dice_count(holder) > 0);
        }
        if let GameEnd::Points(target) = rules.game_end {
            let view = game.spectator_view();
            if finished {
                prop_assert_eq!(view.players[standings[0]].score, i64::from(target));
            }
            prop_assert!(view.players.iter().all(|p| p.score <= i64::from(target)));
        }
        // Money only moves between players.
        prop_assert_eq!(game.spectator_view().players.iter().map(|p| p.money).sum::<i64>(), 0);
        // Replaying the accepted actions from the same seed gives the same game.
        let (mut again, mut replay) = Game::start(rules, players, seed_from_u64(seed)).unwrap();
        for (seat, action) in &accepted {
            replay.extend(again.apply(*seat, action).unwrap());
        }
        prop_assert!(replay == log);
        prop_assert!(again == game);
    }
}

pub(crate) fn hand_rules(preset: usize, mut bits: u64) -> RuleSet {
    let names = ["poker-dice", "stanford", "mexican", "mexican-two-dice"];
    let mut r = presets::by_name(names[preset % names.len()]).unwrap();
    r.hand.lives = pick(&mut bits, &[1, 2, 3]);
    r.hand.undercall = pick(&mut bits, &[Undercall::TreatedAsBetter, Undercall::Refused]);
    r.hand.five_aces = pick(&mut bits, &[FiveAces::On, FiveAces::Off]);
    r.hand.dogs_life = pick(&mut bits, &[DogsLife::Offered, DogsLife::Off]);
    r.hand.show_dice = pick(&mut bits, &[ShowDice::Off, ShowDice::Allowed]);
    r.first_starter = pick(&mut bits, &[FirstStarter::RollOff, FirstStarter::FirstSeat]);
    if matches!(r.family, Family::Mexican | Family::MexicanTwoDice) {
        r.game_end = GameEnd::Rounds(pick(&mut bits, &[1, 3, 8]));
    }
    r.validate().unwrap();
    r
}

fn random_hand_action(rng: &mut impl Rng, game: &Game) -> (usize, Action) {
    let seats = game.seats();
    let seat = rng.random_range(0..seats + 1);
    let n = game.rules().family.hand_game().map_or(5, |g| g.dice());
    let positions = |rng: &mut ChaCha8Rng| -> Vec<usize> {
        (0..rng.random_range(0..n + 2)).map(|_| rng.random_range(0..n + 1)).collect()
    };
    let mut local = ChaCha8Rng::seed_from_u64(rng.random());
    let action = match rng.random_range(0..7) {
        0 => Action::Dudo { target: None },
        1 => Action::Accept,
        2 => Action::Roll { dice: positions(&mut local), show: positions(&mut local) },
        3 => Action::Claim(dudo_rules::hand::Hand::new(
            (0..rng.random_range(n - 1..n + 2)).map(|_| rng.random_range(0..8)).collect(),
        )),
        4 => Action::DogsLife { bark: rng.random_bool(0.5) },
        5 => Action::Bid(Bid::new(2, 3)),
        _ => Action::Calza,
    };
    (seat, action)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_individual_hand_play_is_sound(preset in 0usize..4, bits in any::<u64>(), players in 2usize..6, seed in any::<u64>()) {
        let rules = hand_rules(preset, bits);
        let (mut game, opening) = Game::start(rules.clone(), players, seed_from_u64(seed)).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xCAFE);
        // Seats that have held the cup this hand: only they may know dice under it.
        let mut held = std::collections::BTreeSet::new();
        for e in &opening {
            if let EventKind::HandStarted { starter, .. } = e.kind {
                held = [starter].into();
            }
        }
        let mut log = opening;
        let mut accepted: Vec<(usize, Action)> = Vec::new();
        let mut steps = 0;
        while !game.is_over() {
            steps += 1;
            prop_assert!(steps < 20_000, "game did not end: {:?}", rules.family);
            // `claim_held` offers the truth exactly when claiming it is no undercall.
            if let Some(turn) = game.turn()
                && let Some(hand) = game.view(turn).hand
                && hand.dice.iter().all(Option::is_some)
                && game.legal(turn).claim_from.is_some()
            {
                let truth = dudo_rules::hand::Hand::new(hand.dice.iter().flatten().copied().collect());
                let mut trial = game.clone();
                let honest = match trial.apply(turn, &Action::Claim(truth)) {
                    Ok(events) => events.iter().any(|e| matches!(&e.kind, EventKind::Claimed { spoken, claim, .. } if spoken == claim)),
                    Err(_) => false,
                };
                prop_assert_eq!(game.legal(turn).claim_held, honest);
            }
            let (seat, action) = if rng.random_bool(0.3) {
                random_hand_action(&mut rng, &game)
            } else {
                let seat = game.turn().unwrap();
                match game.random_legal_action(seat, &mut rng) {
                    Some(a) => (seat, a),
                    None => { prop_assert!(false, "no legal action for the seat to move"); unreachable!() }
                }
            };
            let before = game.clone();
            match game.apply(seat, &action) {
                Ok(events) => {
                    for e in &events {
                        match e.kind {
                            EventKind::HandStarted { starter, .. } => held = [starter].into(),
                            EventKind::Accepted { seat: s } => {
                                held.insert(s);
                            }
                            _ => {}
                        }
                        if let EventKind::HandSeen { seat: s, .. } = e.kind {
                            for o in 0..players {
                                prop_assert_eq!(e.audience.admits(Viewer::Seat(o), false), o == s);
                            }
                            prop_assert!(!e.audience.admits(Viewer::Spectator, false));
                        }
                    }
                    log.extend(events);
                    accepted.push((seat, action));
                }
                Err(_) => prop_assert!(game == before, "a refused {:?} changed the game", action),
            }
            // Nobody who has not held the cup this hand sees dice under it.
            for o in 0..players {
                let h = game.view(o).hand.unwrap();
                if !game.is_over() && !held.contains(&o) {
                    for (d, shown) in h.dice.iter().zip(&h.shown) {
                        prop_assert!(d.is_none() || *shown, "seat {} sees a hidden die", o);
                    }
                }
            }
            let spectator = game.spectator_view().hand.unwrap();
            prop_assert!(game.is_over() || spectator.dice.iter().zip(&spectator.shown).all(|(d, s)| d.is_none() || *s));
        }
        let mut sorted = game.standings();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..players).collect::<Vec<_>>());
        let (mut again, mut replay) = Game::start(rules, players, seed_from_u64(seed)).unwrap();
        for (seat, action) in &accepted {
            replay.extend(again.apply(*seat, action).unwrap());
        }
        prop_assert!(replay == log);
        prop_assert!(again == game);
    }
}
