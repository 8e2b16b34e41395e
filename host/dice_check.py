"""The dice check: a settled read made ready for the rules, and the dice a person must confirm.

Game-neutral helpers of the table loop: which dice of a read lie where dice of the last
roll lay (so they are not asked about again), the order that keeps each die's number
between throws, a standing face the rules keep (a nudged BELL) proposed for an unsure die,
and finds on another die's place left out. :class:`DiceCheck` is a read waiting for its
unsure dice to be confirmed with the knob.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

Spot = tuple[float, float, float]   # where a die lies in the frame: centre x, y and its size, px


@dataclass(frozen=True)
class ReadDie:
    """One die of a read: its face, how sure the reader is of it (1.0: a person said so), and
    where it lies (None for a die entered by hand)."""

    face: str
    confidence: float
    spot: Spot | None = None


def read_dice(roll) -> list[ReadDie]:
    """A reader's ``Roll`` as one list of dice, in the reader's order."""
    return [ReadDie(d.face, float(d.confidence), (float(d.x), float(d.y), float(max(d.w, d.h)))) for d in roll.dice]


def faces_of(dice: Sequence[ReadDie]) -> list[str]:
    return [die.face for die in dice]


@dataclass
class DiceCheck:
    """A settled read waiting for its flagged dice to be confirmed; ``chance`` is the throw
    it answers (rules.core.Chance: the event it becomes)."""

    dice: list[ReadDie]
    flagged: list[int]          # die indexes still to confirm, in order
    chance: Any = None
    corrections: list[dict] = field(default_factory=list)
    by_hand: bool = False       # the read could not be used: every die is entered with the knob
    read: list[str] | None = None  # the camera's faces, where ``dice`` proposes others (standing_proposed)

    @classmethod
    def of(cls, faces: Sequence[str], confidences: Sequence[float], flagged: Sequence[int],
           spots: Sequence[Spot] | None = None, **fields) -> "DiceCheck":
        """From a read's faces, confidences and (when seen) places, die by die."""
        places = list(spots) if spots is not None else [None] * len(faces)
        dice = [ReadDie(face, float(c), spot) for face, c, spot in zip(faces, confidences, places)]
        return cls(dice, list(flagged), **fields)

    @property
    def faces(self) -> list[str]:
        return faces_of(self.dice)

    @property
    def confidences(self) -> list[float]:
        return [die.confidence for die in self.dice]

    @property
    def spots(self) -> list[Spot] | None:
        """Where each die lies, or None when the dice were entered by hand."""
        spots = [die.spot for die in self.dice]
        return None if any(spot is None for spot in spots) else spots

    def answer(self, index: int, face: str) -> None:
        """Die ``index`` is ``face``: a person said so."""
        self.dice[index] = ReadDie(face, 1.0, self.dice[index].spot)


def align_faces(before: Sequence[str], after: Sequence[str], confidences: Sequence[float]) -> tuple[list[str], list[float]]:
    """Order a new read so that dice showing what they showed before keep their numbers.

    The camera reads dice in screen order; the rules number them. A die that still shows
    its old face keeps its number, the re-rolled ones fill the gaps in reading order.
    """
    order = align_order(before, after)
    return [after[j] for j in order], [confidences[j] for j in order]


def align_order(before: Sequence[str], after: Sequence[str]) -> list[int]:
    """The order ``align_faces`` puts a new read in: for each die number, its index in ``after``."""
    if not before or len(before) != len(after):
        return list(range(len(after)))
    pool = list(range(len(after)))
    slots: list[int | None] = [None] * len(before)
    for i, face in enumerate(before):
        for j in pool:
            if after[j] == face:
                slots[i] = j
                pool.remove(j)
                break
    for i in range(len(slots)):
        if slots[i] is None:
            slots[i] = pool.pop(0)
    return slots


STILL_NEAR = 1.0    # a die within this share of its size of where a BELL lay may be that BELL, nudged
STILL_THERE = 0.08  # a die whose centre is within this share of its size of where a die lay has not moved
#                     (still dice read within 0.03 of their size frame to frame, 0.07 at most, in whole
#                     games at the synthetic table; a die thrown again lands that near its old place rarely)


