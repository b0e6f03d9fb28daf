"""A complete dudo bot in Python, with grpcio and stubs generated from proto/.

    python bot.py HOST:PORT JOINCODE [NAME]
    python bot.py https://HOST:PORT JOINCODE [NAME]     (a server with TLS; DUDO_CA_CERT
                                                        names a CA certificate to trust)

or with DUDO_SERVER and DUDO_TABLE set (DUDO_API_TOKEN to sit as an account; DUDO_TOKEN and
DUDO_SEAT to play a seat already held, as `dudo ladder --bot 'python bot.py'` gives them).
It plays one game and prints its place. Needs grpcio and grpcio-tools (scripts/python-env.sh makes such an environment).
"""
import atexit
import os
import queue
import shutil
import sys
import tempfile
import time

import grpc
from grpc_tools import protoc

PROTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "proto")


def load_stubs():
    out = tempfile.mkdtemp(prefix="dudo-stubs-")
    atexit.register(shutil.rmtree, out, ignore_errors=True)  # imported by then: not needed after
    files = [f"dudo/v1/{f}.proto" for f in ("rules", "game", "service")]
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    if protoc.main(["protoc", f"-I{PROTO}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}", *files]):
        sys.exit("protoc failed")
    # Regular packages, first on the path: a namespace package `dudo` would lose to the
    # engine's own Python package (`pip install ./python`) where that is installed too.
    for package in ("dudo", "dudo/v1"):
        open(os.path.join(out, package, "__init__.py"), "a").close()
    sys.path.insert(0, out)
    from dudo.v1 import game_pb2, rules_pb2, service_pb2, service_pb2_grpc
    return game_pb2, rules_pb2, service_pb2, service_pb2_grpc


# ---- the bot's logic: 25 lines ----
def choose(pb, rules, view, legal, faces):
    """Challenge a bid that needs more dice than we expect; otherwise raise on our best face."""
    wild = view.wild if view.HasField("wild") else None
    unknown = sum(p.dice for p in view.players if not p.HasField("place")) - len(view.my_dice)

    def expected(face):
        mine = sum(1 for d in view.my_dice if d == face or (wild and d == wild and face != wild))
        return mine + unknown * (2 if wild and face != wild else 1) / faces

    if view.HasField("current_bid") and legal.dudo:
        bid = view.current_bid.bid
        if bid.quantity > expected(bid.face) + 0.5:
            return pb.Action(dudo=pb.Dudo())
    if legal.bids:
        best = max(legal.bids, key=lambda r: expected(r.face) - r.min_quantity)
        return pb.Action(bid=pb.Bid(quantity=best.min_quantity, face=best.face))
    if legal.dudo:
        return pb.Action(dudo=pb.Dudo())
    if legal.HasField("claim_from"):  # the cup games: claim the least allowed
        return pb.Action(claim=legal.claim_from)
    if legal.HasField("roll"):
        return pb.Action(roll=pb.Roll(dice=list(range(len(view.hand.dice)))))
    if legal.dogs_life:
        return pb.Action(dogs_life=pb.DogsLifeChoice(bark=True))
    return pb.Action(accept=rules.Empty())  # Empty lives in rules_pb2 (docs/bots.md)
# ---- end of the bot's logic ----


def open_channel(server):
    """host:port in plaintext; https://host:port with TLS, checked against the system's roots
    or the CA certificate DUDO_CA_CERT names (as the dudo command does)."""
    if not server.startswith("https://"):
        return grpc.insecure_channel(server.removeprefix("http://"))
    ca = os.environ.get("DUDO_CA_CERT")
    roots = open(ca, "rb").read() if ca else None
    return grpc.secure_channel(server.removeprefix("https://").rstrip("/"), grpc.ssl_channel_credentials(roots))


# Codes of a stream the server dropped rather than refused: a lost connection, a server
# restarting, the table moving to another node of a cluster (a failover, a drain).
AGAIN = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED)


