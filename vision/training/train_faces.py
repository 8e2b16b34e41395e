"""Train the die-face reader (crop classifier: faces 1..6 + "no die") and export it to ONNX.

  python -m vision.training.train_faces [--minutes 12] [--out vision/models/pip_faces.onnx]

Crops come from the 'train' side of the shared real photos: every labelled die, each time at
a random angle, mirror, centre shift, scale and colour/blur/noise change; plus "no die" crops
away from the labelled dice. The checkpoint with the best validation accuracy is exported.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision.training.augment import affine, load, photometric, synthetic_pool
from vision.training.loop import train_for
from vision.training.nets import FaceNet
from vision.training.split import photos

CROP = 32          # default network input side, pixels (--crop; the reader takes the side
                   # from models/pip_reader.json)
CONTEXT = 1.35     # crop side = CONTEXT * die size (max of the box's w, h)
NO_DIE = 6         # class index of "no die here"


def crop(image, cx, cy, size, angle=0.0, flip=False, side=CROP):
    """side x side crop around a die (turned, mirrored); big shrinks go through an area
    resize like the reader's, so large dice are not aliased."""
    scale = side / (CONTEXT * size)
    k = max(1, int(math.ceil(0.6 / scale)))
    m = affine((cx, cy), angle, scale * k, flip, (k * side / 2, k * side / 2))
    out = cv2.warpAffine(image, m, (k * side, k * side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out if k == 1 else cv2.resize(out, (side, side), interpolation=cv2.INTER_AREA)


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


def random_crop(pool, rng, neg_rate=0.25, hard=None, side=CROP):
    if hard is not None and len(hard) and rng.random() < 0.4 * neg_rate:
        n, cx, cy, size = hard[rng.integers(len(hard))]
        image = pool[int(n)][0]
        size *= math.exp(rng.normal(0, 0.12))
        img = crop(image, cx + rng.normal(0, 0.07) * size, cy + rng.normal(0, 0.07) * size, size,
                   rng.uniform(0, 360), rng.random() < 0.5, side)
        return photometric(img, rng, 0.8), NO_DIE
    image, dice = pool[rng.integers(len(pool))]
    h, w = image.shape[:2]
    angle = rng.uniform(0, 360)
    flip = rng.random() < 0.5
    if len(dice) and rng.random() > neg_rate:
        f, cx, cy, bw, bh = dice[rng.integers(len(dice))]
        size = max(bw, bh) * math.exp(rng.normal(0, 0.12))
        cx += rng.normal(0, 0.07) * size
        cy += rng.normal(0, 0.07) * size
        label = int(f) - 1
    else:
        sizes = dice[:, 3:5].max(axis=1) if len(dice) else np.array([40.0])
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
                break
        else:
            return random_crop(pool, rng, 0.0, side=side)
        label = NO_DIE
    img = crop(image, cx, cy, size, angle, flip, side)
    return photometric(img, rng, 0.8), label


def to_tensor(batch):
    return torch.from_numpy(np.stack(batch).astype(np.float32) / 255.0).permute(0, 3, 1, 2).contiguous()


def val_set(pool, side=CROP):
    xs, ys = [], []
    for image, dice in pool:
        for f, cx, cy, bw, bh in dice:
            xs.append(crop(image, cx, cy, max(bw, bh), side=side))
            ys.append(int(f) - 1)
    return to_tensor(xs), torch.tensor(ys)


def accuracy(net, x, y):
    net.eval()
    with torch.no_grad():
        pred = torch.cat([net(x[i:i + 512]) for i in range(0, len(x), 512)]).argmax(1)
    return (pred == y).float().mean().item()


def export(net, out, weights=True, side=CROP):
    """Write the ONNX file (batch of side x side crops) and the torch weights beside it."""
    net.eval()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, side, side), str(out), dynamo=False,
                      input_names=["crops"], output_names=["logits"], opset_version=13,
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}})
    if weights:
        torch.save(net.state_dict(), Path(out).with_suffix(".pt"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--out", default="vision/models/pip_faces.onnx")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synthetic", type=int, default=300, help="rendered scenes added to the real photos")
    ap.add_argument("--init", type=Path, help="start from these weights (.pt)")
    ap.add_argument("--hard-from", type=Path, metavar="FINDER_ONNX",
                    help="add the finder's false finds on the training photos as 'no die' crops")
    ap.add_argument("--neg-rate", type=float, default=0.25, help="share of 'no die' crops")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (cosine decay)")
    ap.add_argument("--crop", type=int, default=CROP, help="crop side in pixels (multiple of 8)")
    ap.add_argument("--width", default="24,48,96", help="channels of the three stages")
    ap.add_argument("--norm-input", action="store_true",
                    help="normalise each crop's channels inside the network first")
    ap.add_argument("--tray-repeat", type=int, default=1,
                    help="draw the tray photos (byler-train) this many times as often")
    args = ap.parse_args(argv)
    width = tuple(int(w) for w in args.width.split(","))
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train = [load(p) for p in photos(side="train")]
    # Only tray photos: in epanemu's crowded scenes most "false" finds are unlabelled dice.
    n_tray = len(photos(folder="byler-train", side="train"))
    hard = hard_negatives(train[:n_tray], args.hard_from) if args.hard_from else None
    if hard is not None:
        print(f"hard negatives: {len(hard)}", flush=True)
    train += train[:n_tray] * (args.tray_repeat - 1)  # same arrays, drawn more often
    train += synthetic_pool(args.synthetic, seed=1000 + args.seed) if args.synthetic else []
    val_tray = [load(p) for p in photos(folder="byler-train", side="val")]
    vx, vy = val_set(val_tray + [load(p) for p in photos(folder="epanemu-train", side="val")], args.crop)
    tx, ty = val_set(val_tray, args.crop)
    print(f"train photos + scenes {len(train)}, val dice {len(vy)} (tray {len(ty)}), crop {args.crop}, "
          f"width {width}", flush=True)
    net = FaceNet(width=width, norm_input=args.norm_input)
    if args.init:
        net.load_state_dict(torch.load(args.init))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)

    def train_step():
        batch = [random_crop(train, rng, args.neg_rate, hard, args.crop) for _ in range(args.batch)]
        x = to_tensor([b[0] for b in batch])
        y = torch.tensor([b[1] for b in batch])
        loss = F.cross_entropy(net(x), y, label_smoothing=0.02)
        opt.zero_grad(); loss.backward(); opt.step()
        return f"loss {loss.item():.3f}"

    def validate():
        acc = accuracy(net, vx, vy)
        return acc, f"val acc {acc:.4f} (tray {accuracy(net, tx, ty):.4f})"

    best = train_for(net, opt, lr=args.lr, minutes=args.minutes, out=args.out, train_step=train_step,
                     validate=validate, higher_is_better=True)
    export(net, args.out, side=args.crop)
    print(f"wrote {args.out} (val acc {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
