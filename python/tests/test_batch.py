"""Batched playouts: numpy in, numpy out, every step checked before any is played."""

import numpy as np
import pytest

import dudo


def test_random_playouts_pay_zero_sum_and_deal_again():
    batch = dudo.Batch("perudo-jonti", players=3, games=64, seed=5)
    assert batch.observations().shape == (64, batch.observation_size)
    assert batch.masks().shape == (64, batch.num_actions)
    total = np.zeros(3)
    while batch.finished < 50:
        rewards, done = batch.step(batch.random_actions())
        assert rewards.shape == (64, 3)
        assert np.allclose(rewards.sum(axis=1), 0.0)
        total += rewards.sum(axis=0)
        assert (batch.turns() >= 0).all()
    assert abs(total.sum()) < 1e-4


def test_one_illegal_id_refuses_the_step():
    batch = dudo.Batch("openspiel", games=4, seed=1)
    masks = batch.masks()
    actions = batch.random_actions()
    actions[3] = int(np.nonzero(~masks[3])[0][0])
    before = batch.observations().copy()
    with pytest.raises(dudo.IllegalAction, match=r"actions\[3\]"):
        batch.step(actions)
    assert (batch.observations() == before).all()
    with pytest.raises(dudo.IllegalAction, match="4 games"):
        batch.step(np.zeros(3, np.int64))


def test_playouts_without_observations():
    batch = dudo.Batch("openspiel", games=32, seed=2, observations=False)
    assert batch.random_playouts(100) >= 100
    with pytest.raises(ValueError, match="observations=False"):
        batch.observations()


def test_ids_of_any_integer_kind_and_the_points_game_truncated():
    batch = dudo.Batch("points", players=3, games=8, seed=4, max_moves=30)
    for _ in range(40):
        batch.step(batch.random_actions().astype(np.int32))
    assert batch.finished >= 8
    batch.step(list(batch.random_actions()))
    assert [name for name, *_ in batch.observation_blocks()][:3] == ["seat", "turn", "out"]