def play_seat(stubs, channel, table, token, seat, name):
    """Plays one seat of a table over its Play stream until the game is over; its place.

    A stream the server drops (AGAIN: a lost connection, a server restarting, a failover) is
    resumed after the last event seen; one it ends with ABORTED (the table was reset, or its
    seats renumbered) is opened afresh with the token alone, and a new snapshot follows."""
    pb, rules, service, rpc = stubs
    play = rpc.PlayStub(channel)
    auth = [("authorization", f"Bearer {token}")]
    faces = 6
    # The last prompt answered, by its last_seq: a prompt that comes again with the same
    # last_seq (after a call window closes, say) is the same decision, answered once.
    answered = None
    since = None  # the last event seen: a dropped stream resumes after it
    for _ in range(30):
        up = queue.Queue()
        hello = service.Hello(table=table)
        if since is not None:
            hello.since = since
        up.put(service.PlayRequest(hello=hello))
        try:
            for update in play.Play(iter(up.get, None), metadata=auth):
                kind = update.WhichOneof("update")
                if kind in ("snapshot", "table"):
                    info = update.snapshot.table if kind == "snapshot" else update.table
                    faces = info.rules.dice.faces or 6
                    if kind == "snapshot" and update.snapshot.HasField("last_seq"):
                        since = update.snapshot.last_seq
                    if kind == "snapshot" and update.snapshot.view.HasField("seat"):
                        seat = update.snapshot.view.seat
                elif kind == "prompt" and update.prompt.last_seq != answered:
                    p = update.prompt
                    answered = p.last_seq
                    if p.HasField("call_window_unix_millis"):
                        # Asked whether to call out of turn (calza) on the last bid: this bot
                        # never does, and says so at once rather than make the table wait.
                        up.put(service.PlayRequest(pass_call=service.PassCall(), answers=p.last_seq))
                    elif p.view.HasField("turn") and p.view.turn == seat:
                        # `answers` names the prompt: if the game moved on first, this is refused.
                        action = choose(pb, rules, p.view, p.legal, faces)
                        up.put(service.PlayRequest(action=action, answers=p.last_seq))
                elif kind == "rejected":
                    # Refused: the server prompts again at once, with the same last_seq, and
                    # that prompt is answered afresh. Not after an answer to a position the
                    # game has moved past: its fresh prompt went out as the game moved.
                    r = update.rejected
                    print(f"{name}: refused ({r.code}): {r.reason}", file=sys.stderr)
                    if r.code not in ("stale_prompt", "call_window_closed"):
                        answered = None
                elif kind == "event":
                    since = update.event.seq
                    if update.event.WhichOneof("kind") == "game_over":
                        standings = list(update.event.game_over.standings)
                        place = standings.index(seat) + 1
                        # Every event comes with its words, as the server says it to this seat.
                        print(f"{name}: {update.event.text}")
                        print(f"{name}: game over, place {place} of {len(standings)}")
                        return place
            return None
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.ABORTED:
                since, answered = None, None  # reset or renumbered: afresh, with the token
            elif e.code() == grpc.StatusCode.NOT_FOUND:
                print(f"{name}: the table is gone ({e.details()})")  # closed: its game is over
                return None
            elif e.code() not in AGAIN:
                raise
            # An answer sent as the stream dropped may not have arrived: the prompt that comes
            # again on the resumed stream is answered again.
            answered = None
        finally:
            up.put(None)
        time.sleep(0.2)
    return None


def main():
    args = sys.argv[1:] + [None] * 3
    server = args[0] or os.environ.get("DUDO_SERVER", "127.0.0.1:50051")
    table = args[1] or os.environ["DUDO_TABLE"]
    name = args[2] or os.environ.get("DUDO_BOT_NAME", "pybot")
    stubs = load_stubs()
    pb, rules, service, rpc = stubs
    channel = open_channel(server)
    lobby = rpc.LobbyStub(channel)
    if os.environ.get("DUDO_TOKEN"):
        token, seat = os.environ["DUDO_TOKEN"], int(os.environ.get("DUDO_SEAT", "0"))
        table = lobby.GetTable(service.TableRef(table=table)).id
    elif os.environ.get("DUDO_API_TOKEN"):
        # An account's seat (`dudo account register NAME --bot`), under the account's name.
        account = [("authorization", f"Bearer {os.environ['DUDO_API_TOKEN']}")]
        joined = lobby.JoinTable(service.JoinTableRequest(table=table), metadata=account)
        token, seat, table = joined.token, joined.seat, joined.table.id
    else:
        joined = lobby.JoinTable(service.JoinTableRequest(table=table, name=name))
        token, seat, table = joined.token, joined.seat, joined.table.id
    play_seat(stubs, channel, table, token, seat, name)
    channel.close()


if __name__ == "__main__":
    main()
