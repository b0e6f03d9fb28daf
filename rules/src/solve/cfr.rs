//! CFR+ (Tammelin): regret matching with regrets floored at zero, the two seats updated in
//! turn, the average strategy weighted by iteration.

use super::{END, MOST_MOVES, Tree};

/// CFR+ on a [`Tree`].
pub struct Solver<'t> {
    tree: &'t Tree,
    regret: Vec<f64>,
    /// The regrets this pass adds, floored into `regret` once the pass is over.
    added: Vec<f64>,
    average: Vec<f64>,
    iterations: u32,
}

impl<'t> Solver<'t> {
    pub fn new(tree: &'t Tree) -> Self {
        let n = tree.slots;
        Solver { tree, regret: vec![0.0; n], added: vec![0.0; n], average: vec![0.0; n], iterations: 0 }
    }

    pub fn run(&mut self, iterations: u32) -> &mut Self {
        for _ in 0..iterations {
            self.iterations += 1;
            for seat in 0..2 {
                for &root in &self.tree.roots {
                    self.pass(root, seat, 1.0, self.tree.chance());
                }
                for set in self.tree.infosets.iter().filter(|s| s.seat == seat) {
                    for j in set.slot..set.slot + set.moves.len() {
                        self.regret[j] = (self.regret[j] + self.added[j]).max(0.0);
                        self.added[j] = 0.0;
                    }
                }
            }
        }
        self
    }

    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The strategy regret matching plays now, at the moves `slot..slot + n`.
    fn current(&self, slot: usize, n: usize, out: &mut [f64; MOST_MOVES]) {
        let regret = &self.regret[slot..slot + n];
        let positive: f64 = regret.iter().sum();
        for (o, r) in out.iter_mut().zip(regret) {
            *o = if positive > 0.0 { r / positive } else { 1.0 / n as f64 };
        }
    }

    /// The value to `seat` of `node`, reached by `seat` with `mine` and by the other and
    /// chance with `theirs`; `seat`'s regrets and average are updated on the way.
    fn pass(&mut self, at: u32, seat: u8, mine: f64, theirs: f64) -> f64 {
        let tree = self.tree;
        let node = tree.nodes[at as usize];
        if node.seat == END {
            return if seat == 0 { f64::from(node.value) } else { -f64::from(node.value) };
        }
        let set = &tree.infosets[node.infoset as usize];
        let (slot, n) = (set.slot, set.moves.len());
        let mut sigma = [0.0; MOST_MOVES];
        self.current(slot, n, &mut sigma);
        let kids = tree.kids(&node);
        if node.seat != seat {
            return (0..n).map(|j| sigma[j] * self.pass(kids[j], seat, mine, theirs * sigma[j])).sum();
        }
        let mut values = [0.0; MOST_MOVES];
        let mut value = 0.0;
        for j in 0..n {
            values[j] = self.pass(kids[j], seat, mine * sigma[j], theirs);
            value += sigma[j] * values[j];
        }
        let weight = f64::from(self.iterations) * mine;
        for j in 0..n {
            self.added[slot + j] += theirs * (values[j] - value);
            self.average[slot + j] += weight * sigma[j];
        }
        value
    }

    /// The average strategy, the one that nears an equilibrium.
    pub fn average(&self) -> Vec<f64> {
        let mut out = self.tree.uniform();
        for set in &self.tree.infosets {
            let row = &self.average[set.slot..set.slot + set.moves.len()];
            let total: f64 = row.iter().sum();
            if total > 0.0 {
                for (j, w) in row.iter().enumerate() {
                    out[set.slot + j] = w / total;
                }
            }
        }
        out
    }
}
