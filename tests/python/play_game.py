"""A dudo client in Python: creates a table, seats two server bots, and plays a whole game
over the Play stream, answering every prompt; then finds the game in the server's records
(History.ListGames) and reads its replay, every cup shown. Usage: play_game.py ADDRESS PROTO_DIR

The stubs are generated from the repository's .proto files each run (grpc_tools.protoc), so
the test checks the protocol as a client in another language sees it.
"""
import os
import queue
import sys
import tempfile

import grpc
from grpc_tools import protoc


def stubs(proto_dir):
    out = tempfile.mkdtemp(prefix="dudo-stubs-")
    files = [os.path.join("dudo", "v1", f) for f in ("rules.proto", "game.proto", "service.proto")]
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    code = protoc.main(["protoc", f"-I{proto_dir}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}", *files])
    if code != 0:
        sys.exit(f"protoc failed with {code}")
    sys.path.insert(0, out)
    from dudo.v1 import game_pb2, rules_pb2, service_pb2, service_pb2_grpc  # noqa: E402
    return game_pb2, rules_pb2, service_pb2, service_pb2_grpc


def simple_move(game_pb2, legal):
    """Challenge if allowed, else the least bid."""
    if legal.dudo:
        return game_pb2.Action(dudo=game_pb2.Dudo())
    r = legal.bids[0]
    return game_pb2.Action(bid=game_pb2.Bid(quantity=r.min_quantity, face=r.face))


def main():
    address, proto_dir = sys.argv[1], sys.argv[2]
    game_pb2, _rules_pb2, service_pb2, service_pb2_grpc = stubs(proto_dir)
    channel = grpc.insecure_channel(address)
    lobby = service_pb2_grpc.LobbyStub(channel)
    play = service_pb2_grpc.PlayStub(channel)
    joined = lobby.CreateTable(service_pb2.CreateTableRequest(
        preset="fibbing", name="Pythonista", seats=3, seed=11,
        # After each showdown the table waits for its person: this client says "next".
        reveal_pause_millis=3000,
        settings=[service_pb2.Setting(path="losers_see_dice", value="hidden")]))
    auth = [("authorization", f"Bearer {joined.token}")]
    table = joined.table.id
    for _ in range(2):
        lobby.AddBot(service_pb2.AddBotRequest(table=table, bot="odds"), metadata=auth)
    outgoing = queue.Queue()
    outgoing.put(service_pb2.PlayRequest(hello=service_pb2.Hello(table=table)))

    def requests():
        while (item := outgoing.get()) is not None:
            yield item

    updates = play.Play(requests(), metadata=auth)
    lobby.StartGame(service_pb2.TableRef(table=table), metadata=auth)
    prompts = 0
    nexts = 0
    heard = False
    outgoing.put(service_pb2.PlayRequest(say=service_pb2.SayRequest(text="good luck, bots")))
    for update in updates:
        kind = update.WhichOneof("update")
        if kind == "turn" and update.turn.HasField("next_round_unix_millis") and joined.seat not in update.turn.ready:
            # The reveal is shown to the table until everyone here says they have seen it.
            nexts += 1
            outgoing.put(service_pb2.PlayRequest(next_round=service_pb2.NextRound()))
        if kind == "line" and update.line.text == "good luck, bots" and update.line.name == "Pythonista":
            heard = True
        if kind == "prompt" and update.prompt.HasField("call_window_unix_millis"):
            # Asked whether to call out of turn on the last bid: no call, said at once.
            outgoing.put(service_pb2.PlayRequest(pass_call=service_pb2.PassCall()))
        elif kind == "prompt":
            prompts += 1
            outgoing.put(service_pb2.PlayRequest(action=simple_move(game_pb2, update.prompt.legal)))
        elif kind == "rejected":
            sys.exit(f"refused: {update.rejected.reason}")
        elif kind == "event":
            event = update.event
            if event.WhichOneof("kind") == "dice_rolled" and event.dice_rolled.seat != joined.seat:
                sys.exit(f"saw seat {event.dice_rolled.seat}'s dice")
            if event.WhichOneof("kind") == "game_over":
                if not heard or nexts == 0:
                    sys.exit(f"the table's talk came back: {heard}; next said after a showdown {nexts} times")
                print(f"python client: game over after {prompts} prompts, {nexts} reveals seen, standings {list(event.game_over.standings)}")
                outgoing.put(None)
                replay(service_pb2, service_pb2_grpc.HistoryStub(channel), table)
                return
    sys.exit("the stream ended before the game did")


def replay(service_pb2, history, table):
    """The finished game from the records: listed under our name, and every seat's cups in it."""
    games = history.ListGames(service_pb2.ListGamesRequest(player="Pythonista")).games
    game = next((g for g in games if g.table_id == table), None)
    if game is None:
        sys.exit(f"the finished game is not in the records: {games}")
    record = history.GetReplay(service_pb2.GameRef(game=game.id))
    seats = {e.dice_rolled.seat for e in record.events if e.WhichOneof("kind") == "dice_rolled"}
    if seats != {0, 1, 2} or len(record.events) != len(record.event_unix_millis):
        sys.exit(f"a replay shows every cup, each event timed: seats {seats}")
    print(f"python client: replay of {game.id} has {len(record.events)} events, cups of seats {sorted(seats)}")


if __name__ == "__main__":
    main()
