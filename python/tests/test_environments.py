"""The PettingZoo environment passes PettingZoo's own API test; the OpenSpiel game is an
OpenSpiel game, and CFR through it solves Liar's Dice with one die each."""

import pathlib
import sys

import pytest

import dudo

pettingzoo = pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

from pettingzoo.test import api_test  # noqa: E402

import dudo.openspiel  # noqa: E402
from dudo.cfr import CFRPlus, Tree  # noqa: E402


@pytest.mark.parametrize(
    "preset,players",
    [("openspiel", 2), ("perudo-jonti", 3), ("fibbing", 4), ("house", 3), ("snyd", 3), ("points", 3),
     ("poker-dice", 3), ("stanford", 2), ("mexican", 3)],
)
def test_pettingzoo_api_test(preset, players):
    api_test(dudo.env(preset=preset, players=players), num_cycles=200)


@pytest.mark.parametrize("preset,players", [("openspiel", 2), ("perudo-jonti", 3), ("house", 2), ("poker-dice", 2)])
def test_openspiel_random_games(preset, players):
    import random

    game = dudo.openspiel.load(preset=preset, players=players)
    rng = random.Random(0)
    for _ in range(5):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.information_state_string()
                state.observation_tensor()
                state.apply_action(rng.choice(state.legal_actions()))
        assert abs(sum(state.returns())) < 1e-6


def test_our_nash_conv_is_openspiels():
    """On a game small enough for OpenSpiel's own exploitability code."""
    from open_spiel.python.algorithms import exploitability

    game = dudo.openspiel.load(preset="openspiel", dice=1, settings="dice.faces=3")
    solver = CFRPlus(Tree(game)).run(50)
    theirs = exploitability.nash_conv(game, solver.tabular_policy(game))
    assert abs(solver.nash_conv() - theirs) < 1e-9


def test_cfr_solves_liars_dice_with_one_die_each():
    """OpenSpiel's liars_dice 1x1 is worth -7/258 to the first player."""
    game = dudo.openspiel.load(preset="openspiel", players=2, dice=1)
    tree = Tree(game)
    assert len(tree.infoset_keys) == 24576  # OpenSpiel's own count for liars_dice 1x1
    solver = CFRPlus(tree).run(650)
    assert abs(solver.value() - (-7 / 258)) < 1e-3
    assert solver.nash_conv() < 0.001


def test_a_bad_chance_outcome_is_refused_and_a_big_tree_stops_soon():
    import time

    game = dudo.openspiel.load(preset="openspiel", players=2, dice=1)
    state = game.new_initial_state()
    with pytest.raises(Exception, match="chance outcome"):
        state.apply_action(6)
    state.apply_action(0)
    state.apply_action(5)
    assert state.current_player() == 0 and state.legal_actions()
    start = time.perf_counter()
    with pytest.raises(ValueError, match="max_nodes"):
        Tree(dudo.openspiel.load(preset="openspiel", players=2, dice=5), max_nodes=2000)
    assert time.perf_counter() - start < 10


def test_a_tree_too_big_for_its_bound_or_for_memory_is_refused_before_it_is_walked():
    """A 2-dice game has some 10^10 nodes: the walk used to hold a whole level's states and
    grew past 6 GiB before its node count reached the bound."""
    import resource
    import time

    from dudo.cfr import estimate_nodes

    game = dudo.openspiel.load(preset="openspiel", players=2, dice=2)
    assert estimate_nodes(game) > 1e9
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(ValueError, match="max_nodes: the tree has about"):
        Tree(game)
    with pytest.raises(MemoryError, match="GiB is free"):
        Tree(game, max_nodes=10**13)
    # A bound the estimate cannot judge (free memory said to be small) is refused as well.
    small = dudo.openspiel.load(preset="openspiel", players=2, dice=1)
    with pytest.raises(MemoryError):
        Tree(small, free_bytes=1 << 20)
    assert time.perf_counter() - start < 5
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < 64 * 1024, f"refusing grew the process by {grown} KiB"


def test_the_experts_solved_play_is_near_equilibrium_by_both_measures():
    """The expert's shipped strategy for two players with one die each (the encyclopedia's
    common hand, the smallest of the solved presets) by the package's exact best responses
    and by OpenSpiel's own nash_conv; every solved preset: python/examples/check_expert.py."""
    from open_spiel.python.algorithms import exploitability

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
    import check_expert

    game = dudo.openspiel.load(preset="wikipedia-classic", players=2, dice=1)
    table = check_expert.expert_table(game)
    assert sum(row is not None for row in table.values()) > 1000
    tree = Tree(game)
    ours = CFRPlus(tree).nash_conv(check_expert.strategy_of(tree, table))
    theirs = exploitability.nash_conv(game, check_expert.ExpertPolicy(game, table))
    assert ours <= 0.001 and abs(ours - theirs) < 1e-6, (ours, theirs)
    # Every other bot, and the expert with more dice in play, has no solved strategy to give.
    state = dudo.Game("wikipedia-classic", 2, 1)
    assert dudo.Bot("reader").policy(state) is None and dudo.Bot("expert").policy(state) is None
