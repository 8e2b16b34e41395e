"""Rendered training scenes of pip dice, wider than the tests' and the demo's scenes.

``vision.synth.render_scene`` draws what the box's camera sees: dice on a tray from above.
The real photos the reader must handle go further (``../shared/data/d6-real``): phone photos
from 30-60 degrees off vertical where the sides of a die show as much as its top, crowded
tables and packed rows of touching dice, smoky translucent dice with dim red pips, pips of
every size. ``training_scene`` draws those too, for the finder and the face reader; nothing
here is used at run time.
"""
from __future__ import annotations

import math

import numpy as np

from vision.synth import BODY_COLOURS, DIE_MM, DiePose, DieStyle, Lighting, Table, random_lighting

# Seeds no training run renders (runs use seed * 100,000 + n): scenes for measuring a
# finder (vision.bench.rendered, the box-scale fit) and for picking its checkpoints.
MEASURE_SEED = 7_000_000
PICK_SEED = 8_000_000


def scene_labels(dice: np.ndarray) -> list[dict]:
    """A scene's dice array ([face, cx, cy, w, h] rows) as scorer labels (vision.bench.scoring)."""
    return [{"face": str(int(f)), "x": float(x), "y": float(y), "w": float(w), "h": float(h)}
            for f, x, y, w, h in dice]


# Dark see-through plastic and the pip colours such dice come with (BGR).
SMOKY_BODIES = [(45, 40, 48), (60, 50, 45), (40, 45, 60), (70, 60, 70), (35, 35, 35)]
SMOKY_INKS = [(50, 50, 210), (230, 230, 230), (40, 200, 230), (60, 150, 60)]


def training_style(rng: np.random.Generator) -> DieStyle:
    """A die look drawn from a wide range: solid, swirled, translucent or smoky, pips of
    any usual size and spacing."""
    kind = rng.random()
    pattern = int(rng.integers(1 << 30))
    pip_size = float(rng.uniform(0.75, 1.35))
    pip_spread = float(rng.uniform(0.85, 1.12))
    gloss = float(rng.uniform(0.05, 0.95))
    if kind < 0.18:  # smoky: dark translucent body, dim pips
        body = SMOKY_BODIES[rng.integers(len(SMOKY_BODIES))]
        ink = SMOKY_INKS[rng.integers(len(SMOKY_INKS))]
        swirl = tuple(int(c) for c in rng.integers(60, 200, 3)) if rng.random() < 0.4 else None
        return DieStyle(body=body, ink=ink, swirl=swirl, gloss=gloss, pattern=pattern,
                        opacity=float(rng.uniform(0.55, 0.85)), pip_size=pip_size, pip_spread=pip_spread)
    body, inks = BODY_COLOURS[rng.integers(len(BODY_COLOURS))]
    body = tuple(int(np.clip(c + j, 0, 255)) for c, j in zip(body, rng.integers(-30, 31, 3)))
    ink = inks[rng.integers(len(inks))] if rng.random() < 0.85 else tuple(int(c) for c in rng.integers(0, 256, 3))
    swirl = None
    if kind < 0.45:
        other = BODY_COLOURS[rng.integers(len(BODY_COLOURS))][0]
        if sum(abs(a - b) for a, b in zip(other, ink)) > 150:
            swirl = other
    opacity = 1.0
    if swirl is None and rng.random() < 0.2:
        opacity = float(rng.uniform(0.6, 0.85))
        body = tuple(int(c * 0.8) for c in body)
    return DieStyle(body=body, ink=ink, swirl=swirl, gloss=gloss, pattern=pattern, opacity=opacity,
                    pip_size=pip_size, pip_spread=pip_spread)


def training_lighting(rng: np.random.Generator) -> Lighting:
    base = random_lighting(rng)
    return Lighting(direction=base.direction, ambient=float(rng.uniform(0.35, 0.8)),
                    blur=float(rng.choice([0.0, 0.3, 0.6, 0.9, 1.3])), noise=float(rng.uniform(1.0, 9.0)),
                    shadow=float(rng.uniform(0.1, 0.6)))


