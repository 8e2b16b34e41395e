"""The camera watcher: frames -> settle gate -> dice reader -> a ``Roll`` once the dice lie still.

:class:`FrameWatcher` is the table loop's eyes. It knows nothing of any game: it says
whether the dice are moving and hands over what the reader saw once a new scene has
settled. With a calibrated tray it also keeps the room's light in check (vision.exposure)
and leaves out anything found off the mat.

Its vision modules (OpenCV, the dice models) are imported where they are used, on purpose:
the loop imports this module for its motion names, and a game with no dice plays at the
box without ever loading them.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import Any, Callable

log = logging.getLogger(__name__)

STILL, SETTLING, SETTLED = "still", "moving", "settled"

def dice_reader(dice_set: str, data, calibration=None):
    """The reader for ``dice_set``; with a calibrated tray (and its empty-tray picture) its dice
    are found by comparing with the empty mat (vision.tray_finder), which finds any die on the
    mat, touching ones too, where the learned pip-dice finder misses custom dice."""
    from vision.dicesets import load_reader
    from vision.tray_finder import on_tray
    return on_tray(load_reader(dice_set, data), calibration)


class FrameWatcher:
    """The settle gate and the dice reader together: ``watch(frame) -> (motion, roll)``.

    With a tray ``calibration`` (vision.calibrate) the gate compares with the empty tray's
    picture, every die gets its area (rolling / keep), and anything found outside the mat's
    two areas (its corner markers, a cup) is left out of the roll.

    ``frame`` is a ``vision.sources.Frame`` (image, timestamp) or a bare image (then
    ``fps`` apart). ``motion`` is ``"moving"`` while dice tumble or a hand is in the tray,
    ``"still"`` otherwise; ``roll`` is the reader's ``Roll`` once a new scene has settled.
    """

    def __init__(self, reader: Callable[[Any], Any], gate=None, *, fps: float = 10.0, calibration=None,
                 overlay_dir=None):
        from vision.settle import SettleGate
        self.reader, self.fps, self.calibration = reader, fps, calibration
        self.overlay_dir = overlay_dir  # when set: each read's overlay (what was found, how sure) as a PNG
        self.overlays: list = []
        if gate is None:
            gate = SettleGate(background=calibration.background if calibration is not None else None)
        self.gate = gate
        # With a calibrated tray: the room's light is watched against the empty tray's picture
        # (vision.exposure) and the camera's exposure changed to make up for it, through
        # ``adjust_exposure`` (the loop sets it to the open camera's; None: cannot).
        self.exposure = None
        if calibration is not None and getattr(calibration, "background", None) is not None:
            from vision.exposure import ExposureKeeper
            self.exposure = ExposureKeeper(calibration)
        self.adjust_exposure: Callable[[float], bool] | None = None
        self.light_warning: str | None = None   # the light is off and the camera cannot follow
        self._exposed_in_a_row = 0   # settled scenes not read, waiting for a new exposure
        self.outside = 0        # things found off the mat (its markers, a cup) and left out
        self.frames = 0
        self.reads = 0          # settled scenes read
        self.dice_reads = 0     # ... that showed at least one die
        self.last_settle = None
        self.last_roll = None
        # With a calibration that recorded the mat's markers: are they still where it saw them?
        # Looked at on the first frame and again after VIEW_RECHECK_S with nothing settled (a
        # moved camera never settles: the gate sees a hand where the empty mat should be).
        self.view_warning: str | None = None    # what is wrong (camera moved, another camera) and the fix
        self.camera_source: str | None = None   # the camera in use, named in that warning (`dicewatch run`)
        self._view_checked_at: float | None = None

    def __call__(self, frame) -> tuple[str, Any]:
        motion, image = self.look(frame)
        if image is None:
            return motion, None
        return SETTLED, self.read_settled(image)

    def look(self, frame) -> tuple[str, Any]:
        """The settle gate's half of a watch, quick enough for the table loop's thread:
        ``(motion, image)``, the image of a newly settled scene to read (``read_settled``)
        or None. A ``ReadWorker`` reads it in a thread of its own while the loop goes on."""
        from vision.settle import HAND, MOVING
        if isinstance(frame, tuple):
            image, timestamp = frame[0], float(frame[1])
        else:
            image, timestamp = frame, self.frames / self.fps
        self.frames += 1
        settle = self.gate.update(image, timestamp)
        motion = SETTLING if self.gate.state in (MOVING, HAND) else STILL
        if settle is None and self._view_due(timestamp):
            self._check_view(image, timestamp)
        if self.exposure is not None and settle is None:
            factor = self.exposure.update(image, timestamp, still=motion == STILL)
            if factor is not None:
                self._expose(factor, timestamp)
            elif self.exposure.last is not None and not self.exposure.last.off_by(self.exposure.tolerance):
                self.light_warning = None
        if settle is None:
            return motion, None
        if self._expose_first(settle.image, timestamp):
            return SETTLING, None
        self.last_settle = settle
        return SETTLED, settle.image

    def read_settled(self, image) -> Any:
        """The reader's half of a watch (the slow one): the ``Roll`` of a settled scene's
        ``image``, with a calibrated tray only the dice on the mat, its overlay saved."""
        self.reads += 1
        roll = self.reader(image)
        if self.calibration is not None:
            roll = self.on_the_mat(roll, image)
        self.last_roll = roll
        self.dice_reads += bool(roll.dice)
        if self.overlay_dir is not None and roll.dice:
            self._save_overlay(image, roll)
        return roll

    def _view_due(self, timestamp: float) -> bool:
        if self.calibration is None or getattr(self.calibration, "markers", None) is None:
            return False
        if self._view_checked_at is None:
            return True
        settled = self.last_settle.timestamp if self.last_settle is not None else -float("inf")
        return timestamp - max(self._view_checked_at, settled) >= VIEW_RECHECK_S

    def _check_view(self, image, timestamp: float) -> None:
        """Look for the mat's markers; set or clear ``view_warning`` (and log either)."""
        from host.calibration import view_problem
        self._view_checked_at = timestamp
        problem = view_problem(self.calibration, image, self.camera_source)
        if problem and problem != self.view_warning:
            log.warning("%s", problem)
        elif problem is None and self.view_warning is not None:
            log.info("the mat's markers are where calibration %r saw them again", self.calibration.name)
        self.view_warning = problem

    def _expose_first(self, image, timestamp: float) -> bool:
        """Before reading a settled scene: if the light is off and the camera can make up for
        it, change the exposure and read the scene once it has (the gate reports it again).
        At most ``EXPOSE_TRIES`` times in a row; then the scene is read as it is."""
        if self.exposure is None:
            return False
        light = self.exposure.check(image)
        if (self._exposed_in_a_row >= EXPOSE_TRIES or not light.off_by(self.exposure.tolerance)
                or not self._expose(light.correction, timestamp)):
            self._exposed_in_a_row = 0
            return False
        self.gate.reset()
        self._exposed_in_a_row += 1
        return True

    def _expose(self, factor: float, timestamp: float) -> bool:
        """Ask the camera for ``factor`` times the exposure; False (and a warning) if it cannot."""
        light = self.exposure.last
        if self.adjust_exposure is not None and self.adjust_exposure(factor):
            self.exposure.adjusted(timestamp)
            log.info("%s: exposure x %.2f", light.describe(), factor)
            return True
        if self.light_warning is None:
            self.light_warning = (f"{light.describe()}; this camera's exposure cannot follow, "
                                  "so pale dice may be missed.")
            log.warning("%s Calibrate again in this light (dicewatch calibrate).", self.light_warning)
        return False

    def _save_overlay(self, image, roll) -> None:
        import cv2
        from pathlib import Path
        from vision.overlay import draw
        folder = Path(self.overlay_dir)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"read-{self.reads:04d}.png"
        try:
            if cv2.imwrite(str(path), draw(image, roll, title=f"read {self.reads}")):
                self.overlays.append(path)
        except cv2.error as exc:
            log.warning("could not write the overlay %s: %s", path, exc)


    def on_the_mat(self, roll, image):
        """With a calibrated tray: each die's area, and only the dice in the rolling or keep area."""
        from vision.calibrate import annotate_roll
        if not roll.frame_size[0]:
            roll = replace(roll, frame_size=(image.shape[1], image.shape[0]))
        roll = annotate_roll(roll, self.calibration)
        kept = tuple(d for d in roll.dice if d.area != "outside")
        self.outside += len(roll.dice) - len(kept)
        return replace(roll, dice=kept)


