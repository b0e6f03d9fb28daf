//! A fixed action space and a fixed-size observation per rule set and table size, as
//! reinforcement-learning libraries expect (the Python package's `Game.legal_action_ids`,
//! its PettingZoo environment and its batched playouts are built on it).
//!
//! Every action has an integer id below [`ActionSpace::size`], the same for every game of
//! the rule set and table size, laid out in sections:
//!
//! | section | ids | action |
//! | --- | --- | --- |
//! | bid | `(quantity - 1) · faces + (face - 1)` | `Bid` (OpenSpiel's `liars_dice` numbering) |
//! | dudo | one | `Dudo` on the last claim (OpenSpiel's "liar", right after the bids) |
//! | dudo at | one per seat | `Dudo` on that seat's earlier claim |
//! | calza, pass, watch | one each | the exact call, a pass, a watch |
//! | push | as many as the bids, when the rules allow a push | push the dice that count for the bid, then bid it |
//! | accept | one, in the individual-hand games | take the cup |
//! | roll | `2^dice - 1`: the dice rolled as a bit set, less one | `Roll`, showing nothing |
//! | claim | one per distinct hand, weakest first | `Claim` |
//! | dog's life | two: bark, decline | `DogsLife` |
//!
//! Two kinds of choice have no id of their own, so that the space stays small: a push
//! shows exactly the dice that count for its bid (its face, and the wilds when they count),
//! which is the push players make; and a Stanford roll shows no dice. The engine's
//! [`Action`] still takes any push or roll.
//!
//! The observation is a vector of `f32` in named blocks ([`Observation::blocks`]), from one
//! seat's [`View`], so it holds nothing that seat may not know.

use crate::action::{Action, Seat};
use crate::bid::Bid;
use crate::game::{Game, Legal, View};
use crate::hand::{Hand, HandGame};
use crate::ruleset::{PushDice, RuleSet};
use crate::view::ClaimKind;

/// The integer ids of one rule set's actions at a table of `seats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionSpace {
    faces: u8,
    /// The most dice that can be in play: every seat holding the most a seat may hold.
    max_quantity: u16,
    seats: usize,
    /// Whether a push may show the wilds beside the bid's face (004) or only that face (002).
    push_wilds: bool,
    hand: Option<HandGame>,
    layout: Layout,
}

/// Where each section starts; a section the rules never allow has no ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    dudo: usize,
    dudo_at: usize,
    calza: usize,
    pass: usize,
    watch: usize,
    push: usize,
    accept: usize,
    roll: usize,
    claim: usize,
    dogs_life: usize,
    end: usize,
}

impl ActionSpace {
    pub fn new(rules: &RuleSet, seats: usize) -> ActionSpace {
        let faces = rules.dice.faces.max(1);
        let hand = rules.family.hand_game();
        let max_dice = u16::from(rules.dice.max.max(rules.dice.start));
        let max_quantity = if hand.is_some() { 0 } else { max_dice.saturating_mul(seats as u16) };
        let bids = usize::from(max_quantity) * usize::from(faces);
        let pushes = if hand.is_none() && rules.push.dice != PushDice::Off { bids } else { 0 };
        let (accept, rolls, claims, dogs) = match hand {
            Some(game) => (1, (1usize << game.dice()) - 1, game.ordered().len(), 2),
            None => (0, 0, 0, 0),
        };
        let dudo = bids;
        let dudo_at = dudo + 1;
        let calza = dudo_at + seats;
        let pass = calza + 1;
        let watch = pass + 1;
        let push = watch + 1;
        let accept_at = push + pushes;
        let roll = accept_at + accept;
        let claim = roll + rolls;
        let dogs_life = claim + claims;
        let layout = Layout {
            dudo,
            dudo_at,
            calza,
            pass,
            watch,
            push,
            accept: accept_at,
            roll,
            claim,
            dogs_life,
            end: dogs_life + dogs,
        };
        let push_wilds = rules.push.dice == PushDice::AnyDice;
        ActionSpace { faces, max_quantity, seats, push_wilds, hand, layout }
    }

    /// Whether `id` is a push, the one kind of id whose action depends on the seat's dice.
    pub fn is_push(&self, id: usize) -> bool {
        (self.layout.push..self.layout.accept).contains(&id)
    }

    /// Whether the rules allow pushes, whose ids read the seat's view.
    pub fn has_push(&self) -> bool {
        self.layout.accept > self.layout.push
    }

