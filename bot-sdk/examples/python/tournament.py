"""Enter a dudo tournament from Python and play every seat the schedule gives you.

    DUDO_API_TOKEN=dudo_... python tournament.py HOST:PORT TOURNAMENT

The account's API token (`dudo account register NAME --bot`) enters it over one
Tournaments.Enter stream; each seat it is told of is played on a thread of its own with
bot.py's logic, over the ordinary Play stream. If the stream drops (the server restarted,
say), it enters again: the server tells it again of every game it is seated at. It ends when
the tournament does and prints the standings.
"""
import os
import sys
import threading
import time

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bot  # noqa: E402  (bot.py, beside this file: the stubs, the channel and the logic)


def play(*args):
    """bot.play_seat on a thread of its own: a seat whose table went away is said in a line."""
    try:
        bot.play_seat(*args)
    except grpc.RpcError as e:
        print(f"a seat at table {args[2]}: {e.code().name}: {e.details()}")


def main():
    if len(sys.argv) != 3 or not os.environ.get("DUDO_API_TOKEN"):
        sys.exit("usage: DUDO_API_TOKEN=dudo_... python tournament.py HOST:PORT TOURNAMENT")
    server, tournament = sys.argv[1], sys.argv[2]
    account = [("authorization", f"Bearer {os.environ['DUDO_API_TOKEN']}")]
    stubs = bot.load_stubs()
    pb, rules, service, rpc = stubs
    channel = bot.open_channel(server)
    tournaments = rpc.TournamentsStub(channel)
    name, seated = "?", set()
    gone_since = None
    while True:
        try:
            for update in tournaments.Enter(service.TournamentRef(tournament=tournament), metadata=account):
                gone_since = None
                kind = update.WhichOneof("update")
                if kind == "entered":
                    t = update.entered.tournament
                    name = t.entrants[update.entered.entrant].name if t.entrants else name
                    print(f"{name} is entrant {update.entered.entrant} of {t.name} ({t.id})", flush=True)
                elif kind == "seated" and update.seated.game not in seated:
                    # Told again after coming back: each game is played once.
                    s = update.seated
                    seated.add(s.game)
                    args = (stubs, channel, s.table, s.token, s.seat, name)
                    threading.Thread(target=play, args=args, daemon=True).start()
                elif kind == "over":
                    t = update.over.tournament
                    standings = tournaments.Standings(service.TournamentRef(tournament=tournament))
                    print(f"{t.name}: {t.why or 'finished'}; {standings.games} games")
                    for i, e in enumerate(standings.entrants):
                        print(f"{i + 1:>3}. {e.name:<20} {e.mean_points:.3f} points a game, mean place {e.mean_place:.2f}")
                    return
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN):
                sys.exit(f"the tournament stream: {e.code().name}: {e.details()}")
            if gone_since is None:
                print(f"the server at {server} does not answer ({e.details()}); trying again for two minutes")
        # The stream ended or the server went away: enter again (for up to two minutes).
        gone_since = gone_since or time.monotonic()
        if time.monotonic() - gone_since > 120:
            sys.exit("the server is gone")
        time.sleep(1)


if __name__ == "__main__":
    main()
