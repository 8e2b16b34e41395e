"""rules and vision each carry the built-in face names (neither imports the other)."""
from rules.dice import FACE_SETS as RULES_FACES, faces_of
from vision.roll import FACE_SETS as VISION_FACES

import pytest


def test_rules_and_vision_agree_on_face_names():
    assert RULES_FACES == VISION_FACES


def test_every_set_has_six_distinct_faces():
    for name, faces in RULES_FACES.items():
        assert len(faces) == 6 and len(set(faces)) == 6, name


def test_unknown_set_lists_the_valid_ones():
    with pytest.raises(LookupError, match="jingle-bell-roll"):
        faces_of("d20")
