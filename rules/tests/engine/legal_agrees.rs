//! Legal actions and `apply` agree, in every preset: at states reached by the built-in bots
//! and random legal play, every action `Game::legal` offers is accepted by `apply` (on a
//! clone), and actions it does not offer (other faces and quantities, calls not on offer,
//! other seats) are refused with the game unchanged. Pushes, which `Legal` offers as one
//! flag, are searched: some push is accepted exactly when the flag is set.
//!
//! Every disagreement found is collected (one of each kind) and reported together.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use dudo_rules::hand::{Hand, HandGame};
use dudo_rules::ruleset::{ExactCaller, RuleSet, Undercall};
use dudo_rules::{Action, Bid, Game, Legal, bots, presets, seed_from_u64};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Disagreements found, one line per kind (the first state that showed it).
#[derive(Default)]
struct Findings {
    kinds: BTreeSet<String>,
    lines: Vec<String>,
    checked: u64,
}

impl Findings {
    fn add(&mut self, kind: String, line: String) {
        if self.kinds.insert(kind) {
            self.lines.push(line);
        }
    }
}

/// Where a check happens: the preset, seats, seed and step, for the message.
struct At<'a> {
    preset: &'a str,
    seats: usize,
    seed: u64,
    step: usize,
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} with {} seats, seed {}, step {}", self.preset, self.seats, self.seed, self.step)
    }
}

/// Applies `action` to a clone: `Ok` if accepted; if refused, the clone must be unchanged.
fn try_apply(game: &Game, seat: usize, action: &Action) -> Result<(), String> {
    let mut g = game.clone();
    match g.apply(seat, action) {
        Ok(_) => Ok(()),
        Err(e) => {
            assert!(g == *game, "a refused {action:?} by seat {seat} changed the game");
            Err(e.to_string())
        }
    }
}

/// Checks that `action` is accepted exactly when `offered`: an offered action by `apply` on
/// a clone; one not offered by `check` (which `apply` runs first), and every eighth of them
/// by `apply` on a clone too, which must leave it as it was.
fn expect(game: &Game, seat: usize, action: &Action, offered: bool, at: &At, found: &mut Findings) {
    found.checked += 1;
    let result = if offered || found.checked.is_multiple_of(8) {
        try_apply(game, seat, action)
    } else {
        game.check(seat, action).map_err(|e| e.to_string())
    };
    let turn = game.turn();
    match (offered, result) {
        (true, Err(e)) => found.add(
            format!("{} offered, refused: {} ({e})", at.preset, action.kind()),
            format!("{at}: legal offers seat {seat} (turn {turn:?}) {action:?}, apply refuses it: {e}"),
        ),
        (false, Ok(())) => found.add(
            format!("{} not offered, accepted: {}", at.preset, action.kind()),
            format!("{at}: legal does not offer seat {seat} (turn {turn:?}) {action:?}, apply accepts it"),
        ),
        _ => {}
    }
}

/// The strongest claim `legal` allows, as a value of `kind` (the top hand unless capped).
fn claim_ceiling(kind: HandGame, legal: &Legal) -> u64 {
    legal.claim_to.as_ref().map_or_else(|| kind.value(&kind.top().dice), |h| kind.value(&h.dice))
}

/// Whether `legal` offers the claim `hand`: between `claim_from` and the ceiling. A claim
/// below the floor is an undercall: taken as the floor where undercalls count as "better",
/// refused where they are refused.
fn claim_offered(game: &Game, legal: &Legal, hand: &Hand) -> bool {
    let (Some(kind), Some(from)) = (legal.hand_game, &legal.claim_from) else { return false };
    if hand.dice.len() != kind.dice() || hand.dice.iter().any(|&d| !(1..=6).contains(&d)) {
        return false;
    }
    let (value, floor) = (kind.value(&hand.dice), kind.value(&from.dice));
    let ceiling = claim_ceiling(kind, legal);
    if value >= floor {
        return value <= ceiling;
    }
    game.rules().hand.undercall == Undercall::TreatedAsBetter && floor <= ceiling
}