EXPOSE_TRIES = 3   # settled scenes in a row left unread while the camera's exposure is changed


class ReadWorker:
    """Reads settled scenes in a thread of its own, so that the table loop goes on with the
    buttons, the knob and the phone page while the dice are read (``TableLoop.run`` uses one).

    ``submit(read, image, ticket)`` hands over a scene: ``read(image)`` runs in the worker's
    thread, one read at a time. A scene waiting while another is read gives way to a newer
    one (the newest settled scene wins; the one being read is finished). ``finished()``
    returns the reads done since it was last asked, in the order they were handed over, as
    ``(ticket, roll, error)``: the caller (the loop's thread) applies them, and uses the
    ``ticket`` to tell whether a read is still about the table as it is now. ``close()``
    lets the read in progress finish and joins the thread (SIGTERM's clean shutdown).
    """

    def __init__(self, name: str = "dice-reader"):
        self._lock = threading.Condition()
        self._waiting: tuple | None = None   # (ticket, read, image) not started yet
        self._reading = False
        self._done: list[tuple[Any, Any, BaseException | None]] = []
        self._closing = False
        self.dropped = 0   # scenes that gave way to a newer one before being read
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def submit(self, read: Callable[[Any], Any], image, ticket: Any = None) -> None:
        with self._lock:
            if self._closing:
                return
            if self._waiting is not None:
                self.dropped += 1
            self._waiting = (ticket, read, image)
            self._lock.notify_all()

    @property
    def busy(self) -> bool:
        """A scene is being read or waits to be."""
        with self._lock:
            return self._reading or self._waiting is not None

    def finished(self) -> list[tuple[Any, Any, BaseException | None]]:
        with self._lock:
            done, self._done = self._done, []
        return done

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is being read or waits to be; False if ``timeout`` ran out first."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._reading and self._waiting is None, timeout)

    def close(self, timeout: float | None = 10.0) -> None:
        """No more reads: a scene still waiting is let go, the one being read is finished,
        then the thread ends (joined, at most ``timeout`` seconds). Safe to call twice."""
        with self._lock:
            self._closing = True
            self._waiting = None
            self._lock.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _work(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._closing or self._waiting is not None)
                if self._waiting is None:   # closing, nothing left to read
                    return
                (ticket, read, image), self._waiting = self._waiting, None
                self._reading = True
            roll, error = None, None
            try:
                roll = read(image)
            except Exception as exc:  # noqa: BLE001 - handed to the loop, which shows it
                error = exc
            with self._lock:
                self._done.append((ticket, roll, error))
                self._reading = False
                self._lock.notify_all()
VIEW_RECHECK_S = 60.0   # seconds of frames with nothing settled before the mat's markers are looked at again

