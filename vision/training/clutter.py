"""Busy tables for training scenes: game boards under the dice and game pieces beside them.

The real photos the reader misses dice in are mostly busy ones: dice lying on a printed game
board of coloured hexes or squares, among tokens, cards, wooden pieces and plastic bits; and
most of its false finds there are those pieces (cord stoppers, boats, roads, round tokens
printed with numbers and dots). ``busy_table`` repaints a rendered table's backdrop as such a
board (in table millimetres, seen through the scene's own camera, so an oblique view
foreshortens it like the dice) and stands pieces on it, away from where the dice will go.
Nothing here is used at run time.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth import DIE_MM, Table, composite

# Board tile colours (BGR): woods and fields, pastures, hills, mountains, sand, sea, and
# printed-board brights.
TILE_COLOURS = [(40, 90, 40), (60, 140, 90), (60, 170, 200), (50, 80, 170), (120, 120, 120),
                (150, 200, 220), (160, 110, 40), (200, 150, 60), (30, 60, 110), (90, 60, 150),
                (70, 170, 150), (220, 220, 225), (40, 40, 45)]
# Game pieces (BGR): painted wood and plastic, natural wood, black, white, metal.
PIECE_COLOURS = [(40, 40, 200), (200, 80, 30), (40, 170, 40), (30, 200, 230), (230, 230, 230),
                 (30, 30, 30), (80, 140, 200), (160, 60, 140), (0, 120, 240), (150, 150, 150),
                 (100, 170, 220)]
MAX_PAGE_PX = 2000   # the board page's longer side; its scale drops to fit


def busy_table(table: Table, rng: np.random.Generator, dice_count: int) -> list[tuple[float, float]]:
    """Repaint ``table.backdrop`` as a game board with pieces standing on it; returns table
    points (mm) the dice must keep away from (``Table.random_positions(occupied=...)``).
    ``dice_count`` thins the pieces on a crowded table so the dice still fit."""
    page, image_from_page = board_page(table, rng)
    w, h = table.size
    board = cv2.warpPerspective(page, image_from_page, (w, h), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_REFLECT)
    # Keep the table's uneven light: the plain backdrop's brightness field scales the board.
    plain = table.backdrop.astype(np.float32)
    light = plain.mean(axis=2, keepdims=True) / max(float(plain.mean()), 1.0)
    image = np.clip(board.astype(np.float32) * light, 0, 255).astype(np.uint8)
    room = table.visible_region(margin_px=0)
    area = (room[2] - room[0]) * (room[3] - room[1])
    most = int(np.clip(area / (DIE_MM * 4) ** 2 - dice_count, 0, 14))
    taken = draw_pieces(image, table, rng, int(rng.integers(0, most + 1)), room)
    table.backdrop = image
    return taken


# ------------------------------------------------------------------------------ the board

def board_page(table: Table, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A board covering what the camera sees (table mm), and the page -> image homography."""
    w, h = table.size
    corners = np.array([table.camera.to_table(x, y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))])
    corners = np.clip(corners, -1500, 1500)
    x0, y0 = corners.min(axis=0) - 20
    x1, y1 = corners.max(axis=0) + 20
    ppm = min(2 * table.camera.pixels_per_mm(), MAX_PAGE_PX / max(x1 - x0, y1 - y0), 6.0)
    pw, ph = int((x1 - x0) * ppm) + 1, int((y1 - y0) * ppm) + 1
    # page pixel (u, v) -> table mm (x0 + u / ppm, y1 - v / ppm): rows run down, y runs up
    table_from_page = np.array([[1 / ppm, 0, x0], [0, -1 / ppm, y1], [0, 0, 1.0]])
    kind = rng.choice(["hexes", "squares", "wood", "cloth"], p=[0.4, 0.25, 0.2, 0.15])
    page = {"hexes": hex_board, "squares": square_board, "wood": wood_grain,
            "cloth": cloth}[kind](pw, ph, ppm, rng)
    for _ in range(int(rng.integers(0, 9))):
        print_item(page, ppm, rng)
    return page, table.camera.table_homography() @ table_from_page


