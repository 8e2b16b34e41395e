"""Random die faces for training the taught-dice embedding (``train_embedding``).

A taught die set can carry any six pictures, so the embedding that reads taught dice is
trained on thousands of made-up die sets, each six random symbols drawn here: faces that
differ in how many small marks (dots, squares, stars, rings, hearts ...) they carry, at
random places or on a circle (the standard pip layouts are not drawn on purpose), dots at
random places, letters and digits in OpenCV's
Hershey fonts, polygons, stars, rings, crescents, crosses, arrows, bars, scribbled strokes
and small compositions of these. It never sees the built-in sets' stand-in icons
(``vision.icons``) nor any labelled real die, so reading those after teaching stays a fair
test of few-shot learning.

``symbol_set(seed)`` registers a set with the renderer (``vision.synth.register_face_set``)
and returns its name; the faces are "S0".."S5".
"""
from __future__ import annotations

import math
import string

import cv2
import numpy as np

from vision import synth

FACES = ("S0", "S1", "S2", "S3", "S4", "S5")
LINE = cv2.LINE_AA
SHIFT = 4
ONE = 1 << SHIFT
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)
GLYPHS = string.ascii_uppercase + string.digits + "#$%&*+?@"
FAMILIES = ("count", "dots", "glyph", "shape", "strokes", "combo")
FAMILY_SHARE = (0.3, 0.1, 0.2, 0.15, 0.1, 0.15)
MARKS = ("dot", "dot", "dot", "square", "star", "ring", "cross", "triangle", "heart")


def _pt(size, x, y):
    return int(round(x * size * ONE)), int(round(y * size * ONE))


def _polygon(rng, n, star=False):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n)) if rng.random() < 0.3 else \
        np.linspace(0, 2 * np.pi, n, endpoint=False) + rng.uniform(0, np.pi)
    radii = np.ones(n)
    if star:
        angles = np.linspace(0, 2 * np.pi, 2 * n, endpoint=False) + rng.uniform(0, np.pi)
        radii = np.tile([1.0, rng.uniform(0.35, 0.6)], n)
    return np.column_stack([np.cos(angles) * radii, np.sin(angles) * radii])


def random_shape(rng) -> dict:
    """One drawing instruction in unit coordinates (the face is 0..1)."""
    kind = rng.choice(["polygon", "star", "circle", "ring", "crescent", "cross", "arrow", "bars", "line"])
    return {"kind": str(kind), "x": float(rng.uniform(0.4, 0.6)), "y": float(rng.uniform(0.4, 0.6)),
            "r": float(rng.uniform(0.18, 0.32)), "angle": float(rng.uniform(0, 360)),
            "n": int(rng.integers(3, 9)), "filled": bool(rng.random() < 0.7),
            "width": float(rng.uniform(0.04, 0.1)), "points": _polygon(rng, int(rng.integers(3, 8))).tolist(),
            "star": _polygon(rng, int(rng.integers(4, 8)), star=True).tolist(),
            "bars": int(rng.integers(1, 4)), "aspect": float(rng.uniform(0.25, 0.6))}


def _draw_shape(canvas, spec, ink, hole, scale=1.0, dx=0.0, dy=0.0):
    size = canvas.shape[0]
    x, y, r = spec["x"] + dx, spec["y"] + dy, spec["r"] * scale
    a = math.radians(spec["angle"])
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    width = max(1, int(round(spec["width"] * size * scale)))
    kind = spec["kind"]

    def poly(points):
        pts = (np.asarray(points) @ rot.T) * r + (x, y)
        arr = np.array([_pt(size, px, py) for px, py in pts], np.int32)
        if spec["filled"]:
            cv2.fillPoly(canvas, [arr], ink, LINE, SHIFT)
        else:
            cv2.polylines(canvas, [arr], True, ink, width, LINE, SHIFT)

    if kind == "polygon":
        poly(spec["points"])
    elif kind == "star":
        poly(spec["star"])
    elif kind == "circle":
        cv2.circle(canvas, _pt(size, x, y), int(r * size * ONE), ink, -1 if spec["filled"] else width, LINE, SHIFT)
    elif kind == "ring":
        cv2.circle(canvas, _pt(size, x, y), int(r * size * ONE), ink, max(width, 2), LINE, SHIFT)
    elif kind == "crescent":
        cv2.circle(canvas, _pt(size, x, y), int(r * size * ONE), ink, -1, LINE, SHIFT)
        cv2.circle(canvas, _pt(size, x + 0.45 * r * math.cos(a), y + 0.45 * r * math.sin(a)),
                   int(0.85 * r * size * ONE), hole, -1, LINE, SHIFT)
    elif kind == "cross":
        for t in (0.0, math.pi / 2):
            u = (math.cos(a + t) * r, math.sin(a + t) * r)
            cv2.line(canvas, _pt(size, x - u[0], y - u[1]), _pt(size, x + u[0], y + u[1]), ink, max(width, 2), LINE, SHIFT)
    elif kind == "arrow":
        u = (math.cos(a) * r, math.sin(a) * r)
        tip = (x + u[0], y + u[1])
        cv2.line(canvas, _pt(size, x - u[0], y - u[1]), _pt(size, *tip), ink, max(width, 2), LINE, SHIFT)
        for t in (2.5, -2.5):
            cv2.line(canvas, _pt(size, *tip), _pt(size, tip[0] + 0.5 * r * math.cos(a + t),
                                                  tip[1] + 0.5 * r * math.sin(a + t)), ink, max(width, 2), LINE, SHIFT)
    elif kind == "bars":
        n = spec["bars"]
        for k in range(n):
            off = (k - (n - 1) / 2) * 2.2 * spec["aspect"] * r * 0.6
            pts = np.array([[-1, -spec["aspect"] * 0.6], [1, -spec["aspect"] * 0.6], [1, spec["aspect"] * 0.6],
                            [-1, spec["aspect"] * 0.6]]) + (0, off / r)
            pts = (pts @ rot.T) * r + (x, y)
            cv2.fillPoly(canvas, [np.array([_pt(size, px, py) for px, py in pts], np.int32)], ink, LINE, SHIFT)
    else:  # line
        u = (math.cos(a) * r * 1.3, math.sin(a) * r * 1.3)
        cv2.line(canvas, _pt(size, x - u[0], y - u[1]), _pt(size, x + u[0], y + u[1]), ink, max(width, 2), LINE, SHIFT)


