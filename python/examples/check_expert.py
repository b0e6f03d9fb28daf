"""How far the expert's solved play is from equilibrium, by the package's measure and OpenSpiel's.

    python check_expert.py [PRESET ...] [--openspiel]

For each preset (default: every preset the expert ships a table for), the two-player game
with one die each is walked whole through the package's OpenSpiel game, the expert's
strategy (``dudo.Bot("expert").policy``) read at every information state, and its NashConv
measured by the package's exact best responses (``dudo.cfr``); with ``--openspiel``, also by
OpenSpiel's own ``exploitability.nash_conv``, which is much slower (minutes a preset).
"""

import argparse
import sys
import time

import numpy as np

import dudo
import dudo.openspiel
from dudo.cfr import CFRPlus, Tree

# The presets whose one-die game the expert plays by a solved table (docs/bots.md).
SOLVED = ["fibbing", "openspiel", "wikipedia-classic", "west-coast", "snyd", "variable"]


def expert_table(game):
    """{information state: {action: probability}} for every information state where the expert
    plays its solved strategy, from a walk of `game`'s whole tree."""
    bot = dudo.Bot("expert")
    table = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        key = state.information_state_string(player)
        if key not in table:
            table[key] = bot.policy(state.game, player)
        stack.extend(state.child(a) for a in state.legal_actions())
    return table


def strategy_of(tree, table):
    """The table as the solver's strategy array: the expert's probabilities where it has them,
    uniform where it has none (information states its own play never reaches)."""
    strategy = np.zeros(tree.slots)
    for i, key in enumerate(tree.infoset_keys):
        first, actions = tree.infoset_first_slot[i], tree.infoset_actions[i]
        row = table.get(key)
        for j, action in enumerate(actions):
            strategy[first + j] = (row or {}).get(action, 0.0) if row is not None else 1.0 / len(actions)
    return strategy


class ExpertPolicy:
    """The expert as an OpenSpiel policy, for OpenSpiel's own exploitability code."""

    def __new__(cls, game, table):
        from open_spiel.python import policy as policy_lib

        class _Policy(policy_lib.Policy):
            def action_probabilities(self, state, player_id=None):
                player = state.current_player() if player_id is None else player_id
                row = table.get(state.information_state_string(player))
                legal = state.legal_actions(player)
                if row is None:
                    return {a: 1.0 / len(legal) for a in legal}
                return {a: row.get(a, 0.0) for a in legal}

        return _Policy(game, [0, 1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("presets", nargs="*", default=SOLVED)
    parser.add_argument("--openspiel", action="store_true", help="also OpenSpiel's nash_conv (slow)")
    args = parser.parse_args()
    worst = 0.0
    for preset in args.presets:
        start = time.perf_counter()
        game = dudo.openspiel.load(preset=preset, players=2, dice=1)
        tree = Tree(game)
        table = expert_table(game)
        played = sum(row is not None for row in table.values())
        if not played:
            print(f"{preset}: the expert plays no solved strategy here")
            continue
        ours = CFRPlus(tree).nash_conv(strategy_of(tree, table))
        line = f"{preset}: {played} of {len(table)} information states solved; NashConv {ours:.5f} (dudo.cfr)"
        worst = max(worst, ours)
        if args.openspiel:
            from open_spiel.python.algorithms import exploitability

            theirs = exploitability.nash_conv(game, ExpertPolicy(game, table))
            line += f", {theirs:.5f} (OpenSpiel)"
            worst = max(worst, theirs)
        print(f"{line}, in {time.perf_counter() - start:.0f} s", flush=True)
    return 0 if worst <= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
