"""bot.py, playing by a policy trained with the dudo Python package (python/examples/
train_cfr_bot.py) instead of its 25 lines of logic: everything else, the connection, the
ladder's environment, resuming, is bot.py's own.

    DUDO_POLICY=POLICY.json python trained_bot.py [bot.py's arguments]

and, on a ladder pool of the policy's game (the openspiel preset at two seats, one die each):

    dudo ladder POOL --bot 'env DUDO_POLICY=POLICY.json python trained_bot.py'

A position the policy does not know (a pool of other rules, say) is played by bot.py's logic.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bot  # noqa: E402

with open(os.environ["DUDO_POLICY"]) as f:
    POLICY = json.load(f)
FACES = POLICY["faces"]
RNG = random.Random()
# Moves made by the policy and by bot.py's logic, said after each game.
MOVES = {"policy": 0, "bot.py": 0}


def choose(pb, rules, view, legal, faces):
    """The policy's action for this die and these bids, drawn by its probabilities."""
    bids = [c.bid for c in view.claims if c.WhichOneof("kind") == "bid"]
    key = f"{view.my_dice[0] if len(view.my_dice) == 1 else None}|" + ",".join(
        str((b.quantity - 1) * FACES + b.face - 1) for b in bids
    )
    row = POLICY["policy"].get(key) if faces == FACES else None
    if not row:
        MOVES["bot.py"] += 1
        return bot.choose(pb, rules, view, legal, faces)
    MOVES["policy"] += 1
    ids = [int(a) for a in row]
    action = RNG.choices(ids, weights=[row[a] for a in row])[0]
    if action == POLICY["dudo"]:
        return pb.Action(dudo=pb.Dudo())
    return pb.Action(bid=pb.Bid(quantity=action // FACES + 1, face=action % FACES + 1))


bot.choose = choose

if __name__ == "__main__":
    bot.main()
    print(f"trained_bot: {MOVES['policy']} moves by the policy, {MOVES['bot.py']} by bot.py's logic")