def random_dots(rng) -> dict:
    """1-9 dots at random places (kept apart), not on the pip grid."""
    n = int(rng.integers(1, 10))
    r = float(rng.uniform(0.05, 0.11))
    dots = _scatter(rng, n, 2.4 * r, tries=200)
    return {"kind": "dots", "dots": dots, "r": r,
            "sizes": rng.uniform(0.8, 1.25, len(dots)).tolist() if rng.random() < 0.3 else [1.0] * len(dots)}


def _scatter(rng, n, apart, tries):
    """Up to ``n`` random centres in the face's middle, each more than ``apart`` from the
    others (fewer when ``tries`` draws do not find room)."""
    pts = []
    for _ in range(tries):
        if len(pts) == n:
            break
        p = rng.uniform(0.2, 0.8, 2)
        if all(np.hypot(*(p - q)) > apart for q in pts):
            pts.append(p)
    return [tuple(map(float, p)) for p in pts]


def _spread_points(rng, n, r, layout):
    """``n`` centres in the face kept 2.6 r apart (marks never touch): anywhere, or on a circle."""
    if n == 0:
        return []
    if layout == "circle" and n > 1:
        radius = float(rng.uniform(0.18, 0.3))
        a0 = rng.uniform(0, 2 * np.pi)
        return [(0.5 + radius * math.cos(a0 + 2 * np.pi * k / n), 0.5 + radius * math.sin(a0 + 2 * np.pi * k / n))
                for k in range(n)]
    return _scatter(rng, n, 2.6 * r, tries=400)


def count_specs(rng) -> list[dict]:
    """Six faces showing different numbers (0-9) of one small mark: faces told apart only by
    how many marks they carry, like many custom dice. The marks lie at random places or on
    a circle; the standard pip layouts are never drawn on purpose (a random layout can come
    close to one now and then)."""
    mark = str(rng.choice(MARKS))
    counts = rng.permutation(np.arange(0 if rng.random() < 0.2 else 1, 10))[:6]
    r = float(rng.uniform(0.045, 0.09))
    angle = float(rng.uniform(0, 360))
    specs = []
    for n in counts:
        layout = "circle" if rng.random() < 0.3 else "random"
        specs.append({"kind": "marks", "mark": mark, "r": r, "angle": angle,
                      "points": _spread_points(rng, int(n), r, layout)})
    return specs


def _draw_mark(canvas, mark, x, y, r, angle, ink, hole):
    size = canvas.shape[0]
    if mark == "dot":
        cv2.circle(canvas, _pt(size, x, y), int(r * size * ONE), ink, -1, LINE, SHIFT)
        return
    if mark == "ring":
        cv2.circle(canvas, _pt(size, x, y), int(r * size * ONE), ink, max(1, int(r * size * 0.45)), LINE, SHIFT)
        return
    spec = {"kind": {"square": "polygon", "triangle": "polygon", "star": "star", "cross": "cross",
                     "heart": "polygon"}[mark], "x": x, "y": y, "r": r * 1.25, "angle": angle, "filled": True,
            "width": r * 0.5, "points": _polygon(np.random.default_rng(3 if mark == "triangle" else 4),
                                                    3 if mark == "triangle" else 4).tolist(),
            "star": _polygon(np.random.default_rng(5), 5, star=True).tolist()}
    if mark == "heart":
        t = np.linspace(0, 2 * np.pi, 24)
        spec["points"] = np.column_stack([16 * np.sin(t) ** 3 / 16,
                                          -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)) / 16]).tolist()
    _draw_shape(canvas, spec, ink, hole)


