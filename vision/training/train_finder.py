"""Train the die finder (centre heatmap + size + offset) and export it to ONNX.

  python -m vision.training.train_finder [--minutes 12] [--out vision/models/pip_finder.onnx]

Trains on the 'train' side of the shared real photos (vision.training.split), picks the
checkpoint with the best validation loss, exports with a fixed 1x3xSxS input (S = FIND_SIZE).
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
from vision.training.nets import Finder
from vision.training.split import photos

FIND_SIZE = 320      # the reader letterboxes a frame's longer side to this
STRIDE = 4
PATCH = 256          # training patch (the network is fully convolutional)
PAD = 127


def targets(dice_xywh: np.ndarray, size: int) -> tuple[np.ndarray, ...]:
    """Heatmap (1,g,g), regression (4,g,g) = logw, logh, dx, dy, and its mask (1,g,g)."""
    g = size // STRIDE
    heat = np.zeros((g, g), np.float32)
    reg = np.zeros((4, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g].astype(np.float32)
    for cx, cy, w, h in dice_xywh:
        gx, gy = cx / STRIDE, cy / STRIDE
        ix, iy = int(gx), int(gy)
        if not (0 <= ix < g and 0 <= iy < g):
            continue
        sigma = max(0.6, min(w, h) / STRIDE / 5.0)
        blob = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma ** 2))
        heat = np.maximum(heat, blob)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (math.log(max(w, 2) / 16), math.log(max(h, 2) / 16), gx - ix, gy - iy)
        mask[iy, ix] = 1.0
    return heat[None], reg, mask[None]


def sample(image, dice, rng, patch=PATCH):
    """One augmented training patch: random scale, 90-degree turns, flips, small tilt."""
    h, w = image.shape[:2]
    base = FIND_SIZE / max(h, w)
    scale = base * math.exp(rng.uniform(math.log(0.6), math.log(1.6)))
    angle = 90 * rng.integers(4) + rng.uniform(-8, 8)
    flip = rng.random() < 0.5
    if len(dice) and rng.random() < 0.7:
        anchor = dice[rng.integers(len(dice)), 1:3] + rng.normal(0, 40, 2)
    else:
        anchor = rng.uniform([0, 0], [w, h])
    m = affine(anchor, angle, scale, flip, (patch / 2, patch / 2))
    border = (PAD, PAD, PAD) if rng.random() < 0.5 else tuple(int(v) for v in rng.integers(0, 255, 3))
    out = cv2.warpAffine(image, m, (patch, patch), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    out = photometric(out, rng)
    boxes = []
    for f, cx, cy, bw, bh in dice:
        x, y = m @ (cx, cy, 1.0)
        if round(angle / 90) % 2:
            bw, bh = bh, bw
        boxes.append((x, y, bw * scale, bh * scale))
    return out, np.array(boxes, np.float32).reshape(-1, 4)


def to_tensor(batch: list[np.ndarray]) -> torch.Tensor:
    return torch.from_numpy(np.stack(batch).astype(np.float32) / 255.0).permute(0, 3, 1, 2).contiguous()


def focal_loss(logit, heat):
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg_w = (1 - heat) ** 4
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p ** 2 * neg_w * (1 - pos)).sum()
    return (pos_loss + neg_loss) / pos.sum().clamp(min=1)


def loss_fn(out, heat, reg, mask):
    hl = focal_loss(out[:, :1], heat)
    rl = (F.l1_loss(out[:, 1:5], reg, reduction="none") * mask).sum() / mask.sum().clamp(min=1)
    return hl + rl, hl.item(), rl.item()


def make_batch(pool, rng, n, patch=PATCH):
    imgs, hs, rs, ms = [], [], [], []
    for _ in range(n):
        image, dice = pool[rng.integers(len(pool))]
        img, boxes = sample(image, dice, rng, patch)
        hm, rg, mk = targets(boxes, patch)
        imgs.append(img); hs.append(hm); rs.append(rg); ms.append(mk)
    return (to_tensor(imgs), torch.from_numpy(np.stack(hs)), torch.from_numpy(np.stack(rs)),
            torch.from_numpy(np.stack(ms)))


def val_batches(pool):
    """Validation: whole photos letterboxed to FIND_SIZE, no augmentation."""
    out = []
    for image, dice in pool:
        h, w = image.shape[:2]
        s = FIND_SIZE / max(h, w)
        m = np.array([[s, 0, 0], [0, s, 0]], np.float64)
        img = cv2.warpAffine(image, m, (FIND_SIZE, FIND_SIZE), flags=cv2.INTER_AREA,
                             borderValue=(PAD, PAD, PAD))
        boxes = np.array([(cx * s, cy * s, bw * s, bh * s) for _, cx, cy, bw, bh in dice],
                         np.float32).reshape(-1, 4)
        out.append((img, targets(boxes, FIND_SIZE)))
    return out


def export(net, out, weights=True):
    """Write the ONNX file (fixed 1x3xSxS input) and the torch weights beside it."""
    net.eval()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, FIND_SIZE, FIND_SIZE), str(out), dynamo=False,
                      input_names=["image"], output_names=["maps"], opset_version=13)
    if weights:
        torch.save(net.state_dict(), Path(out).with_suffix(".pt"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--patch", type=int, default=PATCH, help="training patch side (multiple of 32)")
    ap.add_argument("--out", default="vision/models/pip_finder.onnx")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synthetic", type=int, default=300, help="rendered scenes added to the real photos")
    ap.add_argument("--init", type=Path, help="start from these weights (.pt)")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (cosine decay)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train = [load(p) for p in photos(side="train")]
    train += synthetic_pool(args.synthetic, seed=1000 + args.seed) if args.synthetic else []
    val = val_batches([load(p) for p in photos(side="val")])
    print(f"train photos + scenes {len(train)}, val photos {len(val)}", flush=True)
    net = Finder()
    if args.init:
        net.load_state_dict(torch.load(args.init))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)

    def train_step():
        x, hm, rg, mk = make_batch(train, rng, args.batch, args.patch)
        loss, hl, rl = loss_fn(net(x), hm, rg, mk)
        opt.zero_grad(); loss.backward(); opt.step()
        return f"loss {loss.item():.3f} (heat {hl:.3f} reg {rl:.3f})"

    def validate():
        vl = 0.0
        for i in range(0, len(val), 16):
            chunk = val[i:i + 16]
            vx = to_tensor([c[0] for c in chunk])
            vh, vr, vm = (torch.from_numpy(np.stack([c[1][k] for c in chunk])) for k in range(3))
            vl += loss_fn(net(vx), vh, vr, vm)[0].item() * len(chunk)
        vl /= len(val)
        return vl, f"val {vl:.3f}"

    best = train_for(net, opt, lr=args.lr, minutes=args.minutes, out=args.out, train_step=train_step,
                     validate=validate, higher_is_better=False)
    export(net, args.out)
    print(f"wrote {args.out} (val loss {best:.3f})", flush=True)


if __name__ == "__main__":
    main()
