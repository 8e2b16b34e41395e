"""Tray calibration: from camera frames of the printed mat to a top-down, known-scale view.

The four ArUco markers of ``vision.mat`` give 16 corner points with known millimetre
positions; a homography maps camera pixels to mat millimetres. From it: the top-down view
(``warp``), the scale (``mm_per_pixel``), and which area a die lies in (``area_of``: the
rolling area, the keep area, or outside). The empty tray's picture (median of a few frames,
so noise and a passing shadow drop out) is kept as the background model.

    calibration = calibrate(frames, name="default")
    calibration.save(folder / "default.json")        # also writes default-background-<hash>.png
    roll = annotate_roll(roll, calibration)           # each Die gets area="rolling"/"keep"/...
    check_view(calibration, frame).fits               # the mat's markers still where they were?

A calibration also records which camera made it (``camera``: source, backend, frame size)
and where the empty mat's markers lay in its picture (``markers``), so a camera that has
moved, or another camera, is noticed (``check_view``) instead of giving reads that never
settle. Files saved before these were recorded still load (``record_advice`` says to
calibrate again).

Paths are always given by the caller (vision never decides where files live).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from vision import mat as mat_module
from vision.durable import flush_to_disk
from vision.pips import unsharp
from vision.roll import Roll

SCHEMA = 2
READABLE_SCHEMAS = (1, 2)   # 1: before the camera and the markers were recorded
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
MAX_REPROJECTION_PX = 3.0


DIE_MM = 16.0            # a standard die's edge (mm): the die-size advice, the tray finder's default
SLANT_ADVISE_DEG = 20.0  # a camera further than this from straight down is told to straighten
SMALL_DIE_PX = 20.0      # dice smaller than this (pixels across) are hard to read


class CalibrationError(ValueError):
    """The frames or files cannot give a calibration; the message says why and what to do."""


# An out-of-focus camera rounds the markers' corners and greys their cells until the detector
# finds no square. When markers are missing, the frame is looked at again sharpened (unsharp
# mask; sigma in pixels of a 640 px wide frame, scaled with the frame). 20 rendered empty mats
# blurred by sigma 2.5 px at 640x480, or 4 px at 1280x720, then noise of sigma 2: all four
# markers found in 20 of 20, against 0 of 20 before; at 3 / 5 px, 19 / 15 of 20.
SHARPEN_TRIES = ((2.0, 1.5), (3.0, 3.0))  # (sigma, amount), mildest first


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """ArUco markers (DICT_4X4_50) in a BGR or grey image: id -> 4x2 corners in pixels.

    Small pictures (markers under ~25 px) are looked at again at twice the size, and a
    picture missing markers is looked at again sharpened (``SHARPEN_TRIES``). Corners found
    in the picture as given are kept over those found in a changed copy."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = _detect_any_size(grey)
    scale = max(grey.shape) / 640
    for sigma, amount in SHARPEN_TRIES:
        if len(found) >= 4:
            break
        again = _detect_any_size(unsharp(grey, sigma * scale, amount))
        found = {**again, **found}
    return found


def _detect_any_size(grey: np.ndarray) -> dict[int, np.ndarray]:
    found = _detect(grey)
    if len(found) < 4 and max(grey.shape) <= 1000:
        bigger = cv2.resize(grey, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
        again = {mid: (c + 0.5) / 2 - 0.5 for mid, c in _detect(bigger).items()}
        found = {**again, **found}
    return found


def _detect(grey: np.ndarray) -> dict[int, np.ndarray]:
    dictionary = cv2.aruco.getPredefinedDictionary(mat_module.ARUCO_DICT)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary, parameters)
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners)}


