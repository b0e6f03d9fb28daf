"""The package plays the engine's game: the server's rules, dice and refusals."""

import copy
import json
import os
import re
import subprocess

import numpy as np
import pytest

import dudo

SEATS = {"openspiel": 2}


def seats(preset):
    low, high = dudo.RuleSet(preset).players
    return max(low, min(high, SEATS.get(preset, 3)))


def script_call(game, action, names):
    text = str(action)
    if action.kind == "claim":
        dice = action.to_dict()["claim"]
        symbols = "?9TJQKA" if game.rules.name == "poker-dice" else "0123456"
        return "".join(symbols[d] for d in dice)
    if action.kind == "dudo" and text.startswith("dudo seat "):
        return "dudo " + names[int(text.split()[-1])]
    return text


def play_recorded(preset, seed):
    """A game played by the built-in bots through the package, as a `dudo script`."""
    n = seats(preset)
    names = [f"P{i}" for i in range(n)]
    game = dudo.Game(preset, n, seed)
    rounds, calls, moves = [], [], 0
    while not game.is_over() and moves < 3000:
        seat = game.turn
        action = dudo.Bot(["random", "odds", "reader"][seat % 3], dudo.seat_seed(seed, seat)).act(game)
        round_before = game.round
        calls.append(f"{names[seat]}: {script_call(game, action, names)}")
        game.apply(action)
        moves += 1
        if game.round != round_before or game.is_over():
            rounds.append({"actions": calls})
            calls = []
    if calls:
        rounds.append({"actions": calls})
    return game, {"rules": preset, "players": names, "seed": seed, "rounds": rounds}


def test_the_same_seeds_give_the_same_events_as_dudo_script(tmp_path):
    binary = os.environ.get("DUDO_BIN")
    if not binary:
        pytest.skip("DUDO_BIN is not set: no dudo binary to compare with")
    for preset in dudo.presets():
        for seed in (1, 2):
            game, script = play_recorded(preset, seed)
            path = tmp_path / f"{preset}-{seed}.json"
            path.write_text(json.dumps(script))
            out = subprocess.run([binary, "script", str(path)], capture_output=True, text=True)
            assert out.returncode == 0, f"{preset} seed {seed}: {out.stderr}"
            theirs = [json.loads(line) for line in out.stdout.splitlines()]
            for line in theirs:
                line.pop("seq")
            # Compared as JSON: pythonize gives a pair as a tuple, JSON as a list.
            assert json.loads(json.dumps(game.events())) == theirs, f"{preset} seed {seed}"


def test_a_refused_action_names_the_rule_and_changes_nothing():
    game = dudo.Game("perudo-jonti", 3, 4)
    before = game.view(0)
    with pytest.raises(dudo.IllegalAction, match="bid"):
        game.apply("dudo")
    with pytest.raises(dudo.IllegalAction, match="action id"):
        game.apply(10_000)
    assert game.view(0) == before and game.moves == 0


def test_a_view_holds_only_the_seats_own_dice():
    game = dudo.Game("fibbing", 3, 9)
    view = game.view(1)
    assert view["seat"] == 1 and len(view["my_dice"]) == 5
    assert view["all_dice"] is None
    hidden = [e for e in game.events(0) if e["event"] == "dice_rolled"]
    assert all(e["seat"] == 0 for e in hidden)


def test_rule_sets_from_presets_json_toml_and_settings():
    assert dudo.RuleSet("openspiel", [("dice.start", "2")]).to_dict()["dice"]["start"] == 2
    assert dudo.RuleSet.from_json('{"preset": "house", "dice": {"faces": 8}}').to_dict()["dice"]["faces"] == 8
    toml = dudo.RuleSet("snyd").with_setting("dice.start", "3")
    assert dudo.RuleSet.from_toml('preset = "snyd"\n[dice]\nstart = 3\nmax = 3\n') == toml
    with pytest.raises(dudo.InvalidRules, match="dice.faces"):
        dudo.RuleSet("fibbing", [("dice.faces", "99")])
    with pytest.raises(dudo.InvalidRules, match="preset"):
        dudo.RuleSet("nonsense")


def test_ids_masks_and_actions_agree():
    for preset in dudo.presets():
        game = dudo.Game(preset, seats(preset), 3)
        moves = 0
        while not game.is_over() and moves < 200:
            ids = game.legal_action_ids()
            mask = game.action_mask()
            assert list(np.nonzero(mask)[0]) == ids
            actions = game.legal_actions()
            assert [game.action_id(a) for a in actions] == ids
            # Each reads back from its text, written in the game's own symbols.
            assert [game.action(str(a)) for a in actions] == actions
            game.apply(ids[moves % len(ids)])
            moves += 1


def test_a_hand_games_claims_are_written_in_its_symbols():
    game = dudo.Game("poker-dice", 2, 1)
    game.apply("roll all")
    claims = [str(a) for a in game.legal_actions() if a.kind == "claim"]
    assert claims and all(re.fullmatch(r"claim [9TJQKA]{5}", c) for c in claims), claims
    assert dudo.Action.from_json('{"claim": [6, 6, 6, 6, 6]}') == game.action("claim AAAAA")


def test_openspiel_numbers_bids_as_openspiel_does():
    game = dudo.Game("openspiel", 2, 0)
    assert game.action_id("2 threes") == 8
    assert str(game.action(8)) == "2 threes"


def test_the_bots_are_policies_and_finish_games():
    game = dudo.Game("house", 4, 11)
    bots = [dudo.Bot(name, dudo.seat_seed(11, s)) for s, name in enumerate(["odds", "reader", "random", "odds"])]
    while not game.is_over():
        game.apply(bots[game.turn].act(game))
    assert sorted(game.standings()) == [0, 1, 2, 3]
    assert abs(sum(game.returns())) < 1e-6


