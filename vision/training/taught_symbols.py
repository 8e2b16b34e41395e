"""Training data for the taught-dice embedding: dice with *random* symbols, drawn here.

The embedding behind vision/taught.py must work for symbols nobody has shown it (a BELL, a
SNOWFLAKE, a printing we have never seen), so it learns from nothing but random symbols:
strokes, polygons, ellipses, scattered dots and letters in random places, sizes and colours,
on a die drawn in a random pose (turn, tilt showing one or two sides, size, offset in its box)
on a random table, with random light, blur, noise and JPEG loss. No photo and no real die's
face is used, so figures measured on real dice with it are honest few-shot figures.

``symbol(rng)`` makes one symbol (a list of drawing steps); ``view(sym, rng)`` renders one
crop of a die showing it. Two views of one symbol are "the same face".
"""
from __future__ import annotations

import cv2
import numpy as np

CROP = 32
FACE = 96  # face canvas side while drawing
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
         cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_PLAIN)
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789#@&%?!*+"


def _point(rng, lo=0.18, hi=0.82):
    return rng.uniform(lo, hi, 2)


def symbol(rng: np.random.Generator) -> list[tuple]:
    """A random symbol: 1-4 drawing steps in face coordinates (0..1)."""
    steps = []
    for _ in range(int(rng.integers(1, 5))):
        kind = rng.choice(["dots", "polygon", "stroke", "ellipse", "glyph", "ring"],
                          p=[0.25, 0.2, 0.2, 0.12, 0.15, 0.08])
        if kind == "dots":
            r = rng.uniform(0.06, 0.12)
            steps.append(("dots", r, [_point(rng) for _ in range(int(rng.integers(1, 7)))]))
        elif kind == "polygon":
            c, s = _point(rng, 0.3, 0.7), rng.uniform(0.15, 0.35)
            n = int(rng.integers(3, 8))
            ang = np.sort(rng.uniform(0, 2 * np.pi, n))
            rad = s * rng.uniform(0.5, 1.0, n)
            steps.append(("polygon", [c + r * np.array([np.cos(a), np.sin(a)]) for a, r in zip(ang, rad)]))
        elif kind == "stroke":
            steps.append(("stroke", rng.uniform(0.05, 0.1),
                          [_point(rng) for _ in range(int(rng.integers(2, 5)))]))
        elif kind == "ellipse":
            steps.append(("ellipse", _point(rng, 0.3, 0.7), rng.uniform(0.08, 0.25, 2),
                          rng.uniform(0, 180)))
        elif kind == "ring":
            steps.append(("ring", _point(rng, 0.3, 0.7), rng.uniform(0.1, 0.25), rng.uniform(0.03, 0.07)))
        else:
            steps.append(("glyph", LETTERS[int(rng.integers(len(LETTERS)))],
                          int(rng.integers(len(FONTS))), _point(rng, 0.3, 0.6), rng.uniform(1.2, 2.6)))
    return steps


def draw_symbol(canvas: np.ndarray, steps: list[tuple], ink) -> None:
    side = canvas.shape[0]

    def px(p):
        return tuple(int(round(v * side)) for v in p)

    for step in steps:
        kind = step[0]
        if kind == "dots":
            for p in step[2]:
                cv2.circle(canvas, px(p), max(1, int(step[1] * side)), ink, -1, cv2.LINE_AA)
        elif kind == "polygon":
            cv2.fillPoly(canvas, [np.array([px(p) for p in step[1]], np.int32)], ink, cv2.LINE_AA)
        elif kind == "stroke":
            pts = np.array([px(p) for p in step[2]], np.int32)
            cv2.polylines(canvas, [pts], False, ink, max(1, int(step[1] * side)), cv2.LINE_AA)
        elif kind == "ellipse":
            cv2.ellipse(canvas, px(step[1]), px(step[2]), step[3], 0, 360, ink, -1, cv2.LINE_AA)
        elif kind == "ring":
            cv2.circle(canvas, px(step[1]), int(step[2] * side), ink, max(1, int(step[3] * side)), cv2.LINE_AA)
        else:
            _, letter, font, org, scale = step
            cv2.putText(canvas, letter, px(org), FONTS[font], scale * side / 96, ink,
                        max(1, int(side / 40)), cv2.LINE_AA)


def _colour(rng):
    return tuple(int(v) for v in rng.integers(0, 256, 3))


def colours(rng) -> tuple[tuple, tuple]:
    """A die colour and an ink colour that stand out from it."""
    while True:
        body, ink = _colour(rng), _colour(rng)
        if abs(np.mean(body) - np.mean(ink)) + 0.5 * np.abs(np.subtract(body, ink)).max() > 110:
            return body, ink


