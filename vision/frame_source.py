"""What every frame source is: an iterator of ``Frame(image, timestamp)`` with ``close()``,
and the errors sources raise. The sources themselves are in ``vision.sources`` (cameras,
video files, folders of frames) and ``vision.synthetic_camera`` (rendered dice), which both
build on this module. Other code imports these names from ``vision.sources``.
"""
from __future__ import annotations

from typing import Iterator, NamedTuple

import numpy as np


class SourceError(Exception):
    """A frame source cannot be used as given (bad file, bad folder, bad spec)."""


class CameraSpecError(SourceError):
    """A ``--camera`` spec that does not parse."""


class CameraError(SourceError):
    """The camera is missing or was lost. The device loop catches this and retries."""


class Frame(NamedTuple):
    image: np.ndarray  # BGR uint8
    timestamp: float   # seconds (monotonic for live cameras, from 0 for files)


class FrameSource:
    """Base class: an iterator of Frames that must be closed (or used with ``with``)."""

    name = "source"

    def read(self) -> Frame:
        """The next frame; StopIteration at the end of a file or folder."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the camera or file. Safe to call twice."""

    def adjust_exposure(self, factor: float) -> bool:
        """Make the next frames ``factor`` times as bright (exposure time and gain, with the
        exposure kept locked); False when this source cannot (a file, most webcams)."""
        return False

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        return self.read()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