def random_glyph(rng) -> dict:
    return {"kind": "glyph", "text": str(rng.choice(list(GLYPHS))) if rng.random() < 0.85 else
            "".join(rng.choice(list(GLYPHS), 2)), "font": int(rng.choice(FONTS)),
            "thick": float(rng.uniform(0.05, 0.12)), "fill": float(rng.uniform(0.45, 0.7)),
            "angle": float(rng.choice([0.0, 0.0, 90.0, rng.uniform(0, 360)]))}


def random_strokes(rng) -> dict:
    strokes = []
    for _ in range(int(rng.integers(1, 4))):
        pts = np.cumsum(rng.normal(0, 0.15, (int(rng.integers(3, 7)), 2)), axis=0)
        pts = pts - pts.mean(axis=0) + rng.uniform(0.4, 0.6, 2)
        strokes.append(np.clip(pts, 0.18, 0.82).tolist())
    return {"kind": "strokes", "strokes": strokes, "width": float(rng.uniform(0.04, 0.1))}


def random_symbol(rng, family: str) -> dict:
    if family == "dots":
        return random_dots(rng)
    if family == "glyph":
        return random_glyph(rng)
    if family == "strokes":
        return random_strokes(rng)
    if family == "combo":
        parts = []
        for k in range(int(rng.integers(2, 4))):
            s = random_shape(rng)
            s["r"] *= 0.55
            s["x"], s["y"] = (float(v) for v in rng.uniform(0.3, 0.7, 2))
            parts.append(s)
        return {"kind": "combo", "parts": parts}
    return {"kind": "shape", "shape": random_shape(rng)}


def draw_symbol(canvas: np.ndarray, spec: dict, ink, hole) -> None:
    size = canvas.shape[0]
    ink = tuple(int(c) for c in ink)
    hole = tuple(int(c) for c in hole)
    kind = spec["kind"]
    if kind == "marks":
        for x, y in spec["points"]:
            _draw_mark(canvas, spec["mark"], x, y, spec["r"], spec["angle"], ink, hole)
    elif kind == "dots":
        for (x, y), k in zip(spec["dots"], spec["sizes"]):
            cv2.circle(canvas, _pt(size, x, y), int(spec["r"] * k * size * ONE), ink, -1, LINE, SHIFT)
    elif kind == "glyph":
        font, text = spec["font"], spec["text"]
        thick = max(1, int(round(spec["thick"] * size * 0.5)))
        (tw, th), base = cv2.getTextSize(text, font, 1.0, thick)
        scale = spec["fill"] * size / max(tw, th + base, 1)
        thick = max(1, int(round(spec["thick"] * size * 0.5)))
        (tw, th), base = cv2.getTextSize(text, font, scale, thick)
        layer = np.zeros((size, size), np.uint8)
        cv2.putText(layer, text, (int((size - tw) / 2), int((size + th) / 2)), font, scale, 255, thick, LINE)
        if spec["angle"]:
            m = cv2.getRotationMatrix2D((size / 2, size / 2), spec["angle"], 1.0)
            layer = cv2.warpAffine(layer, m, (size, size))
        alpha = layer.astype(np.float32)[..., None] / 255
        canvas[:] = (canvas * (1 - alpha) + np.array(ink, np.float32) * alpha).astype(np.uint8)
    elif kind == "strokes":
        width = max(1, int(round(spec["width"] * size)))
        for pts in spec["strokes"]:
            arr = np.array([_pt(size, x, y) for x, y in pts], np.int32)
            cv2.polylines(canvas, [arr], False, ink, width, LINE, SHIFT)
    elif kind == "combo":
        for part in spec["parts"]:
            _draw_shape(canvas, part, ink, hole)
    elif kind == "shape":
        _draw_shape(canvas, spec["shape"], ink, hole)
    # "blank": nothing


def symbol_specs(seed: int) -> list[dict]:
    """Six different symbols: mostly one family per set (like real dice), sometimes mixed,
    now and then one blank face."""
    rng = np.random.default_rng([seed, 4242])
    family = str(rng.choice(FAMILIES, p=FAMILY_SHARE))
    if family == "count":
        return count_specs(rng)
    mixed = rng.random() < 0.35
    specs = []
    for _ in range(6):
        fam = str(rng.choice(FAMILIES[1:])) if mixed else family
        specs.append(random_symbol(rng, fam))
    if rng.random() < 0.1:
        specs[int(rng.integers(6))] = {"kind": "blank"}
    return specs