    /// How many ids there are: every id is below this.
    pub fn size(&self) -> usize {
        self.layout.end
    }

    fn bid_id(&self, bid: Bid) -> Option<usize> {
        if bid.quantity == 0 || bid.quantity > self.max_quantity || bid.face == 0 || bid.face > self.faces {
            return None;
        }
        Some(usize::from(bid.quantity - 1) * usize::from(self.faces) + usize::from(bid.face - 1))
    }

    fn bid_of(&self, id: usize) -> Bid {
        let faces = usize::from(self.faces);
        Bid::new((id / faces + 1) as u16, (id % faces + 1) as u8)
    }

    /// The id of `action`, if it has one (a push of other dice than its bid's, or a roll
    /// that shows dice, has none).
    pub fn id(&self, action: &Action, view: &View) -> Option<usize> {
        let l = &self.layout;
        match action {
            Action::Bid(bid) => self.bid_id(*bid),
            Action::Dudo { target: None } => Some(l.dudo),
            Action::Dudo { target: Some(s) } => (*s < self.seats).then_some(l.dudo_at + s),
            Action::Calza => Some(l.calza),
            Action::Pass => Some(l.pass),
            Action::Watch => Some(l.watch),
            Action::Push { dice, bid } => {
                let id = self.bid_id(*bid)?;
                let canonical = self.push_dice(*bid, view);
                let (mut a, mut b) = (dice.clone(), canonical);
                a.sort_unstable();
                b.sort_unstable();
                (l.accept > l.push && a == b).then_some(l.push + id)
            }
            Action::Accept => (l.roll > l.accept).then_some(l.accept),
            Action::Roll { dice, show } => {
                let game = self.hand?;
                let mut bits = 0usize;
                for &d in dice {
                    // A position twice is not a roll the engine plays (nor the id's).
                    if d >= game.dice() || bits & (1 << d) != 0 {
                        return None;
                    }
                    bits |= 1 << d;
                }
                (show.is_empty() && bits != 0).then(|| l.roll + bits - 1)
            }
            Action::Claim(hand) => {
                let game = self.hand?;
                // Only a hand of the game's dice is valued (and is a claim the engine plays).
                if hand.dice.len() != game.dice() || hand.dice.iter().any(|d| !(1..=6).contains(d)) {
                    return None;
                }
                // A claim is its hand's value: hands of one value are one claim, one id.
                let value = game.value(&hand.dice);
                let ordered = game.ordered();
                let i = ordered.partition_point(|h| h.0 < value);
                (ordered.get(i).is_some_and(|h| h.0 == value)).then_some(l.claim + i)
            }
            Action::DogsLife { bark } => (l.end > l.dogs_life).then_some(l.dogs_life + usize::from(!bark)),
        }
    }

    /// The action id `id` stands for, as `view`'s seat would make it (a push shows that
    /// seat's dice that count for the bid). `None` for an id out of range.
    pub fn action(&self, id: usize, view: &View) -> Option<Action> {
        let l = &self.layout;
        Some(match id {
            _ if id < l.dudo => Action::Bid(self.bid_of(id)),
            _ if id == l.dudo => Action::Dudo { target: None },
            _ if id < l.calza => Action::Dudo { target: Some(id - l.dudo_at) },
            _ if id == l.calza => Action::Calza,
            _ if id == l.pass => Action::Pass,
            _ if id == l.watch => Action::Watch,
            _ if id < l.accept => {
                let bid = self.bid_of(id - l.push);
                Action::Push { dice: self.push_dice(bid, view), bid }
            }
            _ if id < l.roll => Action::Accept,
            _ if id < l.claim => {
                let bits = id - l.roll + 1;
                let dice = (0..usize::BITS as usize).filter(|i| bits & (1 << i) != 0).collect();
                Action::Roll { dice, show: Vec::new() }
            }
            _ if id < l.dogs_life => {
                let game = self.hand?;
                Action::Claim(game.ordered().get(id - l.claim)?.1.clone())
            }
            _ if id < l.end => Action::DogsLife { bark: id == l.dogs_life },
            _ => return None,
        })
    }

