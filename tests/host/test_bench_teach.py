"""host/bench_teach.py: every settled throw read once and scored against what was thrown."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from host import bench_teach
from vision.bench.scoring import Tally


def test_script_is_deterministic_and_throws_three_to_seven_dice():
    script = bench_teach.random_script("christmas-romance", 12, seed=5)
    assert script == bench_teach.random_script("christmas-romance", 12, seed=5)
    assert all(3 <= len(roll.faces) <= 7 for roll in script)
    assert any(roll.hover for roll in script)


def test_each_throw_is_read_once_and_counted_like_the_scorer(tmp_path):
    from host.watcher import dice_reader
    script = bench_teach.random_script("jingle-bell-roll", 3, seed=1000)
    readers = {"built-in": lambda calibration: dice_reader("jingle-bell-roll", tmp_path, calibration)}
    reads = list(bench_teach.settled_reads("jingle-bell-roll", 1000, 3, readers))
    assert [sorted(d.face for d in truth) for truth, _ in reads] == [sorted(r.faces) for r in script]
    tally = Tally()
    for truth, rolls in reads:
        tally.add(bench_teach.as_labels(truth), bench_teach.as_reads(rolls["built-in"]))
    assert tally.images == 3 and tally.labelled == sum(len(r.faces) for r in script)
    assert tally.recall >= 0.9


def test_the_default_cameras_and_chosen_ones():
    assert bench_teach.camera_seeds(3) == [1000, 1017, 1034]


def test_chosen_cameras_are_taught_and_read_and_reported_each(monkeypatch, capsys):
    """``--seeds`` picks the cameras (a hard one, say); each camera's figure is printed."""
    taught, read = [], []
    monkeypatch.setattr("host.demo_table.teach_at_synthetic_camera",
                        lambda dice_set, seed, data, shots: taught.append(seed) or (47, 48))

    def one_throw(dice_set, seed, rolls, readers):
        read.append(seed)
        truth = [SimpleNamespace(face="BELL", x=10.0, y=10.0, w=20.0, h=20.0)]
        seen = SimpleNamespace(dice=[SimpleNamespace(face="BELL" if seed == 5 else "GIFT", x=10.0, y=10.0,
                                                     confidence=0.95)])
        yield truth, {name: seen for name in readers}
    monkeypatch.setattr(bench_teach, "settled_reads", one_throw)
    assert bench_teach.main(["--seeds", "5", "8", "--rolls", "1", "--sets", "jingle-bell-roll"]) == 0
    out = capsys.readouterr().out
    assert taught == read == [5, 8]
    assert "(seed: dice read right / thrown): 5: 1/1, 8: 0/1" in out and "47/48, 47/48" in out


@pytest.mark.parametrize("argv, message", [(["--sets", "yahtzee"], "'yahtzee' is not one of"),
                                           (["--shots", "3"], "--shots at least 5"),
                                           (["--cameras", "2", "--seeds", "5"], "not allowed with argument")])
def test_bad_flags_say_what_was_expected(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_teach.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
