"""Dice on a busy table: a printed game board under them, game pieces beside them
(vision/training/clutter.py). The finder learnt such tables from rendered scenes; these
scenes come from seeds no training run or checkpoint pick renders."""
from vision.bench.scoring import Tally
from vision.pips import PipReader
from vision.training.scenes import MEASURE_SEED, scene_labels, training_scene

FIRST = MEASURE_SEED + 500   # past the 60 scenes `python -m vision.bench rendered` reads


def test_dice_on_game_boards_among_pieces_are_found_and_read():
    """The finder before it learnt busy tables found 72 % of these dice and read 70 % right."""
    reader = PipReader()
    tally = Tally()
    for n in range(16):
        image, dice = training_scene(FIRST + n, size=(480, 480), busy_share=1.0, upright=True)
        tally.add(scene_labels(dice), [d.to_json() for d in reader(image).dice])
    assert tally.labelled > 150
    assert tally.recall >= 0.85 and tally.per_die >= 0.85
