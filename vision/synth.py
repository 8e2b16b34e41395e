"""Synthetic dice: pictures of dice on a table whose faces we know.

Feeds the tests, the demo (through the synthetic camera, ``vision.synthetic_camera``) and
training. It is not a substitute for real photos when quoting accuracy.

The model is a small 3-D one, so the pictures behave like photos: each die is a cube
(16 mm by default) lying on the table plane, turned by a random yaw and a slight tilt;
a pinhole camera looks down from 38-100 cm, tilted up to 14 degrees, so dice show a sliver
of their sides, with the pips of the neighbouring faces, as in tray photos. Each visible
face is a small texture (rounded square, pips or a face icon, optional swirl) warped into
place, shaded by a light direction; dice cast a soft shadow; the whole frame gets a lighting
gradient, blur and sensor noise. A 640x480 scene renders in about 1.5 ms plus 0.7 ms per
die on one core (``python -m vision.bench synth``).

Main entry points::

    image, truth = render_scene(["3", "6", "1"], "d6-pips", seed=7)
    truth.faces          # ['3', '6', '1']   (same order as asked)
    truth.dice[0]        # vision.roll.Die: face, confidence 1.0, centre, box, outline
    crop = render_face_crop("jingle-bell-roll", "BELL", seed=3)

Coordinates: ``Die.x, Die.y, w, h`` are the centre and size of the die's whole silhouette
(top and visible sides) in image pixels, like a hand-drawn label box; ``Die.outline`` is the
top face's four corners. With ``background="mat"`` the printed tray mat of ``vision.mat``
lies under the dice, ``truth.image_from_mat`` maps mat millimetres to image pixels and each
die's ``area`` says whether it lies in the rolling or the keep area.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable

import cv2
import numpy as np

from vision import icons
from vision.roll import FACE_SETS, Die, Roll

DIE_MM = 16.0  # a standard d6

# Die body colours (BGR) as seen at game tables, with the pip/ink colours that go with them.
BODY_COLOURS = [
    ((235, 238, 240), [(25, 25, 25), (30, 30, 170), (140, 60, 20)]),   # white
    ((205, 225, 235), [(30, 30, 30), (30, 30, 150)]),                   # ivory
    ((30, 30, 32), [(235, 235, 235), (40, 200, 230)]),                  # black
    ((40, 40, 190), [(240, 240, 240), (20, 20, 20)]),                   # red
    ((50, 150, 40), [(240, 240, 240), (20, 20, 20)]),                   # green
    ((170, 70, 20), [(240, 240, 240), (40, 210, 240)]),                 # blue
    ((40, 200, 230), [(20, 20, 20), (30, 30, 160)]),                    # yellow
    ((120, 40, 90), [(240, 240, 240), (40, 210, 240)]),                 # purple
    ((30, 120, 230), [(20, 20, 20), (240, 240, 240)]),                  # orange
    ((60, 100, 140), [(30, 200, 230), (20, 20, 20)]),                   # brown / wood
    ((130, 130, 135), [(20, 20, 20), (240, 240, 240)]),                 # grey
]

# Plain tray / table colours (BGR): grey card, white, green felt, wood, dark felt, blue.
TRAY_COLOURS = [(200, 200, 198), (228, 228, 225), (60, 110, 45), (70, 110, 160),
                (45, 42, 40), (120, 80, 40), (170, 175, 180), (150, 170, 185)]

SKIN_TONES = [(180, 200, 240), (150, 180, 225), (110, 150, 205), (80, 115, 170), (55, 80, 120), (40, 55, 85)]
SLEEVE_COLOURS = [(60, 40, 30), (40, 40, 160), (30, 30, 30), (200, 200, 200), (40, 110, 40), (150, 100, 40)]


# ---------------------------------------------------------------------------- dice model

@dataclass(frozen=True)
class DieStyle:
    """How one die looks: body colour, ink (pips or icon) colour, an optional second swirl
    colour, how glossy it is (0 matte .. 1 shiny) and how opaque its body is (translucent
    dice let the table show through; the pips stay solid)."""

    body: tuple[int, int, int] = (235, 238, 240)
    ink: tuple[int, int, int] = (25, 25, 25)
    swirl: tuple[int, int, int] | None = None
    gloss: float = 0.3
    pattern: int = 0  # seed of the swirl pattern
    opacity: float = 1.0
    pip_size: float = 1.0    # pip radius, relative to the usual
    pip_spread: float = 1.0  # pip distance from the face centre, relative to the usual


@dataclass(frozen=True)
class DiePose:
    """A die in the world: ``face`` up, centre at table millimetres (x, y), lifted ``z`` mm
    (bouncing), turned by ``rotation`` (3x3, die frame to world; None = lying flat turned by
    ``yaw`` degrees with ``tilt`` degrees about ``tilt_axis``), and ``motion`` = how far its
    picture moves during the exposure (image pixels dx, dy), for motion blur."""

    face: str
    x: float
    y: float
    yaw: float = 0.0
    tilt: float = 0.0
    tilt_axis: float = 0.0
    z: float = 0.0
    rotation: np.ndarray | None = field(default=None, compare=False)
    style: DieStyle = DieStyle()
    size_mm: float = DIE_MM
    motion: tuple[float, float] = (0.0, 0.0)

    def matrix(self) -> np.ndarray:
        """The die-to-world rotation (the die frame has the ``face`` on +z)."""
        if self.rotation is not None:
            return np.asarray(self.rotation, float)
        return rot_axis((math.cos(math.radians(self.tilt_axis)), math.sin(math.radians(self.tilt_axis)), 0.0),
                        math.radians(self.tilt)) @ rot_axis((0, 0, 1), math.radians(self.yaw))


def rot_axis(axis, angle: float) -> np.ndarray:
    """Rotation matrix about a unit ``axis`` by ``angle`` radians (Rodrigues)."""
    axis = np.asarray(axis, float)
    axis = axis / (np.linalg.norm(axis) or 1.0)
    x, y, z = axis
    c, s, t = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


# Die frame axes carrying faces: +z top, then the sides, then -z bottom.
_AXES = [np.array(a, float) for a in ((0, 0, 1), (1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0), (0, 0, -1))]
_AXIS_MATRIX = np.array(_AXES)  # (6, 3)
# Texture axes per face in the die frame (u right, v down the texture) with u x v = -normal,
# so faces seen from outside are not mirrored; the four corners TL, TR, BR, BL.
_TEX_U = np.array([_AXES[2] if abs(a[0]) > 0.5 else _AXES[1] for a in _AXES])
_TEX_V = np.array([np.cross(u, a) for u, a in zip(_TEX_U, _AXES)])
_CORNERS = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)


# Face sets drawn by code outside this module (training draws dice with random symbols):
# name -> (its six faces, draw(canvas, face, ink, hole)), see ``register_face_set``.
_DRAWN_SETS: dict[str, tuple[tuple[str, ...], Callable]] = {}


def register_face_set(name: str, faces, draw: Callable) -> None:
    """Let the renderer draw dice of another face set: ``faces`` (six names) and
    ``draw(canvas, face, ink, hole)``, which paints one face's picture into a square BGR canvas
    in place, like ``icons.draw_icon``."""
    if name in FACE_SETS or name == "d6-pips":
        raise ValueError(f"{name!r} is a built-in face set")
    faces = tuple(str(f) for f in faces)
    if len(faces) != 6 or len(set(faces)) != 6:
        raise ValueError(f"a face set needs six different faces, got {faces}")
    _DRAWN_SETS[name] = (faces, draw)


def forget_face_set(name: str) -> None:
    """Stop drawing a face set registered with ``register_face_set`` (training registers a
    passing variant for every view it renders; kept, they would pile up by the thousand).
    Textures already drawn stay in ``face_texture``'s bounded cache until pushed out."""
    if name not in _DRAWN_SETS:
        raise ValueError(f"{name!r} is not a registered face set")
    del _DRAWN_SETS[name]


def faces_of(dice_set: str) -> tuple[str, ...]:
    return _DRAWN_SETS[dice_set][0] if dice_set in _DRAWN_SETS else FACE_SETS[dice_set]


def _draw_symbol(canvas: np.ndarray, dice_set: str, face: str, ink, hole) -> None:
    if dice_set in _DRAWN_SETS:
        _DRAWN_SETS[dice_set][1](canvas, face, ink, hole)
    else:
        icons.draw_icon(canvas, face, ink, hole)


def face_layout(dice_set: str, top: str) -> list[str]:
    """Faces on the die axes [+z, +x, +y, -x, -y, -z] for a die showing ``top``.

    Opposite faces follow the d6 rule (pips sum to 7; for custom sets face i faces face 5-i)."""
    faces = faces_of(dice_set)
    t = faces.index(top)
    rest = [i for i in range(6) if i not in (t, 5 - t)]
    a = rest[0]
    b = next(i for i in rest if i not in (a, 5 - a))
    order = [t, a, b, 5 - a, 5 - b, 5 - t]
    return [faces[i] for i in order]


def top_face(dice_set: str, pose_face: str, rotation: np.ndarray) -> str:
    """Which face points up when a die built with ``pose_face`` on +z is turned by ``rotation``."""
    layout = face_layout(dice_set, pose_face)
    ups = [float((rotation @ a)[2]) for a in _AXES]
    return layout[int(np.argmax(ups))]


def random_style(rng: np.random.Generator, swirl: bool = True) -> DieStyle:
    """A random die look; ``swirl=False`` for solid dice only (custom-face dice are solid)."""
    body, inks = BODY_COLOURS[rng.integers(len(BODY_COLOURS))]
    jitter = rng.integers(-18, 19, 3)
    body = tuple(int(np.clip(c + j, 0, 255)) for c, j in zip(body, jitter))
    ink = inks[rng.integers(len(inks))]
    swirl = None
    if rng.random() < 0.25 and swirl:
        other, _ = BODY_COLOURS[rng.integers(len(BODY_COLOURS))]
        if sum(abs(a - b) for a, b in zip(other, ink)) > 200:
            swirl = other
    opacity = float(rng.uniform(0.7, 0.85)) if swirl is None and rng.random() < 0.15 else 1.0
    if opacity < 1.0:  # light through tinted plastic: a deeper colour than the opaque die
        body = tuple(int(c * 0.8) for c in body)
    return DieStyle(body=body, ink=ink, swirl=swirl, gloss=float(rng.uniform(0.1, 0.9)),
                    pattern=int(rng.integers(1 << 30)), opacity=opacity)


# ------------------------------------------------------------------------ face textures