def test_the_expert_plays_the_same_move_for_the_same_seed():
    game = dudo.Game("perudo-jonti", 3, 4)
    while not game.is_over() and game.moves < 30:
        seat = game.turn
        first = dudo.Bot("expert", dudo.seat_seed(4, seat)).act(game)
        again = dudo.Bot("expert", dudo.seat_seed(4, seat)).act(game)
        assert first == again
        game.apply(first)
    try:
        dudo.Bot("wizard")
    except ValueError as e:
        assert "expert" in str(e)
    else:
        raise AssertionError("an unknown bot is refused")


def test_reset_deals_the_game_a_new_one_would():
    game = dudo.Game("perudo-jonti", 3, 1)
    game.apply(game.legal_action_ids()[3])
    game.reset(5)
    fresh = dudo.Game("perudo-jonti", 3, 5)
    assert game.events() == fresh.events() and game.view(1) == fresh.view(1)


def test_events_since_give_a_moves_events():
    game = dudo.Game("openspiel", 2, 2)
    n = game.event_count
    game.apply("2 threes")
    made = game.events(since=n)
    assert [e["event"] for e in made] == ["bid_made"]
    assert game.events()[n:] == made


def test_rule_sets_and_actions_pickle_and_settings_take_numbers():
    import pickle

    rules = dudo.RuleSet("house", {"dice.faces": 8, "dice.start": 3})
    assert pickle.loads(pickle.dumps(rules)) == rules
    # A changed preset's repr names what changed.
    assert repr(rules) == '<RuleSet "house", changed: dice.faces=8, dice.max=3, dice.start=3>'
    assert repr(dudo.RuleSet("house")) == 'RuleSet("house")'
    action = dudo.Action.parse("3 fives")
    assert pickle.loads(pickle.dumps(action)) == action
    # A hand game's action keeps its symbols through pickling and copying.
    game = dudo.Game("poker-dice", 2, 1)
    game.apply("roll all")
    claim = next(a for a in game.legal_actions() if a.kind == "claim")
    for again in (pickle.loads(pickle.dumps(claim)), copy.copy(claim), copy.deepcopy(claim)):
        assert str(again) == str(claim) and game.action(str(again)) == claim
    with pytest.raises(dudo.InvalidRules, match="dice.faces: a setting's value"):
        dudo.RuleSet("house", {"dice.faces": [8]})


def test_stop_ends_a_game_ranked_as_it_stands():
    game = dudo.Game("points", 3, 1)
    game.apply(game.legal_action_ids()[0])
    game.stop()
    assert game.is_over() and abs(sum(game.returns())) < 1e-12
    assert "turn=None" in repr(game)


def test_hostile_input_is_refused_by_name():
    with pytest.raises(dudo.InvalidRules, match="setting"):
        dudo.RuleSet("fibbing", [("x" + ".x" * 50_000, "1")])
    with pytest.raises(dudo.InvalidRules, match="games"):
        dudo.Batch("fibbing", 12, 1 << 20)
    with pytest.raises(dudo.IllegalAction, match=r"cups\[1\]: 7 is not a face"):
        dudo.Game.dealt("openspiel", 2, [[1] * 5, [7] * 5])
    with pytest.raises(dudo.IllegalAction, match="2 given for 3 seats"):
        dudo.Game.dealt("perudo-jonti", 3, [[1] * 5, [2] * 5])
    with pytest.raises(dudo.IllegalAction, match="deal no cups"):
        dudo.Game.dealt("mexican", 2, [[1] * 3, [2] * 3])
    game = dudo.Game("openspiel", 2, 1)
    with pytest.raises(dudo.IllegalAction, match="does not end a round"):
        game.apply("1 two", cups=[[1] * 5, [1] * 5])
    with pytest.raises(dudo.IllegalAction, match="not an action id"):
        game.apply(2**70)
    with pytest.raises(IndexError):
        game.action_mask(100)
    with pytest.raises(TypeError, match="not an array of float64"):
        dudo.Batch("openspiel", games=2).step(np.zeros(2))
    with pytest.raises(dudo.InvalidRules, match="not JSON"):
        dudo.RuleSet.from_json("not json")
    # An action no id stands for has none: a claim of too few or too many dice (which once
    # indexed past the hand), a roll naming a die twice.
    mexican = dudo.Game("mexican", 3)
    for dice in ([6, 6], [], [6] * 5):
        assert mexican.action_id(dudo.Action.from_json(json.dumps({"claim": dice}))) is None
    assert dudo.Action.from_json('{"claim": [2, 1, 1]}') == dudo.Action.from_json('{"claim": [1, 1, 2]}')
    with pytest.raises(dudo.InvalidRules, match="palifico.*not a list"):
        dudo.RuleSet("openspiel", {"palifico": "[]"})
    with pytest.raises(dudo.InvalidRules, match="dice.start"):
        dudo.RuleSet("fibbing", {"dice.start": "x"})
    with pytest.raises(TypeError, match="an Action, an action id"):
        mexican.apply(True)
    with pytest.raises(dudo.IllegalAction, match="not an action id"):
        mexican.apply(2**200)


def test_a_bot_may_be_asked_from_another_thread():
    import threading

    game, bot, out = dudo.Game("openspiel", 2, 3), dudo.Bot("odds", 1), []
    worker = threading.Thread(target=lambda: out.append(bot.act(game)))
    worker.start()
    worker.join()
    assert out and game.action_id(out[0]) is not None