def identify_mat(found: dict[int, np.ndarray]) -> mat_module.MatLayout:
    """Which mat the markers belong to; CalibrationError if none, mixed, or not all four."""
    if not found:
        raise CalibrationError("no ArUco markers found: is the whole mat in view, evenly lit, in focus, and "
                               "printed at 100% (see 'dicewatch mat')?")
    papers = {paper for paper, first in mat_module.FIRST_ID.items() for i in found if first <= i < first + 4}
    foreign = sorted(i for i in found if not mat_module.is_mat_marker(i))
    if not papers:
        raise CalibrationError(f"found ArUco markers {', '.join(map(str, foreign))}, but none of a dicewatch mat "
                               "(ids 0-11 of DICT_4X4_50); print one with 'dicewatch mat'")
    if len(papers) > 1:
        raise CalibrationError(f"found markers of different mats ({', '.join(sorted(papers))}); "
                               "keep only one mat in view")
    paper = papers.pop()
    layout = mat_module.layout(paper)
    wanted = [mid for mid, _ in layout.markers]
    missing = [(CORNER_NAMES[k], mid) for k, mid in enumerate(wanted) if mid not in found]
    if missing:
        where = ", ".join(f"{name} (id {mid})" for name, mid in missing)
        raise CalibrationError(f"found only {4 - len(missing)} of the 4 corner markers of the {paper} mat; "
                               f"missing: {where}. Make sure all four corners are in view, not covered "
                               "or in glare, and the camera is focused on the mat")
    return layout


@dataclass(frozen=True, eq=False)
class Calibration:
    """A calibrated tray: camera pixels <-> mat millimetres, and the empty tray's picture."""

    name: str
    paper: str
    frame_size: tuple[int, int]           # (width, height) of the frames it was made from
    image_to_mat: np.ndarray              # 3x3: camera pixels -> mat mm
    background: np.ndarray | None = None  # BGR, frame_size
    reprojection_px: float = 0.0          # mean marker-corner error, pixels
    created: str = ""
    camera: dict | None = None            # {"source", "backend", "frame_size"}: who made it (None: not recorded)
    markers: dict | None = None           # marker id -> 4x2 corners (pixels) in the empty mat's picture

    @property
    def layout(self) -> mat_module.MatLayout:
        return mat_module.layout(self.paper)

    @property
    def mat_to_image(self) -> np.ndarray:
        return np.linalg.inv(self.image_to_mat)

    def edge_blur_px(self) -> float | None:
        """How soft the camera's picture is: the blur (Gaussian sigma, camera pixels) of the
        corner markers' black-white edges in the empty-tray picture; ``None`` without one.

        A step edge blurred by sigma has its steepest slope at contrast / (sigma sqrt(2 pi)),
        so sigma is the markers' contrast over their steepest gradients. In focus it reads
        0.8-1.3 px on rendered mats (the renderer's own smoothing), 1.65-1.9 px when they
        are blurred by sigma 1.5 px."""
        if self.background is None:
            return None
        grey = self.background if self.background.ndim == 2 else cv2.cvtColor(self.background, cv2.COLOR_BGR2GRAY)
        h, w = grey.shape[:2]
        blurs = []
        for corners in self.layout.marker_corners().values():
            centre = corners.mean(axis=0)
            around = cv2.perspectiveTransform((centre + (corners - centre) * 1.3)[None], self.mat_to_image)[0]
            x0, y0 = np.maximum(np.floor(around.min(axis=0)).astype(int), 0)
            x1, y1 = np.minimum(np.ceil(around.max(axis=0)).astype(int), (w, h))
            patch = grey[y0:y1, x0:x1].astype(np.float32)
            if patch.shape[0] < 8 or patch.shape[1] < 8:
                continue
            slope = cv2.magnitude(cv2.Sobel(patch, cv2.CV_32F, 1, 0), cv2.Sobel(patch, cv2.CV_32F, 0, 1)) / 8
            dark, light = np.percentile(patch, [5, 95])
            steepest = float(np.percentile(slope, 99))
            if light - dark > 40 and steepest > 0:
                blurs.append((light - dark) / (steepest * math.sqrt(2 * math.pi)))
        return float(np.median(blurs)) if blurs else None

    def to_mat(self, x: float, y: float) -> tuple[float, float]:
        """Camera pixel -> mat millimetres (origin the page's top-left corner, y down)."""
        p = self.image_to_mat @ np.array([x, y, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def area_of(self, x: float, y: float) -> str:
        """"rolling", "keep" or "outside" for a camera pixel."""
        return self.layout.area_of(*self.to_mat(x, y))

    @property
    def mm_per_pixel(self) -> float:
        """Millimetres per camera pixel at the mat's centre."""
        layout = self.layout
        return 1.0 / self.px_per_mm_at(layout.width / 2, layout.height / 2)

    def px_per_mm_at(self, x: float, y: float) -> float:
        """Camera pixels per millimetre at the mat point (x, y) mm (the square root of the
        local area scale: a perspective view shrinks the far side of the mat)."""
        near = np.array([[x, y], [x + 1.0, y], [x, y + 1.0]], np.float64)
        p = cv2.perspectiveTransform(near[None], self.mat_to_image)[0]
        (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
        return float(math.sqrt(abs(ax * by - ay * bx)))

    def die_px_range(self, die_mm: float = DIE_MM) -> tuple[float, float]:
        """How many pixels across a die of ``die_mm`` shows in the rolling area: (smallest,
        largest), over its corners and centre."""
        x0, y0, x1, y1 = self.layout.rolling
        points = ((x0, y0), (x1, y0), (x1, y1), (x0, y1), ((x0 + x1) / 2, (y0 + y1) / 2))
        sizes = [die_mm * self.px_per_mm_at(x, y) for x, y in points]
        return min(sizes), max(sizes)

    def slant_deg(self) -> float:
        """How far the camera looks from straight down at the mat, in degrees
        (``camera_slant_deg``)."""
        return camera_slant_deg(self.mat_to_image, self.frame_size)

    def topdown_px_per_mm(self) -> float:
        """Scale of ``warp``'s picture: about the camera's own resolution on the mat."""
        return 1.0 / self.mm_per_pixel

    def warp(self, frame: np.ndarray, px_per_mm: float | None = None) -> np.ndarray:
        """The mat seen from straight above (page orientation, ``px_per_mm`` pixels per mm)."""
        k = px_per_mm or self.topdown_px_per_mm()
        layout = self.layout
        scaled = np.diag([k, k, 1.0]) @ self._for_frame(frame.shape[1], frame.shape[0])
        size = (int(round(layout.width * k)), int(round(layout.height * k)))
        return cv2.warpPerspective(frame, scaled, size, flags=cv2.INTER_LINEAR)

    def _for_frame(self, width: int, height: int) -> np.ndarray:
        """image_to_mat for frames of another resolution (same camera, same aspect ratio)."""
        w0, h0 = self.frame_size
        if (width, height) == (w0, h0):
            return self.image_to_mat
        if abs(width / height - w0 / h0) > 0.01:
            raise CalibrationError(f"calibration {self.name!r} was made for {w0}x{h0} frames; this picture is "
                                   f"{width}x{height} (another camera or crop?); calibrate again")
        return self.image_to_mat @ np.diag([w0 / width, h0 / height, 1.0])

    def for_frame_size(self, width: int, height: int) -> "Calibration":
        """This calibration for frames of another resolution with the same aspect ratio."""
        if (width, height) == tuple(self.frame_size):
            return self
        background = None
        if self.background is not None:
            background = cv2.resize(self.background, (width, height), interpolation=cv2.INTER_AREA)
        markers = None
        if self.markers is not None:
            w0, h0 = self.frame_size
            markers = {mid: np.asarray(c, np.float64) * (width / w0, height / h0) for mid, c in self.markers.items()}
        return replace(self, frame_size=(width, height), image_to_mat=self._for_frame(width, height),
                       background=background, markers=markers)

    # -------------------------------------------------------------------- files

    def to_json(self, background_file: str | None) -> dict:
        return {"schema": SCHEMA, "name": self.name, "mat": self.paper, "frame_size": list(self.frame_size),
                "image_to_mat": [[float(v) for v in row] for row in self.image_to_mat],
                "mm_per_pixel": round(self.mm_per_pixel, 5), "reprojection_px": round(self.reprojection_px, 3),
                "background": background_file, "created": self.created, "camera": self.camera,
                "markers": None if self.markers is None else
                {str(mid): [[round(float(v), 2) for v in corner] for corner in corners]
                 for mid, corners in sorted(self.markers.items())}}

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (JSON) and, if there is a background, ``<stem>-background-<hash>.png``
        beside it (named by its contents, so a new background never overwrites the one the
        current JSON names).

        Both are written beside themselves and flushed to the disk; the background is renamed
        into place first, then the JSON, whose rename is the one step that switches to the new
        calibration. A crash or power cut at any moment leaves the previous calibration whole
        (its JSON and its own background), or the new one whole; never a torn file, an empty
        JSON, or a new background paired with the old JSON. Backgrounds no JSON names any
        more are removed after the switch."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        background_file = None
        staged: list[tuple[Path, Path]] = []   # (written beside, its place)
        try:
            if self.background is not None:
                ok, png = cv2.imencode(".png", self.background)
                if not ok:
                    raise CalibrationError(f"{path}: cannot encode the background image")
                data = png.tobytes()
                background_file = f"{path.stem}-background-{hashlib.sha256(data).hexdigest()[:12]}.png"
                target = path.with_name(background_file)
                tmp_image = path.with_name(f".{background_file}.tmp")
                staged.append((tmp_image, target))
                tmp_image.write_bytes(data)
            tmp = path.with_suffix(path.suffix + ".tmp")
            staged.append((tmp, path))
            tmp.write_text(json.dumps(self.to_json(background_file), indent=2) + "\n")
            for written, _ in staged:
                flush_to_disk(written)
            for written, target in staged:
                written.replace(target)
            flush_to_disk(path.parent)
        finally:
            for written, _ in staged:
                written.unlink(missing_ok=True)  # gone once renamed; a failed save's leftovers
        _remove_old_backgrounds(path, keep=background_file)
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        """Read a calibration written by ``save``; CalibrationError says what is wrong."""
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise CalibrationError(f"{path}: no such calibration file") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{path}: not a calibration file (expected JSON): {exc}") from None
        if not isinstance(data, dict) or data.get("schema") not in READABLE_SCHEMAS:
            raise CalibrationError(f"{path}: expected a calibration with \"schema\": "
                                   f"{' or '.join(map(str, READABLE_SCHEMAS))}")
        try:
            matrix = np.array(data["image_to_mat"], np.float64)
            frame_size = tuple(int(v) for v in data["frame_size"])
            paper = str(data["mat"])
            if (matrix.shape != (3, 3) or len(frame_size) != 2 or paper not in mat_module.PAPER_MM
                    or not np.isfinite(matrix).all() or abs(np.linalg.det(matrix)) < 1e-12):
                raise ValueError("image_to_mat must be an invertible 3x3 of numbers, frame_size [w, h], mat one of "
                                 + ", ".join(mat_module.PAPER_MM))
            if not all(MIN_FRAME_SIDE <= v <= MAX_FRAME_SIDE for v in frame_size):
                raise ValueError(f"frame_size {list(frame_size)}: expected a camera picture, "
                                 f"{MIN_FRAME_SIDE} to {MAX_FRAME_SIDE} pixels a side")
            camera, markers = _camera_record(data.get("camera")), _marker_record(data.get("markers"), paper)
        except (KeyError, TypeError, ValueError, np.linalg.LinAlgError) as exc:
            raise CalibrationError(f"{path}: broken calibration ({exc})") from None
        background = None
        if data.get("background"):
            if not re.fullmatch(r"[\w.-]+\.png", str(data["background"])) or str(data["background"]).startswith("."):
                raise CalibrationError(f"{path}: broken calibration (background: expected the name of a PNG "
                                       f"beside it, got {data['background']!r})")
            image_path = path.with_name(str(data["background"]))
            background = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            if background is None:
                raise CalibrationError(f"{image_path}: the calibration's background image is missing or unreadable; "
                                       "calibrate again")
            if background.shape[1::-1] != frame_size:
                raise CalibrationError(f"{image_path}: the background is {background.shape[1]}x{background.shape[0]}, "
                                       f"the calibration's frames {frame_size[0]}x{frame_size[1]}; calibrate again")
        return cls(name=str(data.get("name", path.stem)), paper=paper, frame_size=frame_size, image_to_mat=matrix,
                   background=background, reprojection_px=float(data.get("reprojection_px", 0.0)),
                   created=str(data.get("created", "")), camera=camera, markers=markers)


MIN_FRAME_SIDE, MAX_FRAME_SIDE = 16, 20000   # pixels: a calibration's frame_size must be a picture


def _camera_record(value) -> dict | None:
    """The ``camera`` of a calibration file: {"source": str, "backend": str, "frame_size": [w, h]} or null."""
    if value is None:
        return None
    if (not isinstance(value, dict) or not isinstance(value.get("source"), str)
            or not isinstance(value.get("backend"), str)):
        raise ValueError("camera: expected {\"source\": ..., \"backend\": ..., \"frame_size\": [w, h]}")
    return {"source": value["source"], "backend": value["backend"],
            "frame_size": [int(v) for v in value.get("frame_size") or ()]}


def _marker_record(value, paper: str) -> dict | None:
    """The ``markers`` of a calibration file: {"id": 4 [x, y] corners} for the mat's four markers, or null."""
    if value is None:
        return None
    wanted = {mid for mid, _ in mat_module.layout(paper).markers}
    if not isinstance(value, dict) or {int(k) for k in value} != wanted:
        raise ValueError(f"markers: expected the corners of the {paper} mat's markers "
                         f"{', '.join(map(str, sorted(wanted)))}")
    markers = {int(k): np.array(v, np.float64) for k, v in value.items()}
    if any(c.shape != (4, 2) or not np.isfinite(c).all() for c in markers.values()):
        raise ValueError("markers: expected four [x, y] corners per marker")
    return markers


def _remove_old_backgrounds(path: Path, keep: str | None) -> None:
    """Delete the backgrounds of earlier saves of ``path`` (``<stem>-background.png`` of older
    versions, ``<stem>-background-<hash>.png``), all but ``keep``. Only exactly these names:
    another calibration whose name starts the same is left alone."""
    own = re.compile(re.escape(path.stem) + r"-background(-[0-9a-f]{12})?\.png")
    for old in path.parent.iterdir():
        if old.name != keep and own.fullmatch(old.name):
            try:
                old.unlink()
            except OSError:  # a stale picture is harmless: the JSON names the one in use
                pass


def empty_tray(calibration) -> np.ndarray:
    """The calibration's empty-tray picture; ValueError saying what to do when it has none."""
    background = getattr(calibration, "background", None)
    if background is None:
        raise ValueError(f"calibration {getattr(calibration, 'name', '?')!r} has no empty-tray "
                         "picture; calibrate again with the empty mat in view")
    return background


def homography_from_markers(found: dict[int, np.ndarray], layout: mat_module.MatLayout) -> tuple[np.ndarray, float]:
    """Camera pixels -> mat mm from all marker corners; also the mean reprojection error (px)."""
    known = layout.marker_corners()
    image_points = np.vstack([found[mid] for mid in known])
    mat_points = np.vstack([known[mid] for mid in known])
    matrix, _ = cv2.findHomography(image_points, mat_points, 0)
    if matrix is None:
        raise CalibrationError("the markers' corners do not give a homography (all in a line?)")
    back = cv2.perspectiveTransform(mat_points[None], np.linalg.inv(matrix))[0]
    return matrix, float(np.linalg.norm(back - image_points, axis=1).mean())


def calibrate(frames: Iterable[np.ndarray], *, name: str = "default", background_frames: int = 5,
              max_tries: int = 30) -> Calibration:
    """Calibrate from camera frames of the empty mat.

    Looks for the markers in up to ``max_tries`` frames; then learns the background as the
    per-pixel median of ``background_frames`` frames (the one with the markers and those
    after it)."""
    iterator = iter(frames)
    found, first, error = {}, None, None
    for _ in range(max_tries):
        try:
            frame = next(iterator)
        except StopIteration:
            break
        if frame is None or frame.size == 0:
            continue
        found = find_markers(frame)
        try:
            layout = identify_mat(found)
            first = frame
            break
        except CalibrationError as exc:
            error = exc
    if first is None:
        raise error or CalibrationError("no frames to calibrate from")
    matrix, reprojection = homography_from_markers(found, layout)
    if reprojection > MAX_REPROJECTION_PX:
        raise CalibrationError(f"the markers do not line up (off by {reprojection:.1f} px on average): is the mat "
                               "flat and printed at 100%, without 'fit to page'?")
    stack = [first]
    for frame in iterator:
        if len(stack) >= background_frames:
            break
        if frame is not None and frame.shape == first.shape:
            stack.append(frame)
    background = np.median(np.stack(stack), axis=0).astype(np.uint8) if len(stack) > 1 else first.copy()
    h, w = first.shape[:2]
    markers = {mid: found[mid] for mid, _ in layout.markers}
    return Calibration(name=name, paper=layout.paper, frame_size=(w, h), image_to_mat=matrix, background=background,
                       reprojection_px=reprojection,
                       created=datetime.now(timezone.utc).isoformat(timespec="seconds"), markers=markers)


# ------------------------------------------------------------------ is this still the calibrated view?

MOVED_MIN_PX = 5.0         # markers further than this from where they were: the camera (or mat) moved ...
MOVED_FRACTION = 0.01      # ... or this fraction of the frame's diagonal, whichever is more


@dataclass(frozen=True)
class ViewCheck:
    """What a frame says about a calibration: ``verdict`` is "fits", "moved" (the markers are
    elsewhere), "other-size" (a picture of another shape: another camera or frame size),
    "other-mat", "no-markers" (none of the mat's markers in view) or "unrecorded" (a file
    saved before the markers were recorded: cannot tell). ``message`` says it for people."""

    verdict: str
    message: str
    found: int = 0                 # of the mat's four markers, seen in the frame
    offset_px: float | None = None  # median distance of their corners from where they were

    @property
    def fits(self) -> bool:
        return self.verdict in ("fits", "unrecorded")


def marker_offset(expected: dict, found: dict) -> float | None:
    """Median distance (pixels) between the corners of the markers in both, None if none is."""
    common = sorted(set(expected) & set(found))
    if not common:
        return None
    gaps = np.concatenate([np.linalg.norm(np.asarray(found[m]) - np.asarray(expected[m]), axis=1) for m in common])
    return float(np.median(gaps))


def moved_tolerance(frame_size: tuple[int, int]) -> float:
    return max(MOVED_MIN_PX, MOVED_FRACTION * math.hypot(*frame_size))


def check_view(calibration: Calibration, image: np.ndarray) -> ViewCheck:
    """Whether ``image`` (a frame of the camera in use) shows the mat's markers where the
    calibration saw them."""
    h, w = image.shape[:2]
    w0, h0 = calibration.frame_size
    name = calibration.name
    if abs(w / h - w0 / h0) > 0.01:
        return ViewCheck("other-size", f"calibration {name!r} was made for {w0}x{h0} frames; this camera gives "
                                       f"{w}x{h} (another camera or frame size)")
    if calibration.markers is None:
        return ViewCheck("unrecorded", record_advice(calibration) or "")
    expected = calibration.for_frame_size(w, h).markers
    found = find_markers(image)
    ours = {mid: c for mid, c in found.items() if mid in expected}
    if not ours:
        others = sorted(mid for mid in found if mat_module.is_mat_marker(mid))
        if others:
            return ViewCheck("other-mat", f"the markers in view ({', '.join(map(str, others))}) are of another mat "
                                          f"than calibration {name!r}'s {calibration.paper} mat")
        return ViewCheck("no-markers", f"none of the {calibration.paper} mat's four corner markers is in view "
                                       f"(calibration {name!r}): is the camera pointed at the mat, the mat uncovered?")
    offset = marker_offset(expected, ours)
    seen = f"{len(ours)} of 4 markers seen"
    if offset > moved_tolerance((w, h)):
        return ViewCheck("moved", f"the mat's markers are {offset:.0f} px from where calibration {name!r} saw them "
                                  f"({seen}): the camera or the mat has moved, or this is another camera",
                         len(ours), offset)
    return ViewCheck("fits", f"the mat's markers are where calibration {name!r} saw them ({seen}, "
                             f"{offset:.1f} px off)", len(ours), offset)


def record_advice(calibration: Calibration) -> str | None:
    """One line for a calibration saved before the camera and the mat's markers were
    recorded (None for a newer one)."""
    if calibration.markers is not None:
        return None
    return (f"calibration {calibration.name!r} was saved by an older dicewatch that did not record the camera "
            "and where the mat's markers lay, so a moved camera cannot be noticed; calibrate again")


def camera_slant_deg(mat_to_image: np.ndarray, frame_size: tuple[int, int]) -> float:
    """The angle between the camera's line of sight and the mat's perpendicular, in degrees,
    from the mat -> image homography alone.

    A homography of a plane is K [r1 r2 t] up to scale. With the principal point taken at the
    frame's centre and square pixels, the two rotation columns being perpendicular and of equal
    length give the focal length; the plane's normal in camera coordinates is then r1 x r2.
    Seen straight down the focal length cannot be told (the view has no perspective), and the
    slant is near 0 whatever it is, so a camera-like focal length stands in."""
    w, h = frame_size
    centred = np.array([[1.0, 0.0, -w / 2], [0.0, 1.0, -h / 2], [0.0, 0.0, 1.0]]) @ np.asarray(mat_to_image, float)
    a, b = centred[:, 0], centred[:, 1]
    p = np.array([a[0] * b[0] + a[1] * b[1], a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2])
    q = np.array([a[2] * b[2], a[2] ** 2 - b[2] ** 2])
    inverse_f2 = -float(p @ q) / max(float(p @ p), 1e-30)
    focal = 1.0 / math.sqrt(inverse_f2) if inverse_f2 > 0 else 0.0
    if not 0.2 * w <= focal <= 10.0 * w:
        focal = 0.8 * w  # about a Pi camera's or a webcam's field of view
    r1 = np.array([a[0] / focal, a[1] / focal, a[2]])
    r2 = np.array([b[0] / focal, b[1] / focal, b[2]])
    normal = np.cross(r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2))
    return float(math.degrees(math.acos(min(1.0, abs(normal[2]) / np.linalg.norm(normal)))))


def view_advice(calibration: Calibration, die_mm: float = DIE_MM) -> list[str]:
    """What to change about the camera's view for surer reads (empty when it is fine): a camera
    looking at the mat from a slant (dice show their sides, the far ones smaller), or dice
    that come out too few pixels across."""
    advice = []
    slant = calibration.slant_deg()
    smallest, largest = calibration.die_px_range(die_mm)
    if slant > SLANT_ADVISE_DEG:
        advice.append(f"the camera looks at the mat about {slant:.0f} degrees from straight down (a die shows "
                      f"{smallest:.0f}-{largest:.0f} px across the rolling area); dice read best from straight "
                      f"above: mount the camera over the tray's centre, looking straight down "
                      f"(hardware/README.md), and calibrate again")
    if smallest < SMALL_DIE_PX:
        advice.append(f"a {die_mm:.0f} mm die is only {smallest:.0f} px across at the far side of the rolling "
                      f"area (read from about {SMALL_DIE_PX:.0f} px, best from 40): bring the camera closer, "
                      f"or use a larger frame size ('dicewatch geometry' gives the height for your tray)")
    return advice


def annotate_roll(roll: Roll, calibration: Calibration) -> Roll:
    """The same Roll with each die's ``area`` (rolling / keep / outside) from the calibration."""
    width, height = roll.frame_size
    if width and height:
        calibration = calibration.for_frame_size(width, height)
    dice = tuple(replace(d, area=calibration.area_of(d.x, d.y)) for d in roll.dice)
    notes = roll.notes + (f"calibrated:{calibration.name}",) if "uncalibrated" not in roll.notes else tuple(
        n for n in roll.notes if n != "uncalibrated") + (f"calibrated:{calibration.name}",)
    return replace(roll, dice=dice, notes=notes)
