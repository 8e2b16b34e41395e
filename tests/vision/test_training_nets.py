"""Training helpers that need torch (the [train] extra): skipped where it is not installed,
as in the quick start's environment."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from vision.training.nets import FaceNetDW  # noqa: E402
from vision.training.train_embedding import export, freeze_norms, load_onnx  # noqa: E402


def _trained_looking_net(seed: int, width=(8, 16, 32)) -> FaceNetDW:
    torch.manual_seed(seed)
    net = FaceNetDW(classes=12, width=width, in_channels=1)
    with torch.no_grad():   # batch norms with statistics of their own, as after training
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return net.eval()


def test_an_exported_embedding_loads_back_into_torch_and_reads_the_same(tmp_path):
    net = _trained_looking_net(0)
    export(net, tmp_path / "e.onnx", weights=False, side=48)
    again = FaceNetDW(classes=12, width=(8, 16, 32), in_channels=1)
    load_onnx(again, tmp_path / "e.onnx")
    x = torch.from_numpy(np.random.default_rng(1).normal(size=(3, 1, 48, 48)).astype(np.float32))
    with torch.no_grad():
        assert torch.allclose(net(x), again.eval()(x), atol=1e-4)
        # training it on goes on from there when its norms stay frozen
        again.train()
        freeze_norms(again)
        again.body[-2].eval()   # dropout off, to compare
        assert torch.allclose(net(x), again(x), atol=1e-4)


def test_loading_an_embedding_into_another_shape_says_what_differs(tmp_path):
    export(_trained_looking_net(0), tmp_path / "e.onnx", weights=False, side=48)
    with pytest.raises(ValueError, match="convolution"):
        load_onnx(FaceNetDW(classes=12, width=(8, 16, 40), in_channels=1), tmp_path / "e.onnx")


def test_makers_variants_are_forgotten_once_drawn():
    """Every variant view registers a passing face set with the renderer; a training run
    draws tens of thousands, so each is forgotten right after its view is drawn."""
    from vision import synth
    from vision.training.train_embedding import symbol_pool
    before = set(synth._DRAWN_SETS)
    pool, counts = symbol_pool(9_000_000, 2, views=3, variant_share=1.0)
    assert pool.shape[:3] == (2, 6, 3) and counts.shape == (2, 6)
    left = set(synth._DRAWN_SETS) - before
    assert left == {"symbols-9000000", "symbols-9000001"}   # the sets themselves, no variant


def photo_free_pools(monkeypatch, **options):
    """train_faces.build_pools with the shared photos left out and no rendered dice scenes,
    every other pool off unless ``options`` turn it on."""
    import argparse

    from vision.training import train_faces

    monkeypatch.setattr(train_faces, "photos", lambda **kw: [])
    args = dict(seed=1, synthetic=0, upright_scenes=True, hard_from=None, not_pip_scenes=0,
                not_pip_rate=0.06, neg_rate=0.2, synthetic_share=0.3, tray_repeat=3.0,
                mixed_turn=25.0, glare_rate=0.0, busy_scenes=0, busy_rate=0.05)
    return train_faces.build_pools(argparse.Namespace(**{**args, **options}), np.random.default_rng(0))


def test_face_reader_training_learns_numeral_and_letter_dice_as_no_die(monkeypatch):
    """train_faces --not-pip-scenes: the dice of rendered numeral, letter and picture dice
    scenes become a pool of "no die" crops drawn at --not-pip-rate (photos left out here)."""
    from vision.training import train_faces

    pools = photo_free_pools(monkeypatch, not_pip_scenes=2)
    assert len(pools.groups) == 1
    crops, classes, _ = pools.groups[0]
    assert len(crops) > 0 and set(classes) == {train_faces.NO_DIE}
    x, y = pools.batch(np.random.default_rng(1), 8, 48)
    assert tuple(x.shape) == (8, 3, 48, 48) and set(y.tolist()) == {train_faces.NO_DIE}


def test_face_reader_training_learns_busy_tables_as_no_die(monkeypatch):
    """train_faces --busy-scenes: where a finder fires away from every die on rendered game
    boards among game pieces, and empty places there, become "no die" crops at --busy-rate."""
    from vision.training import train_faces

    pools = photo_free_pools(monkeypatch, busy_scenes=3)
    assert len(pools.groups) == 1
    crops, classes, _ = pools.groups[0]
    assert len(crops) >= 6 and set(classes) == {train_faces.NO_DIE}   # at least the empty places
    assert crops.shape[1:] == (train_faces.WIDE, train_faces.WIDE, 3) and crops.std() > 5


def test_reflection_crops_are_empty_spots_with_a_white_spot_near_the_middle():
    """train_faces --glare-rate: lamp reflections drawn on "no die" crops."""
    from vision.training import train_faces
    from vision.training.augment import WIDE

    grey = np.full((5, WIDE, WIDE, 3), 90, np.uint8)
    spots = train_faces.with_reflection(grey, np.random.default_rng(0), 20)
    assert spots.shape == (20, WIDE, WIDE, 3)
    middle = spots[:, WIDE // 3:2 * WIDE // 3, WIDE // 3:2 * WIDE // 3].min(axis=3)
    assert (middle.reshape(20, -1).max(axis=1) >= 200).all()   # a near-white core in every crop
    assert (spots[:, :3, :3] == 90).all()                      # the corners left as they were


def test_face_reader_training_refuses_shares_of_no_die_crops_over_one(capsys):
    from vision.training import train_faces

    with pytest.raises(SystemExit):
        train_faces.main(["--neg-rate", "0.5", "--not-pip-rate", "0.6"])
    assert "under 1" in capsys.readouterr().err