/// Whether `legal.roll` admits rolling the dice at `dice` and showing those at `show`.
fn roll_offered(legal: &Legal, dice: &[usize], show: &[usize]) -> bool {
    let (Some(opts), Some(kind)) = (legal.roll, legal.hand_game) else { return false };
    let n = kind.dice();
    let distinct = |v: &[usize]| v.iter().collect::<BTreeSet<_>>().len() == v.len();
    !dice.is_empty()
        && dice.iter().chain(show).all(|&d| d < n)
        && distinct(dice)
        && distinct(show)
        && (!opts.all || dice.len() == n)
        && (show.is_empty() || opts.may_show)
}

/// Whether `legal` offers `action` (pushes aside: see `check_pushes`).
fn offered(game: &Game, legal: &Legal, action: &Action) -> bool {
    match action {
        Action::Bid(b) => legal
            .bids
            .iter()
            .any(|r| r.face == b.face && (r.min_quantity..=r.max_quantity).contains(&b.quantity)),
        Action::Push { .. } => legal.push,
        Action::Pass => legal.pass,
        Action::Dudo { target: None } => !legal.dudo.is_empty(),
        Action::Dudo { target: Some(t) } => legal.dudo.contains(t),
        Action::Calza => legal.calza,
        Action::Watch => legal.watch,
        Action::Accept => legal.accept,
        Action::Roll { dice, show } => roll_offered(legal, dice, show),
        Action::Claim(hand) => claim_offered(game, legal, hand),
        Action::DogsLife { .. } => legal.dogs_life,
    }
}

/// Pushes worth trying for `seat`: each face it sees, one die up to all of that face (all its
/// dice too, which must be refused), with the least bid of each face and the least on the
/// pushed face that claims more than the dice shown.
fn push_candidates(game: &Game, seat: usize, legal: &Legal) -> Vec<Action> {
    let view = game.view(seat);
    let seen: Vec<u8> = view.my_dice.iter().flatten().copied().collect();
    let faces: BTreeSet<u8> = seen.iter().copied().collect();
    let total = view.total_dice();
    let mut bids: Vec<Bid> = legal.bids.iter().map(|r| Bid::new(r.min_quantity, r.face)).collect();
    if bids.is_empty() {
        bids.push(Bid::new(total.max(1), 2));
    }
    let mut out = Vec::new();
    for &face in &faces {
        let have = seen.iter().filter(|&&d| d == face).count();
        for k in 1..=have {
            let dice = vec![face; k];
            for &bid in &bids {
                out.push(Action::Push { dice: dice.clone(), bid });
            }
            let q = (k as u16 + 1).max(legal.min_bid(face).map_or(0, |b| b.quantity));
            out.push(Action::Push { dice: dice.clone(), bid: Bid::new(q, face) });
        }
    }
    // Dice the seat does not see, and no dice at all.
    let unseen = (1..=game.rules().dice.faces).find(|f| !faces.contains(f)).unwrap_or(1);
    out.push(Action::Push { dice: vec![unseen], bid: bids[0] });
    out.push(Action::Push { dice: Vec::new(), bid: bids[0] });
    out
}

/// Pushes: some candidate is accepted exactly when `legal.push`; every accepted push bids
/// within `legal.bids`.
fn check_pushes(game: &Game, seat: usize, legal: &Legal, at: &At, found: &mut Findings) {
    let mut any = None;
    for push in push_candidates(game, seat, legal) {
        found.checked += 1;
        if try_apply(game, seat, &push).is_ok() {
            if let Action::Push { bid, .. } = &push
                && !offered(game, legal, &Action::Bid(*bid))
            {
                found.add(
                    format!("{} push bid outside the bid ranges", at.preset),
                    format!("{at}: seat {seat}'s {push:?} is accepted, its bid is not in {:?}", legal.bids),
                );
            }
            any = Some(push);
        }
    }
    match (legal.push, any) {
        (true, None) => found.add(
            format!("{} push offered, none accepted", at.preset),
            format!(
                "{at}: legal offers seat {seat} a push, no push is accepted (dice {:?}, bids {:?})",
                game.view(seat).my_dice,
                legal.bids
            ),
        ),
        (false, Some(p)) => found.add(
            format!("{} push not offered, accepted", at.preset),
            format!("{at}: legal offers seat {seat} no push, apply accepts {p:?}"),
        ),
        _ => {}
    }
}

