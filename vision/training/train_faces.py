"""Train the die-face reader (crop classifier: faces 1..6 + "no die") and export it to ONNX.

  python -m vision.training.train_faces [--minutes 12] [--out vision/models/pip_faces.onnx]

Training draws from pools of *wide* crops made once at start-up (each die, or a "no die"
spot, cut out at WIDE_CONTEXT x its size and resized to WIDE px), so a step only has to
turn, shift, scale and recolour small pictures:

* every labelled die on the 'train' side of the shared real photos (vision.training.split),
  the tray photos (byler-train) ``--tray-repeat`` times as often;
* the dice of ``--synthetic`` rendered scenes (vision.training.scenes: top-down and oblique
  views, crowds, smoky and swirled dice);
* "no die" spots: empty places of the same photos and scenes, places just beside a die (where
  a finder fires between two dice) and, with ``--hard-from``, the finder's false finds on the
  tray photos;
* with ``--not-pip-scenes``, "no die" dice: the dice of rendered scenes whose faces no pip die
  shows (numerals, letters, pictures: ``symbols.not_pip_specs``), so a numeral die is not
  read as a pip die (real mixed photos hold such dice, unlabelled);
* with ``--glare-rate``, "no die" lamp reflections: empty spots with a soft white spot drawn
  where a die would be (``with_reflection``), so a reflection on a glossy table is not
  read as a die with one pip.
* with ``--busy-scenes``, "no die" game pieces and boards: where the ``--hard-from`` finder
  fires away from every die in rendered scenes on game boards among game pieces
  (vision.training.clutter), and empty places of those boards. A rendered scene labels
  every die, so unlike the mixed photos' false finds these are surely not dice.

The checkpoint with the best validation accuracy (labelled val dice, crops cut exactly as
the reader cuts them) is exported.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision.training.augment import CONTEXT, CROP, WIDE, WIDE_CONTEXT, affine, augment, load
from vision.training.loop import train_for
from vision.training.nets import FaceNet, FaceNetDW
from vision.training.scenes import training_scene
from vision.training.split import photos

NO_DIE = 6         # class index of "no die here"
# rendered not-pip scenes for a diagnostic (runs render seed * 100,000 + n: any seed but 91)
NOT_PIP_CHECK_SEED = 9_100_000


def crop(image, cx, cy, size, angle=0.0, flip=False, side=CROP, context=CONTEXT):
    """side x side crop around a die (turned, mirrored), ``context`` x its size; big shrinks go
    through an area resize like the reader's, so large dice are not aliased."""
    scale = side / (context * size)
    k = max(1, int(math.ceil(0.6 / scale)))
    m = affine((cx, cy), angle, scale * k, flip, (k * side / 2, k * side / 2))
    out = cv2.warpAffine(image, m, (k * side, k * side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out if k == 1 else cv2.resize(out, (side, side), interpolation=cv2.INTER_AREA)


def wide_crop(image, cx, cy, size):
    return crop(image, cx, cy, size, side=WIDE, context=WIDE_CONTEXT)


def far_from_dice(x, y, size, dice, margin=0.7):
    if not len(dice):
        return True
    d = np.hypot(dice[:, 1] - x, dice[:, 2] - y)
    return bool(np.all(d > margin * np.maximum(size, dice[:, 3:5].max(axis=1))))


def hard_negatives(pool, finder_onnx, threshold=0.2):
    """Where the finder fires on a training photo but no die is labelled (the tray's round
    buttons, pip-like specks): (pool index, x, y, size) rows, to be learned as "no die"."""
    from vision import pips
    finder = pips.load_net(finder_onnx)
    rows = []
    for n, (image, dice) in enumerate(pool):
        for f in pips.run_finder(finder, image, threshold):
            if not len(dice) or np.all(np.hypot(dice[:, 1] - f.x, dice[:, 2] - f.y)
                                       > np.maximum(0.75 * dice[:, 3:5].max(axis=1), 15)):
                rows.append((n, f.x, f.y, max(f.w, f.h)))
    return np.array(rows, np.float32).reshape(-1, 4)


def die_crops(pool) -> tuple[np.ndarray, np.ndarray]:
    """Wide crops of every die in ``pool`` [(image, dice)], and their classes (face - 1)."""
    xs, ys = [], []
    for image, dice in pool:
        for f, cx, cy, bw, bh in dice:
            xs.append(wide_crop(image, cx, cy, max(bw, bh)))
            ys.append(int(f) - 1)
    return np.array(xs, np.uint8).reshape(-1, WIDE, WIDE, 3), np.array(ys, np.int64)


def empty_spots(pool, rng, per_image=4) -> np.ndarray:
    """Wide crops of places with no die: anywhere empty, or just beside a die."""
    out = []
    for image, dice in pool:
        h, w = image.shape[:2]
        sizes = dice[:, 3:5].max(axis=1) if len(dice) else np.array([40.0])
        for _ in range(per_image):
            size = float(rng.choice(sizes)) * math.exp(rng.normal(0, 0.2))
            for _ in range(20):
                if len(dice) and rng.random() < 0.5:  # next to a die: a likely false find
                    j = rng.integers(len(dice))
                    a = rng.uniform(0, 2 * math.pi)
                    r = rng.uniform(0.75, 1.3) * max(dice[j, 3], dice[j, 4])
                    cx, cy = dice[j, 1] + r * math.cos(a), dice[j, 2] + r * math.sin(a)
                else:
                    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
                if far_from_dice(cx, cy, size, dice):
                    out.append(wide_crop(image, cx, cy, size))
                    break
    return np.array(out, np.uint8).reshape(-1, WIDE, WIDE, 3)


REFLECTION_CROPS = 4000  # how many reflection crops --glare-rate draws from


def with_reflection(crops: np.ndarray, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` of ``crops`` (wide "no die" crops) each with a lamp reflection drawn near its
    centre: a soft white ellipse 0.1-0.3 of a die across, saturated at its core."""
    die = WIDE / WIDE_CONTEXT
    out = np.empty((count, WIDE, WIDE, 3), np.uint8)
    for k, i in enumerate(rng.integers(0, len(crops), count)):
        spot = np.zeros((WIDE, WIDE), np.float32)
        centre = tuple(int(WIDE / 2 + rng.normal(0, 0.15 * die)) for _ in range(2))
        axes = tuple(int(rng.uniform(0.1, 0.3) * die) + 1 for _ in range(2))
        cv2.ellipse(spot, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        spot = np.clip(cv2.GaussianBlur(spot, (0, 0), rng.uniform(0.05, 0.15) * die) * rng.uniform(1.2, 2.5), 0, 1)
        white = 255 * rng.uniform(0.92, 1.0, 3).astype(np.float32)
        image = crops[i].astype(np.float32) * (1 - spot[..., None]) + white * spot[..., None]
        out[k] = np.clip(image, 0, 255).astype(np.uint8)
    return out


def hard_spots(pool, hard) -> np.ndarray:
    return np.array([wide_crop(pool[int(n)][0], x, y, s) for n, x, y, s in hard], np.uint8).reshape(-1, WIDE, WIDE, 3)


def busy_negatives(args, rng) -> np.ndarray:
    """Wide "no die" crops of ``--busy-scenes`` rendered busy tables: the ``--hard-from``
    finder's false finds there (pieces, number tokens, printed marks) and empty places."""
    from vision import pips
    scenes = [training_scene(args.seed * 100_000 + 70_000 + n, busy_share=1.0, upright=args.upright_scenes)
              for n in range(args.busy_scenes)]
    finder = args.hard_from or pips.MODELS / "pip_finder.onnx"
    return np.concatenate([hard_spots(scenes, hard_negatives(scenes, finder)), empty_spots(scenes, rng, 2)])


class CropPools:
    """Where training crops are drawn from, how often, and how far they may be turned.

    Each group is (wide crops, classes, weight[, turn]): ``turn`` is the largest turn in
    degrees (default any). Photos taken obliquely by an upright camera show the top face
    above the front one; turning them freely hides that cue, so such groups turn a little.
    """

    def __init__(self, groups: list[tuple]):
        groups = [tuple(g) + (360.0,) * (4 - len(g)) for g in groups if len(g[0])]
        self.groups = [(x, y, turn) for x, y, _, turn in groups]
        weights = np.array([w for _, _, w, _ in groups], float)
        self.p = weights / weights.sum()

    def batch(self, rng, n, side=CROP):
        picks = rng.choice(len(self.groups), size=n, p=self.p)
        xs, ys = [], []
        for g in picks:
            x, y, turn = self.groups[g]
            i = rng.integers(len(x))
            xs.append(augment(x[i], rng, side, turn=turn))
            ys.append(int(y[i]))
        return to_tensor(xs), torch.tensor(ys)


def to_tensor(batch):
    """NCHW float tensor in channels-last memory (torch's CPU convolutions, depthwise above
    all, run about twice as fast on it)."""
    x = torch.from_numpy(np.stack(batch).astype(np.float32) / 255.0).permute(0, 3, 1, 2)
    return x.contiguous(memory_format=torch.channels_last)


def val_set(pool, side=CROP):
    xs, ys = [], []
    for image, dice in pool:
        for f, cx, cy, bw, bh in dice:
            xs.append(crop(image, cx, cy, max(bw, bh), side=side))
            ys.append(int(f) - 1)
    return to_tensor(xs), torch.tensor(ys)


def all_logits(net, x):
    """The net's logits for crops ``x``, in batches of 512, in eval mode."""
    net.eval()
    with torch.no_grad():
        return torch.cat([net(x[i:i + 512]) for i in range(0, len(x), 512)])


def accuracy(net, x, y):
    """The share of crops ``x`` whose best face (1..6, "no die" left out) is ``y``."""
    return (all_logits(net, x)[:, :6].argmax(1) == y).float().mean().item()


def no_die_share(net, x) -> float:
    """The share of crops ``x`` the net reads as "no die"."""
    return (all_logits(net, x).argmax(1) == NO_DIE).float().mean().item()


def make_net(arch: str, width: tuple[int, ...], norm_input: bool = True):
    """``dw``: FaceNetDW (always normalises its input); ``plain``: FaceNet."""
    if arch == "dw":
        return FaceNetDW(width=width)
    return FaceNet(width=width, norm_input=norm_input)


def export(net, out, weights=True, side=CROP):
    """Write the ONNX file (batch of side x side crops) and the torch weights beside it."""
    net.eval()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, side, side), str(out), dynamo=False,
                      input_names=["crops"], output_names=["logits"], opset_version=13,
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}})
    if weights:
        torch.save(net.state_dict(), Path(out).with_suffix(".pt"))


def build_pools(args, rng) -> CropPools:
    tray = [load(p) for p in photos(folder="byler-train", side="train")]
    mixed = [load(p) for p in photos(folder="epanemu-train", side="train")]
    scenes = [training_scene(args.seed * 100_000 + n, upright=args.upright_scenes) for n in range(args.synthetic)]
    tx, ty = die_crops(tray)
    mx, my = die_crops(mixed)
    sx, sy = die_crops(scenes)
    # Empty spots of the mixed photos are risky: their crowded scenes leave dice unlabelled.
    neg = np.concatenate([empty_spots(tray, rng, 12), empty_spots(mixed, rng, 2), empty_spots(scenes, rng, 3)])
    if args.hard_from:
        # Only tray photos: in epanemu's crowded scenes most "false" finds are unlabelled dice.
        neg = np.concatenate([neg, hard_spots(tray, hard_negatives(tray, args.hard_from))])
    del scenes
    # dice that are not pip dice: whole dice, so "no die" here means "not a pip die"
    others = [training_scene(args.seed * 100_000 + 60_000 + n, symbol_share=1.0, not_pips=True,
                             upright=args.upright_scenes) for n in range(args.not_pip_scenes)]
    ox = die_crops(others)[0]
    del others
    glare = with_reflection(neg, rng, REFLECTION_CROPS) if args.glare_rate > 0 else neg[:0]
    busy = busy_negatives(args, rng) if args.busy_scenes else neg[:0]
    print(f"wide crops: tray {len(tx)}, mixed {len(mx)}, synthetic {len(sx)}, no die {len(neg)}, "
          f"not pip dice {len(ox)}, reflections {len(glare)}, busy tables {len(busy)}", flush=True)
    not_pip_rate = args.not_pip_rate if len(ox) else 0.0
    busy_rate = args.busy_rate if len(busy) else 0.0
    share_die = 1 - args.neg_rate - not_pip_rate - args.glare_rate - busy_rate
    real = 1 - args.synthetic_share
    tray_w = args.tray_repeat * len(tx) / max(args.tray_repeat * len(tx) + len(mx), 1)
    return CropPools([
        (tx, ty, share_die * real * tray_w),
        (mx, my, share_die * real * (1 - tray_w), args.mixed_turn),
        # dice lie at random turns in the scenes; upright ones keep their top face up
        (sx, sy, share_die * args.synthetic_share, args.mixed_turn if args.upright_scenes else 360.0),
        (neg, np.full(len(neg), NO_DIE), args.neg_rate),
        (ox, np.full(len(ox), NO_DIE), not_pip_rate),
        (glare, np.full(len(glare), NO_DIE), args.glare_rate),
        (busy, np.full(len(busy), NO_DIE), busy_rate),
    ])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--out", default="vision/models/pip_faces.onnx")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synthetic", type=int, default=1500, help="rendered training scenes")
    ap.add_argument("--synthetic-share", type=float, default=0.3, help="share of die crops drawn from them")
    ap.add_argument("--init", type=Path, help="start from these weights (.pt)")
    ap.add_argument("--hard-from", type=Path, metavar="FINDER_ONNX",
                    help="add the finder's false finds on the tray photos as 'no die' crops")
    ap.add_argument("--neg-rate", type=float, default=0.2, help="share of 'no die' crops")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (cosine decay)")
    ap.add_argument("--crop", type=int, default=CROP, help="crop side in pixels (multiple of 8)")
    ap.add_argument("--arch", choices=("dw", "plain"), default="dw")
    ap.add_argument("--width", default="32,64,128", help="channels of the three stages")
    ap.add_argument("--tray-repeat", type=float, default=3,
                    help="draw the tray photos (byler-train) this many times as often as their count says")
    ap.add_argument("--mixed-turn", type=float, default=360.0,
                    help="turn the mixed photos' (epanemu-train) crops at most this many degrees "
                         "either way (their camera is upright: the top face shows above the front one)")
    ap.add_argument("--upright-scenes", action="store_true",
                    help="render oblique training scenes with an upright camera and turn their "
                         "crops at most --mixed-turn degrees")
    ap.add_argument("--not-pip-scenes", type=int, default=0,
                    help="rendered scenes of dice with numerals, letters or pictures, learnt as 'no die'")
    ap.add_argument("--not-pip-rate", type=float, default=0.06, help="share of crops drawn from those dice")
    ap.add_argument("--glare-rate", type=float, default=0.0,
                    help="share of crops that are empty spots with a lamp reflection drawn on, learnt as 'no die'")
    ap.add_argument("--busy-scenes", type=int, default=0,
                    help="rendered scenes on game boards among game pieces whose false finds and empty "
                         "places are learnt as 'no die'")
    ap.add_argument("--busy-rate", type=float, default=0.05, help="share of crops drawn from those")
    args = ap.parse_args(argv)
    if not 0 <= args.neg_rate + args.not_pip_rate + args.glare_rate + args.busy_rate < 1:
        ap.error("--neg-rate, --not-pip-rate, --glare-rate and --busy-rate must add up to under 1")
    width = tuple(int(w) for w in args.width.split(","))
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    pools = build_pools(args, rng)
    val_tray = [load(p) for p in photos(folder="byler-train", side="val")]
    vx, vy = val_set(val_tray + [load(p) for p in photos(folder="epanemu-train", side="val")], args.crop)
    tx, ty = val_set(val_tray, args.crop)
    print(f"val dice {len(vy)} (tray {len(ty)}), crop {args.crop}, {args.arch} {width}", flush=True)
    net = make_net(args.arch, width)
    if args.init:
        net.load_state_dict(torch.load(args.init))
    net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)

    def train_step():
        x, y = pools.batch(rng, args.batch, args.crop)
        loss = F.cross_entropy(net(x), y, label_smoothing=0.02)
        opt.zero_grad(); loss.backward(); opt.step()
        return f"loss {loss.item():.3f}"

    # a diagnostic only (checkpoints are picked on the real val dice): the share of rendered
    # dice with numerals, letters or pictures, from scenes no run trains on, read as "no die"
    others = [training_scene(NOT_PIP_CHECK_SEED + n, symbol_share=1.0, not_pips=True, upright=args.upright_scenes)
              for n in range(40 if args.not_pip_scenes else 0)]
    nx = val_set(others, args.crop)[0] if others else None

    def validate():
        tray, mixed = accuracy(net, tx, ty), accuracy(net, vx, vy)
        note = f", not pip dice read as no die {no_die_share(net, nx):.3f}" if nx is not None else ""
        # Tray photos are what the box sees: weigh them as much as all the mixed ones.
        return 0.5 * (tray + mixed), f"val acc {mixed:.4f} (tray {tray:.4f}){note}"

    best = train_for(net, opt, lr=args.lr, minutes=args.minutes, out=args.out, train_step=train_step,
                     validate=validate, higher_is_better=True, every=200)
    export(net, args.out, side=args.crop)
    print(f"wrote {args.out} (val score {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
