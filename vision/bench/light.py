"""python -m vision.bench light [--split test|val|train] [--folder NAME] [--data DIR] [--models DIR]

The pip reader in bad light, on the shared real photos of one side of the fixed split
(default 'test', the held-out photos) changed as a dim room or a cheap camera would:

* **dim**: every pixel at 30 % and 15 % of its value (a dim room with the exposure locked);
* **dim and noisy**: the same with sensor noise (Gaussian, sigma 6 and 5 grey levels after
  dimming, so about 20 and 33 levels once brightened back);
* **warm**: tungsten light (blue down to 55 %, green 85 %, red 115 %, all at 60 %);
* **falling off**: the light dropping from full on the right to 15 % on the left edge;
* **glare**: lamp reflections on a glossy table or tray: 8 small saturated spots (6-20 px
  across, soft edges) at random places; **glare, streaks**: 5 long thin ones (a window or a
  tube light: 24-70 px long, 4-10 px wide, slightly blue-white, not always saturated);
  **glare, sheen**: 3 big soft ones (20-44 px across, blurred by 6 px, at 90 %);
* **out of focus**: not light, but as bad at a real table: a Gaussian blur of sigma 1.5
  and 2.5 px, as a fixed-focus camera set too close gives, then sensor noise (sigma 2).

For each: per-die accuracy (found and face right), recall, precision and the reads at
confidence >= 0.9 and the share of them right, counted like score_reads.py, against the
photos as taken. Photos whose dice carry no labels are left out. The changes are
simulations, not photos taken in bad light; the noise is drawn with a fixed seed per photo.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.bench.photos import per_folder
from vision.bench.scoring import Tally

WARM = np.array([0.55, 0.85, 1.15]) * 0.6  # B, G, R


def lit(image: np.ndarray, gain, noise: float, rng: np.random.Generator) -> np.ndarray:
    """``image`` times ``gain`` (a number, a B, G, R triple or a per-pixel map), plus
    Gaussian noise of sigma ``noise`` grey levels, clipped to 0..255."""
    out = image.astype(np.float32) * gain
    if noise:
        out += rng.normal(0.0, noise, image.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def falling_off(image: np.ndarray) -> np.ndarray:
    """A per-pixel gain from 0.15 at the left edge to 1 at the right."""
    w = image.shape[1]
    return (0.15 + 0.85 * np.arange(w, dtype=np.float32) / max(w - 1, 1))[None, :, None]


def reflection_mask(shape: tuple[int, ...], rng: np.random.Generator, count: int, draw, soften: float,
                    gain: float) -> np.ndarray:
    """A (h, w, 1) float mask of ``count`` reflections at random places: ``draw(mask, centre,
    scale)`` draws each one (at 1.0), then the mask is blurred by ``soften`` px, times ``gain``,
    clipped to 0..1 (sizes in pixels of a 640 px frame, scaled with the frame)."""
    h, w = shape[:2]
    scale = max(h, w) / 640
    mask = np.zeros((h, w), np.float32)
    for _ in range(count):
        draw(mask, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), scale)
    return np.clip(gain * cv2.GaussianBlur(mask, (0, 0), soften * scale), 0, 1)[..., None]


def reflected(image: np.ndarray, mask: np.ndarray, colour) -> np.ndarray:
    """``image`` blended towards ``colour`` (a level or a B, G, R triple) by ``mask``."""
    return np.clip(image * (1 - mask) + np.asarray(colour, np.float32) * mask, 0, 255).astype(np.uint8)


def glare(image: np.ndarray, rng: np.random.Generator, spots: int = 8) -> np.ndarray:
    """``image`` with ``spots`` lamp reflections: soft discs, white at their core."""
    def disc(mask, centre, scale):
        cv2.circle(mask, centre, int(rng.uniform(3, 10) * scale), 1.0, -1)
    return reflected(image, reflection_mask(image.shape, rng, spots, disc, soften=3, gain=2), 255)


def streaks(image: np.ndarray, rng: np.random.Generator, count: int = 5) -> np.ndarray:
    """``image`` with ``count`` long thin reflections (a window, a tube light)."""
    def streak(mask, centre, scale):
        axes = (int(rng.uniform(12, 35) * scale), int(rng.uniform(2, 5) * scale))
        cv2.ellipse(mask, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    mask = reflection_mask(image.shape, rng, count, streak, soften=2, gain=1.6) * rng.uniform(0.85, 1.0)
    return reflected(image, mask, (235, 245, 255))  # B, G, R: a cool white


def sheen(image: np.ndarray, rng: np.random.Generator, count: int = 3) -> np.ndarray:
    """``image`` with ``count`` big soft reflections that do not quite burn out."""
    def patch(mask, centre, scale):
        cv2.circle(mask, centre, int(rng.uniform(10, 22) * scale), 1.0, -1)
    return reflected(image, reflection_mask(image.shape, rng, count, patch, soften=6, gain=1.3) * 0.9, 250)


CONDITIONS = {
    "as taken": lambda im, rng: im,
    "dim 30 %": lambda im, rng: lit(im, 0.3, 0, rng),
    "dim 15 %": lambda im, rng: lit(im, 0.15, 0, rng),
    "dim 30 %, noisy": lambda im, rng: lit(im, 0.3, 6, rng),
    "dim 15 %, noisy": lambda im, rng: lit(im, 0.15, 5, rng),
    "warm": lambda im, rng: lit(im, WARM, 4, rng),
    "falling off": lambda im, rng: lit(im, falling_off(im), 4, rng),
    "glare": glare,
    "glare, streaks": streaks,
    "glare, sheen": sheen,
    "out of focus 1.5": lambda im, rng: lit(cv2.GaussianBlur(im, (0, 0), 1.5), 1.0, 2, rng),
    "out of focus 2.5": lambda im, rng: lit(cv2.GaussianBlur(im, (0, 0), 2.5), 1.0, 2, rng),
}


def tally(reader, images, labels, change) -> Tally:
    out = Tally()
    for n, (image, dice) in enumerate(zip(images, labels)):
        frame = change(image, np.random.default_rng(n))
        out.add(dice, [d.to_json() for d in reader(frame).dice])
    return out


def line(name: str, t: Tally) -> str:
    sure, right = t.confident(0.9)
    return (f"  {name:17s} {t.labelled:4d} dice: per die {t.per_die:6.1%}, recall {t.recall:6.1%}, "
            f"precision {t.precision:6.1%}, >= 0.9: {sure:4d} reads {right:6.1%} right")


def report(reader, images, labels):
    for name, change in CONDITIONS.items():
        yield line(name, tally(reader, images, labels, change))


def main(argv: list[str] | None = None) -> int:
    return per_folder(argv, "light", __doc__, "pip reader in simulated bad light, photos of {data} "
                      "({split} split)", report)


if __name__ == "__main__":
    raise SystemExit(main())