/// Actions to try for `seat` in a common-hand game. The seat to move gets bids on every face
/// (and faces out of range) around each range's ends and at fixed quantities; the others the
/// least bid on each face the seat to move may bid. Everyone gets every other call.
fn common_probes(game: &Game, legal: &Legal, to_move: &Legal, is_turn: bool) -> Vec<Action> {
    let faces = game.rules().dice.faces;
    let total = game.spectator_view().total_dice();
    let mut out = Vec::new();
    if is_turn {
        for face in 0..=faces + 1 {
            let mut qs: BTreeSet<u16> = [0, 1, total / 2, total, total + 1].into();
            if let Some(r) = legal.bids.iter().find(|r| r.face == face) {
                qs.extend([r.min_quantity - 1, r.min_quantity, r.max_quantity, r.max_quantity + 1]);
                qs.insert(r.min_quantity + (r.max_quantity - r.min_quantity) / 2);
            }
            out.extend(qs.into_iter().map(|q| Action::Bid(Bid::new(q, face))));
        }
    } else {
        out.extend(to_move.bids.iter().map(|r| Action::Bid(Bid::new(r.min_quantity, r.face))));
        out.push(Action::Bid(Bid::new(1, faces)));
    }
    out.extend([Action::Pass, Action::Calza, Action::Watch, Action::Dudo { target: None }]);
    out.extend((0..=game.seats()).map(|s| Action::Dudo { target: Some(s) }));
    out.extend([
        Action::Accept,
        Action::Roll { dice: vec![0], show: Vec::new() },
        Action::Claim(Hand::new(vec![1, 2, 3])),
        Action::DogsLife { bark: true },
    ]);
    out
}

/// Actions to try for `seat` in an individual-hand game. The seat to move gets every claim
/// there is (each distinct hand, and some spoken in another order or malformed) and every
/// roll (each set of dice, showing none or one of them); the others a sample.
fn hand_probes(game: &Game, kind: HandGame, legal: &Legal, to_move: bool) -> Vec<Action> {
    let n = kind.dice();
    let mut out = vec![
        Action::Dudo { target: None },
        Action::Accept,
        Action::DogsLife { bark: true },
        Action::DogsLife { bark: false },
        Action::Bid(Bid::new(2, 3)),
        Action::Pass,
        Action::Calza,
        Action::Watch,
        Action::Push { dice: vec![1], bid: Bid::new(2, 3) },
    ];
    out.extend((0..=game.seats()).map(|s| Action::Dudo { target: Some(s) }));
    // Malformed rolls and claims.
    out.extend([
        Action::Roll { dice: Vec::new(), show: Vec::new() },
        Action::Roll { dice: vec![n], show: Vec::new() },
        Action::Roll { dice: vec![0, 0], show: Vec::new() },
        Action::Roll { dice: vec![0], show: vec![n] },
        Action::Roll { dice: vec![0], show: vec![1, 1] },
        Action::Claim(Hand { dice: vec![6; n - 1] }),
        Action::Claim(Hand { dice: vec![6; n + 1] }),
        Action::Claim(Hand { dice: vec![0; n] }),
        Action::Claim(Hand { dice: vec![7; n] }),
    ]);
    let hands = kind.ordered();
    if to_move && legal.roll.is_some() {
        for mask in 1u32..(1 << n) {
            let dice: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
            if mask == (1 << n) - 1 || mask.is_power_of_two() {
                // Showing a rolled die, or every die (kept ones too).
                out.push(Action::Roll { dice: dice.clone(), show: vec![dice[0]] });
                out.push(Action::Roll { dice: dice.clone(), show: (0..n).collect() });
            }
            out.push(Action::Roll { dice, show: Vec::new() });
        }
    } else {
        out.push(Action::Roll { dice: (0..n).collect(), show: Vec::new() });
        out.push(Action::Roll { dice: vec![0], show: Vec::new() });
    }
    if to_move && legal.claim_from.is_some() {
        out.extend(hands.iter().map(|h| Action::Claim(h.1.clone())));
        // Hands spoken lowest first (claims may come in any order): the weakest, the top,
        // and the hand just below the top (the Mexican's neighbour).
        for h in [hands.first(), hands.len().checked_sub(2).and_then(|i| hands.get(i)), hands.last()]
            .into_iter()
            .flatten()
        {
            let mut spoken = h.1.dice.clone();
            spoken.reverse();
            out.push(Action::Claim(Hand { dice: spoken }));
        }
    } else {
        for h in [hands.first(), hands.get(hands.len() / 2), hands.last()].into_iter().flatten() {
            out.push(Action::Claim(h.1.clone()));
        }
    }
    out
}

