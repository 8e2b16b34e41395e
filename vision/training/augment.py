"""Image loading and the augmentations shared by both training scripts (numpy + OpenCV)."""
from __future__ import annotations

import cv2
import numpy as np

from vision.training.split import LabelledPhoto


def load(photo: LabelledPhoto) -> tuple[np.ndarray, np.ndarray]:
    """(BGR image, dice array [face, cx, cy, w, h] in pixels)."""
    image = cv2.imread(str(photo.image), cv2.IMREAD_COLOR)
    h, w = image.shape[:2]
    dice = np.array([(f, cx * w, cy * h, bw * w, bh * h) for f, cx, cy, bw, bh in photo.dice],
                    dtype=np.float32).reshape(-1, 5)
    return image, dice


def affine(center, angle_deg, scale, flip, out_center) -> np.ndarray:
    """2x3 matrix: mirror (optional), rotate and scale about ``center``, then move it to
    ``out_center``."""
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]) * scale
    if flip:
        rot = rot @ np.array([[-1.0, 0.0], [0.0, 1.0]])
    shift = np.asarray(out_center, float) - rot @ np.asarray(center, float)
    return np.hstack([rot, shift[:, None]]).astype(np.float64)


def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Colour / light / blur / noise changes a die's top face must survive."""
    out = img.astype(np.float32)
    if rng.random() < 0.5:
        out = out[..., rng.permutation(3)]
    if rng.random() < 0.1:
        out[:] = out.mean(axis=2, keepdims=True)
    gain = rng.uniform(1 - 0.35 * strength, 1 + 0.35 * strength, size=3) if rng.random() < 0.5 \
        else np.full(3, rng.uniform(1 - 0.35 * strength, 1 + 0.35 * strength))
    bias = rng.uniform(-30, 30) * strength
    contrast = rng.uniform(1 - 0.3 * strength, 1 + 0.2 * strength)
    mean = out.mean()
    out = (out - mean) * contrast + mean
    out = out * gain + bias
    if rng.random() < 0.3:
        k = rng.uniform(0.3, 1.2 * strength)
        out = cv2.GaussianBlur(out, (0, 0), k)
    if rng.random() < 0.3:
        out = out + rng.normal(0, rng.uniform(2, 10 * strength), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def synthetic_pool(count: int, seed: int = 1000) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` scenes from vision.synth (pip dice, tray or mat, 1-14 dice, 16-64 px), as
    (BGR image, dice array [face, cx, cy, w, h] in pixels), like ``load``."""
    from vision.synth import render_scene
    rng = np.random.default_rng(seed)
    pool = []
    for n in range(count):
        faces = [str(f) for f in rng.integers(1, 7, rng.integers(1, 15))]
        size = (640, 640) if rng.random() < 0.5 else (640, 480)
        background = "mat" if rng.random() < 0.25 else "tray"
        die_px = None if background == "mat" else float(rng.uniform(16, 64))
        try:
            image, truth = render_scene(faces, "d6-pips", seed=seed + n, size=size, background=background,
                                        die_px=die_px, tilt=float(rng.uniform(0, 10)))
        except ValueError:
            continue  # no room for that many dice at that size
        dice = np.array([(int(d.face), d.x, d.y, d.w, d.h) for d in truth.dice], np.float32).reshape(-1, 5)
        pool.append((image, dice))
    return pool