    /// The dice a push for `bid` shows: the seat's dice (as it sees them) that count for it
    /// (only those of its face where a push may show one face alone).
    fn push_dice(&self, bid: Bid, view: &View) -> Vec<u8> {
        let wild = view.wild.filter(|_| self.push_wilds);
        let counts = |f: u8| f == bid.face || wild == Some(f);
        view.my_dice.iter().flatten().copied().filter(|&f| counts(f)).collect()
    }

    /// How many ids `legal` allows, counted without listing them, where that can be done:
    /// the common hand without pushes. `None` elsewhere (list them with
    /// [`ActionSpace::legal_ids_into`]).
    pub fn count(&self, legal: &Legal) -> Option<usize> {
        if self.hand.is_some() || (legal.push && self.has_push()) {
            return None;
        }
        let bids: usize = legal.bids.iter().map(|r| self.range_len(r)).sum();
        let flags = [legal.calza, legal.pass, legal.watch].iter().filter(|&&on| on).count();
        Some(bids + self.dudo_ids(legal).count() + flags)
    }

    /// The `k`-th of the [`ActionSpace::count`] ids `legal` allows (in an order of its own,
    /// not the ids' order): a uniform pick among them without listing them.
    pub fn nth(&self, legal: &Legal, mut k: usize) -> Option<usize> {
        for r in &legal.bids {
            let n = self.range_len(r);
            if k < n {
                return self.bid_id(Bid::new(r.min_quantity + k as u16, r.face));
            }
            k -= n;
        }
        let l = &self.layout;
        let flags = [(legal.calza, l.calza), (legal.pass, l.pass), (legal.watch, l.watch)];
        self.dudo_ids(legal).chain(flags.into_iter().filter_map(|(on, id)| on.then_some(id))).nth(k)
    }

    /// Whether `seat` may play `id` now, by what `legal` allows (and, for a push, the
    /// engine's own check): the mask's answer without making the mask.
    pub fn allows(&self, id: usize, game: &Game, seat: Seat, view: &View, legal: &Legal) -> bool {
        let l = &self.layout;
        match id {
            _ if id < l.dudo => {
                let bid = self.bid_of(id);
                legal
                    .bids
                    .iter()
                    .any(|r| r.face == bid.face && (r.min_quantity..=r.max_quantity).contains(&bid.quantity))
            }
            _ if id < l.calza => self.dudo_ids(legal).any(|d| d == id),
            _ if id == l.calza => legal.calza,
            _ if id == l.pass => legal.pass,
            _ if id == l.watch => legal.watch,
            _ => {
                let mut ids = Vec::new();
                self.legal_ids_into(game, seat, view, &mut legal.clone(), &mut ids);
                ids.binary_search(&(id as u32)).is_ok()
            }
        }
    }

    /// Whether the action `id` stands for depends on the seat's view (a push's dice), or
    /// whether it may be played is known only by listing (the individual-hand games).
    pub fn needs_view(&self, id: usize) -> bool {
        id > self.layout.watch
    }

    /// The ids a range's bids have: those within the table's most dice.
    fn range_len(&self, r: &crate::bid::BidRange) -> usize {
        let high = r.max_quantity.min(self.max_quantity);
        if high < r.min_quantity || r.face == 0 || r.face > self.faces || r.min_quantity == 0 {
            0
        } else {
            usize::from(high - r.min_quantity) + 1
        }
    }

    /// The challenge ids `legal` allows: the last claim's, then each earlier one's by seat.
    fn dudo_ids<'a>(&'a self, legal: &'a Legal) -> impl Iterator<Item = usize> + 'a {
        let l = &self.layout;
        let last = legal.dudo.first().map(|_| l.dudo);
        let earlier = legal.dudo.iter().skip(1).filter(|&&s| s < self.seats).map(move |s| l.dudo_at + s);
        last.into_iter().chain(earlier)
    }

