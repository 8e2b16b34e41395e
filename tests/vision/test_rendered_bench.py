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
    t = rendered.tally_scenes(echo, 2, rendered.KINDS["packed blocks"])
    assert t.labelled > 8 and (t.recall, t.precision, t.per_die) == (1.0, 1.0, 1.0)


def test_the_benchmark_prints_every_kind_and_refuses_no_scenes(capsys):
    assert rendered.main(["--scenes", "1"]) == 0
    out = capsys.readouterr().out
    assert "packed blocks 1 scenes" in out and "loose dice    1 scenes" in out
    assert "busy tables   1 scenes" in out
    assert "not pip dice 1 scenes" in out and "read as pip dice" in out
    with pytest.raises(SystemExit):
        rendered.main(["--scenes", "0"])
    assert "expected at least 1" in capsys.readouterr().err


def test_not_pip_dice_count_every_read_as_a_pip_die(monkeypatch):
    """A reader that reads every rendered numeral or letter die as a sure 6 is charged with
    all of them; one that reads none, with none."""
    class Always:
        def __init__(self, sure):
            self.sure = sure

        def __call__(self, image):
            dice = tuple(Die(face="6", confidence=self.sure, x=float(x), y=float(y), w=20.0, h=20.0)
                         for _, x, y, _, _ in self.dice)
            return Roll(dice, "d6-pips", (image.shape[1], image.shape[0]))

    reader = Always(0.95)
    real_scene = rendered.training_scene

    def scene(seed, **kw):
        assert kw.get("not_pips") and kw.get("symbol_share") == 1.0
        image, dice = real_scene(seed, **kw)
        reader.dice = dice
        return image, dice

    monkeypatch.setattr(rendered, "training_scene", scene)
    dice, read, sure = rendered.not_pip_reads(reader, 2)
    assert dice > 0 and read == sure == dice
    reader.sure = 0.5
    assert rendered.not_pip_reads(reader, 2) == (dice, dice, 0)