def view(steps: list[tuple], rng: np.random.Generator, body=None, ink=None) -> np.ndarray:
    """One CROP x CROP BGR crop of a die showing ``steps`` on top, in a random pose and light."""
    if body is None:
        body, ink = colours(rng)
    face = np.zeros((FACE, FACE, 3), np.uint8)
    face[:] = body
    draw_symbol(face, steps, ink)
    canvas_side = 128
    bg = np.empty((canvas_side, canvas_side, 3), np.float32)
    bg[:] = _colour(rng) if rng.random() < 0.5 else (int(rng.integers(40, 250)),) * 3
    gx = np.linspace(-1, 1, canvas_side, dtype=np.float32)
    bg *= (1 + rng.uniform(-0.25, 0.25) * gx[None, :, None] + rng.uniform(-0.25, 0.25) * gx[:, None, None])
    bg += rng.normal(0, rng.uniform(0, 12), bg.shape).astype(np.float32)
    image = np.clip(bg, 0, 255).astype(np.uint8)
    # the top face: a square turned, slightly squashed (tilt), offset from the canvas centre
    size = rng.uniform(44, 64)
    angle = rng.uniform(0, 2 * np.pi)
    centre = canvas_side / 2 + rng.uniform(-4, 4, 2)
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * size / 2
    squash = np.diag([1.0, rng.uniform(0.8, 1.0)]).astype(np.float32)
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
    top = corners @ squash.T @ rot.T + centre
    top += rng.normal(0, size * 0.025, top.shape).astype(np.float32)  # perspective-ish
    # the sides: the top face pushed down along a random direction (camera not overhead)
    depth = rng.uniform(0.0, 0.35) * size
    direction = rng.uniform(0, 2 * np.pi)
    drop = depth * np.array([np.cos(direction), np.sin(direction)], np.float32)
    shadow = top + drop * 1.4 + rng.uniform(2, 6)
    shade = image.copy()
    cv2.fillConvexPoly(shade, cv2.convexHull(np.vstack([top, shadow]).astype(np.int32)), (0, 0, 0), cv2.LINE_AA)
    image = cv2.addWeighted(image, 0.65, shade, 0.35, 0)
    if depth > 1:
        hull = cv2.convexHull(np.vstack([top, top + drop]).astype(np.float32))
        side_colour = tuple(int(c * rng.uniform(0.45, 0.85)) for c in body)
        cv2.fillConvexPoly(image, hull.astype(np.int32), side_colour, cv2.LINE_AA)
        if rng.random() < 0.6:  # marks on a visible side
            for _ in range(int(rng.integers(1, 5))):
                t = rng.uniform(0.2, 0.8)
                k = int(rng.integers(4))
                p = top[k] * (1 - t) + top[(k + 1) % 4] * t + drop * rng.uniform(0.3, 0.7)
                cv2.circle(image, tuple(int(v) for v in p), max(1, int(size * 0.05)),
                           tuple(int(c * 0.8) for c in ink), -1, cv2.LINE_AA)
    m = cv2.getPerspectiveTransform(np.array([[0, 0], [FACE, 0], [FACE, FACE], [0, FACE]], np.float32),
                                    top.astype(np.float32))
    warped = cv2.warpPerspective(face, m, (canvas_side, canvas_side), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((FACE, FACE), 255, np.uint8), m, (canvas_side, canvas_side))
    mask = cv2.GaussianBlur(mask, (3, 3), 0)[:, :, None].astype(np.float32) / 255
    # light across the face: a gradient and maybe a glare spot
    light = 1 + rng.uniform(-0.3, 0.3) * (np.arange(canvas_side, dtype=np.float32)[None, :, None] / canvas_side - 0.5)
    face_lit = warped.astype(np.float32) * light
    if rng.random() < 0.2:
        g = np.zeros((canvas_side, canvas_side), np.float32)
        cv2.circle(g, tuple(int(v) for v in centre + rng.uniform(-size / 3, size / 3, 2)),
                   int(size * rng.uniform(0.1, 0.3)), 1.0, -1)
        face_lit += cv2.GaussianBlur(g, (0, 0), size * 0.1)[:, :, None] * rng.uniform(40, 120)
    image = (image.astype(np.float32) * (1 - mask) + face_lit * mask)
    # the die finder's box: the die's extent, jittered
    pts = np.vstack([top, top + drop])
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    box = max(x1 - x0, y1 - y0) * rng.uniform(0.95, 1.25)
    cx = (x0 + x1) / 2 + rng.uniform(-0.07, 0.07) * box
    cy = (y0 + y1) / 2 + rng.uniform(-0.07, 0.07) * box
    out_side = int(rng.integers(18, 48))  # dice are 20-60 px in frames
    scale = out_side / box
    a = np.array([[scale, 0, out_side / 2 - cx * scale], [0, scale, out_side / 2 - cy * scale]], np.float32)
    crop = cv2.warpAffine(np.clip(image, 0, 255).astype(np.uint8), a, (out_side, out_side),
                          flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.4:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 0.9))
    gain, gamma = rng.uniform(0.6, 1.4), rng.uniform(0.7, 1.4)
    crop = np.clip(255 * ((crop.astype(np.float32) * gain / 255).clip(0, 1) ** gamma)
                   + rng.normal(0, rng.uniform(0, 8), crop.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        crop = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return cv2.resize(crop, (CROP, CROP), interpolation=cv2.INTER_AREA if out_side > CROP else cv2.INTER_LINEAR)


def symbol_views(rng: np.random.Generator, views: int, same_colour: float = 0.6) -> np.ndarray:
    """``views`` crops of one new random symbol (views x CROP x CROP x 3)."""
    steps = symbol(rng)
    body, ink = colours(rng)
    out = []
    for _ in range(views):
        if rng.random() < same_colour:
            out.append(view(steps, rng, body, ink))
        else:
            out.append(view(steps, rng))
    return np.stack(out)
