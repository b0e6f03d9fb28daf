"""CFR+ on a whole game tree held in numpy arrays, for small two-player zero-sum games.

OpenSpiel's Python CFR visits the tree one state at a time, which on a Python game (ours is a
thin layer over the engine) costs seconds per iteration. Here the tree is walked once through
the OpenSpiel game's own API (``Tree(game)``: chance outcomes, legal actions, information
state strings, returns) and every iteration after that is a few numpy operations per depth.

    tree = Tree(dudo.openspiel.load(preset="openspiel", dice=1))
    solver = CFRPlus(tree)
    solver.run(1000)
    solver.value()      # the first player's value under the average strategy
    solver.nash_conv()  # how far from equilibrium it is
    solver.policy()     # {information state: {action: probability}}

It needs perfect recall with every history of an information state at the same depth and
with the same legal actions: true of the common-hand rule sets (a seat's information holds
every call made), not of Mexican, where rolling and accepting-then-rolling can meet; a game
that breaks it is refused. `max_nodes` (5 million by default) bounds the walk's time and
memory: the 5-dice games are far beyond it.
"""

import numpy as np
import pyspiel

_CHANCE, _DECISION, _TERMINAL = 0, 1, 2


class Tree:
    """A game's whole tree, breadth first, as arrays."""

    def __init__(self, game, max_nodes=5_000_000):
        if game.num_players() != 2:
            raise ValueError("players: CFR here is for two-player zero-sum games")
        kind, player, parent, slot, prob, value, depth = [], [], [], [], [], [], []
        infosets = {}  # (player, information state) -> index
        self.infoset_keys = []
        self.infoset_player = []
        self.infoset_actions = []  # legal actions, in slot order
        self.infoset_first_slot = []
        self.infoset_depth = []
        slots = 0
        frontier = [(game.new_initial_state(), -1, -1, 1.0, 0)]
        while frontier:
            next_frontier = []
            for state, par, sl, pr, d in frontier:
                node = len(kind)
                # Counted before any child is made: a level may be far wider than the rest.
                if node + len(next_frontier) >= max_nodes:
                    raise ValueError(f"max_nodes: the tree has more than {max_nodes} nodes")
                parent.append(par)
                slot.append(sl)
                prob.append(pr)
                depth.append(d)
                if state.is_terminal():
                    kind.append(_TERMINAL)
                    player.append(-1)
                    value.append(state.returns()[0])
                    continue
                value.append(0.0)
                if state.is_chance_node():
                    kind.append(_CHANCE)
                    player.append(-1)
                    outcomes = state.chance_outcomes()
                    if node + len(next_frontier) + len(outcomes) >= max_nodes:
                        raise ValueError(f"max_nodes: the tree has more than {max_nodes} nodes")
                    for action, p in outcomes:
                        next_frontier.append((state.child(action), node, -1, p, d + 1))
                    continue
                kind.append(_DECISION)
                p = state.current_player()
                player.append(p)
                key = (p, state.information_state_string(p))
                actions = state.legal_actions()
                index = infosets.get(key)
                if index is None:
                    index = len(self.infoset_keys)
                    infosets[key] = index
                    self.infoset_keys.append(key[1])
                    self.infoset_player.append(p)
                    self.infoset_actions.append(list(actions))
                    self.infoset_first_slot.append(slots)
                    self.infoset_depth.append(d)
                    slots += len(actions)
                elif self.infoset_depth[index] != d or self.infoset_actions[index] != list(actions):
                    raise ValueError("the game's information states are not at one depth with one set of actions")
                first = self.infoset_first_slot[index]
                if node + len(next_frontier) + len(actions) >= max_nodes:
                    raise ValueError(f"max_nodes: the tree has more than {max_nodes} nodes")
                for i, action in enumerate(actions):
                    next_frontier.append((state.child(action), node, first + i, 1.0, d + 1))
            frontier = next_frontier
        self.kind = np.array(kind, np.int8)
        self.player = np.array(player, np.int8)
        self.parent = np.array(parent, np.int64)
        self.slot = np.array(slot, np.int64)
        self.prob = np.array(prob, np.float64)
        self.value = np.array(value, np.float64)
        self.depth = np.array(depth, np.int64)
        self.slots = slots
        self.slot_infoset = np.zeros(slots, np.int64)
        for i, first in enumerate(self.infoset_first_slot):
            self.slot_infoset[first : first + len(self.infoset_actions[i])] = i
        self.infoset_player = np.array(self.infoset_player, np.int8)
        # Nodes are breadth first: each depth is one contiguous range.
        bounds = np.searchsorted(self.depth, np.arange(self.depth.max() + 2))
        self.levels = [(bounds[d], bounds[d + 1]) for d in range(len(bounds) - 1)]
        # The player who chose each edge into a node (-1: chance, or the root).
        self.chooser = np.where(self.parent >= 0, self.player[np.maximum(self.parent, 0)], -1)
        self.chooser[self.kind[np.maximum(self.parent, 0)] == _CHANCE] = -1
        self.chooser[0] = -1

    def __len__(self):
        return len(self.kind)