def hex_board(pw: int, ph: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """Hex tiles of field colours with dark or light seams, each tile with its own marks."""
    page = _fill(ph, pw, TILE_COLOURS[int(rng.integers(len(TILE_COLOURS)))])
    radius = float(rng.uniform(1.5, 4.0)) * DIE_MM * ppm
    seam = max(1, int(rng.uniform(0.5, 3.0) * ppm))
    seam_colour = (20, 20, 20) if rng.random() < 0.5 else (200, 210, 215)
    step_x, step_y = 1.5 * radius, math.sqrt(3) * radius
    for col in range(int(pw / step_x) + 2):
        for row in range(int(ph / step_y) + 2):
            cx, cy = col * step_x, row * step_y + (step_y / 2 if col % 2 else 0)
            hexagon = np.array([(cx + radius * math.cos(a), cy + radius * math.sin(a))
                                for a in np.linspace(0, 2 * math.pi, 7)[:-1]], np.int32)
            colour = _jitter(TILE_COLOURS[int(rng.integers(len(TILE_COLOURS)))], rng)
            cv2.fillConvexPoly(page, hexagon, colour, cv2.LINE_AA)
            _tile_marks(page, (cx, cy), radius * 0.7, colour, ppm, rng)
            cv2.polylines(page, [hexagon], True, seam_colour, seam, cv2.LINE_AA)
    return page


def square_board(pw: int, ph: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A grid of squares (a track or a chequered board), some printed with numbers."""
    side = float(rng.uniform(1.2, 4.0)) * DIE_MM * ppm
    colours = [_jitter(TILE_COLOURS[int(i)], rng) for i in rng.integers(len(TILE_COLOURS), size=3)]
    page = _fill(ph, pw, colours[0])
    line = (20, 20, 20) if rng.random() < 0.6 else (230, 230, 230)
    for col in range(int(pw / side) + 1):
        for row in range(int(ph / side) + 1):
            colour = colours[(col + row) % 2] if rng.random() < 0.7 else colours[2]
            p0 = (int(col * side), int(row * side))
            p1 = (int((col + 1) * side), int((row + 1) * side))
            cv2.rectangle(page, p0, p1, colour, -1)
            cv2.rectangle(page, p0, p1, line, max(1, int(0.4 * ppm)), cv2.LINE_AA)
            if rng.random() < 0.3:
                _text(page, str(int(rng.integers(1, 100))), (p0[0] + side * 0.2, p0[1] + side * 0.7),
                      side * 0.4, _contrast(colour), rng)
    return page


def wood_grain(pw: int, ph: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A wooden table top: streaks along one direction, planks' seams across."""
    base = np.array(_jitter((60, 110, 160), rng, 40), np.float32)
    streaks = rng.standard_normal((8, max(2, ph // 3))).astype(np.float32)
    streaks = cv2.resize(streaks, (ph, pw), interpolation=cv2.INTER_CUBIC).T   # along x
    grain = cv2.resize(rng.standard_normal((max(2, ph // 2), 4)).astype(np.float32), (pw, ph))
    shade = 1 + 0.12 * streaks + 0.06 * grain
    page = np.ascontiguousarray(np.clip(base[None, None] * shade[..., None], 0, 255).astype(np.uint8))
    plank = rng.uniform(60, 200) * ppm
    for y in np.arange(rng.uniform(0, plank), ph, plank):
        cv2.line(page, (0, int(y)), (pw, int(y)), tuple(int(c * 0.45) for c in base), max(1, int(ppm * 0.8)))
    return page


def cloth(pw: int, ph: int, ppm: float, rng: np.random.Generator) -> np.ndarray:
    """A patterned cloth: stripes or checks over a felt colour."""
    page = _fill(ph, pw, _jitter(TILE_COLOURS[int(rng.integers(len(TILE_COLOURS)))], rng))
    colour = _jitter(TILE_COLOURS[int(rng.integers(len(TILE_COLOURS)))], rng)
    pitch = float(rng.uniform(0.5, 3.0)) * DIE_MM * ppm
    width = max(1, int(pitch * rng.uniform(0.1, 0.5)))
    for k in range(int(max(pw, ph) / pitch) + 1):
        p = int(k * pitch)
        cv2.line(page, (p, 0), (p, ph), colour, width)
        if rng.random() < 0.5:
            cv2.line(page, (0, p), (pw, p), colour, width)
    return page


def print_item(page: np.ndarray, ppm: float, rng: np.random.Generator) -> None:
    """One printed thing on the board: a number token (a disc with a number and dots under
    it, much like a die's pips), a card, a road, or words."""
    ph, pw = page.shape[:2]
    cx, cy = rng.uniform(0, pw), rng.uniform(0, ph)
    kind = rng.choice(["token", "card", "road", "text"])
    ink = PIECE_COLOURS[int(rng.integers(len(PIECE_COLOURS)))]
    if kind == "token":
        r = rng.uniform(0.6, 1.3) * DIE_MM * ppm
        cv2.circle(page, (int(cx), int(cy)), int(r), (170, 215, 235), -1, cv2.LINE_AA)
        ink = (30, 30, 30) if rng.random() < 0.6 else (30, 30, 190)
        _text(page, str(int(rng.integers(2, 13))), (cx - r * 0.45, cy + r * 0.2), r * 0.8, ink, rng)
        dots = int(rng.integers(1, 6))
        for k in range(dots):
            x = cx + (k - (dots - 1) / 2) * r * 0.22
            cv2.circle(page, (int(x), int(cy + r * 0.55)), max(1, int(r * 0.08)), ink, -1, cv2.LINE_AA)
    elif kind == "card":
        cw, ch = rng.uniform(2.5, 4.5) * DIE_MM * ppm, rng.uniform(3.5, 6) * DIE_MM * ppm
        box = cv2.boxPoints(((cx, cy), (cw, ch), float(rng.uniform(0, 180)))).astype(np.int32)
        cv2.fillConvexPoly(page, box, _jitter((235, 235, 235), rng, 20), cv2.LINE_AA)
        cv2.polylines(page, [box], True, ink, max(1, int(ppm)), cv2.LINE_AA)
        for k in range(int(rng.integers(1, 5))):
            _text(page, "".join(rng.choice(list("ABCDEFGHKMNRSTW"), int(rng.integers(2, 7)))),
                  (cx - cw * 0.35, cy - ch * 0.2 + k * ch * 0.12), ch * 0.08, ink, rng)
    elif kind == "road":
        length = rng.uniform(2, 6) * DIE_MM * ppm
        a = rng.uniform(0, math.pi)
        p1 = (int(cx + length * math.cos(a)), int(cy + length * math.sin(a)))
        cv2.line(page, (int(cx), int(cy)), p1, ink, max(2, int(rng.uniform(2, 6) * ppm)), cv2.LINE_AA)
    else:
        _text(page, "".join(rng.choice(list("ABCDEFGHIKLMNOPRSTUW0123456789"), int(rng.integers(3, 9)))),
              (cx, cy), rng.uniform(0.3, 1.2) * DIE_MM * ppm, ink, rng)


def _tile_marks(page, centre, reach, colour, ppm, rng) -> None:
    """Trees, furrows, rocks or waves printed on a tile, in a darker or lighter tone."""
    kind = rng.choice(["trees", "furrows", "rocks", "waves", "none"])
    tone = tuple(int(np.clip(c * rng.choice([0.6, 1.35]), 0, 255)) for c in colour)
    cx, cy = centre
    for _ in range(int(rng.integers(3, 12)) if kind != "none" else 0):
        x, y = cx + rng.uniform(-reach, reach), cy + rng.uniform(-reach, reach)
        s = rng.uniform(0.15, 0.45) * DIE_MM * ppm
        if kind == "trees":
            pts = np.array([(x, y - s), (x - s * 0.6, y + s * 0.5), (x + s * 0.6, y + s * 0.5)], np.int32)
            cv2.fillConvexPoly(page, pts, tone, cv2.LINE_AA)
        elif kind == "furrows":
            cv2.line(page, (int(x - s), int(y)), (int(x + s), int(y - s * 0.3)), tone, max(1, int(s * 0.2)))
        elif kind == "rocks":
            cv2.ellipse(page, (int(x), int(y)), (int(s * 0.7), int(s * 0.45)), float(rng.uniform(0, 180)),
                        0, 360, tone, -1, cv2.LINE_AA)
        else:
            cv2.ellipse(page, (int(x), int(y)), (int(s), int(s * 0.4)), 0, 200, 340, tone,
                        max(1, int(s * 0.15)), cv2.LINE_AA)


# ------------------------------------------------------------------------------ the pieces

def draw_pieces(image: np.ndarray, table: Table, rng: np.random.Generator, count: int,
                room: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    """Stand ``count`` pieces (prisms, cylinders with or without a hole, beads) on the table
    inside ``room`` (table mm), shadows first, far ones first; returns the table points the
    dice must keep away from."""
    cam = table.camera.centre
    pieces = [random_piece(rng, room) for _ in range(count)]
    pieces.sort(key=lambda p: -math.hypot(p["x"] - cam[0], p["y"] - cam[1]))
    for piece in pieces:
        _piece_shadow(image, table, piece)
    for piece in pieces:
        if piece["kind"] == "bead":
            _draw_bead(image, table, piece)
        else:
            _draw_prism(image, table, piece)
    taken = []
    for piece in pieces:
        foot = piece["foot"]
        taken.append((piece["x"], piece["y"]))
        taken.extend((float(x), float(y)) for x, y in foot[:: max(1, len(foot) // 6)])
    return taken


def random_piece(rng: np.random.Generator, room) -> dict:
    """A piece's footprint (table mm polygon), height and colour. No cubes: a cube is a die's
    shape, and a die with blank faces is still a die to the finder."""
    x0, y0, x1, y1 = room
    x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
    kind = str(rng.choice(["bar", "cylinder", "stopper", "hexagon", "house", "bead", "disc"]))
    turn = float(rng.uniform(0, 2 * math.pi))
    size = DIE_MM * float(rng.uniform(0.4, 1.1))
    if kind == "bar":                       # a road or a stick
        outline = [(-1.6, -0.25), (1.6, -0.25), (1.6, 0.25), (-1.6, 0.25)]
        height = size * 0.35
    elif kind in ("cylinder", "stopper", "disc", "bead"):
        outline = [(math.cos(a) * 0.5, math.sin(a) * 0.5) for a in np.linspace(0, 2 * math.pi, 21)[:-1]]
        height = {"cylinder": size * rng.uniform(0.6, 1.6), "stopper": size * rng.uniform(0.8, 1.3),
                  "disc": size * 0.15, "bead": size}[kind]
    elif kind == "hexagon":
        outline = [(math.cos(a) * 0.55, math.sin(a) * 0.55) for a in np.linspace(0, 2 * math.pi, 7)[:-1]]
        height = size * rng.uniform(0.2, 0.8)
    else:                                   # a house's floor plan: longer than wide
        outline = [(-0.6, -0.4), (0.6, -0.4), (0.6, 0.4), (-0.6, 0.4)]
        height = size * rng.uniform(0.9, 1.4)
    c, s = math.cos(turn), math.sin(turn)
    foot = np.array([(x + size * (u * c - v * s), y + size * (u * s + v * c)) for u, v in outline])
    colour = _jitter(PIECE_COLOURS[int(rng.integers(len(PIECE_COLOURS)))], rng, 25)
    return {"kind": kind, "x": x, "y": y, "foot": foot, "height": float(height), "size": size,
            "colour": colour, "gloss": float(rng.uniform(0, 1)) if kind in ("stopper", "bead", "disc") else 0.0}


def _draw_prism(image: np.ndarray, table: Table, piece: dict) -> None:
    """Side faces turned to the camera, then the top face (with a dark hole for a stopper)."""
    cam, light = table.camera, np.array(table.lighting.direction, float)
    ambient = table.lighting.ambient
    foot, height = piece["foot"], piece["height"]
    n = len(foot)
    bottom = np.column_stack([foot, np.zeros(n)])
    top = np.column_stack([foot, np.full(n, height)])
    pb, pt = cam.project(bottom), cam.project(top)
    colour = np.array(piece["colour"], float)
    centre = foot.mean(axis=0)
    sides = []
    for i in range(n):
        j = (i + 1) % n
        edge = foot[j] - foot[i]
        normal = np.array([edge[1], -edge[0], 0.0])
        mid = (foot[i] + foot[j]) / 2
        if normal[:2] @ (mid - centre) < 0:
            normal = -normal
        normal /= max(np.linalg.norm(normal), 1e-9)
        face_mid = np.array([mid[0], mid[1], height / 2])
        if normal @ (cam.centre - face_mid) <= 0:
            continue
        sides.append((float(np.linalg.norm(cam.centre - face_mid)), i, j, normal))
    for _, i, j, normal in sorted(sides, reverse=True):
        shade = ambient + (1 - ambient) * max(0.0, float(normal @ light))
        quad = np.array([pb[i], pb[j], pt[j], pt[i]])
        cv2.fillConvexPoly(image, np.round(quad * 16).astype(np.int32), _shaded(colour, shade), cv2.LINE_AA, 4)
    shade = ambient + (1 - ambient) * max(0.0, float(light[2]))
    cv2.fillConvexPoly(image, np.round(pt * 16).astype(np.int32), _shaded(colour, shade * 1.05), cv2.LINE_AA, 4)
    if piece["kind"] == "stopper":          # a cord stopper's hole and its shine
        hole = np.column_stack([centre + (foot - centre) * 0.4, np.full(n, height)])
        cv2.fillConvexPoly(image, np.round(cam.project(hole) * 16).astype(np.int32), (20, 20, 20), cv2.LINE_AA, 4)
    if piece["gloss"] > 0.5:
        spot = cam.project(np.array([[centre[0], centre[1], height]]))[0]
        r = max(1, int(0.12 * piece["size"] * cam.pixels_per_mm(*centre)))
        cv2.circle(image, (int(spot[0] + r), int(spot[1] - r)), r, (245, 245, 245), -1, cv2.LINE_AA)


def _draw_bead(image: np.ndarray, table: Table, piece: dict) -> None:
    """A round bead or marble: a shaded disc with a highlight towards the light."""
    cam = table.camera
    r_mm = piece["size"] / 2
    centre = cam.project(np.array([[piece["x"], piece["y"], r_mm]]))[0]
    r = max(2.0, r_mm * cam.pixels_per_mm(piece["x"], piece["y"]))
    x0, y0 = int(centre[0] - r) - 1, int(centre[1] - r) - 1
    side = int(2 * r) + 3
    ys, xs = np.mgrid[0:side, 0:side].astype(np.float32)
    dx, dy = (xs + x0 - centre[0]) / r, (ys + y0 - centre[1]) / r
    inside = np.clip((1 - np.hypot(dx, dy)) * r, 0, 1)
    lx, ly = table.lighting.direction[0], -table.lighting.direction[1]
    shade = np.clip(table.lighting.ambient + 0.5 * (dx * lx + dy * ly + np.sqrt(np.clip(1 - dx ** 2 - dy ** 2, 0, 1))), 0, 1.4)
    shine = piece["gloss"] * np.exp(-((dx - lx * 0.5) ** 2 + (dy - ly * 0.5) ** 2) / 0.02) * 200
    bead = np.clip(np.array(piece["colour"], np.float32)[None, None] * shade[..., None] + shine[..., None], 0, 255)
    composite(image, np.dstack([bead * inside[..., None], inside]).astype(np.float32), x0, y0)


def _piece_shadow(image: np.ndarray, table: Table, piece: dict) -> None:
    """A soft shadow: the piece's top slid along the light onto the table, with its foot."""
    light = np.array(table.lighting.direction, float)
    foot, height = piece["foot"], piece["height"]
    slide = height / max(light[2], 0.2) * light[:2]
    points = np.vstack([foot, foot - slide])
    pixels = table.camera.project(np.column_stack([points, np.zeros(len(points))]))
    hull = cv2.convexHull(pixels.astype(np.float32)).reshape(-1, 2)
    spread = max(1.0, 0.15 * piece["size"] * table.camera.pixels_per_mm(piece["x"], piece["y"]))
    pad = int(3 * spread) + 2
    x0, y0 = np.floor(hull.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + pad
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, np.round(hull - (x0, y0)).astype(np.int32), table.lighting.shadow, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), spread)
    roi = image[y0:y1, x0:x1].astype(np.float32)
    image[y0:y1, x0:x1] = np.clip(roi * (1 - mask[..., None]), 0, 255).astype(np.uint8)


# ------------------------------------------------------------------------------ helpers

def _fill(h: int, w: int, colour) -> np.ndarray:
    return np.full((h, w, 3), colour, np.uint8)


def _jitter(colour, rng: np.random.Generator, spread: float = 15) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.uniform(-spread, spread), 0, 255)) for c in colour)


def _shaded(colour: np.ndarray, shade: float) -> tuple[float, float, float]:
    return tuple(float(np.clip(c * shade, 0, 255)) for c in colour)


def _contrast(colour) -> tuple[int, int, int]:
    return (20, 20, 20) if sum(colour) > 380 else (235, 235, 235)


def _text(page: np.ndarray, text: str, origin, height_px: float, colour, rng: np.random.Generator) -> None:
    scale = max(0.2, height_px / 22)
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX][int(rng.integers(3))]
    cv2.putText(page, text, (int(origin[0]), int(origin[1])), font, scale, colour,
                max(1, int(scale * 1.6)), cv2.LINE_AA)