def dice_apart(one: tuple[float, float, float], other: tuple[float, float, float]) -> float:
    """How far apart two dice lie, (x, y, size) each: centre to centre, in sizes of the
    smaller one (infinite when either has no size: a die typed in, not seen)."""
    (x, y, size), (ox, oy, osize) = one, other
    if size <= 0 or osize <= 0:
        return math.inf
    return math.hypot(x - ox, y - oy) / min(size, osize)


def known_where_they_lie(spots: Sequence[tuple[float, float, float]], faces: Sequence[str],
                         confidences: Sequence[float], known: Sequence[tuple[float, float, float, str]],
                         threshold: float) -> tuple[list[str], list[float]]:
    """An unsure die lying exactly where a die of the last stored roll lay (a BELL left
    standing, the six dice a re-roll did not touch) has not moved, so it shows the face that
    roll stored (read sure, or checked by the player): it is taken as that, not asked again.
    ``spots``: (x, y, size) of each die read; ``known``: (x, y, size, face) of the last roll's."""
    faces, confidences = list(faces), list(confidences)
    for i, spot in enumerate(spots):
        if confidences[i] >= threshold:
            continue
        for kx, ky, ksize, face in known:
            if dice_apart(spot, (kx, ky, ksize)) <= STILL_THERE:
                faces[i], confidences[i] = face, 1.0
                break
    return faces, confidences


def standing_proposed(faces: Sequence[str], confidences: Sequence[float], spots: Sequence[tuple[float, float, float]],
                      known: Sequence[tuple[float, float, float, str]], face: str, need: int,
                      threshold: float) -> list[str]:
    """A face the rules keep standing between rolls (Jingle Bell Roll's BELLS: ``need`` of
    them stand) that a read shows fewer of: an unsure die lying within ``STILL_NEAR`` of its
    size of where such a die lay (``known``: the last stored roll's dice; a BELL nudged by a
    throw) is proposed as that face, so "Check die N" asks "is it BELL?" instead of offering
    a read the rules would refuse. It is still asked. A die further away is not: a BELL
    thrown again by mistake lands elsewhere, and proposing BELL there would invite the
    player to confirm a BELL that is not on the table."""
    faces = list(faces)
    missing = need - faces.count(face)
    places = [(x, y, size) for x, y, size, f in known if f == face]
    near = []
    for i, c in enumerate(confidences):
        if c < threshold and faces[i] != face and i < len(spots):
            gap = min((dice_apart(spots[i], place) for place in places), default=math.inf)
            if gap <= STILL_NEAR:
                near.append((gap, c, i))
    for _, _, i in sorted(near)[:max(missing, 0)]:
        faces[i] = face
    return faces


CROWDED = 0.5  # of a die: seen straight down, two dice's centres lie at least about a die apart


def crowded_out(roll, count: int):
    """A read of more dice than the game has (``count``): when the extra finds each lie on a
    surer find's place (closer than ``CROWDED`` of a die: the tray finder cutting a clump of
    three touching dice into four) and leaving them out gives exactly ``count`` dice, they are
    left out; otherwise the read is returned unchanged and the player is asked. Only then:
    the count the game needs tells a find on another die's place from two dice lying close
    (rendered dice touching were found that close too, both real)."""
    dice = list(roll.dice)
    if len(dice) <= count:
        return roll
    def spot(die) -> tuple[float, float, float]:
        return float(die.x), float(die.y), float(max(die.w, die.h))

    kept = []
    for die in sorted(dice, key=lambda d: -d.confidence):
        if all(dice_apart(spot(die), spot(k)) >= CROWDED for k in kept):
            kept.append(die)
    if len(kept) != count:
        return roll
    chosen = {id(d) for d in kept}
    return replace(roll, dice=tuple(d for d in dice if id(d) in chosen),
                   notes=tuple(roll.notes) + (f"{len(dice) - count} find(s) on another die's place left out",))