    /// Writes into `out` (cleared first) the ids `seat` may play now, in increasing order,
    /// and leaves in `legal` what the engine allows. A push id is listed only when the engine
    /// accepts that push. `view` is the seat's, read only for pushes (any view will do where
    /// [`ActionSpace::has_push`] is false).
    pub fn legal_ids_into(
        &self,
        game: &Game,
        seat: Seat,
        view: &View,
        legal: &mut Legal,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        game.legal_into(seat, legal);
        let l = &self.layout;
        self.bid_ids_into(&legal.bids, out);
        let bids = out.len();
        let mut push = |id: usize| out.push(id as u32);
        if let Some((_, earlier)) = legal.dudo.split_first() {
            push(l.dudo);
            let mut seats: Vec<Seat> = earlier.iter().copied().filter(|&s| s < self.seats).collect();
            seats.sort_unstable();
            seats.dedup();
            seats.into_iter().for_each(|s| push(l.dudo_at + s));
        }
        for (on, id) in [(legal.calza, l.calza), (legal.pass, l.pass), (legal.watch, l.watch)] {
            if on {
                push(id);
            }
        }
        if legal.push && self.has_push() {
            for i in 0..bids {
                let id = out[i] as usize;
                let bid = self.bid_of(id);
                let action = Action::Push { dice: self.push_dice(bid, view), bid };
                if game.check(seat, &action).is_ok() {
                    out.push((l.push + id) as u32);
                }
            }
        }
        if legal.accept && l.roll > l.accept {
            out.push(l.accept as u32);
        }
        if legal.roll.is_some() || legal.claim_from.is_some() || legal.dogs_life {
            // Only what the sections above did not list.
            let rest = Legal {
                bids: Vec::new(),
                dudo: Vec::new(),
                calza: false,
                pass: false,
                watch: false,
                accept: false,
                push: false,
                ..legal.clone()
            };
            let mut ids: Vec<u32> =
                rest.actions().iter().filter_map(|a| self.id(a, view)).map(|id| id as u32).collect();
            ids.sort_unstable();
            ids.dedup();
            out.extend(ids);
        }
    }

