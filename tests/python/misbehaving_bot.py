"""A bot that does one thing wrong, for the bot check's tests: the example bot (bot.py) with
one fault, chosen by DUDO_FAULT:

    illegal      its first move of a game is a bid of a face the dice do not have
    no_calls     never answers a call window
    ignores_end  keeps its stream open after game_over
    slow         answers its first prompt of a game after the move clock (5 s)
    warning      takes a clock warning for the end of its game and stops

Run as `dudo bot check --bot` runs a bot: DUDO_SERVER, DUDO_TABLE, DUDO_TOKEN, DUDO_SEAT.
"""
import os
import queue
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bot-sdk", "examples", "python"))
import bot  # noqa: E402


def main():
    fault = os.environ["DUDO_FAULT"]
    pb, rules, service, rpc = bot.load_stubs()
    channel = bot.open_channel(os.environ["DUDO_SERVER"])
    table, token, seat = os.environ["DUDO_TABLE"], os.environ["DUDO_TOKEN"], int(os.environ["DUDO_SEAT"])
    auth = [("authorization", f"Bearer {token}")]
    up = queue.Queue()
    up.put(service.PlayRequest(hello=service.Hello(table=table)))
    faces, answered, first = 6, None, True
    try:
        for update in rpc.PlayStub(channel).Play(iter(up.get, None), metadata=auth):
            kind = update.WhichOneof("update")
            if kind == "snapshot":
                faces = update.snapshot.table.rules.dice.faces or 6
            elif kind == "prompt" and update.prompt.last_seq != answered:
                p = update.prompt
                answered = p.last_seq
                if p.HasField("call_window_unix_millis"):
                    if fault != "no_calls":
                        up.put(service.PlayRequest(pass_call=service.PassCall(), answers=p.last_seq))
                elif p.view.HasField("turn") and p.view.turn == seat:
                    if fault == "illegal" and first:
                        first = False
                        up.put(service.PlayRequest(action=pb.Action(bid=pb.Bid(quantity=1, face=faces + 3))))
                        answered = None  # refused: the same prompt is answered again
                        continue
                    if fault == "slow" and first:
                        first = False
                        time.sleep(6.5)
                    action = bot.choose(pb, rules, p.view, p.legal, faces)
                    up.put(service.PlayRequest(action=action, answers=p.last_seq))
            elif kind == "clock_warning" and fault == "warning":
                os._exit(0)  # gone at once, as a bot that takes the warning for the end
            elif kind == "rejected" and fault == "illegal":
                # Asked again: the prompt stands, so it is answered properly now.
                pass
            elif kind == "event" and update.event.WhichOneof("kind") == "game_over":
                if fault == "ignores_end":
                    time.sleep(8)
                break
    except Exception:  # noqa: BLE001  (a dropped stream or a reset ends this bot: it is not what it is tested for)
        pass
    up.put(None)


if __name__ == "__main__":
    main()
