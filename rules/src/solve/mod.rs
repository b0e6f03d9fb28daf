//! The smallest games solved: two players with one die each, by CFR+ over the whole tree.
//!
//! The tree is the engine's own: every deal of the two dice, and from each deal every
//! sequence of moves the engine allows to the end of the game, the first seat opening. A seat
//! knows its own die and the bids so far ([`InfoKey`]), which is everything it may know in
//! these games. A rule set is refused ([`Unsolvable`]) where that is not so or where the tree
//! is not small: its one-die game goes on past the first round (a right exact call that wins
//! a die back, the points game), a seat may call out of turn, or a move is not a bid or a call.
//!
//! [`Solver`] is CFR+ (regret matching with regrets floored at zero, alternating updates, the
//! average strategy weighted by iteration); [`Tree::nash_conv`] measures any strategy exactly
//! (what two best responses gain), as OpenSpiel's `nash_conv` does. [`Table`] is a solved
//! strategy as the expert bot ships it (`bots/solved/*.bin`): the information sets its own
//! play can reach, each with its moves' weights. `cargo run --release -p dudo-rules --example
//! solve` makes them.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::action::{Action, Seat};
use crate::bid::Bid;
use crate::dice::DiceSource;
use crate::game::{Discard, Game, View};
use crate::ruleset::{Family, FirstStarter, RuleSet};
use crate::view::ClaimKind;

mod cfr;
mod table;
pub use cfr::Solver;
pub use table::Table;

/// The most nodes a tree may have: a one-die game of nine faces has some 10^7; six faces, 10^5.
pub const MOST_NODES: usize = 4_000_000;
/// The most moves at one decision ([`Solver`] keeps a decision's strategy on the stack).
const MOST_MOVES: usize = 40;
/// A move as a table stores it: below [`CALZA`] a bid's index (`(quantity - 1) · faces +
/// face - 1`, OpenSpiel's numbering), or one of the calls.
pub type Move = u8;
pub const DUDO: Move = 255;
pub const CALZA: Move = 254;

/// What a seat knows at a decision of a one-die game: its die and the bids so far.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InfoKey {
    pub die: u8,
    pub bids: Vec<Move>,
}

impl InfoKey {
    /// The key of `view`'s seat, if it holds one die it can see and every claim is a plain bid.
    pub fn of(view: &View, faces: u8) -> Option<InfoKey> {
        let [Some(die)] = view.my_dice[..] else { return None };
        let bids = view
            .claims
            .iter()
            .map(|c| match c.kind {
                ClaimKind::Bid(bid) => encode(&Action::Bid(bid), faces),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(InfoKey { die, bids })
    }
}

/// `action` as a [`Move`], if the tables can hold it.
pub fn encode(action: &Action, faces: u8) -> Option<Move> {
    match action {
        Action::Bid(b) if b.quantity >= 1 && (1..=faces).contains(&b.face) => {
            let index = usize::from(b.quantity - 1) * usize::from(faces) + usize::from(b.face - 1);
            (index < usize::from(CALZA)).then_some(index as Move)
        }
        Action::Dudo { target: None } => Some(DUDO),
        Action::Calza => Some(CALZA),
        _ => None,
    }
}

/// The action a [`Move`] stands for.
pub fn decode(m: Move, faces: u8) -> Action {
    match m {
        DUDO => Action::Dudo { target: None },
        CALZA => Action::Calza,
        bid => {
            let faces = u16::from(faces.max(1));
            let bid = u16::from(bid);
            Action::Bid(Bid::new(bid / faces + 1, (bid % faces) as u8 + 1))
        }
    }
}

/// Why a rule set's one-die game is not solved here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsolvable {
    /// Not a common-hand game of two players.
    NotTwoPlayerCommonHand,
    /// A round ended and the game went on (a right exact call, a game of points or rounds).
    GoesOnPastARound,
    /// A seat other than the one on turn may call.
    CallsOutOfTurn,
    /// A move the tables do not hold (a push, a pass, a watch, a challenge of an earlier bid).
    Move(&'static str),
    /// Two positions a seat cannot tell apart allow different moves.
    ImperfectRecall,
    /// More nodes than the walk was allowed.
    TooBig(usize),
    /// The engine refused a move it had listed, or would not deal: a bug, named for the report.
    Engine(String),
}

impl fmt::Display for Unsolvable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsolvable::NotTwoPlayerCommonHand => write!(f, "not a common-hand game two can play"),
            Unsolvable::GoesOnPastARound => {
                write!(f, "its one-die game goes on after the first round (a right exact call, points)")
            }
            Unsolvable::CallsOutOfTurn => write!(f, "a seat may call out of turn"),
            Unsolvable::Move(kind) => write!(f, "a seat may {kind}, which the tables do not hold"),
            Unsolvable::ImperfectRecall => write!(f, "a seat's knowledge does not fix its moves"),
            Unsolvable::TooBig(most) => write!(f, "its tree has more than {most} nodes"),
            Unsolvable::Engine(why) => write!(f, "the engine: {why}"),
        }
    }
}

