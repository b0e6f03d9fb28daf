"""Trains a Liar's Dice bot by CFR+ and writes its policy, for trained_bot.py to play.

    python train_cfr_bot.py POLICY.json [--faces N] [--iterations N]

The game is the openspiel preset (OpenSpiel's liars_dice rules) at two seats with one die
each, on dice of N faces (6 by default: the game whose value is known, -7/258 to the first
player). CFR+ runs on the whole tree through the package's OpenSpiel game (dudo.cfr), and the
average strategy is written as JSON: for each die and each sequence of bids made so far, the
probability of each action id. That is all a seat needs to know to play this game, so the
bot that reads the file (bot-sdk/examples/python/trained_bot.py) needs only grpcio, not dudo.

With 6 faces it takes about a minute and a half; with 3, a few seconds.
"""

import argparse
import json
import time

import dudo.openspiel
from dudo.cfr import CFRPlus, Tree


def policy_key(information):
    """A seat's information state (its events, one JSON object a line) as `die|bid,bid,...`:
    its own die and the bids so far, which is the whole of what it knows in this game."""
    die, bids = None, []
    for line in information.splitlines():
        event = json.loads(line)
        if event["event"] == "round_started":
            bids = []
        elif event["event"] == "dice_rolled":
            die = event["dice"][0]
        elif event["event"] == "bid_made":
            bids.append((event["bid"]["quantity"], event["bid"]["face"]))
    return die, bids


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="where to write the policy (JSON)")
    parser.add_argument("--faces", type=int, default=6, help="faces of each die (3 to 9)")
    parser.add_argument("--iterations", type=int, default=650, help="CFR+ iterations")
    args = parser.parse_args()

    game = dudo.openspiel.load(preset="openspiel", players=2, dice=1, settings=f"dice.faces={args.faces}")
    start = time.perf_counter()
    tree = Tree(game)
    solver = CFRPlus(tree).run(args.iterations)
    value, nash_conv = solver.value(), solver.nash_conv()
    faces = args.faces
    table = {}
    for information, row in solver.policy().items():
        die, bids = policy_key(information)
        key = f"{die}|" + ",".join(str((q - 1) * faces + f - 1) for q, f in bids)
        table[key] = {str(a): round(p, 6) for a, p in row.items() if p > 1e-6}
    policy = {
        "preset": "openspiel",
        "settings": {"dice.start": "1", "dice.faces": str(faces)},
        "players": 2,
        "faces": faces,
        # Action ids: a bid of q dice showing f is (q - 1) * faces + (f - 1); dudo is the next.
        "dudo": 2 * faces,
        "iterations": args.iterations,
        "value": value,
        "nash_conv": nash_conv,
        "policy": table,
    }
    with open(args.out, "w") as f:
        json.dump(policy, f)
    took = time.perf_counter() - start
    print(
        f"trained on {len(tree)} states ({len(table)} information states) in {took:.0f} s: "
        f"value {value:.5f} to the first player, NashConv {nash_conv:.5f}; wrote {args.out}"
    )


if __name__ == "__main__":
    main()
