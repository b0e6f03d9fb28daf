"""dudo: the Liar's Dice engine of the dudo game server, for Python.

Every rule set the server plays, with the server's own rules and dice::

    import dudo
    game = dudo.Game("perudo-jonti", players=3, seed=7)
    while not game.is_over():
        game.apply(dudo.Bot("odds", seed=game.turn).act(game))
    print(game.standings())

- ``RuleSet``, ``presets()``: rule sets, from a preset, JSON, TOML or ``field=value``.
- ``Game``: ``legal_actions()``, ``apply()``, ``view(seat)``, ``events(seat)``, ``is_over()``,
  ``returns()``; action ids with ``legal_action_ids()`` and ``action_mask()``.
- ``Bot``: the built-in players (random, odds, reader, expert) as policies.
- ``Batch``: many games stepped at once from numpy arrays, the GIL released.
- ``dudo.env(...)`` (``dudo.pettingzoo``): a PettingZoo AEC environment.
- ``dudo.openspiel``: the rule sets as OpenSpiel games.
"""

from ._dudo import (  # noqa: F401
    Action,
    Batch,
    Bot,
    Game,
    IllegalAction,
    InvalidRules,
    RuleSet,
    presets,
    seat_seed,
)


def env(**kwargs):
    """A PettingZoo AEC environment (see ``dudo.pettingzoo.env``); needs pettingzoo."""
    from .pettingzoo import env as make

    return make(**kwargs)


__all__ = [
    "Action",
    "Batch",
    "Bot",
    "Game",
    "IllegalAction",
    "InvalidRules",
    "RuleSet",
    "env",
    "presets",
    "seat_seed",
]
