"""A bot trained with the package plays the ladder: CFR+ on Liar's Dice with one die each
(python/examples/train_cfr_bot.py), then bot-sdk/examples/python/trained_bot.py, bot.py's
gRPC code with the trained policy, seated by `dudo ladder` on a real server's pool."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binaries():
    dudo, server = os.environ.get("DUDO_BIN"), os.environ.get("DUDO_SERVER_BIN")
    if not (dudo and server):
        pytest.skip("DUDO_BIN and DUDO_SERVER_BIN are not set: no server to play on")
    return dudo, server


def test_a_trained_bot_plays_the_ladder_by_its_policy(tmp_path):
    pytest.importorskip("grpc")
    dudo, server_bin = binaries()
    policy = tmp_path / "policy.json"
    trained = subprocess.run(
        [sys.executable, str(ROOT / "python/examples/train_cfr_bot.py"), str(policy), "--faces", "3"],
        capture_output=True, text=True, timeout=300,
    )
    assert trained.returncode == 0, trained.stderr
    solved = json.loads(policy.read_text())
    # Liar's Dice with one three-faced die each: CFR+ gets close to the equilibrium.
    assert solved["nash_conv"] < 0.001 and len(solved["policy"]) > 100

    pools = tmp_path / "pools.toml"
    pools.write_text(
        '[[pool]]\nname = "one-die"\npreset = "openspiel"\nsettings = { "dice.start" = "1", "dice.faces" = "3" }\n'
        'seats = 2\nmove_millis = 5000\nbots = ["odds"]\nfill_after_seconds = 0\n'
    )
    home = tmp_path / "home"
    env = {**os.environ, "DUDO_HOME": str(home), "RUST_LOG": "warn"}
    server = subprocess.Popen(
        [server_bin, "--listen", "127.0.0.1:0", "--db", str(tmp_path / "server.db"), "--ladder", str(pools)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )
    try:
        addr = server.stdout.readline().strip().rsplit(" ", 1)[-1]
        assert addr, "the server did not say where it listens"
        registered = subprocess.run(
            [dudo, "account", "register", "Trained", "--bot", "--server", addr],
            capture_output=True, text=True, env=env, timeout=60,
        )
        assert registered.returncode == 0, registered.stderr
        command = f"env DUDO_POLICY={policy} {sys.executable} {ROOT / 'bot-sdk/examples/python/trained_bot.py'}"
        played = subprocess.run(
            [dudo, "ladder", "one-die", "--bot", command, "--games", "3", "--server", addr],
            capture_output=True, text=True, env=env, timeout=240,
        )
        out = played.stdout + played.stderr
        assert played.returncode == 0, out
        assert out.count("game over, place") == 3, out
        moves = [line for line in out.splitlines() if line.startswith("trained_bot:")]
        assert len(moves) == 3, out
        for line in moves:
            by_policy = int(line.split()[1])
            assert by_policy > 0 and line.endswith(" 0 by bot.py's logic"), line
    finally:
        server.kill()
        server.wait()
