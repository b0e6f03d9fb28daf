"""A PettingZoo AEC environment of any dudo rule set.

    import dudo
    env = dudo.env(preset="perudo-jonti", players=3)
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``player_0`` ... in seat order. An observation is a dict: ``observation``, the
seat's view as the package's fixed-size vector (``info["blocks"]`` names its parts), and
``action_mask``, which action ids (``Discrete(num_actions)``) the seat may play now. Rewards
come at the end: +1 to the winner and -1 shared by the others. A seat out of the game stays an
agent until the end and is never selected. A game still going after ``max_moves`` moves
(10,000 by default; ``None``: never) is truncated: under random play the points game can run
on for millions of moves.
"""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import Game, RuleSet



def env(preset=None, players=2, settings=None, rules=None, max_moves=10_000, render_mode=None):
    """The environment with PettingZoo's usual checks around it.

    ``preset`` (``openspiel`` unless named) with ``settings`` (a dict of ``field: value``,
    as ``RuleSet`` takes them), or ``rules``, a ``RuleSet``, instead of both; ``players`` seats; ``max_moves`` as above.
    """
    e = raw_env(preset, players, settings, rules, max_moves, render_mode)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "dudo_v0", "is_parallelizable": False}

    def __init__(self, preset=None, players=2, settings=None, rules=None, max_moves=10_000, render_mode=None):
        super().__init__()
        if rules is not None and (preset is not None or settings is not None):
            raise ValueError("rules: give a RuleSet, or a preset with settings, not both")
        self.rules = rules if rules is not None else RuleSet(preset or "openspiel", settings)
        self.players = players
        self.max_moves = max_moves
        self.render_mode = render_mode
        probe = Game(self.rules, players, 0)
        self._num_actions = probe.num_actions
        self._observation_size = probe.observation_size
        self._blocks = probe.observation_blocks()
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (probe.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
            }
        )
        self._observation_spaces = {a: obs_space for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self.game = None

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
        if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 1 << 64:
            raise ValueError(f"seed: {seed!r} is not an integer from 0 to 2**64-1")
        self.game = Game(self.rules, self.players, int(seed))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"blocks": self._blocks} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.turn]

    def observe(self, agent):
        seat = self._seat[agent]
        mask = np.zeros(self._num_actions, np.int8)
        if self.game is not None and not self.game.is_over() and self.game.turn == seat:
            mask = self.game.action_mask(seat).astype(np.int8)
        if self.game is None:
            obs = np.zeros(self._observation_size, np.float32)
        else:
            obs = self.game.observation(seat)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(int(action), self._seat[agent])
        self.rewards = {a: 0.0 for a in self.agents}
        if self.game.is_over():
            for a, r in zip(self.possible_agents, self.game.returns()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
        elif self.max_moves is not None and self.game.moves >= self.max_moves:
            for a in self.agents:
                self.truncations[a] = True
        else:
            self.agent_selection = self.possible_agents[self.game.turn]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.game is None:
            return None
        text = repr(self.game)
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass
