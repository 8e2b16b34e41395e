"""Frame sources: where BGR frames come from, all behind one small interface.

Every source is an iterator of ``Frame(image, timestamp)`` (BGR uint8 array, seconds), with
``close()`` and ``with`` support::

    with open_source("opencv:0") as camera:
        for image, t in camera:
            ...

Sources, by ``--camera`` spec (see ``parse_spec``):

* ``picamera``: the Raspberry Pi camera through picamera2 (Pi only; imported only here).
* ``opencv:INDEX``, ``opencv:/dev/videoN`` or ``opencv:URL``: a USB webcam or a network
  stream, via cv2.VideoCapture.
* ``video:FILE``: a video file (timestamps from the file).
* ``frames:DIR``: a folder of numbered images (``frame-0001.png`` ...), read in number order.
* ``synthetic[:SEED]``: rendered dice rolls on the printed mat (``SyntheticCamera`` in
  ``vision.synthetic_camera``, imported only when such a spec is opened, so the other
  sources never load the dice renderer ``vision.synth``).

A camera that is missing or stops delivering raises ``CameraError``: the device loop
catches it, waits and opens the camera again. Bad input (a missing file, a bad spec) raises
``SourceError`` (``CameraSpecError`` for a bad spec) with a message for the user.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.frame_source import CameraError, CameraSpecError, Frame, FrameSource, SourceError

MIN_EXPOSURE_US = 100.0     # shortest exposure asked of the Pi camera (microseconds)
MAX_ANALOGUE_GAIN = 16.0    # most analogue gain asked of it (sensors allow 8-16x)
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
SPEC_HELP = "picamera | opencv:INDEX | opencv:URL | video:FILE | frames:DIR | synthetic[:SEED]"


# ----------------------------------------------------------------------------- cameras

class PiCamera(FrameSource):
    """The Raspberry Pi camera (any libcamera module) through picamera2.

    Install picamera2 from Raspberry Pi OS (``sudo apt install python3-picamera2``; make the
    venv with ``--system-site-packages``). Frames are asked for as RGB888, which picamera2
    delivers as B, G, R bytes: an OpenCV BGR array, no conversion. After ``warmup`` seconds
    of automatic exposure and white balance, both are locked, so the dice and the background
    model do not change colour while a hand moves through the picture.

        with PiCamera(size=(1280, 720)) as camera:
            image, t = camera.read()

    :param size: (width, height) of the frames.
    :param fps: frames per second to ask the sensor for.
    :param warmup: seconds to let exposure and white balance settle before locking them.
    :param lock: lock exposure and white balance after warm-up (default True).
    """

    name = "picamera"

    def __init__(self, *, size: tuple[int, int] = (1280, 720), fps: float = 30.0, warmup: float = 1.5,
                 lock: bool = True):
        try:
            from picamera2 import Picamera2  # Pi-only; never at module top level
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (on Raspberry Pi OS: sudo apt install "
                              f"python3-picamera2, and a venv made with --system-site-packages): {exc}") from None
        try:
            self._camera = Picamera2()
            config = self._camera.create_video_configuration(main={"size": tuple(size), "format": "RGB888"},
                                                              controls={"FrameRate": float(fps)})
            self._camera.configure(config)
            self._camera.start()
        except Exception as exc:  # libcamera raises plain RuntimeError/IndexError when no camera
            raise CameraError(f"no Raspberry Pi camera found or it is busy: {exc}") from None
        self._frame_us = 1e6 / float(fps)
        time.sleep(warmup)
        if lock:
            self._lock_exposure()

    def _lock_exposure(self) -> None:
        metadata = self._camera.capture_metadata()
        controls = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in metadata:
                controls[key] = metadata[key]
        self._camera.set_controls(controls)

    def adjust_exposure(self, factor: float) -> bool:
        """Scale the locked exposure by ``factor``: the exposure time first (up to one frame's
        time), the analogue gain for the rest (1-16x). False if the camera reports neither, or
        is at its limit already (nothing would change)."""
        if not factor > 0:
            raise ValueError(f"exposure factor must be above 0, not {factor}")
        try:
            metadata = self._camera.capture_metadata()
        except Exception as exc:
            raise CameraError(f"the Raspberry Pi camera stopped answering: {exc}") from None
        exposure, gain = metadata.get("ExposureTime"), metadata.get("AnalogueGain")
        if not exposure or not gain:
            return False
        wanted = float(exposure) * float(gain) * factor          # microseconds at gain 1
        time_us = min(max(wanted, MIN_EXPOSURE_US), self._frame_us)
        new_gain = min(max(wanted / time_us, 1.0), MAX_ANALOGUE_GAIN)
        if abs(math.log(time_us * new_gain / (float(exposure) * float(gain)))) < 0.01:
            return False
        self._camera.set_controls({"AeEnable": False, "ExposureTime": int(round(time_us)),
                                   "AnalogueGain": float(new_gain)})
        return True

    def read(self) -> Frame:
        try:
            image = self._camera.capture_array("main")
        except Exception as exc:
            raise CameraError(f"the Raspberry Pi camera stopped delivering frames: {exc}") from None
        return Frame(np.ascontiguousarray(image[..., :3]), time.monotonic())

    def close(self) -> None:
        camera, self._camera = getattr(self, "_camera", None), None
        if camera is not None:
            try:
                camera.stop()
                camera.close()
            except Exception:
                pass


class OpenCVCamera(FrameSource):
    """A USB webcam (by index, 0 = first) or a network stream (URL) through cv2.VideoCapture.

        with OpenCVCamera(0) as camera:
            image, t = camera.read()

    :param device: camera index or stream URL.
    :param size: optional (width, height) to ask the camera for.
    :param retries: frames that may fail in a row before the camera counts as lost.
    """

    def __init__(self, device: int | str, *, size: tuple[int, int] | None = None, retries: int = 5):
        self.name = f"opencv:{device}"
        self.retries = retries
        level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # our message says it better
        try:
            self._capture = cv2.VideoCapture(device)
        finally:
            cv2.utils.logging.setLogLevel(level)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open camera {device!r} (is it plugged in, and not used by another program?)")
        if size:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> Frame:
        if self._capture is None:
            raise CameraError(f"{self.name} is closed")
        for _ in range(self.retries):
            ok, image = self._capture.read()
            if ok and image is not None:
                return Frame(_bgr(image), time.monotonic())
        raise CameraError(f"camera {self.name} stopped delivering frames (unplugged?)")

    def close(self) -> None:
        capture, self._capture = getattr(self, "_capture", None), None
        if capture is not None:
            capture.release()


# ------------------------------------------------------------------------------- files

class VideoFile(FrameSource):
    """The frames of a video file, with timestamps from the file (seconds from its start)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"video:{self.path}"
        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such video file")
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceError(f"{self.path}: not a video OpenCV can read (expected e.g. .mp4, .avi, .mkv)")
        fps = self._capture.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and 1 <= fps <= 1000 else 30.0
        self._index = 0

    def read(self) -> Frame:
        if self._capture is None:
            raise StopIteration
        ok, image = self._capture.read()
        if not ok or image is None:
            if self._index == 0:
                raise SourceError(f"{self.path}: the video has no frames OpenCV can decode")
            raise StopIteration
        msec = self._capture.get(cv2.CAP_PROP_POS_MSEC)
        t = msec / 1000.0 if msec and msec > 0 else self._index / self.fps
        self._index += 1
        return Frame(_bgr(image), t)

    def close(self) -> None:
        capture, self._capture = getattr(self, "_capture", None), None
        if capture is not None:
            capture.release()


