"""Train the die finder (centre heatmap + size + offset) and export it to ONNX.

  python -m vision.training.train_finder [--minutes 12] [--size 384] [--out vision/models/pip_finder.onnx]

Trains on the 'train' side of the shared real photos (vision.training.split) and rendered
scenes (vision.training.scenes), on patches cut at random scales around the reader's own
scale (a frame's longer side shrunk to ``--size``); picks the checkpoint that finds the most
val dice with few false finds (F1 at the heatmap level 0.3, matched as the scorer does), or
with ``--block-val N`` the best mean of that F1 and the F1 on N rendered packed-block scenes
(the val photos hold no packed block), and exports it with a fixed 1x3xSxS input (S =
``--size``, recorded as ``find_size`` in pip_reader.json by the calibration).
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision import pips
from vision.bench.scoring import labels_in_pixels, pair_up
from vision.training.augment import affine, load, photometric, salt_and_pepper
from vision.training.loop import train_for
from vision.training.nets import Finder, FinderDW
from vision.training.split import photos

FIND_SIZE = 384      # default input side (--size)
STRIDE = pips.STRIDE
PATCH = 256          # training patch (the network is fully convolutional)
PAD = pips.PAD


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


def sample(image, dice, rng, patch=PATCH, find_size=FIND_SIZE):
    """One augmented training patch: random scale around the reader's, 90-degree turns,
    mirror, small tilt. Shrinking goes through an area resize, as in the reader."""
    h, w = image.shape[:2]
    scale = find_size / max(h, w) * math.exp(rng.uniform(math.log(0.6), math.log(1.6)))
    if scale < 1:
        image = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        sx, sy = image.shape[1] / w, image.shape[0] / h
        dice = dice * np.array([1, sx, sy, sx, sy], np.float32)
        warp_scale = 1.0
    else:
        warp_scale = scale
    h, w = image.shape[:2]
    angle = 90 * rng.integers(4) + rng.uniform(-8, 8)
    flip = rng.random() < 0.5
    if len(dice) and rng.random() < 0.7:
        anchor = dice[rng.integers(len(dice)), 1:3] + rng.normal(0, 40 * min(scale, 1), 2)
    else:
        anchor = rng.uniform([0, 0], [w, h])
    m = affine(anchor, angle, warp_scale, flip, (patch / 2, patch / 2))
    border = (PAD, PAD, PAD) if rng.random() < 0.5 else tuple(int(v) for v in rng.integers(0, 255, 3))
    out = cv2.warpAffine(image, m, (patch, patch), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    out = photometric(out, rng)
    if rng.random() < 0.15:
        out = salt_and_pepper(out, rng, rng.uniform(0.005, 0.03))
    boxes = []
    for f, cx, cy, bw, bh in dice:
        x, y = m @ (cx, cy, 1.0)
        if round(angle / 90) % 2:
            bw, bh = bh, bw
        boxes.append((x, y, bw * warp_scale, bh * warp_scale))
    return out, np.array(boxes, np.float32).reshape(-1, 4)


def to_tensor(batch: list[np.ndarray]) -> torch.Tensor:
    """NCHW float tensor in channels-last memory (faster for torch's CPU convolutions)."""
    x = torch.from_numpy(np.stack(batch).astype(np.float32) / 255.0).permute(0, 3, 1, 2)
    return x.contiguous(memory_format=torch.channels_last)


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


def make_batch(pools, weights, rng, n, patch=PATCH, find_size=FIND_SIZE):
    imgs, hs, rs, ms = [], [], [], []
    for g in rng.choice(len(pools), size=n, p=weights):
        image, dice = pools[g][rng.integers(len(pools[g]))]
        img, boxes = sample(image, dice, rng, patch, find_size)
        hm, rg, mk = targets(boxes, patch)
        imgs.append(img); hs.append(hm); rs.append(rg); ms.append(mk)
    return (to_tensor(imgs), torch.from_numpy(np.stack(hs)), torch.from_numpy(np.stack(rs)),
            torch.from_numpy(np.stack(ms)))


def detection_f1(net, val, find_size, threshold=0.3) -> tuple[float, str]:
    """F1 of the finder on whole val photos (letterboxed as the reader does), finds matched to
    labels by the scorer's rule."""
    found = labelled = predicted = 0
    for image, labels in val:
        canvas, scale = pips.letterbox(image, find_size)
        with torch.no_grad():
            maps = net(to_tensor([canvas]))[0].numpy()
        finds = pips.peaks(maps, scale, threshold)
        found += len(pair_up([{"x": f.x, "y": f.y} for f in finds], labels))
        labelled += len(labels)
        predicted += len(finds)
    recall, precision = found / max(labelled, 1), found / max(predicted, 1)
    f1 = 2 * recall * precision / max(recall + precision, 1e-9)
    return f1, f"val recall {recall:.4f} precision {precision:.4f} f1 {f1:.4f}"


# Rendered scenes for checkpoint picking start at scenes.PICK_SEED (never a training scene,
# nor one of the MEASURE_SEED scenes the README's block figure uses); each kind has its own
# range of seeds.
PICK_OFFSETS = {"blocks": 0, "symbols": 500_000}


def pick_scene(kind: str, n: int) -> tuple[np.ndarray, list[dict]]:
    """Rendered scene number ``n`` of ``kind`` for checkpoint picking: "blocks" (dice packed
    in blocks) or "symbols" (made-up-symbol dice, none of the built-in sets' icons)."""
    from vision.training.scenes import PICK_SEED, scene_labels, training_scene
    share = {"blocks": {"block_share": 1.0}, "symbols": {"symbol_share": 1.0}}[kind]
    image, dice = training_scene(PICK_SEED + PICK_OFFSETS[kind] + n, upright=True, **share)
    return image, scene_labels(dice)


def checkpoint_score(net, val, blocks, find_size, symbols=()) -> tuple[float, str]:
    """The val photos' F1, or with rendered ``blocks`` and/or ``symbols`` scenes the mean of
    theirs and that F1."""
    f1, text = detection_f1(net, val, find_size)
    scores, texts = [f1], [text]
    for name, scenes in (("blocks", blocks), ("symbols", symbols)):
        if scenes:
            more, more_text = detection_f1(net, scenes, find_size)
            scores.append(more)
            texts.append(f"{name} {more_text.removeprefix('val ')}")
    return float(np.mean(scores)), "; ".join(texts)


def export(net, out, weights=True, find_size=FIND_SIZE):
    """Write the ONNX file (fixed 1x3xSxS input) and the torch weights beside it."""
    net.eval()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, find_size, find_size), str(out), dynamo=False,
                      input_names=["image"], output_names=["maps"], opset_version=13)
    if weights:
        torch.save(net.state_dict(), Path(out).with_suffix(".pt"))