impl std::error::Error for Unsolvable {}

/// The rules a one-die game is played under: `rules` with one die each and the first seat
/// opening (who opens is the tree's to fix; the strategy is the same from either seat).
pub fn one_die(rules: &RuleSet) -> RuleSet {
    let mut one = rules.clone();
    one.dice.start = 1;
    one.first_starter = FirstStarter::FirstSeat;
    one
}

/// `rules` with what cannot change a two-player one-die game's play set aside (its name, the
/// dice it starts with, who starts this round and the next, what the losers see), so that a
/// table's rules and a solved preset's compare equal when a table's last round is that game.
pub fn play_of(rules: &RuleSet) -> RuleSet {
    let mut play = one_die(rules);
    play.name = String::new();
    play.dice.max = 1;
    play.next_starter = Default::default();
    play.losers_see_dice = Default::default();
    play.results_table = Default::default();
    play.players = Default::default();
    play
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// 0 or 1 to move, [`END`] at the end of the game.
    seat: u8,
    depth: u8,
    infoset: u32,
    /// The children, at `children[first..first + count]`, in the infoset's move order.
    first: u32,
    count: u8,
    /// The first seat's return at the end of the game (1 won, -1 lost).
    value: f32,
}

const END: u8 = 2;

/// One information set: whose it is, its moves, and where its moves' numbers start in the
/// solver's arrays.
#[derive(Clone, Debug)]
pub struct Infoset {
    pub key: InfoKey,
    pub seat: u8,
    pub moves: Vec<Move>,
    slot: usize,
}

/// The whole tree of a one-die game.
pub struct Tree {
    pub faces: u8,
    nodes: Vec<Node>,
    children: Vec<u32>,
    /// One root per deal, each dealt with chance `1 / faces²`.
    roots: Vec<u32>,
    pub infosets: Vec<Infoset>,
    index: HashMap<InfoKey, u32>,
    slots: usize,
    depths: usize,
    /// The most nodes the walk may make.
    most_nodes: usize,
}

impl Tree {
    /// Walks the game `rules` play with one die each ([`one_die`]) from every deal.
    pub fn new(rules: &RuleSet) -> Result<Tree, Unsolvable> {
        Tree::within(rules, MOST_NODES)
    }