# Faces no pip die shows, for teaching the pip face reader that a die with numerals, letters
# or pictures is not a pip die ("no die" to it): glyphs, strokes and shapes, never dots,
# rings, discs or compositions of small parts (those can look like pips).
NOT_PIP_FAMILIES = ("glyph", "glyph", "strokes", "shape")
PIP_LIKE_SHAPES = ("circle", "ring")


def not_pip_specs(seed: int) -> list[dict]:
    """Six different faces unlike any pip face (``NOT_PIP_FAMILIES``), one family per set
    as on most real dice (numeral dice, letter dice, picture dice)."""
    rng = np.random.default_rng([seed, 4343])
    family = str(rng.choice(NOT_PIP_FAMILIES))
    specs = []
    while len(specs) < 6:
        spec = random_symbol(rng, family)
        if spec["kind"] != "shape" or spec["shape"]["kind"] not in PIP_LIKE_SHAPES:
            specs.append(spec)
    return specs


def mark_count(spec: dict) -> int:
    """How many separate marks a face shows when that is well defined (count and dot faces,
    blank faces), else -1."""
    if spec["kind"] == "blank":
        return 0
    points = spec.get("points") if spec["kind"] == "marks" else spec.get("dots") if spec["kind"] == "dots" else None
    if points is None:
        return -1
    r = spec["r"] * (max(spec.get("sizes", [1.0]) or [1.0]))
    if any(math.hypot(a[0] - b[0], a[1] - b[1]) < 2.5 * r for i, a in enumerate(points) for b in points[i + 1:]):
        return -1  # marks touching: their number is not clear
    return len(points)


def symbol_counts(seed: int) -> list[int]:
    """``mark_count`` of each face of set ``seed``."""
    return [mark_count(spec) for spec in symbol_specs(seed)]


def _about_centre(point, spread, rng, wobble):
    return tuple(float(0.5 + spread * (v - 0.5) + rng.normal(0, wobble)) for v in point)


def maker_variant(spec: dict, rng) -> dict:
    """The same face as another maker might print it: marks a little closer together or
    further apart, a little bigger or smaller, each nudged; other symbols a little bigger or
    smaller as a whole, strokes thicker or thinner. What makes the face itself (how many
    marks, their rough arrangement, the shape) is kept, so an embedding trained on such
    variants learns to look past a printing's spread and weight (two dice of one face from
    two makers), not past the face."""
    spread = float(rng.uniform(0.82, 1.15))
    size = float(rng.uniform(0.78, 1.25))
    out = dict(spec)
    kind = spec["kind"]
    if kind == "marks":
        out["points"] = [_about_centre(p, spread, rng, 0.012) for p in spec["points"]]
        out["r"] = spec["r"] * size
    elif kind == "dots":
        out["dots"] = [_about_centre(p, spread, rng, 0.012) for p in spec["dots"]]
        out["r"] = spec["r"] * size
    elif kind == "glyph":
        out["fill"] = spec["fill"] * spread
        out["thick"] = spec["thick"] * size
    elif kind == "strokes":
        out["strokes"] = [[_about_centre(p, spread, rng, 0.0) for p in pts] for pts in spec["strokes"]]
        out["width"] = spec["width"] * size
    elif kind in ("shape", "combo"):
        parts = [spec["shape"]] if kind == "shape" else spec["parts"]
        moved = []
        for part in parts:
            q = dict(part)
            q["x"], q["y"] = _about_centre((part["x"], part["y"]), spread, rng, 0.0)
            q["r"] = part["r"] * spread
            q["width"] = part["width"] * size
            moved.append(q)
        if kind == "shape":
            out["shape"] = moved[0]
        else:
            out["parts"] = moved
    return out


def symbol_set(seed: int, variant: np.random.Generator | None = None, not_pips: bool = False) -> str:
    """Register die set ``symbols-SEED`` with the renderer; returns its name. With a
    ``variant`` generator: a maker's variant of that set (``maker_variant`` of each face),
    registered under a name of its own. ``not_pips``: a set of faces no pip die shows
    (``not_pip_specs``), named ``not-pips-SEED``."""
    specs = dict(zip(FACES, not_pip_specs(seed) if not_pips else symbol_specs(seed)))
    name = f"not-pips-{seed}" if not_pips else f"symbols-{seed}"
    if variant is not None:
        specs = {face: maker_variant(spec, variant) for face, spec in specs.items()}
        name = f"{name}-v{int(variant.integers(1 << 30))}"

    def draw(canvas, face, ink, hole):
        draw_symbol(canvas, specs[face], ink, hole)

    synth.register_face_set(name, FACES, draw)
    return name