class CFRPlus:
    """CFR+ (regret matching+, alternating updates, linearly weighted average)."""

    def __init__(self, tree):
        self.tree = tree
        self.regret = np.zeros(tree.slots)
        self.average = np.zeros(tree.slots)
        self.iterations = 0

    def _normalise(self, weights):
        t = self.tree
        total = np.bincount(t.slot_infoset, weights=weights, minlength=len(t.infoset_keys))
        counts = np.bincount(t.slot_infoset, minlength=len(t.infoset_keys))
        per = total[t.slot_infoset]
        return np.where(per > 0, weights / np.where(per > 0, per, 1), 1.0 / counts[t.slot_infoset])

    def current(self):
        return self._normalise(np.maximum(self.regret, 0.0))

    def average_strategy(self):
        return self._normalise(self.average)

    def _edge_weights(self, strategy):
        """Each node's probability given its parent: chance's, or the chooser's strategy."""
        t = self.tree
        w = t.prob.copy()
        chosen = t.slot >= 0
        w[chosen] = strategy[t.slot[chosen]]
        return w

    def _reach(self, w):
        """Reach probabilities by who contributed them: [player 0, player 1, chance]."""
        t = self.tree
        reach = np.ones((3, len(t)))
        for lo, hi in t.levels[1:]:
            par = t.parent[lo:hi]
            reach[:, lo:hi] = reach[:, par]
            who = t.chooser[lo:hi]
            for p, row in ((0, 0), (1, 1), (-1, 2)):
                sel = who == p
                reach[row, lo:hi][sel] *= w[lo:hi][sel]
        return reach

    def _values(self, w):
        """Each node's value to player 0 under the strategy behind `w`."""
        t = self.tree
        v = np.where(t.kind == _TERMINAL, t.value, 0.0)
        for lo, hi in reversed(t.levels[1:]):
            np.add.at(v, t.parent[lo:hi], w[lo:hi] * v[lo:hi])
        return v

    def iteration(self):
        t = self.tree
        self.iterations += 1
        for p in (0, 1):
            strategy = self.current()
            w = self._edge_weights(strategy)
            reach = self._reach(w)
            v = self._values(w)
            sign = 1.0 if p == 0 else -1.0
            edges = np.nonzero((t.slot >= 0) & (t.chooser == p))[0]
            par = t.parent[edges]
            others = reach[1 - p, par] * reach[2, par]
            regret = others * sign * (v[edges] - v[par])
            self.regret += np.bincount(t.slot[edges], weights=regret, minlength=t.slots)
            self.regret = np.maximum(self.regret, 0.0)
            own = reach[p, par] * strategy[t.slot[edges]]
            self.average += self.iterations * np.bincount(t.slot[edges], weights=own, minlength=t.slots)

    def run(self, iterations):
        for _ in range(iterations):
            self.iteration()
        return self

    def value(self, strategy=None):
        """Player 0's expected return under `strategy` (default: the average strategy)."""
        w = self._edge_weights(self.average_strategy() if strategy is None else strategy)
        return float(self._values(w)[0])

    def best_response_value(self, p, strategy=None):
        """What player `p` gets by best responding to `strategy` (default: the average)."""
        t = self.tree
        strategy = self.average_strategy() if strategy is None else strategy
        w = self._edge_weights(strategy)
        reach = self._reach(w)
        sign = 1.0 if p == 0 else -1.0
        v = np.where(t.kind == _TERMINAL, sign * t.value, 0.0)
        for lo, hi in reversed(t.levels[1:]):
            par = t.parent[lo:hi]
            mine = t.chooser[lo:hi] == p
            # Others' and chance's edges: their expectation.
            np.add.at(v, par[~mine], w[lo:hi][~mine] * v[lo:hi][~mine])
            if not mine.any():
                continue
            # The responder's edges: per information state, the action worth most when each
            # history is weighted by how likely the others and chance make it.
            kids = np.arange(lo, hi)[mine]
            kid_par = t.parent[kids]
            weight = reach[1 - p, kid_par] * reach[2, kid_par]
            worth = np.bincount(t.slot[kids], weights=weight * v[kids], minlength=t.slots)
            best = np.full(len(t.infoset_keys), -np.inf)
            np.maximum.at(best, t.slot_infoset[t.slot[kids]], worth[t.slot[kids]])
            # One best action per information state: the first that reaches the best.
            is_best = worth >= best[t.slot_infoset] - 1e-12
            first = np.full(len(t.infoset_keys), t.slots)
            candidate = np.nonzero(is_best)[0]
            np.minimum.at(first, t.slot_infoset[candidate], candidate)
            chosen = kids[first[t.slot_infoset[t.slot[kids]]] == t.slot[kids]]
            v[t.parent[chosen]] = v[chosen]
        return float(v[0])

    def nash_conv(self, strategy=None):
        """The sum over both players of what a best response gains: 0 at an equilibrium."""
        strategy = self.average_strategy() if strategy is None else strategy
        u0 = self.value(strategy)
        return self.best_response_value(0, strategy) - u0 + self.best_response_value(1, strategy) + u0

    def policy(self, strategy=None):
        """{information state: {action: probability}} for the average strategy."""
        t = self.tree
        strategy = self.average_strategy() if strategy is None else strategy
        out = {}
        for i, key in enumerate(t.infoset_keys):
            first = t.infoset_first_slot[i]
            out[key] = {a: float(strategy[first + j]) for j, a in enumerate(t.infoset_actions[i])}
        return out

    def tabular_policy(self, game, strategy=None):
        """The average strategy as OpenSpiel's TabularPolicy, for OpenSpiel's own tools
        (``exploitability.nash_conv``)."""
        from open_spiel.python import policy as policy_lib

        table = self.policy(strategy)
        tabular = policy_lib.TabularPolicy(game)
        for key, row in table.items():
            index = tabular.state_lookup.get(key)
            if index is None:
                continue
            probs = tabular.action_probability_array[index]
            probs[:] = 0.0
            for action, p in row.items():
                probs[action] = p
        return tabular


__all__ = ["CFRPlus", "Tree", "pyspiel"]