def training_scene(seed: int, size: tuple[int, int] = (640, 640), symbol_share: float = 0.0,
                   upright: bool = False, block_share: float = 0.0,
                   not_pips: bool = False, busy_share: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One rendered scene: (BGR image, dice array [face, cx, cy, w, h] in pixels), the box
    covering each die's whole silhouette like the real photos' labels. With probability
    ``symbol_share`` the dice carry random symbols instead of pips (vision.training.symbols;
    face 0 in the array), so a finder learns to find dice whatever their faces show.
    ``upright``: oblique views are taken as a person holds a camera (far side at the top), so
    a die's top face shows above its front face, as in real oblique photos.
    ``block_share``: the share of scenes whose dice are packed in a block (``block_poses``).
    ``not_pips``: the symbol dice carry faces no pip die shows (numerals, letters, pictures:
    ``symbols.not_pip_specs``).
    ``busy_share``: the share of tray scenes on a game board among game pieces
    (``vision.training.clutter``); with 0 a seed renders the scene it always has."""
    rng = np.random.default_rng([seed, 77])
    dice_set, faces = "d6-pips", ("1", "2", "3", "4", "5", "6")
    if rng.random() < symbol_share:
        from vision.training.symbols import FACES, symbol_set
        dice_set, faces = symbol_set(seed, not_pips=not_pips), FACES
    oblique = rng.random() < 0.45
    camera_tilt = float(rng.uniform(25, 58)) if oblique else float(rng.uniform(0, 14))
    die_px = float(math.exp(rng.uniform(math.log(14), math.log(110 if oblique else 70))))
    block = bool(block_share) and rng.random() < block_share
    if block:
        die_px = max(die_px, 22.0)   # a block of 10 px dice is a texture, not dice
    background = "mat" if rng.random() < 0.15 else "tray"
    table = Table(size, int(rng.integers(1 << 30)), background=background,
                  die_px=None if background == "mat" else die_px, lighting=training_lighting(rng),
                  tilt_deg=camera_tilt, upright=upright and oblique)
    if block:
        return _finish(table, block_poses(table, faces, rng), dice_set, rng, size)
    packed = rng.random() < 0.2
    room = (size[0] * size[1]) / max(table.die_px, 8) ** 2
    most = int(np.clip(room * (0.25 if packed else 0.08), 1, 60))
    count = int(rng.integers(1, most + 1))
    region = table.mat_region("rolling") if background == "mat" else None
    pieces = []
    if busy_share and background == "tray" and rng.random() < busy_share:
        from vision.training.clutter import busy_table
        pieces = busy_table(table, rng, count)
    for _ in range(6):
        try:
            places = table.random_positions(count, rng, touching=0.9 if packed else float(rng.uniform(0, 0.5)),
                                            region=region, occupied=pieces)
            break
        except ValueError:
            count = max(1, count // 2)
    else:
        places = []
    same = rng.random() < 0.3
    shared = training_style(rng)
    poses = [DiePose(face=faces[int(rng.integers(6))], x=x, y=y, yaw=yaw, tilt=float(rng.uniform(0, 12)),
                     tilt_axis=float(rng.uniform(0, 360)), style=shared if same else training_style(rng),
                     size_mm=DIE_MM * float(rng.uniform(0.9, 1.1)))
             for x, y, yaw in places]
    return _finish(table, poses, dice_set, rng, size)


def block_poses(table: Table, faces, rng: np.random.Generator) -> list[DiePose]:
    """Dice packed face to face in rows and columns, all turned the same way, as in a box or
    a shop photo of a bag of dice: no gaps between them, so the finder must tell one die from
    its neighbour by the edges and pips alone. Each row often shares a colour."""
    x0, y0, x1, y1 = table.visible_region()
    rows, cols = int(rng.integers(2, 9)), int(rng.integers(2, 13))
    gap = DIE_MM * float(rng.uniform(1.0, 1.04))
    yaw = float(rng.uniform(0, 360))
    a = math.radians(yaw)
    across, down = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    centre = rng.uniform([x0, y0], [x1, y1])
    mode = rng.random()   # < 0.45 a colour per row, < 0.65 one colour for all, else each its own
    shared = training_style(rng)
    row_styles = [training_style(rng) for _ in range(rows)]
    size_mm = DIE_MM * float(rng.uniform(0.95, 1.0))
    poses = []
    for r in range(rows):
        for c in range(cols):
            x, y = centre + gap * ((c - (cols - 1) / 2) * across + (r - (rows - 1) / 2) * down)
            if not (x0 <= x <= x1 and y0 <= y <= y1):
                continue
            style = row_styles[r] if mode < 0.45 else shared if mode < 0.65 else training_style(rng)
            poses.append(DiePose(face=faces[int(rng.integers(6))], x=float(x), y=float(y),
                                 yaw=(yaw + 90 * int(rng.integers(4)) + float(rng.uniform(-2, 2))) % 360,
                                 tilt=float(rng.uniform(0, 3)), tilt_axis=float(rng.uniform(0, 360)),
                                 style=style, size_mm=size_mm))
    return poses


def _finish(table: Table, poses: list[DiePose], dice_set: str, rng: np.random.Generator,
            size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Draw the dice (far ones first) and list the visible ones as [face, cx, cy, w, h]."""
    # Far dice first, so nearer ones hide them as in a photo.
    cam = table.camera.centre
    poses.sort(key=lambda p: -math.hypot(p.x - cam[0], p.y - cam[1]))
    image, truth = table.draw(poses, dice_set, rng)
    w, h = size
    dice = [(int(d.face) if dice_set == "d6-pips" else 0, d.x, d.y, d.w, d.h) for d in truth
            if 0 <= d.x < w and 0 <= d.y < h and min(d.w, d.h) >= 4]
    return image, np.array(dice, np.float32).reshape(-1, 5)
