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
that breaks it is refused.

A tree's size is estimated before it is walked (random paths from the root, Knuth's
estimator): one clearly past `max_nodes` (5 million by default) is refused at once with
``ValueError``, and one whose arrays and solver would not fit in the memory free now with
``MemoryError``, rather than growing until the machine gives out (a 2-dice game has some
10^12 nodes). The walk itself is depth first, holding one path's states at a time, and stops
the moment it passes `max_nodes`: the estimate cannot let a tree past the bound.
"""

import os
import random
from array import array

import numpy as np
import pyspiel

_CHANCE, _DECISION, _TERMINAL = 0, 1, 2

# What one node costs, in bytes: its arrays while it is walked (array.array, 42) and after
# (numpy, 58), and the solver's per-node work arrays (reach for three, the edge weights and
# values: 40), with room for the information states' keys and the numpy temporaries.
BYTES_PER_NODE = 320
# Random root-to-leaf paths the size estimate follows (a tenth of a second). The estimate is
# unbiased but heavy-tailed: on these trees it is usually low, by up to half, so it refuses
# only trees clearly past the bound and the walk's own count does the rest.
ESTIMATE_PATHS = 1024


def estimate_nodes(game, paths=ESTIMATE_PATHS, seed=0):
    """The number of nodes in `game`'s tree, estimated from `paths` random paths (Knuth): a
    path's estimate is the sum over its depths of the product of the branching factors above,
    and their mean is unbiased."""
    rng = random.Random(seed)
    total = 0.0
    for _ in range(paths):
        state = game.new_initial_state()
        width, nodes = 1.0, 1.0
        while not state.is_terminal():
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
            else:
                actions = state.legal_actions()
            width *= len(actions)
            nodes += width
            state = state.child(rng.choice(actions))
        total += nodes
    return total / paths


def _free_bytes():
    """Memory free now (Linux: MemAvailable), or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _too_big(nodes):
    return ValueError(f"max_nodes: the tree has more than {nodes} nodes")


class Tree:
    """A game's whole tree, breadth first, as arrays."""

    def __init__(self, game, max_nodes=5_000_000, free_bytes=None):
        if game.num_players() != 2:
            raise ValueError("players: CFR here is for two-player zero-sum games")
        estimate = estimate_nodes(game)
        if estimate > max_nodes:
            raise ValueError(
                f"max_nodes: the tree has about {estimate:.2g} nodes (estimated from "
                f"{ESTIMATE_PATHS} random paths), more than max_nodes={max_nodes}"
            )
        free = _free_bytes() if free_bytes is None else free_bytes
        # The walk stops at max_nodes whatever the estimate said.
        needed = min(2 * estimate, max_nodes) * BYTES_PER_NODE
        if free is not None and needed > free:
            raise MemoryError(
                f"the tree of about {estimate:.2g} nodes may need {needed / 2**30:.1f} GiB "
                f"to walk and solve; {free / 2**30:.1f} GiB is free"
            )
        kind, player, depth = array("b"), array("b"), array("q")
        parent, slot = array("q"), array("q")
        prob, value = array("d"), array("d")
        infosets = {}  # (player, information state) -> index
        self.infoset_keys = []
        self.infoset_player = []
        self.infoset_actions = []  # legal actions, in slot order
        self.infoset_first_slot = []
        self.infoset_depth = []
        slots = 0
        # Depth first: the stack holds the children still to visit of the nodes on one path,
        # never a whole level's states.
        stack = [(game.new_initial_state(), -1, -1, 1.0, 0)]
        while stack:
            state, par, sl, pr, d = stack.pop()
            node = len(kind)
            if node >= max_nodes:
                raise _too_big(max_nodes)
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
                for action, p in reversed(state.chance_outcomes()):
                    stack.append((state.child(action), node, -1, p, d + 1))
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
            for i in reversed(range(len(actions))):
                stack.append((state.child(actions[i]), node, first + i, 1.0, d + 1))
        # Breadth first for the solver: each depth one contiguous range, parents renumbered.
        depth = np.frombuffer(depth, np.int64)
        order = np.argsort(depth, kind="stable")
        renumber = np.empty_like(order)
        renumber[order] = np.arange(len(order))
        parent = np.frombuffer(parent, np.int64)[order]
        self.parent = np.where(parent >= 0, renumber[np.maximum(parent, 0)], -1)
        self.kind = np.frombuffer(kind, np.int8)[order]
        self.player = np.frombuffer(player, np.int8)[order]
        self.slot = np.frombuffer(slot, np.int64)[order]
        self.prob = np.frombuffer(prob, np.float64)[order]
        self.value = np.frombuffer(value, np.float64)[order]
        self.depth = depth[order]
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