/// Every check at one state, for every seat (and one past the last).
fn check_state(game: &Game, at: &At, found: &mut Findings, rng: &mut ChaCha8Rng) {
    let kind = game.rules().family.hand_game();
    let to_move = game.turn().map(|t| game.legal(t)).unwrap_or_default();
    let asked: Vec<usize> = game.seats_to_ask().collect();
    for seat in 0..=game.seats() {
        let legal = game.legal(seat);
        // Every seat with something to do is asked (the server prompts exactly these).
        if !legal.is_empty() && !asked.contains(&seat) {
            found.add(
                format!("{} not asked", at.preset),
                format!("{at}: seat {seat} may act ({legal:?}) but is not among the seats to ask {asked:?}"),
            );
        }
        // (b) Probes are accepted exactly when offered; (a) what `actions()` lists is
        // accepted: every call, and each bid range's ends.
        let probes = match kind {
            None => common_probes(game, &legal, &to_move, game.turn() == Some(seat)),
            Some(k) => hand_probes(game, k, &legal, game.turn() == Some(seat)),
        };
        let mut expected: Vec<(Action, bool)> = Vec::with_capacity(probes.len());
        let mut index = HashMap::with_capacity(probes.len());
        for action in probes {
            if !index.contains_key(&action) {
                index.insert(action.clone(), expected.len());
                let offer = offered(game, &legal, &action);
                expected.push((action, offer));
            }
        }
        for action in legal.actions() {
            if let Action::Bid(b) = action
                && !legal.bids.iter().any(|r| b.quantity == r.min_quantity || b.quantity == r.max_quantity)
            {
                continue;
            }
            match index.get(&action) {
                Some(&i) => expected[i].1 = true,
                None => expected.push((action, true)),
            }
        }
        for (action, offer) in &expected {
            expect(game, seat, action, *offer, at, found);
        }
        if kind.is_none() {
            check_pushes(game, seat, &legal, at, found);
        }
        // The playout and turn-clock shortcuts only ever pick accepted actions.
        if let Some(action) = game.random_legal_action(seat, rng) {
            expect(game, seat, &action, true, at, found);
        }
        if let Some(action) = game.default_action(seat) {
            expect(game, seat, &action, true, at, found);
        }
    }
}

/// The move a built-in bot makes now: out-of-turn calls first, as `sim` asks them.
pub(crate) fn bot_move(game: &Game, table: &mut [Box<dyn bots::Bot>]) -> Option<(usize, Action)> {
    let turn = game.turn()?;
    for seat in game.seats_to_ask() {
        if seat == turn {
            continue;
        }
        let (view, legal) = (game.view(seat), game.legal(seat));
        if let Some(a) = table[seat].interject(game.rules(), &view, &legal) {
            return Some((seat, a));
        }
    }
    let (view, legal) = (game.view(turn), game.legal(turn));
    if legal.is_empty() {
        return None;
    }
    Some((turn, table[turn].act(game.rules(), &view, &legal)))
}

/// A random action from what `legal` lists for a seat that may act (sometimes a push).
fn random_move(game: &Game, rng: &mut ChaCha8Rng) -> Option<(usize, Action)> {
    let ask: Vec<usize> = game.seats_to_ask().collect();
    let seat = *ask.get(rng.random_range(0..ask.len().max(1)))?;
    let legal = game.legal(seat);
    if legal.push && rng.random_bool(0.3) {
        let pushes: Vec<Action> = push_candidates(game, seat, &legal)
            .into_iter()
            .filter(|p| try_apply(game, seat, p).is_ok())
            .collect();
        if let Some(p) = pushes.get(rng.random_range(0..pushes.len().max(1))) {
            return Some((seat, p.clone()));
        }
    }
    let actions = legal.actions();
    Some((seat, actions.get(rng.random_range(0..actions.len().max(1)))?.clone()))
}

