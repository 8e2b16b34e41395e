"""Image loading and the augmentations shared by both training scripts (numpy + OpenCV)."""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision.training.split import LabelledPhoto

CROP = 48          # default network input side, pixels (--crop; the reader takes the side
                   # from models/pip_reader.json)
CONTEXT = 1.35     # crop side = CONTEXT * die size (max of the box's w, h)
WIDE = 96          # side of the stored wide crops
WIDE_CONTEXT = 2.4  # wide crop side = WIDE_CONTEXT * die size (room to turn and shift)


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


def salt_and_pepper(img: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Dark and bright specks, as in the Roboflow copies of the mixed photos."""
    mask = rng.random(img.shape[:2])
    img = img.copy()
    img[mask < amount / 2] = 0
    img[mask > 1 - amount / 2] = 255
    return img


def augment(wide, rng, side=CROP, context=CONTEXT, turn=360.0):
    """One training crop (``context`` x the die's size) from a wide crop: a turn (any, or up
    to ``turn`` degrees either way), left-right mirror, +-12% size, 7% centre shift, colour,
    blur and noise."""
    die = WIDE / WIDE_CONTEXT
    size = die * math.exp(rng.normal(0, 0.12))
    cx, cy = WIDE / 2 + rng.normal(0, 0.07, 2) * die
    angle = rng.uniform(0, 360) if turn >= 180 else rng.uniform(-turn, turn)
    m = affine((cx, cy), angle, side / (context * size), rng.random() < 0.5, (side / 2, side / 2))
    out = cv2.warpAffine(wide, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.25:  # a small or far die: lost detail
        f = rng.uniform(0.35, 0.8)
        small = cv2.resize(out, (max(8, int(side * f)),) * 2, interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (side, side), interpolation=cv2.INTER_LINEAR)
    out = photometric(out, rng, 0.8)
    if rng.random() < 0.15:
        out = salt_and_pepper(out, rng, rng.uniform(0.005, 0.03))
    return out
