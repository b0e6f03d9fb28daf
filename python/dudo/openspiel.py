"""Every dudo rule set as an OpenSpiel game, through OpenSpiel's Python game API.

    import pyspiel
    import dudo.openspiel  # registers "python_dudo"
    game = pyspiel.load_game("python_dudo", {"preset": "openspiel", "players": 2, "dice": 1})

Parameters: ``preset`` (a preset's name), ``players``, ``dice`` (dice each, 0: the preset's),
``settings`` (more ``field=value`` settings, separated by ``;``), ``seed`` (0 to 2**31-1,
OpenSpiel's parameters being C++ ints) and ``max_moves`` (a game still going after that many
moves is stopped and ranked as it stands, as a table that is stopped: under random play the
points game can run on for millions of moves).

Actions are the package's action ids (``Game.legal_action_ids``), which for the openspiel
preset are OpenSpiel's own ``liars_dice`` numbers. Each die of a round's cups is a chance node
of its own (faces 1 to ``dice.faces`` as outcomes 0 to faces-1, uniformly), so algorithms that
walk chance (CFR, exact best responses) see the whole deal. Rolls that happen inside a move
(a push's re-roll, a cup passed on in the individual-hand games, a roll-off) come from
``seed``: fixed by the history, as in a game dealt from a known seed.

A seat's information state is every event it may know, in order (``Game.information``), so the
game has perfect recall; its observation is the package's fixed-size vector.
"""

import numpy as np
import pyspiel

from . import Game, RuleSet

SHORT_NAME = "python_dudo"
_MAX_PLAYERS = 12
_DEFAULTS = {"preset": "openspiel", "players": 2, "dice": 0, "settings": "", "seed": 0, "max_moves": 10_000}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="dudo: Liar's Dice, every rule set",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def rules_of(params):
    """The RuleSet a game's parameters name."""
    settings = []
    dice = int(params.get("dice", 0))
    if dice < 0:
        raise ValueError(f"dice: {dice} is not a number of dice (0 keeps the preset's)")
    if dice > 0:
        settings.append(("dice.start", str(dice)))
    for pair in str(params.get("settings", "")).split(";"):
        if pair.strip():
            field, _, value = pair.partition("=")
            settings.append((field.strip(), value.strip()))
    return RuleSet(str(params.get("preset", "openspiel")), settings)


class DudoGame(pyspiel.Game):
    """A dudo rule set at a table of ``players`` seats."""

    def __init__(self, params=None):
        params = {**_DEFAULTS, **(params or {})}
        self.rules = rules_of(params)
        self.players = int(params["players"])
        if not 2 <= self.players <= _MAX_PLAYERS:
            raise ValueError(f"players: {self.players} is not from 2 to {_MAX_PLAYERS}")
        self.seed = int(params["seed"])
        self.max_moves = int(params["max_moves"])
        if self.max_moves < 1:
            raise ValueError(f"max_moves: {self.max_moves} is not a number of moves (1 or more)")
        probe = Game(self.rules, self.players, self.seed)
        fields = self.rules.to_dict()
        self.faces = int(fields["dice"]["faces"])
        self.start = int(fields["dice"]["start"])
        self.deals = fields["family"] == "common_hand"
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.num_actions,
            max_chance_outcomes=self.faces,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            # Every move, and before each round's moves a chance node a die.
            max_game_length=self.max_moves * (1 + self.players * max(self.start, int(fields["dice"]["max"]))),
        )
        self.observation_size = probe.observation_size
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        return DudoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return DudoObserver(self, perfect_recall)


class DudoState(pyspiel.State):
    """A dudo game, its cups dealt die by die by chance nodes."""

    def __init__(self, game):
        super().__init__(game)
        # Plain fields, not the game object: OpenSpiel copies a state with copy.deepcopy.
        self._rules, self._players, self._seed, self._faces = game.rules, game.players, game.seed, game.faces
        self._max_moves = game.max_moves
        self.game = None  # the package's Game, once the first cups are dealt
        self._cups = [[] for _ in range(game.players)]
        self._pending = None  # (seat, action id) that ended a round, played once dealt
        # Only the common hand deals cups a round at a time; the individual-hand games roll
        # inside moves, from the seed.
        self._deals = game.deals
        if self._deals:
            self._need = [game.start] * game.players  # dice each seat still rolls this deal
        else:
            self._need = [0] * game.players
            self.game = Game(game.rules, game.players, game.seed)

    def _dealing_seat(self):
        for seat, n in enumerate(self._need):
            if len(self._cups[seat]) < n:
                return seat
        return None

    def current_player(self):
        if self._dealing_seat() is not None:
            return pyspiel.PlayerId.CHANCE
        if self.game.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.game.turn

    def chance_outcomes(self):
        p = 1.0 / self._faces
        return [(face, p) for face in range(self._faces)]

    def _legal_actions(self, player):
        return self.game.legal_action_ids(player)

    def _apply_action(self, action):
        seat = self._dealing_seat()
        if seat is not None:
            if not 0 <= int(action) < self._faces:
                raise ValueError(f"action: {action} is not a chance outcome here (0 to {self._faces - 1})")
            self._cups[seat].append(int(action) + 1)
            if self._dealing_seat() is None:
                self._deal()
            return
        seat = self.game.turn
        if not self._deals:
            self.game.apply(int(action), seat)
            self._truncate()
            return
        need = self.game.advance(int(action), seat)
        if need is None:
            self._truncate()
        else:
            self._pending = (seat, int(action))
            self._need = list(need)
            self._cups = [[] for _ in need]
            if self._dealing_seat() is None:
                self._deal()

    def _truncate(self):
        if not self.game.is_over() and self.game.moves >= self._max_moves:
            self.game.stop()

    def _deal(self):
        if self.game is None:
            self.game = Game.dealt(self._rules, self._players, self._cups, self._seed)
        else:
            seat, action = self._pending
            self.game.apply(action, seat, cups=self._cups)
            self._pending = None
            self._truncate()
        self._need = [0] * self._players
        self._cups = [[] for _ in range(self._players)]

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"Roll:{action + 1}"
        if self.game is None:
            return f"Action:{action}"
        return str(self.game.action(int(action), player))

    def is_terminal(self):
        return self.game is not None and self._dealing_seat() is None and self.game.is_over()

    def returns(self):
        if self.game is None:
            return [0.0] * self._players
        return [float(r) for r in self.game.returns()]

    def __str__(self):
        if self.game is None:
            return f"dealing {self._cups}"
        return repr(self.game)


class DudoObserver:
    """The observation vector (``Game.observation``) and, with perfect recall, the
    seat's every known event as its information state string (and no tensor: the game has
    no perfect-recall vector)."""

    def __init__(self, game, perfect_recall):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0 if perfect_recall else game.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        if self.perfect_recall:
            return
        if state.game is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = state.game.observation(player)

    def string_from(self, state, player):
        if state.game is None:
            return f"cup {state._cups[player]}"
        if self.perfect_recall:
            return state.game.information(player)
        return " ".join(f"{x:g}" for x in state.game.observation(player))


pyspiel.register_game(_GAME_TYPE, DudoGame)


def load(**params):
    """``pyspiel.load_game("python_dudo", params)``."""
    return pyspiel.load_game(SHORT_NAME, {**_DEFAULTS, **params})