/// Seat counts to play a preset with: its least, its most (up to 6), and, where the dice on
/// the table depend on it (the common hand), one between.
fn seat_counts(rules: &RuleSet) -> Vec<usize> {
    let (low, high) = (usize::from(rules.players.min), usize::from(rules.players.max).min(6));
    let mut counts = vec![low];
    if rules.family.hand_game().is_none() {
        counts.push((low + high).div_ceil(2));
    }
    counts.push(high);
    counts.dedup();
    counts
}

/// Plays one game of `rules` with bots and random legal play for up to `steps` actions,
/// checking every state on the way (the states, not the ending, are what is checked).
fn play_and_check(
    preset: &str,
    rules: &Arc<RuleSet>,
    seats: usize,
    seed: u64,
    steps: usize,
    found: &mut Findings,
) -> usize {
    let bot = bots::NAMES[(seed as usize) % bots::NAMES.len()];
    let mut table: Vec<Box<dyn bots::Bot>> =
        (0..seats).filter_map(|s| bots::by_name(bot, seed * 10 + s as u64)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x1E6A);
    let (mut game, _) = Game::start(rules.clone(), seats, seed_from_u64(seed)).unwrap();
    let mut states = 0;
    for step in 0..steps {
        if game.is_over() {
            break;
        }
        let at = At { preset, seats, seed, step };
        check_state(&game, &at, found, &mut rng);
        states += 1;
        let bot_turn = rng.random_bool(0.5);
        let chosen = if bot_turn { bot_move(&game, &mut table) } else { random_move(&game, &mut rng) };
        let Some((seat, action)) = chosen else {
            found.add(
                format!("{preset} nothing to do"),
                format!("{at}: no seat has anything to do in a game in play"),
            );
            break;
        };
        if let Err(e) = game.apply(seat, &action) {
            let who = if bot_turn { format!("the {bot} bot") } else { "random legal play".into() };
            found.add(
                format!("{preset} {who} refused: {}", action.kind()),
                format!("{at}: {who} chose {action:?} for seat {seat}, refused: {e}"),
            );
            // Carry on with what the turn clock would do.
            let Some(turn) = game.turn() else { break };
            let Some(fallback) = game.default_action(turn) else { break };
            if game.apply(turn, &fallback).is_err() {
                break;
            }
        }
    }
    states
}

#[test]
fn every_preset_s_legal_actions_are_exactly_what_apply_accepts() {
    let mut found = Findings::default();
    for (p, &preset) in presets::NAMES.iter().enumerate() {
        let rules = Arc::new(presets::by_name(preset).unwrap());
        // States to check per seat count: fewer where each holds hundreds of claims.
        let budget = if rules.family.hand_game().is_some() { 80 } else { 150 };
        for seats in seat_counts(&rules) {
            let mut states = 0;
            for g in 0..20 {
                if states >= budget {
                    break;
                }
                let seed = (p as u64) * 1000 + (seats as u64) * 100 + g;
                states += play_and_check(preset, &rules, seats, seed, budget - states, &mut found);
            }
        }
    }
    assert!(found.checked > 100_000, "too few checks: {}", found.checked);
    assert!(found.lines.is_empty(), "legal and apply disagree:\n{}", found.lines.join("\n"));
}

/// The same over rule sets the presets do not reach (pushes of the bid's face, fibbing,
/// passes, undercalls refused, dice shown), drawn as the random-play property tests draw them.
#[test]
fn varied_rules_legal_actions_are_exactly_what_apply_accepts() {
    let mut found = Findings::default();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for i in 0..32u64 {
        let bits: u64 = rng.random();
        let mut rules = if i % 4 == 0 {
            crate::properties::hand_rules(rng.random_range(0..4), bits)
        } else {
            let (preset, dice, faces) =
                (rng.random_range(0..4), rng.random_range(1..6), rng.random_range(3..10));
            crate::properties::rules_from(preset, bits, dice, faces)
        };
        let (min, max) = (usize::from(rules.players.min), usize::from(rules.players.max));
        let seats = rng.random_range(2..7usize).clamp(min, max);
        if rules.exact_call.who == ExactCaller::NotBidderNorNext && seats < 3 {
            rules.exact_call.who = ExactCaller::OnTurn;
        }
        let label = format!("{} variant {i}", rules.name);
        play_and_check(&label, &Arc::new(rules), seats, i, 60, &mut found);
    }
    assert!(found.lines.is_empty(), "legal and apply disagree:\n{}", found.lines.join("\n"));
}
