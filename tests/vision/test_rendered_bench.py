"""The rendered-scene benchmark (python -m vision.bench rendered) counts like the scorer."""
import pytest

from vision.bench import rendered
from vision.roll import Die, Roll
from vision.training.scenes import training_scene


def test_scene_labels_keep_every_rendered_die_with_its_face():
    _, dice = training_scene(rendered.FIRST_SEED, block_share=1.0, upright=True)
    labels = rendered.scene_labels(dice)
    assert len(labels) == len(dice) > 4
    assert {lab["face"] for lab in labels} <= set("123456")


def test_a_reader_that_reads_the_labels_back_scores_every_die(monkeypatch):
    class Echo:
        """Reads each scene's own labels back: recall, precision and per die must be 1."""
        labels: list = []

        def __call__(self, image):
            dice = tuple(Die(face=lab["face"], confidence=1.0, x=lab["x"], y=lab["y"],
                             w=lab["w"], h=lab["h"]) for lab in self.labels)
            return Roll(dice, "d6-pips", (image.shape[1], image.shape[0]))

    echo = Echo()
    real_scene = rendered.training_scene

    def scene(seed, **kw):
        image, dice = real_scene(seed, **kw)
        echo.labels = rendered.scene_labels(dice)
        return image, dice

    monkeypatch.setattr(rendered, "training_scene", scene)
    t = rendered.tally_scenes(echo, 2, 1.0)
    assert t.labelled > 8 and (t.recall, t.precision, t.per_die) == (1.0, 1.0, 1.0)


def test_the_benchmark_prints_both_kinds_and_refuses_no_scenes(capsys):
    assert rendered.main(["--scenes", "1"]) == 0
    out = capsys.readouterr().out
    assert "packed blocks 1 scenes" in out and "loose dice    1 scenes" in out
    with pytest.raises(SystemExit):
        rendered.main(["--scenes", "0"])
    assert "expected at least 1" in capsys.readouterr().err