def frame_files(folder: Path) -> list[Path]:
    """Image files in ``folder`` sorted by the last number in their name (then by name)."""
    files = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]

    def key(p: Path):
        numbers = re.findall(r"\d+", p.stem)
        return (int(numbers[-1]) if numbers else -1, p.name)
    return sorted(files, key=key)


class FrameFolder(FrameSource):
    """A folder of numbered images (``0001.png``, ``frame-12.jpg`` ...), in number order,
    taken ``fps`` frames per second apart."""

    def __init__(self, path: str | Path, *, fps: float = 30.0):
        self.path = Path(path)
        self.name = f"frames:{self.path}"
        if not self.path.is_dir():
            raise SourceError(f"{self.path}: no such folder of frames")
        if not 0 < fps < math.inf:  # nan and inf too: every timestamp would be nan or 0
            raise SourceError(f"frames per second must be a number above 0, not {fps}")
        self.files = frame_files(self.path)
        if not self.files:
            raise SourceError(f"{self.path}: no images in it (expected numbered "
                              f"{', '.join(sorted(IMAGE_SUFFIXES))} files)")
        self.fps = fps
        self._index = 0
        self._size: tuple[int, int, Path] | None = None  # width, height and file of the first frame

    def read(self) -> Frame:
        if self._index >= len(self.files):
            raise StopIteration
        path = self.files[self._index]
        try:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        except cv2.error as exc:  # e.g. a header claiming more pixels than OpenCV will decode
            from vision.reader import cv_reason
            raise SourceError(f"{path}: not an image OpenCV can read: {cv_reason(exc)}") from None
        if image is None:
            raise SourceError(f"{path}: not an image OpenCV can read")
        h, w = image.shape[:2]
        if self._size is None:
            self._size = (w, h, path)
        elif (w, h) != self._size[:2]:
            raise SourceError(f"{path}: a {w}x{h} frame among {self._size[0]}x{self._size[1]} ones (from "
                              f"{self._size[2].name} on); expected every frame of the folder the same size")
        t = self._index / self.fps
        self._index += 1
        return Frame(image, t)