    /// The ids of the bids in `ranges`, strictly rising: by quantity, then face.
    fn bid_ids_into(&self, ranges: &[crate::bid::BidRange], out: &mut Vec<u32>) {
        const MOST_FACES: usize = 16;
        let faces = usize::from(self.faces);
        // Each face's quantities, where the ranges give each face once (as the engine does).
        let mut low = [u16::MAX; MOST_FACES];
        let mut high = [0u16; MOST_FACES];
        let mut once = faces <= MOST_FACES;
        for r in ranges.iter().filter(|_| once) {
            let f = usize::from(r.face).wrapping_sub(1);
            if f >= faces || high[f] != 0 {
                once = false;
                break;
            }
            low[f] = r.min_quantity.max(1);
            high[f] = r.max_quantity.min(self.max_quantity);
        }
        if once {
            let (first, last) =
                (low.iter().min().copied().unwrap_or(1), high.iter().max().copied().unwrap_or(0));
            for q in first..=last {
                let base = usize::from(q - 1) * faces;
                for f in 0..faces {
                    if low[f] <= q && q <= high[f] {
                        out.push((base + f) as u32);
                    }
                }
            }
            return;
        }
        for r in ranges {
            for q in r.min_quantity..=r.max_quantity {
                if let Some(id) = self.bid_id(Bid::new(q, r.face)) {
                    out.push(id as u32);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Marks in `mask` (cleared first, [`ActionSpace::size`] long) the ids of
    /// [`ActionSpace::legal_ids_into`].
    pub fn mask_into(&self, game: &Game, seat: Seat, view: &View, legal: &mut Legal, mask: &mut [bool]) {
        let mut ids = Vec::new();
        self.legal_ids_into(game, seat, view, legal, &mut ids);
        mask.iter_mut().for_each(|m| *m = false);
        for id in ids {
            if let Some(m) = mask.get_mut(id as usize) {
                *m = true;
            }
        }
    }

    /// The ids `seat` may play now, in increasing order.
    pub fn legal_ids(&self, game: &Game, seat: Seat) -> Vec<usize> {
        // Only a push reads the view: the default (empty) one will do elsewhere.
        let view = if self.has_push() { game.view(seat) } else { View::default() };
        let mut ids = Vec::new();
        self.legal_ids_into(game, seat, &view, &mut Legal::default(), &mut ids);
        ids.into_iter().map(|id| id as usize).collect()
    }
}

/// One block of the observation vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub name: &'static str,
    pub offset: usize,
    pub len: usize,
    pub meaning: &'static str,
}

/// How a seat's view is written as a vector of numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    space: ActionSpace,
    blocks: Vec<Block>,
    len: usize,
    /// Each block's offset, by name, looked up once rather than at every write.
    at: Offsets,
}

/// Where each block starts (blocks the game kind lacks are never written).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Offsets {
    seat: usize,
    turn: usize,
    out: usize,
    my_dice: usize,
    dice: usize,
    bid: usize,
    bidder: usize,
    claims: usize,
    passed: usize,
    pushed: usize,
    wild: usize,
    palifico: usize,
    had_palifico: usize,
    exact_used: usize,
    score: usize,
    watching: usize,
    lives: usize,
    holder: usize,
    accepted: usize,
    cup: usize,
    shown: usize,
    claim: usize,
    claimer: usize,
    rolls: usize,
    dogs_life: usize,
}

impl Observation {
    pub fn new(rules: &RuleSet, seats: usize) -> Observation {
        let space = ActionSpace::new(rules, seats);
        let faces = usize::from(space.faces);
        let bids = usize::from(space.max_quantity) * faces;
        let mut blocks = Vec::new();
        let mut len = 0;
        let mut add = |name, n, meaning| {
            blocks.push(Block { name, offset: len, len: n, meaning });
            len += n;
        };
        add("seat", seats, "one-hot: the seat observing");
        add("turn", seats, "one-hot: whose turn it is (all zero once the game is over)");
        add("out", seats, "1 for each seat out of the game or gone");
        match space.hand {
            None => {
                add("my_dice", faces, "how many of the observer's dice show each face, as it was shown them");
                add("dice", seats, "dice each seat holds");
                add("bid", bids, "one-hot: the bid in force, by bid id");
                add("bidder", seats, "one-hot: who made the bid in force");
                add("claims", bids * seats, "1 at (bid id · seats + seat) for each bid made this round");
                add("passed", seats, "1 for each seat that passed this round");
                add("pushed", faces, "dice in view of all this round, by face");
                add("wild", faces, "one-hot: the face that is wild this round, if any");
                add("palifico", 1, "1 in a palifico (special) round");
                add("had_palifico", seats, "1 for each seat that has had its palifico round");
                add("exact_used", seats, "1 for each seat that has used its once-a-game exact call");
                add("score", seats, "each seat's points (the points game)");
                add("watching", seats, "1 for each seat watching this round (the points game)");
            }
            Some(game) => {
                add("lives", seats, "lives each seat has left");
                add("holder", seats, "one-hot: who holds the cup");
                add("accepted", 1, "1 once the holder has taken the cup and looked");
                add(
                    "cup",
                    game.dice() * 6,
                    "one-hot per die of the cup, as the observer sees it (zero: unseen)",
                );
                add("shown", game.dice(), "1 for each die in view of all");
                add("claim", game.ordered().len(), "one-hot: the claim in force, by hand, weakest first");
                add("claimer", seats, "one-hot: who made the claim in force");
                add("rolls", 1, "rolls the holder has made this turn");
                add("dogs_life", 1, "1 while a seat decides on the dog's life");
            }
        }
        let find = |name: &str| blocks.iter().find(|b| b.name == name).map_or(0, |b| b.offset);
        let at = Offsets {
            seat: find("seat"),
            turn: find("turn"),
            out: find("out"),
            my_dice: find("my_dice"),
            dice: find("dice"),
            bid: find("bid"),
            bidder: find("bidder"),
            claims: find("claims"),
            passed: find("passed"),
            pushed: find("pushed"),
            wild: find("wild"),
            palifico: find("palifico"),
            had_palifico: find("had_palifico"),
            exact_used: find("exact_used"),
            score: find("score"),
            watching: find("watching"),
            lives: find("lives"),
            holder: find("holder"),
            accepted: find("accepted"),
            cup: find("cup"),
            shown: find("shown"),
            claim: find("claim"),
            claimer: find("claimer"),
            rolls: find("rolls"),
            dogs_life: find("dogs_life"),
        };
        Observation { space, blocks, len, at }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn space(&self) -> &ActionSpace {
        &self.space
    }

    /// Writes `view` into `out` (cleared first, [`Observation::len`] long).
    pub fn write(&self, view: &View, out: &mut [f32]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        let seats = self.space.seats;
        let at = &self.at;
        if let Some(s) = view.seat.filter(|&s| s < seats) {
            put(out, at.seat, s, 1.0);
        }
        if let Some(t) = view.turn.filter(|&t| t < seats) {
            put(out, at.turn, t, 1.0);
        }
        for (s, p) in view.players.iter().enumerate().take(seats) {
            if p.place.is_some() || p.left {
                put(out, at.out, s, 1.0);
            }
        }
        let faces = usize::from(self.space.faces);
        match self.space.hand {
            None => {
                let count = |out: &mut [f32], at: usize, f: u8| {
                    let i = usize::from(f).wrapping_sub(1);
                    if i < faces
                        && let Some(x) = out.get_mut(at + i)
                    {
                        *x += 1.0;
                    }
                };
                for f in view.my_dice.iter().flatten() {
                    count(out, at.my_dice, *f);
                }
                for p in view.players.iter().take(seats) {
                    p.pushed.iter().for_each(|&f| count(out, at.pushed, f));
                }
                for (s, p) in view.players.iter().enumerate().take(seats) {
                    put(out, at.dice, s, f32::from(p.dice));
                    let flag = |on: bool| if on { 1.0 } else { 0.0 };
                    put(out, at.had_palifico, s, flag(p.had_palifico));
                    put(out, at.exact_used, s, flag(p.exact_used));
                    put(out, at.score, s, p.score as f32);
                    put(out, at.watching, s, flag(p.watching));
                }
                if let Some((s, bid)) = view.current_bid
                    && let Some(id) = self.space.bid_id(bid)
                {
                    put(out, at.bid, id, 1.0);
                    put(out, at.bidder, s, 1.0);
                }
                for claim in &view.claims {
                    match claim.kind {
                        ClaimKind::Pass => put(out, at.passed, claim.seat, 1.0),
                        kind => {
                            if let Some(id) = kind.bid().and_then(|b| self.space.bid_id(b)) {
                                put(out, at.claims, id * seats + claim.seat, 1.0);
                            }
                        }
                    }
                }
                if let Some(w) = view.wild {
                    put(out, at.wild, usize::from(w).wrapping_sub(1), 1.0);
                }
                if !view.palifico.is_empty() {
                    put(out, at.palifico, 0, 1.0);
                }
            }
            Some(game) => {
                for (s, p) in view.players.iter().enumerate().take(seats) {
                    put(out, at.lives, s, f32::from(p.lives));
                }
                if let Some(h) = &view.hand {
                    put(out, at.holder, h.holder, 1.0);
                    put(out, at.accepted, 0, if h.accepted { 1.0 } else { 0.0 });
                    for (i, d) in h.dice.iter().enumerate() {
                        if let Some(f) = d {
                            put(out, at.cup, i * 6 + usize::from(*f).wrapping_sub(1), 1.0);
                        }
                    }
                    for (i, shown) in h.shown.iter().enumerate() {
                        if *shown {
                            put(out, at.shown, i, 1.0);
                        }
                    }
                    if let Some((s, hand)) = &h.claim {
                        put(out, at.claim, claim_index(game, hand), 1.0);
                        put(out, at.claimer, *s, 1.0);
                    }
                    put(out, at.rolls, 0, f32::from(h.rolls_this_turn));
                    if h.dogs_life_pending.is_some() {
                        put(out, at.dogs_life, 0, 1.0);
                    }
                }
            }
        }
    }
}

/// Writes `v` at `at + i`, if the vector is that long.
fn put(out: &mut [f32], at: usize, i: usize, v: f32) {
    if let Some(x) = out.get_mut(at + i) {
        *x = v;
    }
}

fn claim_index(game: HandGame, hand: &Hand) -> usize {
    let value = game.value(&hand.dice);
    game.ordered().partition_point(|h| h.0 < value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::seed_from_u64;
    use crate::presets;
    use rand::SeedableRng;

    /// Every id the mask marks is an action the engine accepts, and it reads back to its id;
    /// every legal action with an id is marked. Over whole random games of every preset.
    #[test]
    fn the_mask_is_what_the_engine_accepts() {
        for name in presets::NAMES {
            let Some(rules) = presets::by_name(name) else { continue };
            let seats = usize::from(rules.players.min.max(2)).min(4);
            let space = ActionSpace::new(&rules, seats);
            for seed in 0..4 {
                let Ok((mut game, _)) = Game::start(rules.clone(), seats, seed_from_u64(seed)) else {
                    panic!("{name} starts")
                };
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
                let mut mask = vec![false; space.size()];
                let mut moves = 0;
                while !game.is_over() && moves < 2000 {
                    let Some(seat) = game.turn() else { break };
                    let view = game.view(seat);
                    let mut legal = Legal::default();
                    space.mask_into(&game, seat, &view, &mut legal, &mut mask);
                    let ids: Vec<usize> =
                        mask.iter().enumerate().filter_map(|(i, &m)| m.then_some(i)).collect();
                    assert!(!ids.is_empty(), "{name}: a seat to play has an id to play");
                    for &id in &ids {
                        let action = space.action(id, &view).expect("a marked id is an action");
                        assert_eq!(space.id(&action, &view), Some(id), "{name}: {action} reads back");
                        assert!(game.check(seat, &action).is_ok(), "{name}: {action} is legal");
                    }
                    for action in legal.actions() {
                        if let Some(id) = space.id(&action, &view) {
                            assert!(mask[id], "{name}: legal {action} is marked");
                        }
                    }
                    if let Some(n) = space.count(&legal) {
                        let mut picked: Vec<usize> = (0..n).filter_map(|k| space.nth(&legal, k)).collect();
                        picked.sort_unstable();
                        assert_eq!(picked, ids, "{name}: nth gives each legal id once");
                    }
                    // Every id now and then (the hand games' answer lists them all each time).
                    if moves % 50 == 0 {
                        for (id, &marked) in mask.iter().enumerate() {
                            assert_eq!(
                                space.allows(id, &game, seat, &view, &legal),
                                marked,
                                "{name}: allows id {id}"
                            );
                        }
                    }
                    let pick = ids[rand::Rng::random_range(&mut rng, 0..ids.len())];
                    let action = space.action(pick, &view).expect("an action");
                    game.apply(seat, &action).expect("a legal action applies");
                    moves += 1;
                }
            }
        }
    }

    /// The openspiel preset numbers its actions as OpenSpiel's `liars_dice` does: bids by
    /// quantity then face, and the challenge right after them.
    #[test]
    fn openspiel_ids_are_openspiels() {
        let rules = presets::openspiel();
        let space = ActionSpace::new(&rules, 2);
        let view = View::default();
        assert_eq!(space.id(&Action::Bid(Bid::new(1, 1)), &view), Some(0));
        assert_eq!(space.id(&Action::Bid(Bid::new(2, 3)), &view), Some(8));
        assert_eq!(space.id(&Action::Dudo { target: None }, &view), Some(60));
    }

    #[test]
    fn the_observation_holds_the_seats_dice_and_the_bid() {
        let rules = presets::openspiel();
        let obs = Observation::new(&rules, 2);
        let (mut game, _) = Game::start(rules, 2, seed_from_u64(1)).expect("starts");
        let seat = game.turn().expect("a turn");
        game.apply(seat, &Action::Bid(Bid::new(2, 3))).expect("applies");
        let view = game.view(1 - seat);
        let mut out = vec![0.0; obs.len()];
        obs.write(&view, &mut out);
        let block = |name: &str| obs.blocks().iter().find(|b| b.name == name).expect("a block").clone();
        let dice: f32 = out[block("my_dice").offset..][..6].iter().sum();
        assert_eq!(dice, 5.0);
        assert_eq!(out[block("bid").offset + 8], 1.0);
        assert_eq!(out[block("claims").offset + 8 * 2 + seat], 1.0);
        assert_eq!(out[block("seat").offset + 1 - seat], 1.0);
    }

    /// An action no id stands for has none, whatever a client makes: a claim of too few or
    /// too many dice, or of faces off the die, and a roll naming a die twice.
    #[test]
    fn an_action_the_engine_would_refuse_has_no_id() {
        use crate::hand::Hand;
        for (name, dice) in [("mexican", 3usize), ("mexican-two-dice", 2), ("stanford", 6), ("poker-dice", 5)]
        {
            let rules = presets::by_name(name).expect("a preset");
            let space = ActionSpace::new(&rules, 2);
            let view = View::default();
            for n in [0, 1, dice - 1, dice + 1, dice + 3] {
                assert_eq!(
                    space.id(&Action::Claim(Hand { dice: vec![6; n] }), &view),
                    None,
                    "{name}: {n} dice"
                );
            }
            assert_eq!(space.id(&Action::Claim(Hand { dice: vec![7; dice] }), &view), None, "{name}: a 7");
            assert!(space.id(&Action::Claim(Hand::new(vec![6; dice])), &view).is_some(), "{name}");
            let twice = Action::Roll { dice: vec![1, 1], show: Vec::new() };
            assert_eq!(space.id(&twice, &view), None, "{name}: a die rolled twice");
        }
    }
}
