"""Random playouts of Liar's Dice, 2 players with 5 dice each: the package against OpenSpiel.

    bash scripts/python-package.sh -q -k nothing   # builds the package into target/python-package-venv
    target/python-package-venv/bin/python python/bench/playouts.py [seconds] [rounds]

Each figure is games per second on one core. The contenders take turns: every round plays
each of them for `seconds` (default 1) in the same order, `rounds` times (default 7), so a
change in the machine's load falls on all of them alike. A figure is the median of its
rounds; a ratio is worked out round by round (each against the OpenSpiel figure of the same
round) and its median and range over the rounds are printed.

- from Python, one game at a time: OpenSpiel's `liars_dice` (a new initial state a game, its
  chance nodes sampled as OpenSpiel's own examples do) against the package's `Game` with the
  openspiel preset (dealt again a game with `reset`);
- one call per game: OpenSpiel's C++ `evaluate_bots` with its uniform random bots;
- the package's `Batch` of 1024 games, from a Python loop of `step(random_actions())`: reading
  every step's observations and masks as numpy arrays, reading the observations, and with no
  observations; and `random_playouts`, which loops in Rust.
"""

import random
import statistics
import sys
import time

import pyspiel

import dudo

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7


def timed(play):
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        games += play()
    return games / (time.perf_counter() - start)


def openspiel_python():
    game = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 5})
    rng = random.Random(1)

    def play():
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        return 1

    return play


def dudo_python():
    rng = random.Random(1)
    seed = [0]

    game = dudo.Game("openspiel", 2, 0)

    def play():
        seed[0] += 1
        game.reset(seed[0])
        while not game.is_over():
            game.apply(rng.choice(game.legal_action_ids()))
        return 1

    return play


def openspiel_evaluate_bots():
    game = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 5})
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    seed = [0]

    def play():
        for _ in range(1000):
            seed[0] += 1
            pyspiel.evaluate_bots(game.new_initial_state(), bots, seed[0])
        return 1000

    return play


def dudo_batch(observations, masks=False):
    batch = dudo.Batch("openspiel", players=2, games=1024, seed=1, observations=observations)

    def play():
        before = batch.finished
        for _ in range(50):
            if masks:
                batch.masks()
            if observations:
                batch.observations()
            batch.step(batch.random_actions())
        return batch.finished - before

    return play


def dudo_batch_rust():
    batch = dudo.Batch("openspiel", players=2, games=1024, seed=1, observations=False)
    return lambda: batch.random_playouts(20_000)


def median(xs):
    return statistics.median(xs)


if __name__ == "__main__":
    contenders = [
        ("OpenSpiel liars_dice, from Python", openspiel_python()),
        ("dudo Game, from Python", dudo_python()),
        ("OpenSpiel evaluate_bots (C++)", openspiel_evaluate_bots()),
        ("dudo Batch, Python loop, observations and masks read", dudo_batch(True, masks=True)),
        ("dudo Batch, Python loop, observations read", dudo_batch(True)),
        ("dudo Batch, Python loop, no observations", dudo_batch(False)),
        ("dudo Batch.random_playouts (Rust loop)", dudo_batch_rust()),
    ]
    rates = [[] for _ in contenders]
    for _ in range(ROUNDS):
        for i, (_, play) in enumerate(contenders):
            rates[i].append(timed(play))
    for (name, _), rate in zip(contenders, rates):
        print(f"{name:55} {median(rate):12,.0f} games/s  ({min(rate):,.0f}-{max(rate):,.0f})")

    def ratio(name, of, against):
        each = [a / b for a, b in zip(rates[of], rates[against])]
        print(f"{name}: {median(each):.2f}x  ({min(each):.2f}-{max(each):.2f} over {ROUNDS} rounds)")

    ratio("Game from Python / OpenSpiel from Python", 1, 0)
    for i in range(3, len(contenders)):
        ratio(f"{contenders[i][0]} / evaluate_bots", i, 2)
