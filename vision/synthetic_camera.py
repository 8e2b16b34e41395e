"""The ``synthetic[:SEED]`` camera: a frame source that films rendered dice rolls.

``SyntheticCamera`` draws each frame with the dice renderer (``vision.synth``), so it is for
the demo, the tests and the benchmarks only. ``vision.sources.open_source`` imports this
module only when a ``synthetic`` spec is opened: a real camera, a video file or a folder of
frames never loads the renderer.

    with SyntheticCamera(seed=3, script=[ScriptedRoll(("2", "6"))]) as camera:
        for image, t in camera:
            print(camera.truth.phase, camera.truth.faces)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import cv2
import numpy as np

from vision import synth
from vision.roll import FACE_SETS, Die, Throw
from vision.frame_source import Frame, FrameSource, SourceError

HAND_REACH_S = 0.35         # a synthetic hand's reach in over the dice, or its way back (seconds)


@dataclass(frozen=True)
class ScriptedRoll:
    """One throw for the synthetic camera: the ``faces`` the thrown dice will show; after it
    settles, the dice at indexes ``keep`` are set aside in the keep area (they stay there, still,
    and are part of every later picture), the others are picked up for the next throw.
    ``hover``: a hand then passes over without touching anything. ``nudge``: a finger then
    pushes one thrown die a little (same face, new place). ``new_turn``: before this throw the
    hand also picks up the dice kept so far."""

    faces: tuple[str, ...]
    keep: tuple[int, ...] = ()
    hover: bool = False
    nudge: bool = False
    new_turn: bool = False


@dataclass(frozen=True)
class FrameTruth:
    """What the synthetic camera really showed in one frame."""

    index: int
    timestamp: float
    phase: str                 # "empty", "hand", "moving" or "still"
    roll: int                  # index in the script (-1 before the first throw)
    dice: tuple[Die, ...]      # every die in the picture, thrown and kept
    hand: bool                 # a hand is in the picture

    @property
    def faces(self) -> list[str]:
        return [d.face for d in self.dice]


@dataclass
class _Placed:
    pose: synth.DiePose
    kept: bool = False


def _stand(placed: list[_Placed], keep: Sequence[str]) -> None:
    """Leave ``len(keep)`` dice standing where they lie: those showing the faces ``keep``
    (dice already kept first, then the others in the order they lie), and, where the table
    shows fewer of a face than asked (the game's dice differ from the table's: a misread
    taken, a throw the game refused), other dice in their place, so no die leaves the table.
    Every other die is picked up for the next throw."""
    wanted = list(keep)
    marked = [False] * len(placed)
    for first in (True, False):
        for i, die in enumerate(placed):
            if die.kept == first and not marked[i] and die.pose.face in wanted:
                wanted.remove(die.pose.face)
                marked[i] = True
    for i in range(len(placed)):
        if wanted and not marked[i]:
            wanted.pop()
            marked[i] = True
    placed[:] = [_Placed(die.pose, kept=marked[i]) for i, die in enumerate(placed)]


def set_style(seed: int) -> synth.DieStyle:
    """The look of the custom-face dice set that ``SyntheticCamera(seed)`` films."""
    return synth.random_style(np.random.default_rng([seed, 8]), swirl=False)


class SyntheticCamera(FrameSource):
    """A camera that films rendered dice rolls, for the demo and the tests.

    Starts on the empty tray, then for each roll of ``script`` a hand reaches in (picking up
    the previous dice, setting kept ones aside), throws the dice, which tumble, bounce and
    slide to a stop with motion blur while the hand withdraws, and the dice lie still for
    ``hold`` seconds. Then, as scripted, a hand hovers over the tray (holding still there for
    a moment, never touching a die) or nudges a die. Without
    a script it throws random rolls forever. ``truth`` is the last frame's ``FrameTruth``.
    Iteration stops when the script is used up; append to ``script`` and iterate again to
    film more throws on the same table (the dice stay where they lie).

        with SyntheticCamera(seed=3, script=[ScriptedRoll(("2", "6"))]) as camera:
            for image, t in camera:
                print(camera.truth.phase, camera.truth.faces)

    :param seed: everything (table, dice, throws) follows from it.
    :param game: another game at the same table: the same table, dice and light, other throws
        and other pictures of them (0, the default: the seed's own game).
    :param script: ScriptedRoll items (or plain sequences of faces); None = random forever.
    :param dice_set: a built-in face set the renderer draws.
    :param size: (width, height) of the frames.
    :param fps: frames per second of the timestamps.
    :param background: "mat" (the printed tray mat, default) or "tray".
    :param hands: draw the hand that throws and hovers (False: dice fly in by themselves and
        there are no hovers; a scripted nudge still shows its finger).
    :param realtime: pace frames at ``fps`` of wall-clock time (for the live demo).
    :param hold: seconds dice lie still after each throw.
    :param lead_in: seconds of empty tray at the start (for calibration's background).
    :param one_set: custom-face dice are one set for the whole session, as at a real table
        (all dice of one look, the same look for every camera of this seed, so a set taught at
        ``synthetic:SEED`` is the set that camera films); False: a new look for every throw.
        Pip dice are always a mix of looks, as players' pip dice are.
    :param dice_count: without a script, asked before each throw what to throw (a game
        loop's ``dice_wanted``: the synthetic players throw what the game asks for): a number
        of dice (every die on the table is picked up), or a :class:`~vision.roll.Throw` that
        also names the faces of the dice left standing where they lie (where the table shows
        none of a face, another die stands in for it); a count of 0 means the game waits for a
        button, not dice, so the dice lie still and it is asked again every frame; None, or
        an answer of None, throws 2-6 dice.
    :param light: the room's light over time, ``[(seconds, level), ...]``: from each time on
        the scene is ``level`` times as bright as at the start (a lamp switched on: 1.3).
        The camera's exposure stays locked, so a brighter room burns out the pale mat and
        dice at 255 as a real sensor does, until ``adjust_exposure`` makes up for it.
    """

    def __init__(self, seed: int = 0, *, script: Sequence | None = None, dice_set: str = "d6-pips",
                 size: tuple[int, int] = (640, 480), fps: float = 30.0, background: str = "mat",
                 hands: bool = True, realtime: bool = False, hold: float = 1.5, lead_in: float = 1.0,
                 die_px: float | None = None, one_set: bool = True,
                 dice_count: Callable[[], int | None] | None = None,
                 light: Sequence[tuple[float, float]] = (), game: int = 0):
        if dice_set not in FACE_SETS:
            raise SourceError(f"unknown dice set {dice_set!r}; the synthetic camera draws {', '.join(FACE_SETS)}")
        if not 0 < fps < math.inf:  # nan and inf too: every timestamp would be nan or 0
            raise SourceError(f"frames per second must be a number above 0, not {fps}")
        self.name = f"synthetic:{seed}"
        self.seed = seed
        self.dice_set = dice_set
        self.fps = float(fps)
        self.hands = hands
        self.realtime = realtime
        self.hold = hold
        self.lead_in = lead_in
        try:
            self.table = synth.Table(size, seed, background=background, die_px=die_px)
        except ValueError as exc:
            raise SourceError(str(exc)) from None
        self.script = None if script is None else [self._scripted(item) for item in script]
        if isinstance(game, bool) or not isinstance(game, int) or game < 0:
            raise SourceError(f"synthetic camera: game {game!r}; expected a whole number from 0 up")
        self.game = game
        self._rng = np.random.default_rng([seed, 7] + ([game] if game else []))
        self.set_style = (set_style(seed) if one_set and dice_set != "d6-pips" else None)
        self.dice_count = dice_count
        self.light = sorted((float(t), float(level)) for t, level in light)
        if any(level <= 0 for _, level in self.light):
            raise SourceError(f"synthetic camera: light levels must be above 0, not {self.light}")
        self.exposure = 1.0
        self._frames = self._timeline()
        self._index = 0
        self._started = None
        self.truth: FrameTruth | None = None
        self._closed = False

    def _scripted(self, item) -> ScriptedRoll:
        if not isinstance(item, ScriptedRoll):
            item = ScriptedRoll(tuple(item))
        try:
            faces = tuple(synth.check_faces(item.faces, self.dice_set))
        except ValueError as exc:
            raise SourceError(f"synthetic script: {exc}") from None
        bad = [k for k in item.keep if not 0 <= k < len(faces)]
        if bad:
            raise SourceError(f"synthetic script: keep index {bad[0]} is not one of the {len(faces)} dice")
        return ScriptedRoll(faces, tuple(item.keep), item.hover, item.nudge, item.new_turn)

    def _wanted(self) -> Throw | None:
        """What the game asks for now (None: not told; a count of 0: nothing, the players wait)."""
        wanted = self.dice_count() if self.dice_count is not None else None
        if wanted is None:
            return None
        throw = wanted if isinstance(wanted, Throw) else Throw(wanted)
        count, keep = throw.count, throw.keep
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise SourceError(f"synthetic camera: asked to throw {count!r} dice; expected a whole "
                              f"number from 0 up (0: wait)")
        if not isinstance(keep, (tuple, list)) or not all(isinstance(face, str) for face in keep):
            raise SourceError(f"synthetic camera: asked to keep {keep!r}; expected a sequence of face names")
        return throw

    def _random_roll(self, wanted: Throw | None) -> ScriptedRoll:
        rng = self._rng
        faces = FACE_SETS[self.dice_set]
        count = int(rng.integers(2, 7))  # drawn even when told, so a seed films the same table
        if wanted is not None:
            count = wanted.count
        return ScriptedRoll(tuple(faces[i] for i in rng.integers(0, 6, count)),
                            hover=bool(self.hands and rng.random() < 0.3), nudge=bool(rng.random() < 0.1))

    # ------------------------------------------------------------------- the story

    def _timeline(self):
        """Yields (phase, roll index, poses, hands) per frame."""
        placed: list[_Placed] = []
        for _ in range(self._count(self.lead_in)):
            yield "empty", -1, placed, []
        k = 0
        previous_keep: tuple[int, ...] = ()
        while True:
            if self.script is not None:
                while k >= len(self.script):
                    yield None  # the script is used up: read() stops until more is appended
                roll = self._scripted(self.script[k])
            else:
                wanted = self._wanted()
                while wanted is not None and wanted.count == 0:  # the game waits for an answer, not dice
                    yield ("still" if placed else "empty"), k - 1, placed, []
                    wanted = self._wanted()
                roll = self._random_roll(wanted)
            hand = self._hand(reach=float(self._rng.uniform(0.7, 0.95)))
            yield from self._reach_in(k, placed, hand)
            if self.script is None and wanted is not None:
                if self._wanted() != wanted:
                    # The game changed while the hand reached in (a menu opened, a re-roll was
                    # announced): the player takes the hand back and throws what it asks now.
                    yield from self._reach_out(k, placed, hand)
                    continue
                _stand(placed, wanted.keep)  # the game says which dice stay; the rest are picked up
            yield from self._throw(k, roll, placed, previous_keep, hand)
            previous_keep = roll.keep
            if roll.hover and self.hands:
                yield from self._hover(k, placed)
            if roll.nudge:
                yield from self._nudge(k, placed)
            k += 1

    def _count(self, seconds: float) -> int:
        return max(1, int(round(seconds * self.fps)))

    def _hand(self, reach: float = 1.0, target=None) -> synth.Hand:
        hand = synth.random_hand(self.table.size, self._rng, reach=reach, die_px=self.table.die_px)
        if target is not None:
            hand = synth.Hand(hand.entry, target, hand.width, hand.skin, hand.sleeve)
        return hand

    def _reach_steps(self) -> int:
        """Frames a hand takes to reach in over the dice, or back (none without hands)."""
        return self._count(HAND_REACH_S) if self.hands else 0

    def _reach_in(self, k: int, placed: list[_Placed], hand: synth.Hand):
        """The throwing hand reaches in over the dice."""
        steps = self._reach_steps()
        for i in range(steps):
            yield "hand", k, placed, [synth.hand_at(hand, _ease((i + 1) / steps))]

    def _reach_out(self, k: int, placed: list[_Placed], hand: synth.Hand):
        """The hand goes back without throwing throw ``k``; the dice lie as they were."""
        steps = self._reach_steps()
        for i in range(steps):
            yield "hand", k - 1, placed, [synth.hand_at(hand, 1 - _ease((i + 1) / steps))]
        for _ in range(self._count(self.hold * 0.5)):
            yield ("still" if placed else "empty"), k - 1, placed, []

    def _throw(self, k: int, roll: ScriptedRoll, placed: list[_Placed], previous_keep: tuple[int, ...],
               hand: synth.Hand):
        rng, table = self._rng, self.table
        # Under the hand: last throw's dice are picked up, the ones to keep set aside.
        thrown = [p for p in placed if not p.kept]
        kept = [] if roll.new_turn else [p for p in placed if p.kept]
        for index in (() if roll.new_turn else previous_keep):
            if index < len(thrown):
                old = thrown[index].pose
                spot = table.random_positions(1, rng, touching=0.0, region=table.keep_region(),
                                              occupied=[(p.pose.x, p.pose.y) for p in kept])[0]
                kept.append(_Placed(synth.DiePose(face=old.face, x=spot[0], y=spot[1], yaw=spot[2],
                                                  style=old.style, tilt=1.0), kept=True))
        placed[:] = kept
        # Where the new dice will end up, and how they get there.
        ends = table.random_positions(len(roll.faces), rng, touching=0.2, region=table.rolling_region(),
                                      occupied=[(p.pose.x, p.pose.y) for p in kept])
        start_x, start_y = table.camera.to_table(*hand.tip)
        style = None
        if self.dice_set != "d6-pips":
            style = self.set_style or synth.random_style(rng, swirl=False)
        flights = []
        for face, (x, y, yaw) in zip(roll.faces, ends):
            die_style = style or synth.random_style(rng)
            final = synth.DiePose(face=face, x=x, y=y, yaw=yaw, tilt=float(rng.uniform(0, 3)),
                                  tilt_axis=float(rng.uniform(0, 360)), style=die_style)
            flights.append(_Flight(final, start=(start_x + rng.normal(0, 12), start_y + rng.normal(0, 12)),
                                   turns=float(rng.uniform(1.5, 4.0)), spin=float(rng.uniform(-200, 200)),
                                   bounce=float(rng.uniform(15, 40))))
        tumble = self._count(float(rng.uniform(0.7, 1.1)))
        retreat = self._count(HAND_REACH_S)
        dt = 1.0 / tumble
        for i in range(tumble):
            tau = (i + 1) / tumble
            poses = [f.pose_at(tau, dt, table) for f in flights]
            hands = [synth.hand_at(hand, 1 - (i + 1) / retreat)] if self.hands and i + 1 < retreat else []
            yield ("hand" if hands else "moving"), k, kept + [_Placed(p) for p in poses], hands
        placed[:] = kept + [_Placed(f.final) for f in flights]
        for _ in range(self._count(self.hold)):
            yield "still", k, placed, []

    def _hover(self, k: int, placed: list[_Placed]):
        hand = self._hand(reach=float(self._rng.uniform(0.5, 0.8)))
        steps = self._count(0.4)
        for i in range(steps):
            yield "hand", k, placed, [synth.hand_at(hand, _ease((i + 1) / steps))]
        for _ in range(self._count(float(self._rng.uniform(0.3, 0.8)))):  # held still over the dice
            yield "hand", k, placed, [hand]
        for i in range(steps):
            yield "hand", k, placed, [synth.hand_at(hand, 1 - _ease((i + 1) / steps))]
        for _ in range(self._count(self.hold * 0.8)):
            yield "still", k, placed, []

    def _nudge(self, k: int, placed: list[_Placed]):
        movable = [i for i, p in enumerate(placed) if not p.kept]
        if not movable:
            return
        rng, table = self._rng, self.table
        index = movable[int(rng.integers(len(movable)))]
        old = placed[index].pose
        tip = table.camera.project(np.array([[old.x, old.y, old.size_mm]]))[0]
        hand = self._hand(target=(float(tip[0]), float(tip[1])))
        steps = self._count(0.4)
        for i in range(steps):
            yield "hand", k, placed, [synth.hand_at(hand, _ease((i + 1) / steps))]
        # Push the die away from the hand by about half its size, turning it a little.
        ex, ey = table.camera.to_table(*hand.entry)
        away = np.array([old.x - ex, old.y - ey])
        away = away / (np.linalg.norm(away) or 1.0) * synth.DIE_MM * float(rng.uniform(0.5, 0.9))
        new = synth.DiePose(face=old.face, x=old.x + away[0], y=old.y + away[1], yaw=old.yaw + float(rng.uniform(10, 30)),
                            tilt=old.tilt, tilt_axis=old.tilt_axis, style=old.style, size_mm=old.size_mm)
        placed[index] = _Placed(new)
        for i in range(steps):
            yield "hand", k, placed, [synth.hand_at(hand, 1 - _ease((i + 1) / steps))]
        for _ in range(self._count(self.hold)):
            yield "still", k, placed, []

    # ---------------------------------------------------------------- the interface

    def read(self) -> Frame:
        if self._closed:
            raise StopIteration
        try:
            step = next(self._frames)
        except ValueError as exc:  # e.g. more dice than fit in the rolling area
            raise SourceError(f"synthetic camera: {exc}") from None
        if step is None:
            raise StopIteration
        phase, k, placed, hands = step
        poses = [p.pose for p in placed]
        picture_rng = np.random.default_rng([self.seed, 8, self._index] + ([self.game] if self.game else []))
        image, dice = self.table.draw(poses, self.dice_set, picture_rng, hands=hands)
        if self.realtime:
            now = time.monotonic()
            if self._started is None:
                self._started = now
            wait = self._started + self._index / self.fps - now
            if wait > 0:
                time.sleep(wait)
            t = time.monotonic()
        else:
            t = self._index / self.fps
        brightness = self.light_at(self._index / self.fps) * self.exposure
        if abs(brightness - 1.0) > 1e-3:
            image = cv2.convertScaleAbs(image, alpha=brightness)
        self.truth = FrameTruth(self._index, t, phase, k, tuple(dice), bool(hands))
        self._index += 1
        return Frame(image, t)

    def light_at(self, seconds: float) -> float:
        """The room's light level at ``seconds`` into the film (1.0 before any change)."""
        level = 1.0
        for t, value in self.light:
            if t <= seconds:
                level = value
        return level

    def adjust_exposure(self, factor: float) -> bool:
        if not factor > 0:
            raise ValueError(f"exposure factor must be above 0, not {factor}")
        self.exposure *= float(factor)
        return True

    def close(self) -> None:
        self._closed = True


def _ease(t: float) -> float:
    """Slow at the end, like a die losing speed (0 -> 0, 1 -> 1)."""
    t = min(max(t, 0.0), 1.0)
    return 1 - (1 - t) ** 2


@dataclass
class _Flight:
    """A die's path from the hand to its resting place: rolling about a horizontal axis,
    spinning, bouncing lower and lower, slowing to a stop on ``final``."""

    final: synth.DiePose
    start: tuple[float, float]
    turns: float
    spin: float
    bounce: float
    axis: np.ndarray = field(default=None)

    def pose_at(self, tau: float, dt: float, table: synth.Table) -> synth.DiePose:
        here = self._state(tau)
        before = self._state(max(0.0, tau - dt * 0.5))  # half a frame of exposure
        p_here = table.camera.project(np.array([[here[0], here[1], here[2] + 8.0]]))[0]
        p_before = table.camera.project(np.array([[before[0], before[1], before[2] + 8.0]]))[0]
        x, y, z, rotation = here
        return synth.DiePose(face=self.final.face, x=x, y=y, z=z, rotation=rotation, style=self.final.style,
                             size_mm=self.final.size_mm, motion=tuple(float(v) for v in (p_here - p_before)))

    def _state(self, tau: float):
        e = _ease(tau)
        fx, fy = self.final.x, self.final.y
        x = self.start[0] + (fx - self.start[0]) * e
        y = self.start[1] + (fy - self.start[1]) * e
        z = self.bounce * abs(math.sin(math.pi * 3 * tau)) * (1 - tau) ** 2
        direction = np.array([fx - self.start[0], fy - self.start[1], 0.0])
        axis = np.cross([0.0, 0.0, 1.0], direction)
        if np.linalg.norm(axis) < 1e-6:
            axis = np.array([1.0, 0.0, 0.0])
        remaining = (1 - e)
        rotation = (synth.rot_axis(axis, -remaining * self.turns * math.pi / 2 * 4)
                    @ synth.rot_axis((0, 0, 1), math.radians(remaining * self.spin))
                    @ self.final.matrix())
        return x, y, z, rotation