_PIP_SPOTS = {
    "1": [(0.5, 0.5)],
    "2": [(0.27, 0.27), (0.73, 0.73)],
    "3": [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    "4": [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    "5": [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    "6": [(0.27, 0.24), (0.73, 0.24), (0.27, 0.5), (0.73, 0.5), (0.27, 0.76), (0.73, 0.76)],
}


@lru_cache(maxsize=16)
def _rounded_mask(size: int) -> np.ndarray:
    """Alpha (float32 0..1) of a rounded square filling a size x size texture."""
    scale = 4
    big = np.zeros((size * scale, size * scale), np.uint8)
    r = int(0.16 * size * scale)
    s = size * scale - 1
    cv2.rectangle(big, (r, 0), (s - r, s), 255, -1)
    cv2.rectangle(big, (0, r), (s, s - r), 255, -1)
    for cx, cy in ((r, r), (s - r, r), (s - r, s - r), (r, s - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


@lru_cache(maxsize=16)
def _bevel(size: int) -> np.ndarray:
    """Brightness falling off towards the rounded edges of a face (float32, 1 at the centre)."""
    u = np.abs(np.linspace(-1, 1, size, dtype=np.float32))
    edge = np.maximum(u[None, :], u[:, None])
    return 1.0 - 0.35 * np.clip((edge - 0.78) / 0.22, 0, 1) ** 2


@lru_cache(maxsize=16)
def _texture_factor(size: int) -> np.ndarray:
    """Per-pixel factors turning a BGRA uint8 face into premultiplied, bevelled float BGRA."""
    alpha = _rounded_mask(size)
    factor = np.empty((size, size, 4), np.float32)
    factor[..., :3] = (_bevel(size) * alpha)[..., None]
    factor[..., 3] = alpha / 255.0
    return factor


@lru_cache(maxsize=512)
def face_texture(dice_set: str, face: str, style: DieStyle, size: int) -> np.ndarray:
    """A face as a premultiplied BGRA float32 texture (size x size), unshaded, "up" at row 0."""
    canvas = np.empty((size, size, 3), np.uint8)
    canvas[:] = style.body
    if style.swirl is not None:
        rng = np.random.default_rng(style.pattern)
        field_small = rng.random((5, 5)).astype(np.float32)
        mix = cv2.resize(field_small, (size, size), interpolation=cv2.INTER_CUBIC)
        mix = np.clip((mix - 0.45) * 4, 0, 1)[..., None]
        body = canvas * (1 - mix) + np.array(style.swirl, np.float32) * mix
        canvas = np.clip(body, 0, 255).astype(np.uint8)
    if dice_set == "d6-pips":
        _draw_pips(canvas, face, style)
    else:
        _draw_symbol(canvas, dice_set, face, style.ink, style.body)
    if style.gloss > 0.6:
        # A glossy die catches the lamp: a soft bright spot (over pips too, as in photos).
        rng = np.random.default_rng(style.pattern + 1)
        spot = np.zeros((size, size), np.float32)
        cx, cy = rng.uniform(0.25, 0.75, 2) * size
        cv2.ellipse(spot, (int(cx), int(cy)), (int(size * 0.14), int(size * 0.08)), float(rng.uniform(0, 180)),
                    0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), size * 0.05) * ((style.gloss - 0.6) * 2.5 * 255)
        canvas = cv2.add(canvas, cv2.merge([spot.astype(np.uint8)] * 3))
    if style.opacity < 1.0:
        # Translucent body, solid ink: draw the ink again as a mask to know where it is.
        ink = np.zeros((size, size, 3), np.uint8)
        if dice_set == "d6-pips":
            _draw_pips(ink, face, replace(style, body=(0, 0, 0), ink=(255, 255, 255)))
        else:
            _draw_symbol(ink, dice_set, face, (255, 255, 255), (0, 0, 0))
        alpha = _rounded_mask(size) * (style.opacity + (1 - style.opacity) * ink[..., 0] / np.float32(255))
        out = np.empty((size, size, 4), np.float32)
        out[..., :3] = canvas * (_bevel(size) * alpha)[..., None]
        out[..., 3] = alpha
        return out
    out = cv2.cvtColor(canvas, cv2.COLOR_BGR2BGRA).astype(np.float32)
    out *= _texture_factor(size)
    return out


def _draw_pips(canvas: np.ndarray, face: str, style: DieStyle) -> None:
    size = canvas.shape[0]
    r = (0.115 if face == "1" else 0.085) * size * style.pip_size
    rim = tuple(int(c * 0.55) for c in style.body)
    ink = style.ink
    if face == "1" and style.ink[0] < 60 and style.body[0] > 180 and style.pattern % 3 == 0:
        ink = (30, 30, 170)  # many white dice have a red one
    spots = _PIP_SPOTS[face]
    if style.pip_spread != 1.0:
        spots = [(0.5 + (x - 0.5) * style.pip_spread, 0.5 + (y - 0.5) * style.pip_spread) for x, y in spots]
    for x, y in spots:
        centre = (int(x * size * 16), int(y * size * 16))
        cv2.circle(canvas, centre, int(r * 1.12 * 16), rim, -1, cv2.LINE_AA, 4)   # hollow's rim
        cv2.circle(canvas, centre, int(r * 16), ink, -1, cv2.LINE_AA, 4)


# ------------------------------------------------------------------------------ camera

@dataclass(frozen=True, eq=False)
class TableCamera:
    """A pinhole camera above the table: world in millimetres, table at z = 0, z up."""

    size: tuple[int, int]       # image (width, height)
    focal: float                # pixels
    centre: np.ndarray          # camera position, mm
    rotation: np.ndarray        # world -> camera
    principal: tuple[float, float]

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> image pixels (N, 2)."""
        cam = (np.asarray(points, float) - self.centre) @ self.rotation.T
        z = np.maximum(cam[:, 2:3], 1e-6)
        return cam[:, :2] * (self.focal / z) + self.principal

    def table_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 homography from the plane at height ``z`` mm (table: 0) to image pixels."""
        k = np.array([[self.focal, 0, self.principal[0]], [0, self.focal, self.principal[1]], [0, 0, 1.0]])
        r = self.rotation
        return k @ np.column_stack([r[:, 0], r[:, 1], r[:, 2] * z - r @ self.centre])

    def to_table(self, x: float, y: float, z: float = 0.0) -> tuple[float, float]:
        """Image pixel -> millimetres on the plane at height ``z`` (table: 0)."""
        p = np.linalg.inv(self.table_homography(z)) @ np.array([x, y, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def pixels_per_mm(self, x: float = 0.0, y: float = 0.0) -> float:
        """Image scale at table point (x, y)."""
        p = self.project(np.array([[x, y, 0.0], [x + 1.0, y, 0.0]]))
        return float(np.hypot(*(p[1] - p[0])))


def make_camera(size: tuple[int, int], rng: np.random.Generator, die_px: float, tilt_deg: float = 8.0,
                roll_deg: float = 8.0, upright: bool = False) -> TableCamera:
    """A camera that shows a 16 mm die about ``die_px`` pixels wide at the table point under the
    image centre, looking down with up to ``tilt_deg`` of tilt and ``roll_deg`` of roll.
    ``upright``: tilted the way a person holds a camera (the far side of the table at the
    top of the picture, so a die's top face shows above its front face), not sideways."""
    w, h = size
    height = float(rng.uniform(380, 1000))
    focal = die_px * height / DIE_MM
    base = np.diag([1.0, -1.0, -1.0])  # camera x = world x, image rows go towards -y
    tilt_x, tilt_y = rng.uniform(-tilt_deg, tilt_deg, 2)
    if upright:  # a negative tilt about x puts the far side at the top
        tilt_x, tilt_y = -abs(tilt_x), 0.15 * tilt_y
    tilt_x, tilt_y = math.radians(tilt_x), math.radians(tilt_y)
    roll = math.radians(rng.uniform(-roll_deg, roll_deg))
    rotation = rot_axis((0, 0, 1), roll) @ rot_axis((1, 0, 0), tilt_x) @ rot_axis((0, 1, 0), tilt_y) @ base
    principal = (w / 2 + rng.uniform(-0.03, 0.03) * w, h / 2 + rng.uniform(-0.03, 0.03) * h)
    camera = TableCamera(size, focal, np.array([0.0, 0.0, height]), rotation, principal)
    # Move the camera so the image centre looks at the world origin, then match the die size there.
    cx, cy = camera.to_table(w / 2, h / 2)
    camera = TableCamera(size, focal, np.array([-cx, -cy, height]), rotation, principal)
    focal *= die_px / camera.pixels_per_mm() / DIE_MM
    return TableCamera(size, focal, camera.centre, rotation, principal)


# --------------------------------------------------------------------------- rendering

@lru_cache(maxsize=8)
def _mat_page(paper: str, px_per_mm: float) -> np.ndarray:
    from vision import mat as mat_module
    return mat_module.render(mat_module.layout(paper), px_per_mm=px_per_mm)


@lru_cache(maxsize=4)
def _noise_tile(height: int, width: int) -> np.ndarray:
    """Fixed Gaussian noise (uint8 around 128, sigma 32), cut at random offsets per frame."""
    rng = np.random.default_rng(12345)
    return np.clip(128 + 32 * rng.standard_normal((height, width, 3), dtype=np.float32), 0, 255).astype(np.uint8)


def _noise(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    tile = _noise_tile(h + 64, w + 64)
    oy, ox = rng.integers(0, 64, 2)
    return tile[oy:oy + h, ox:ox + w]


@dataclass(frozen=True)
class Lighting:
    """Light direction (unit vector towards the light), brightness and the frame's look."""

    direction: tuple[float, float, float] = (0.3, 0.4, 0.87)
    ambient: float = 0.55
    blur: float = 0.5           # Gaussian sigma, pixels
    noise: float = 3.0          # sensor noise sigma, grey levels
    shadow: float = 0.45        # darkness of cast shadows (0 none .. 1 black)


def random_lighting(rng: np.random.Generator) -> Lighting:
    elevation = math.radians(rng.uniform(45, 80))
    azimuth = rng.uniform(0, 2 * math.pi)
    direction = (math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation))
    return Lighting(direction=direction, ambient=float(rng.uniform(0.45, 0.7)),
                    blur=float(rng.choice([0.0, 0.3, 0.5, 0.7, 1.0])), noise=float(rng.uniform(1.0, 6.0)),
                    shadow=float(rng.uniform(0.15, 0.5)))


class Table:
    """A camera, a lit background (plain tray or the printed mat) and the lighting: everything
    in a scene except the dice and hands. Build once, then ``draw`` many frames (the synthetic
    camera does this to animate rolls).

    :param size: (width, height) of the pictures.
    :param seed: camera pose, table colour and light follow from it.
    :param background: "tray" (a plain surface) or "mat" (the printed mat, vision.mat).
    :param die_px: die size in pixels at the picture's centre (default: random, or from the
        mat's scale when the mat fills 72-86% of the picture).
    :param mat_size: A4, A3 or letter.
    :param lighting: fixed light, blur and noise (default: random).
    :param tilt_deg: the camera's largest tilt from straight down, degrees.
    :param upright: tilt the camera as a person holds one (see ``make_camera``).
    """

    def __init__(self, size: tuple[int, int], seed: int, background: str = "tray", die_px: float | None = None,
                 mat_size: str = "A4", lighting: Lighting | None = None, tilt_deg: float = 14.0,
                 upright: bool = False):
        if background not in ("tray", "mat"):
            raise ValueError(f"background must be 'tray' or 'mat', not {background!r}")
        w, h = size
        if w < 16 or h < 16:
            raise ValueError(f"image size {w}x{h} is too small (at least 16x16)")
        self.size = (int(w), int(h))
        self.seed = seed
        rng = np.random.default_rng([seed, 1])
        self.lighting = lighting or random_lighting(rng)
        self.background_kind = background
        self.mat = None
        self.image_from_mat = None
        if background == "mat":
            from vision import mat as mat_module
            self.mat = mat_module.layout(mat_size)
            if die_px is None:
                # Fit the mat to about 72-86% of the frame; dice size follows the mat's scale.
                fill = rng.uniform(0.72, 0.86)
                scale = min(w / self.mat.width, h / self.mat.height) * fill
                die_px = DIE_MM * scale
            self.camera = make_camera(self.size, rng, die_px, tilt_deg=tilt_deg, roll_deg=6.0,
                                      upright=upright)
            self.image_from_mat = self.camera.table_homography() @ self._table_from_mat()
        else:
            if die_px is None:
                die_px = float(rng.uniform(20, 56)) * min(w / 640, h / 480) ** 0.5
            self.camera = make_camera(self.size, rng, die_px, tilt_deg=tilt_deg, upright=upright)
        self.die_px = float(die_px)
        self.backdrop = self._backdrop(rng)

    def _table_from_mat(self) -> np.ndarray:
        """Mat millimetres (origin top-left, y down the page) -> table millimetres (centred, y up)."""
        return np.array([[1.0, 0, -self.mat.width / 2], [0, -1.0, self.mat.height / 2], [0, 0, 1]])

    def _backdrop(self, rng: np.random.Generator) -> np.ndarray:
        w, h = self.size
        table = np.clip(np.array(TRAY_COLOURS[rng.integers(len(TRAY_COLOURS))]) + rng.uniform(-15, 15, 3), 0, 255)
        if self.mat is not None:
            # Render the page at about the camera's scale (1, 2 or 4 px/mm) and let the warp
            # average it down; cached, since the demo and tests use the same few sizes.
            px_per_mm = float(2 ** np.clip(np.ceil(np.log2(self.camera.pixels_per_mm())), 0, 2))
            page = _mat_page(self.mat.paper, px_per_mm)
            homography = self.image_from_mat @ np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0])
            image = cv2.warpPerspective(page, homography, (w, h), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(float(c) for c in table))
        else:
            image = cv2.merge([np.full((h, w), int(c), np.uint8) for c in table])
            k = float(rng.uniform(0.05, 0.2))
            image = cv2.addWeighted(image, 1.0, _noise(rng, h, w), k, -128 * k)   # grain
        # Uneven light: a smooth brightness field over the frame (128 = unchanged).
        gain = 0.75 + 0.25 * self.lighting.ambient / 0.55
        field_small = (128 * gain * (1.0 + rng.uniform(-0.18, 0.18, (3, 3)))).astype(np.float32)
        light = cv2.resize(field_small, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.uint8)
        return cv2.multiply(image, cv2.merge([light, light, light]), scale=1 / 128)

    # ---------------------------------------------------------------- geometry helpers

    def random_positions(self, count: int, rng: np.random.Generator, touching: float = 0.25,
                         region: tuple[float, float, float, float] | None = None,
                         occupied: list[tuple[float, float]] = ()) -> list[tuple[float, float, float]]:
        """``count`` resting places (table x mm, y mm, yaw degrees) that do not overlap, inside
        ``region`` (table mm x0, y0, x1, y1; default: what the camera sees, less a margin) and
        away from ``occupied`` places. About ``touching`` of the dice go against a neighbour."""
        if region is None:
            region = self.visible_region()
        x0, y0, x1, y1 = region
        places: list[tuple[float, float, float]] = []
        taken = [(float(x), float(y)) for x, y, *_ in occupied]
        clearance = DIE_MM * 1.5
        for _ in range(count):
            for attempt in range(400):
                if places and rng.random() < touching and attempt < 20:
                    bx, by, byaw = places[rng.integers(len(places))]
                    a = math.radians(byaw + 90 * rng.integers(4))
                    gap = DIE_MM * rng.uniform(1.0, 1.06)
                    x, y, yaw = bx + gap * math.cos(a), by + gap * math.sin(a), byaw + rng.uniform(-4, 4)
                    need = DIE_MM * 0.99
                else:
                    x, y, yaw = rng.uniform(x0, x1), rng.uniform(y0, y1), rng.uniform(0, 360)
                    need = clearance
                if not (x0 <= x <= x1 and y0 <= y <= y1):
                    continue
                near = [math.hypot(x - px, y - py) for px, py, _ in places]
                if any(math.hypot(x - px, y - py) < clearance for px, py in taken):
                    continue
                if all(d >= need for d in near) and all(d >= DIE_MM * 0.99 for d in near):
                    places.append((x, y, yaw % 360))
                    break
            else:
                raise ValueError(f"cannot fit {count} dice of {self.die_px:.0f} px into a "
                                 f"{self.size[0]}x{self.size[1]} image; use fewer or smaller dice")
        return places

    def visible_region(self, margin_px: float | None = None) -> tuple[float, float, float, float]:
        """Table rectangle (mm) whose picture lies inside the frame, less ``margin_px``."""
        w, h = self.size
        m = self.die_px * 0.9 if margin_px is None else margin_px
        corners = [self.camera.to_table(x, y) for x, y in ((m, m), (w - m, m), (w - m, h - m), (m, h - m))]
        xs = sorted(c[0] for c in corners)
        ys = sorted(c[1] for c in corners)
        return xs[1], ys[1], xs[2], ys[2]  # inner box of the (slightly skewed) quadrilateral

    def mat_region(self, area: str) -> tuple[float, float, float, float]:
        """Table rectangle (mm) of the mat's rolling or keep area, less half a die."""
        if self.mat is None:
            raise ValueError("this table has no mat (background='tray')")
        u0, v0, u1, v1 = self.mat.rolling if area == "rolling" else self.mat.keep
        m = DIE_MM * 0.75
        return u0 - self.mat.width / 2 + m, self.mat.height / 2 - v1 + m, u1 - self.mat.width / 2 - m, self.mat.height / 2 - v0 - m

    def rolling_region(self) -> tuple[float, float, float, float]:
        """Where thrown dice land (table mm): the mat's rolling area, or the left three quarters
        of what a plain tray shows."""
        if self.mat is not None:
            return self.mat_region("rolling")
        x0, y0, x1, y1 = self.visible_region()
        return x0, y0, x0 + (x1 - x0) * 0.74, y1

    def keep_region(self) -> tuple[float, float, float, float]:
        """Where kept dice are set aside (table mm): the mat's keep area, or the right strip."""
        if self.mat is not None:
            return self.mat_region("keep")
        x0, y0, x1, y1 = self.visible_region()
        return x0 + (x1 - x0) * 0.80, y0, x1, y1

    def area_of_table_point(self, x: float, y: float) -> str | None:
        if self.mat is None:
            return None
        return self.mat.area_of(x + self.mat.width / 2, self.mat.height / 2 - y)

    # ------------------------------------------------------------------------ drawing

    def draw(self, poses: list[DiePose], dice_set: str, rng: np.random.Generator,
             hands: list["Hand"] = (), finish: bool = True) -> tuple[np.ndarray, list[Die]]:
        """Render ``poses`` on the backdrop (plus any ``hands``): (BGR image, truth per pose)."""
        image = self.backdrop.copy()
        geometry = [self._die_geometry(p) for p in poses]
        for pose, geo in zip(poses, geometry):
            self._shadow(image, pose, geo)
        truth = []
        for pose, geo in zip(poses, geometry):
            truth.append(self._draw_die(image, pose, geo, dice_set))
        for hand in hands:
            draw_hand(image, hand, self.lighting)
        if finish:
            image = self.finish(image, rng)
        return image, truth

    def finish(self, image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Camera blur and sensor noise."""
        light = self.lighting
        if light.blur > 0.05:
            image = cv2.GaussianBlur(image, (0, 0), light.blur)
        if light.noise > 0.05:
            h, w = image.shape[:2]
            k = light.noise / 32.0
            image = cv2.addWeighted(image, 1.0, _noise(rng, h, w), k, -128 * k)
        return image

    def _die_geometry(self, pose: DiePose) -> dict:
        rot = pose.matrix()
        half = pose.size_mm / 2
        corners = np.array([[sx, sy, sz] for sx in (-half, half) for sy in (-half, half) for sz in (-half, half)])
        world = corners @ rot.T
        lift = -world[:, 2].min() + pose.z
        world = world + np.array([pose.x, pose.y, lift])
        return {"rot": rot, "world": world, "pixels": self.camera.project(world)}

    def _shadow(self, image: np.ndarray, pose: DiePose, geo: dict) -> None:
        light = np.array(self.lighting.direction, float)
        world = geo["world"]
        # Cast shadow: each corner slid along the light ray down to the table.
        t = world[:, 2] / max(light[2], 0.2)
        cast = world[:, :2] - t[:, None] * light[:2]
        foot = world[:, :2]
        w, h = self.size
        spread = self.die_px * (0.18 + 0.02 * pose.z)
        pts_cast = self.camera.project(np.column_stack([cast, np.zeros(len(cast))]))
        pts_foot = self.camera.project(np.column_stack([foot, np.zeros(len(foot))]))
        allpts = np.vstack([pts_cast, pts_foot])
        pad = int(3 * spread) + 2
        x0, y0 = np.floor(allpts.min(0)).astype(int) - pad
        x1, y1 = np.ceil(allpts.max(0)).astype(int) + pad
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 <= x0 or y1 <= y0:
            return
        # One soft mask: the cast shadow, darker where the die touches the table.
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        fade = 1.0 / (1.0 + pose.z / pose.size_mm)
        cv2.fillConvexPoly(mask, cv2.convexHull((pts_cast - (x0, y0)).astype(np.int32)), self.lighting.shadow * fade,
                           cv2.LINE_AA)
        if pose.z < 1:
            cv2.fillConvexPoly(mask, cv2.convexHull((pts_foot - (x0, y0)).astype(np.int32)),
                               min(0.9, self.lighting.shadow + 0.3), cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), spread * 0.8)
        keep = cv2.merge([1.0 - mask] * 3)
        roi = image[y0:y1, x0:x1]
        roi[:] = cv2.convertScaleAbs(cv2.multiply(roi, keep, dtype=cv2.CV_32F))

    def _draw_die(self, image: np.ndarray, pose: DiePose, geo: dict, dice_set: str) -> Die:
        rot, world, pixels = geo["rot"], geo["world"], geo["pixels"]
        layout = face_layout(dice_set, pose.face)
        half = pose.size_mm / 2
        centre = world.mean(axis=0)
        light = np.array(self.lighting.direction, float)
        w, h = self.size
        mx, my = pose.motion
        blur_pad = int(math.ceil(max(abs(mx), abs(my)))) + 2
        x0, y0 = np.floor(pixels.min(0)).astype(int) - blur_pad
        x1, y1 = np.ceil(pixels.max(0)).astype(int) + blur_pad
        pw, ph = x1 - x0, y1 - y0
        normals = _AXIS_MATRIX @ rot.T                      # (6, 3) world normals
        top_index = int(np.argmax(normals[:, 2]))
        face_centres = centre + normals * half
        views = self.camera.centre - face_centres
        visible = np.einsum("ij,ij->i", normals, views) > 0
        us, vs = _TEX_U @ rot.T, _TEX_V @ rot.T
        top_outline: tuple = ()
        if pw > 0 and ph > 0 and pw < 4 * w and ph < 4 * h:
            layer = np.zeros((ph, pw, 4), np.float32)
            tex_size = int(np.clip(2 * self.die_px, 32, 128)) // 8 * 8
            for i in np.flatnonzero(visible):
                normal, view = normals[i], views[i]
                quad3 = face_centres[i] + (_CORNERS[:, :1] * us[i] + _CORNERS[:, 1:] * vs[i]) * half
                quad = self.camera.project(quad3)
                if i == top_index:
                    top_outline = tuple((float(px), float(py)) for px, py in quad)
                # Texture at about twice the face's size on screen (thin side slivers need little).
                (ax, ay), (bx, by) = quad[2] - quad[0], quad[3] - quad[1]
                area = 0.5 * abs(float(ax * by - ay * bx))
                size = min(tex_size, max(16, int(2 * math.sqrt(area)) // 8 * 8))
                texture = face_texture(dice_set, layout[i], pose.style, size)
                src = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
                m = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
                warped = cv2.warpPerspective(texture, m, (pw, ph), flags=cv2.INTER_LINEAR)
                diffuse = max(0.0, float(normal @ light))
                shade = self.lighting.ambient + (1 - self.lighting.ambient) * diffuse
                shade *= 1.12  # dice faces are brighter than the matte table they sit on
                spec = 0.0
                if pose.style.gloss > 0:
                    half_vec = light + view / math.sqrt(view @ view)
                    half_vec /= math.sqrt(half_vec @ half_vec)
                    spec = pose.style.gloss * max(0.0, float(normal @ half_vec)) ** 40 * 120
                # Shade BGR, add the highlight where the face is; faces of a cube never overlap,
                # so the premultiplied faces simply add up.
                mix = np.array([[shade, 0, 0, spec], [0, shade, 0, spec], [0, 0, shade, spec], [0, 0, 0, 1]],
                               np.float32)
                layer = cv2.add(layer, cv2.transform(warped, mix))
            if mx or my:
                layer = _motion_blur(layer, mx, my)
            composite(image, layer, x0, y0)
        bx0, by0 = pixels.min(0)
        bx1, by1 = pixels.max(0)
        face = layout[top_index]
        return Die(face=face, confidence=1.0, x=float((bx0 + bx1) / 2), y=float((by0 + by1) / 2),
                   w=float(bx1 - bx0), h=float(by1 - by0), outline=top_outline,
                   area=self.area_of_table_point(pose.x, pose.y))


def _motion_blur(layer: np.ndarray, dx: float, dy: float) -> np.ndarray:
    length = max(abs(dx), abs(dy))
    n = int(math.ceil(length)) * 2 + 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    steps = max(2, int(math.ceil(length * 2)))
    for t in np.linspace(-0.5, 0.5, steps):
        kernel[int(round(c + t * dy)), int(round(c + t * dx))] += 1
    kernel /= kernel.sum()
    return cv2.filter2D(layer, -1, kernel, borderType=cv2.BORDER_CONSTANT)


def composite(image: np.ndarray, layer: np.ndarray, x0: int, y0: int) -> None:
    """Alpha-blend a premultiplied BGRA float layer into ``image`` at (x0, y0), clipped."""
    h, w = image.shape[:2]
    lh, lw = layer.shape[:2]
    ix0, iy0, ix1, iy1 = max(x0, 0), max(y0, 0), min(x0 + lw, w), min(y0 + lh, h)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    part = layer[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
    roi = image[iy0:iy1, ix0:ix1]
    alpha = np.minimum(part[..., 3:4], 1.0)
    roi[:] = cv2.convertScaleAbs(roi * (1 - alpha) + part[..., :3])


# ------------------------------------------------------------------------------- hands

@dataclass(frozen=True)
class Hand:
    """An arm reaching into the picture from a border: ``entry`` (x, y) pixels on or beyond the
    border, ``tip`` (x, y) pixels where the fingertips are, ``width`` of the palm in pixels."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    width: float
    skin: tuple[int, int, int] = SKIN_TONES[1]
    sleeve: tuple[int, int, int] | None = None


def random_hand(size: tuple[int, int], rng: np.random.Generator, reach: float = 0.5,
                die_px: float = 30.0) -> Hand:
    """A hand from a random border reaching ``reach`` (0..1) of the way to the centre and beyond."""
    w, h = size
    side = rng.integers(4)
    t = rng.uniform(0.2, 0.8)
    entry = [(t * w, -0.1 * h), (1.1 * w, t * h), (t * w, 1.1 * h), (-0.1 * w, t * h)][side]
    target = (w / 2 + rng.uniform(-0.2, 0.2) * w, h / 2 + rng.uniform(-0.2, 0.2) * h)
    tip = (entry[0] + (target[0] - entry[0]) * reach * 1.2, entry[1] + (target[1] - entry[1]) * reach * 1.2)
    sleeve = SLEEVE_COLOURS[rng.integers(len(SLEEVE_COLOURS))] if rng.random() < 0.6 else None
    return Hand(entry=entry, tip=tip, width=float(die_px * rng.uniform(4.5, 5.5)),
                skin=SKIN_TONES[rng.integers(len(SKIN_TONES))], sleeve=sleeve)


def hand_at(hand: Hand, reach: float) -> Hand:
    """The same hand pulled back: ``reach`` 1 = fully in, 0 = at its entry point (out of view)."""
    ex, ey = hand.entry
    tx, ty = hand.tip
    return Hand(entry=hand.entry, tip=(ex + (tx - ex) * reach, ey + (ty - ey) * reach), width=hand.width,
                skin=hand.skin, sleeve=hand.sleeve)


def draw_hand(image: np.ndarray, hand: Hand, lighting: Lighting | None = None) -> None:
    """Draw an arm and an open hand (palm down, fingers spread) into ``image`` in place."""
    ex, ey = hand.entry
    tx, ty = hand.tip
    length = math.hypot(tx - ex, ty - ey)
    if length < 1:
        return
    dx, dy = (tx - ex) / length, (ty - ey) / length
    nx, ny = -dy, dx
    wid = hand.width
    palm_c = (tx - dx * wid * 0.95, ty - dy * wid * 0.95)
    wrist = (tx - dx * wid * 1.55, ty - dy * wid * 1.55)
    far = (ex - dx * wid * 3, ey - dy * wid * 3)

    def pt(p):
        return int(round(p[0] * 4)), int(round(p[1] * 4))

    h, w = image.shape[:2]
    # The hand's shadow first, offset and soft.
    shade = np.zeros((h // 4 + 1, w // 4 + 1), np.uint8)
    off = wid * 0.25
    poly = np.array([[far[0] + nx * wid * 0.42 + off, far[1] + ny * wid * 0.42 + off],
                     [far[0] - nx * wid * 0.42 + off, far[1] - ny * wid * 0.42 + off],
                     [tx - nx * wid * 0.5 + off, ty - ny * wid * 0.5 + off],
                     [tx + nx * wid * 0.5 + off, ty + ny * wid * 0.5 + off]]) / 4
    cv2.fillConvexPoly(shade, np.round(poly).astype(np.int32), 110)
    shade = cv2.GaussianBlur(shade, (0, 0), max(1.0, wid / 12))
    shade = cv2.resize(shade, (w, h), interpolation=cv2.INTER_LINEAR)
    image[:] = cv2.multiply(image, cv2.cvtColor(255 - shade, cv2.COLOR_GRAY2BGR), scale=1 / 255)

    skin = tuple(int(c) for c in hand.skin)
    arm = tuple(int(c) for c in hand.sleeve) if hand.sleeve else skin
    # forearm
    cv2.line(image, pt(far), pt(wrist), arm, int(wid * 0.8), cv2.LINE_AA, 2)
    cv2.line(image, pt(wrist), pt(palm_c), skin, int(wid * 0.62), cv2.LINE_AA, 2)
    cv2.ellipse(image, pt(palm_c), (int(wid * 0.45 * 4), int(wid * 0.5 * 4)),
                math.degrees(math.atan2(dy, dx)), 0, 360, skin, -1, cv2.LINE_AA, 2)
    # four fingers and a thumb
    for k, (spread, reach) in enumerate(((-0.33, 0.95), (-0.11, 1.05), (0.11, 1.0), (0.32, 0.85))):
        base = (palm_c[0] + dx * wid * 0.3 + nx * wid * spread, palm_c[1] + dy * wid * 0.3 + ny * wid * spread)
        end = (base[0] + (dx + nx * spread * 0.4) * wid * reach * 0.7, base[1] + (dy + ny * spread * 0.4) * wid * reach * 0.7)
        cv2.line(image, pt(base), pt(end), skin, max(2, int(wid * 0.17)), cv2.LINE_AA, 2)
        cv2.line(image, pt(base), pt(end), tuple(int(c * 0.85) for c in skin), 1, cv2.LINE_AA, 2)
    thumb0 = (palm_c[0] - nx * wid * 0.38, palm_c[1] - ny * wid * 0.38)
    thumb1 = (thumb0[0] + (dx * 0.5 - nx * 0.8) * wid * 0.55, thumb0[1] + (dy * 0.5 - ny * 0.8) * wid * 0.55)
    cv2.line(image, pt(thumb0), pt(thumb1), skin, max(2, int(wid * 0.2)), cv2.LINE_AA, 2)


# ------------------------------------------------------------------------- public API

@dataclass(frozen=True, eq=False)
class SceneTruth:
    """What a rendered scene really shows."""

    dice: tuple[Die, ...]            # in the order the faces were asked for; confidence 1.0
    dice_set: str
    size: tuple[int, int]            # (width, height)
    image_from_mat: np.ndarray | None = None   # 3x3, mat mm -> image px (background="mat")
    mat_size: str | None = None
    die_px: float = 0.0              # nominal die size in pixels
    hands: tuple[Hand, ...] = ()

    @property
    def faces(self) -> list[str]:
        return [d.face for d in self.dice]

    def roll(self) -> Roll:
        """The truth as a Roll (reading order: top to bottom, left to right)."""
        ordered = sorted(self.dice, key=lambda d: (round(d.y / max(self.die_px, 1)), d.x))
        return Roll(dice=tuple(ordered), dice_set=self.dice_set, frame_size=self.size, notes=("synthetic",))


def check_faces(faces, dice_set: str) -> list[str]:
    """Face names as strings, checked against ``dice_set`` (ValueError says what is valid)."""
    if dice_set not in FACE_SETS and dice_set not in _DRAWN_SETS:
        raise ValueError(f"unknown dice set {dice_set!r}; the renderer draws {', '.join(FACE_SETS)}")
    valid = faces_of(dice_set)
    out = [str(f) for f in faces]
    bad = [f for f in out if f not in valid]
    if bad:
        raise ValueError(f"{', '.join(map(repr, bad))} not a face of {dice_set} ({', '.join(valid)})")
    return out


def render_scene(faces, dice_set: str = "d6-pips", seed: int = 0, size: tuple[int, int] = (640, 480),
                 background: str = "tray", positions=None, die_px: float | None = None,
                 mat_size: str = "A4", area: str | None = None, hands: int = 0,
                 tilt: float = 6.0, touching: float = 0.25, same_style: bool | None = None,
                 style: DieStyle | None = None, lighting: Lighting | None = None,
                 camera_tilt: float = 14.0) -> tuple[np.ndarray, SceneTruth]:
    """Render dice showing ``faces`` (one per die) and return ``(BGR image, SceneTruth)``.

    Deterministic from ``seed``. ``positions``: optional centres of the dice's top faces in
    image pixels (else
    random, never overlapping; about ``touching`` of them against a neighbour). ``die_px``:
    die size in pixels (default random 20-56 at 640x480; with the mat it follows the mat's
    scale). ``area``: with the mat, put the random positions in its ``"rolling"`` or ``"keep"``
    area. ``hands``: number of arms reaching in (dice under a hand stay in the truth).
    ``tilt``: the largest die tilt in degrees.
    ``same_style``: all dice alike (default: random, like a real set or a mixed bag);
    ``style``: this look for every die. ``lighting``: fixed light, blur and noise (else random).
    ``camera_tilt``: the camera's largest tilt from straight down, degrees (perspective;
    default 14, like a phone or a Pi camera on an arm; 0 = straight down).
    """
    faces = check_faces(faces, dice_set)
    rng = np.random.default_rng([seed, 2])
    table = Table(size, seed, background=background, die_px=die_px, mat_size=mat_size, lighting=lighting,
                  tilt_deg=camera_tilt)
    if positions is not None:
        if len(positions) != len(faces):
            raise ValueError(f"{len(positions)} positions given for {len(faces)} faces")
        places = [(*table.camera.to_table(float(x), float(y), DIE_MM), float(rng.uniform(0, 360)))
                  for x, y in positions]
    else:
        region = table.mat_region(area or "rolling") if (area or background == "mat") else None
        places = table.random_positions(len(faces), rng, touching=touching, region=region)
    if same_style is None:
        same_style = dice_set != "d6-pips" or rng.random() < 0.35
    swirl = dice_set == "d6-pips"
    shared = style or random_style(rng, swirl)
    same_style = same_style or style is not None
    poses = []
    for face, (x, y, yaw) in zip(faces, places):
        style = shared if same_style else random_style(rng, swirl)
        poses.append(DiePose(face=face, x=x, y=y, yaw=yaw, tilt=float(rng.uniform(0, tilt)),
                             tilt_axis=float(rng.uniform(0, 360)), style=style,
                             size_mm=DIE_MM * float(rng.uniform(0.97, 1.03))))
    hand_list = [random_hand(table.size, rng, reach=float(rng.uniform(0.4, 1.0)), die_px=table.die_px)
                 for _ in range(hands)]
    image, dice = table.draw(poses, dice_set, rng, hands=hand_list)
    truth = SceneTruth(dice=tuple(dice), dice_set=dice_set, size=table.size, image_from_mat=table.image_from_mat,
                       mat_size=mat_size if background == "mat" else None, die_px=table.die_px,
                       hands=tuple(hand_list))
    return image, truth


def render_face_crop(dice_set: str, face: str, seed: int = 0, size: int = 64, fill: float = 0.6,
                     tilt: float = 6.0, style: DieStyle | None = None) -> np.ndarray:
    """One die showing ``face``, roughly centred in a ``size`` x ``size`` BGR crop with a bit of
    table around it (the die is about ``fill`` of the crop wide), in a random pose, colour and
    light. For teaching and classifier tests."""
    (face,) = check_faces([face], dice_set)
    rng = np.random.default_rng([seed, 3])
    die_px = size * fill
    table = Table((size, size), seed, die_px=die_px, tilt_deg=4.0)
    offset = rng.uniform(-0.06, 0.06, 2) * size
    x, y = table.camera.to_table(size / 2 + offset[0], size / 2 + offset[1], DIE_MM)
    style = style or random_style(rng, dice_set == "d6-pips")
    pose = DiePose(face=face, x=x, y=y, yaw=float(rng.uniform(0, 360)), tilt=float(rng.uniform(0, tilt)),
                   tilt_axis=float(rng.uniform(0, 360)), style=style)
    image, _ = table.draw([pose], dice_set, rng)
    return image