    /// [`Tree::new`], refused as [`Unsolvable::TooBig`] past `most_nodes`.
    pub fn within(rules: &RuleSet, most_nodes: usize) -> Result<Tree, Unsolvable> {
        if rules.family != Family::CommonHand || rules.players.min > 2 || rules.players.max < 2 {
            return Err(Unsolvable::NotTwoPlayerCommonHand);
        }
        let rules = Arc::new(one_die(rules));
        let faces = rules.dice.faces;
        let mut tree = Tree {
            faces,
            nodes: Vec::new(),
            children: Vec::new(),
            roots: Vec::new(),
            infosets: Vec::new(),
            index: HashMap::new(),
            slots: 0,
            depths: 0,
            most_nodes: most_nodes.min(MOST_NODES),
        };
        for first in 1..=faces {
            for second in 1..=faces {
                let script = vec![[vec![first]].into(), [vec![second]].into()];
                let dice = DiceSource::with_script([0; 32], script);
                let (game, _) = Game::start_with(Arc::clone(&rules), 2, dice, None)
                    .map_err(|e| Unsolvable::Engine(e.to_string()))?;
                if game.view(0).my_dice != [Some(first)] || game.view(1).my_dice != [Some(second)] {
                    return Err(Unsolvable::Engine("the deal was not the dice scripted".into()));
                }
                let root = tree.walk(&game, [first, second], &mut Vec::new(), 0)?;
                tree.roots.push(root);
            }
        }
        tree.depths = tree.nodes.iter().map(|n| usize::from(n.depth) + 1).max().unwrap_or(0);
        Ok(tree)
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn walk(
        &mut self,
        game: &Game,
        cups: [u8; 2],
        bids: &mut Vec<Move>,
        depth: u8,
    ) -> Result<u32, Unsolvable> {
        if self.nodes.len() >= self.most_nodes {
            return Err(Unsolvable::TooBig(self.most_nodes));
        }
        let at = self.nodes.len() as u32;
        if game.is_over() {
            let value = if game.standings().first() == Some(&0) { 1.0 } else { -1.0 };
            self.nodes.push(Node { seat: END, depth, infoset: 0, first: 0, count: 0, value });
            return Ok(at);
        }
        let seat: Seat = game.turn().ok_or_else(|| Unsolvable::Engine("nobody on turn".into()))?;
        if game.seats_to_ask().any(|s| s != seat && !game.legal(s).actions().is_empty()) {
            return Err(Unsolvable::CallsOutOfTurn);
        }
        let legal = game.legal(seat);
        if legal.push {
            return Err(Unsolvable::Move("push"));
        }
        let actions = legal.actions();
        let moves = actions
            .iter()
            .map(|a| encode(a, self.faces).ok_or(Unsolvable::Move(a.kind())))
            .collect::<Result<Vec<_>, _>>()?;
        if moves.is_empty() || moves.len() > MOST_MOVES {
            return Err(Unsolvable::Move("make none of its moves, or too many"));
        }
        let key = InfoKey { die: cups[seat], bids: bids.clone() };
        let infoset = match self.index.get(&key) {
            Some(&i) => {
                let known = &self.infosets[i as usize];
                if known.moves != moves || usize::from(known.seat) != seat {
                    return Err(Unsolvable::ImperfectRecall);
                }
                i
            }
            None => {
                let i = self.infosets.len() as u32;
                self.index.insert(key.clone(), i);
                let slot = self.slots;
                self.slots += moves.len();
                self.infosets.push(Infoset { key, seat: seat as u8, moves: moves.clone(), slot });
                i
            }
        };
        self.nodes.push(Node { seat: seat as u8, depth, infoset, first: 0, count: 0, value: 0.0 });
        let mut kids = Vec::with_capacity(actions.len());
        for (action, &m) in actions.iter().zip(&moves) {
            let mut next = game.clone();
            next.apply_into(seat, action, &mut Discard).map_err(|e| Unsolvable::Engine(e.to_string()))?;
            if !next.is_over() && next.round() != game.round() {
                return Err(Unsolvable::GoesOnPastARound);
            }
            bids.push(m);
            let kid = self.walk(&next, cups, bids, depth.saturating_add(1));
            bids.pop();
            kids.push(kid?);
        }
        let node = &mut self.nodes[at as usize];
        node.first = self.children.len() as u32;
        node.count = kids.len() as u8;
        self.children.extend(kids);
        Ok(at)
    }

    fn kids(&self, node: &Node) -> &[u32] {
        &self.children[node.first as usize..node.first as usize + usize::from(node.count)]
    }

    fn chance(&self) -> f64 {
        1.0 / self.roots.len().max(1) as f64
    }

    /// A strategy with every move of every information set equally likely, as `Solver` and
    /// `nash_conv` hold one: a probability per move, information set by information set.
    pub fn uniform(&self) -> Vec<f64> {
        let mut out = vec![0.0; self.slots];
        for set in &self.infosets {
            let n = set.moves.len() as f64;
            out[set.slot..set.slot + set.moves.len()].fill(1.0 / n);
        }
        out
    }

    /// The information set `key` names, if the tree has it.
    pub fn infoset(&self, key: &InfoKey) -> Option<&Infoset> {
        self.index.get(key).map(|&i| &self.infosets[i as usize])
    }

    /// `strategy` (as [`Tree::uniform`] lays it out) with `table`'s weights wherever it has the
    /// information set; `Err` names the first whose moves differ from the tree's.
    pub fn with_table(&self, table: &Table, mut strategy: Vec<f64>) -> Result<Vec<f64>, InfoKey> {
        for (key, row) in &table.rows {
            let set = self.infoset(key).ok_or_else(|| key.clone())?;
            if row.len() != set.moves.len() || row.iter().zip(&set.moves).any(|((m, _), s)| m != s) {
                return Err(key.clone());
            }
            let total: f64 = row.iter().map(|&(_, w)| f64::from(w)).sum();
            for (j, &(_, w)) in row.iter().enumerate() {
                strategy[set.slot + j] = f64::from(w) / total;
            }
        }
        Ok(strategy)
    }

    /// The first seat's expected return when both play `strategy`.
    pub fn value(&self, strategy: &[f64]) -> f64 {
        let mut v = vec![0.0; self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            let node = self.nodes[i];
            v[i] = if node.seat == END {
                f64::from(node.value)
            } else {
                let slot = self.infosets[node.infoset as usize].slot;
                self.kids(&node).iter().enumerate().map(|(j, &k)| strategy[slot + j] * v[k as usize]).sum()
            };
        }
        self.roots.iter().map(|&r| v[r as usize]).sum::<f64>() * self.chance()
    }

    /// What `seat` gets by best responding to `strategy`.
    pub fn best_response(&self, seat: u8, strategy: &[f64]) -> f64 {
        let sign = if seat == 0 { 1.0 } else { -1.0 };
        // The others' and chance's reach of each node, parents before children.
        let mut reach = vec![0.0; self.nodes.len()];
        for &r in &self.roots {
            reach[r as usize] = self.chance();
        }
        for i in 0..self.nodes.len() {
            let node = self.nodes[i];
            if node.seat == END {
                continue;
            }
            let slot = self.infosets[node.infoset as usize].slot;
            for (j, &k) in self.kids(&node).iter().enumerate() {
                let p = if node.seat == seat { 1.0 } else { strategy[slot + j] };
                reach[k as usize] = reach[i] * p;
            }
        }
        // Deepest first: an information set's histories share a depth, so its best move is
        // chosen once every history's children are valued.
        let mut by_depth: Vec<Vec<u32>> = vec![Vec::new(); self.depths];
        for (i, node) in self.nodes.iter().enumerate() {
            by_depth[usize::from(node.depth)].push(i as u32);
        }
        let mut v = vec![0.0; self.nodes.len()];
        let mut worth = vec![0.0; self.slots];
        for level in by_depth.iter().rev() {
            for &i in level {
                let node = self.nodes[i as usize];
                if node.seat == END {
                    v[i as usize] = sign * f64::from(node.value);
                    continue;
                }
                let slot = self.infosets[node.infoset as usize].slot;
                for (j, &k) in self.kids(&node).iter().enumerate() {
                    if node.seat == seat {
                        worth[slot + j] += reach[i as usize] * v[k as usize];
                    } else {
                        v[i as usize] += strategy[slot + j] * v[k as usize];
                    }
                }
            }
            for &i in level {
                let node = self.nodes[i as usize];
                if node.seat != seat {
                    continue;
                }
                let set = &self.infosets[node.infoset as usize];
                let row = &worth[set.slot..set.slot + set.moves.len()];
                let best = (0..row.len()).fold(0, |b, j| if row[j] > row[b] + 1e-15 { j } else { b });
                v[i as usize] = v[self.kids(&node)[best] as usize];
            }
        }
        self.roots.iter().map(|&r| v[r as usize]).sum::<f64>() * self.chance()
    }

    /// What two best responses to `strategy` gain together: 0 at an equilibrium.
    pub fn nash_conv(&self, strategy: &[f64]) -> f64 {
        // Zero-sum: the second seat's value is minus the first's, so the values cancel.
        self.best_response(0, strategy) + self.best_response(1, strategy)
    }

    /// `strategy` as a table: the information sets its own play reaches (the others are never
    /// met by a seat that plays it), with moves below `floor` dropped and the rest as weights
    /// out of 65,535.
    pub fn table(&self, strategy: &[f64], floor: f64) -> Table {
        let mut rounded = strategy.to_vec();
        let mut rows = Vec::new();
        for set in &self.infosets {
            let probs = &strategy[set.slot..set.slot + set.moves.len()];
            let kept: f64 = probs.iter().filter(|&&p| p >= floor).sum();
            let row: Vec<(Move, u16)> = set
                .moves
                .iter()
                .zip(probs)
                .map(|(&m, &p)| {
                    (m, if p >= floor && kept > 0.0 { (p / kept * 65_535.0).round() as u16 } else { 0 })
                })
                .collect();
            let total: f64 = row.iter().map(|&(_, w)| f64::from(w)).sum();
            for (j, &(_, w)) in row.iter().enumerate() {
                rounded[set.slot + j] =
                    if total > 0.0 { f64::from(w) / total } else { 1.0 / row.len() as f64 };
            }
            rows.push(row);
        }
        // Which information sets the rounded strategy's own play reaches.
        let mut reached = vec![false; self.infosets.len()];
        let mut own = vec![[0.0f64; 2]; self.nodes.len()];
        for &r in &self.roots {
            own[r as usize] = [1.0, 1.0];
        }
        for i in 0..self.nodes.len() {
            let node = self.nodes[i];
            if node.seat == END {
                continue;
            }
            // A seat's own reach: the other may play anything, so only its own moves count.
            let mover = usize::from(node.seat);
            if own[i][mover] > 0.0 {
                reached[node.infoset as usize] = true;
            }
            let slot = self.infosets[node.infoset as usize].slot;
            for (j, &k) in self.kids(&node).iter().enumerate() {
                let mut r = own[i];
                r[mover] *= rounded[slot + j];
                own[k as usize] = r;
            }
        }
        let rows = self
            .infosets
            .iter()
            .zip(rows)
            .zip(reached)
            .filter(|(_, reached)| *reached)
            .map(|((set, row), _)| (set.key.clone(), row))
            .collect();
        Table { faces: self.faces, rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    #[test]
    fn cfr_plus_finds_openspiels_value_of_liars_dice_with_one_die_each() {
        let tree = Tree::new(&presets::openspiel()).expect("the openspiel preset's one-die game");
        // OpenSpiel's count for liars_dice with one die each.
        assert_eq!(tree.infosets.len(), 24_576);
        let strategy = Solver::new(&tree).run(300).average();
        // Known: -7/258 to the first player.
        assert!((tree.value(&strategy) + 7.0 / 258.0).abs() < 2e-3, "value {}", tree.value(&strategy));
        let uniform = tree.nash_conv(&tree.uniform());
        let solved = tree.nash_conv(&strategy);
        assert!(solved < 0.01 && uniform > 1.0, "NashConv {solved} (uniform play {uniform})");
    }

    #[test]
    fn a_table_reads_back_what_it_wrote_and_refuses_a_cut_file() {
        let tree = Tree::new(&presets::openspiel()).expect("tree");
        let table = tree.table(&Solver::new(&tree).run(20).average(), 1e-3);
        let bytes = table.to_bytes();
        assert_eq!(Table::from_bytes(&bytes), Some(table));
        assert_eq!(Table::from_bytes(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Table::from_bytes(b"dudocfr0"), None);
    }

    #[test]
    fn the_games_that_go_on_or_call_out_of_turn_are_refused() {
        // A right Jonti wins a die back: the game goes on with three dice.
        assert!(matches!(Tree::new(&presets::perudo_jonti()), Err(Unsolvable::GoesOnPastARound)));
        assert!(Tree::new(&presets::points(75, "points")).is_err());
        assert_eq!(Tree::new(&presets::poker_dice()).err(), Some(Unsolvable::NotTwoPlayerCommonHand));
    }
}