def _bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


# ------------------------------------------------------------------------------ specs

@dataclass(frozen=True)
class CameraSpec:
    """A parsed ``--camera`` value."""

    kind: str                 # picamera, opencv, video, frames, synthetic
    target: str | int | None = None   # index/URL, file, folder, or seed

    def __str__(self) -> str:
        return self.kind if self.target is None else f"{self.kind}:{self.target}"


def parse_spec(spec: str) -> CameraSpec:
    """Parse ``picamera | opencv:INDEX | opencv:URL | video:FILE | frames:DIR | synthetic[:SEED]``."""
    text = (spec or "").strip()
    kind, sep, rest = text.partition(":")
    kind = kind.lower()
    if kind == "picamera":
        if rest:
            raise CameraSpecError(f"--camera {spec!r}: picamera takes no argument")
        return CameraSpec("picamera")
    if kind == "opencv":
        if not rest:
            raise CameraSpecError(f"--camera {spec!r}: say which camera, e.g. opencv:0 (first USB camera) "
                                  "or opencv:rtsp://host/stream")
        if rest.isdigit():
            return CameraSpec("opencv", int(rest))
        if "://" in rest or rest.startswith("/dev/"):
            return CameraSpec("opencv", rest)
        raise CameraSpecError(f"--camera {spec!r}: expected a camera index (0, 1, ...), a device (/dev/video0) "
                              "or a stream URL after 'opencv:'")
    if kind in ("video", "frames"):
        if not rest:
            raise CameraSpecError(f"--camera {spec!r}: give the {'file' if kind == 'video' else 'folder'} "
                                  f"after '{kind}:'")
        return CameraSpec(kind, rest)
    if kind == "synthetic":
        if not sep:
            return CameraSpec("synthetic", 0)
        if not re.fullmatch(r"\d{1,9}", rest):
            raise CameraSpecError(f"--camera {spec!r}: the seed after 'synthetic:' must be a whole number")
        return CameraSpec("synthetic", int(rest))
    raise CameraSpecError(f"--camera {spec!r}: unknown camera; expected {SPEC_HELP}")


def open_source(spec: str | CameraSpec, *, size: tuple[int, int] | None = None, fps: float = 30.0,
                realtime: bool = True, **synthetic_options) -> FrameSource:
    """Open the frame source a spec names. ``size`` applies to cameras and the synthetic one;
    ``fps`` to folders and the synthetic one; ``realtime`` paces the synthetic camera."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec.kind == "picamera":
        return PiCamera(size=size or (1280, 720), fps=fps)
    if spec.kind == "opencv":
        return OpenCVCamera(spec.target, size=size)
    if spec.kind == "video":
        return VideoFile(spec.target)
    if spec.kind == "frames":
        return FrameFolder(spec.target, fps=fps)
    from vision.synthetic_camera import SyntheticCamera  # the renderer loads only for this source
    return SyntheticCamera(int(spec.target or 0), size=size or (640, 480), fps=fps, realtime=realtime,
                           **synthetic_options)