def make_net(arch: str):
    return FinderDW() if arch == "dw" else Finder()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=12)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--patch", type=int, default=PATCH, help="training patch side (multiple of 32)")
    ap.add_argument("--size", type=int, default=FIND_SIZE, help="the reader's input side (multiple of 32)")
    ap.add_argument("--arch", choices=("dw", "plain"), default="dw")
    ap.add_argument("--out", default="vision/models/pip_finder.onnx")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--synthetic", type=int, default=1500, help="rendered training scenes")
    ap.add_argument("--synthetic-share", type=float, default=0.3, help="share of patches cut from them")
    ap.add_argument("--symbol-share", type=float, default=0.35,
                    help="share of rendered scenes whose dice carry random symbols, not pips")
    ap.add_argument("--block-share", type=float, default=0.0,
                    help="share of rendered scenes whose dice are packed in a block (rows of touching dice)")
    ap.add_argument("--block-val", type=int, default=0,
                    help="also score checkpoints on this many rendered packed-block scenes (not trained on): "
                         "the kept checkpoint has the best mean of the val photos' F1 and theirs")
    ap.add_argument("--symbol-val", type=int, default=0,
                    help="also score checkpoints on this many rendered scenes of made-up-symbol dice "
                         "(not trained on): the kept checkpoint has the best mean of the F1s")
    ap.add_argument("--tray-share", type=float, default=0.3, help="share of patches cut from the tray photos")
    ap.add_argument("--busy-share", type=float, default=0.0,
                    help="share of rendered tray scenes on a game board among game pieces (vision.training.clutter)")
    ap.add_argument("--init", type=Path, help="start from these weights (.pt)")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (cosine decay)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    from vision.training.scenes import training_scene
    tray = [load(p) for p in photos(folder="byler-train", side="train")]
    mixed = [load(p) for p in photos(folder="epanemu-train", side="train")]
    scenes = [training_scene(args.seed * 100_000 + 50_000 + n, symbol_share=args.symbol_share,
                             block_share=args.block_share, busy_share=args.busy_share)
              for n in range(args.synthetic)]
    pools = [tray, mixed, scenes] if scenes else [tray, mixed]
    real = 1 - (args.synthetic_share if scenes else 0)
    weights = np.array([args.tray_share * real, (1 - args.tray_share) * real] + ([args.synthetic_share] if scenes else []))
    val = []
    for p in photos(side="val"):
        image = cv2.imread(str(p.image))
        val.append((image, labels_in_pixels(p.dice, image.shape[1], image.shape[0])))
    blocks = [pick_scene("blocks", n) for n in range(args.block_val)]
    symbols = [pick_scene("symbols", n) for n in range(args.symbol_val)]
    print(f"train: tray {len(tray)}, mixed {len(mixed)}, scenes {len(scenes)}; val photos {len(val)}; "
          f"input {args.size}, {args.arch}", flush=True)
    net = make_net(args.arch)
    if args.init:
        net.load_state_dict(torch.load(args.init))
    net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)

    def train_step():
        x, hm, rg, mk = make_batch(pools, weights, rng, args.batch, args.patch, args.size)
        loss, hl, rl = loss_fn(net(x), hm, rg, mk)
        opt.zero_grad(); loss.backward(); opt.step()
        return f"loss {loss.item():.3f} (heat {hl:.3f} reg {rl:.3f})"

    best = train_for(net, opt, lr=args.lr, minutes=args.minutes, out=args.out, train_step=train_step,
                     validate=lambda: checkpoint_score(net, val, blocks, args.size, symbols), higher_is_better=True,
                     every=250)
    export(net, args.out, find_size=args.size)
    print(f"wrote {args.out} (val F1 {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
