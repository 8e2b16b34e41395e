"""Train the taught-dice embedding (die crop -> unit vector) and export it to ONNX.

  python -m vision.training.train_embedding [--minutes 60] [--out vision/models/die_embedding.onnx]

A taught die set is read by comparing each die's embedding with the user's examples
(vision/taught.py), so the embedding must put two pictures of the same face close together
and different faces apart *for faces it has never seen*, whatever the die's colour, turn,
light and blur. It learns that from:

* thousands of made-up die sets (vision.training.symbols: six random symbols each), rendered
  as dice at random poses, colours and light (vision.synth, vision.training.scenes), with a
  neighbouring die now and then; a batch holds several sets, each face seen a few times, and
  a supervised contrastive loss pulls the views of one face together and pushes every other
  face (above all the other faces of its own set) away; with ``--maker-variants`` a share
  of the views shows the set as another maker would print it (symbols.maker_variant), so
  two prints of one face with other mark spreads and sizes lie close too;
* real die crops from the 'train' side of the shared photos *without their labels*: two
  differently turned, coloured and blurred copies of one crop must match (so the embedding
  learns what real plastic, glare and photo noise look like).

No labelled real die and none of the built-in sets' icons is used, so teaching the pip dice
"as unknown symbols" (python -m vision.bench fewshot) stays a fair test. Checkpoints are
picked on few-shot episodes of held-out made-up sets (8 examples per face). ``--init-onnx``
goes on from an exported network (the shipped one's torch weights were not kept), its batch
norms frozen as they were folded.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.synth import DIE_MM, DiePose, Table, faces_of, forget_face_set
from vision.training.augment import CROP, WIDE, WIDE_CONTEXT, augment, load
from vision.training.loop import train_for
from vision.training.nets import FaceNetDW
from vision.training.scenes import training_lighting, training_style
from vision.training.split import photos
from vision.training.symbols import symbol_counts, symbol_set
from vision.taught import symbol_map
from vision.training.train_faces import die_crops, wide_crop

DIM = 64
CONTEXT = 1.1  # crop side / die box side: as the taught reader cuts its crops (taught.CROP_PAD)
VIEWS = 5   # stored renders per face of a made-up set


def render_views(name: str, rng: np.random.Generator, views: int = VIEWS, same_style: float = 0.0,
                 variant: Callable[[], str] | None = None, variant_share: float = 0.0) -> np.ndarray:
    """(6, views, WIDE, WIDE, 3) wide crops of each face of set ``name``, each view a die of
    another random colour unless ``same_style`` (share of views in the set's one style): the
    die's colour must not tell faces apart (a mixed bag of pip dice), only the symbol. A
    share ``variant_share`` of the views shows the set as another maker prints it
    (``variant()`` registers such a variant and names it: symbols.maker_variant; it is
    forgotten once drawn)."""
    base = training_style(rng)
    out = np.empty((6, views, WIDE, WIDE, 3), np.uint8)
    canvas = int(WIDE * 1.6)
    die_px = WIDE / WIDE_CONTEXT
    faces = faces_of(name)
    for i, face in enumerate(faces):
        for v in range(views):
            style = base if rng.random() < same_style else training_style(rng)
            tilt = float(rng.uniform(0, 14)) if rng.random() < 0.8 else float(rng.uniform(20, 45))
            table = Table((canvas, canvas), int(rng.integers(1 << 30)), die_px=die_px,
                          lighting=training_lighting(rng), tilt_deg=tilt)
            x, y = table.camera.to_table(canvas / 2, canvas / 2, DIE_MM)
            yaw = float(rng.uniform(0, 360))
            poses = [DiePose(face=face, x=x, y=y, yaw=yaw, tilt=float(rng.uniform(0, 8)),
                             tilt_axis=float(rng.uniform(0, 360)), style=style)]
            for _ in range(int(rng.choice([0, 0, 1, 2]))):  # a die beside it
                a = math.radians(yaw + 90 * int(rng.integers(4)) + rng.uniform(-10, 10))
                gap = DIE_MM * rng.uniform(1.02, 1.3)
                poses.append(DiePose(face=faces[int(rng.integers(6))], x=x + gap * math.cos(a),
                                     y=y + gap * math.sin(a), yaw=yaw + float(rng.uniform(-15, 15)),
                                     style=style if rng.random() < 0.6 else training_style(rng)))
            poses.reverse()  # the die itself drawn last, on top
            maker = variant_share > 0 and variant is not None and rng.random() < variant_share
            drawn = variant() if maker else name
            image, truth = table.draw(poses, drawn, rng)
            if maker:
                forget_face_set(drawn)  # one view's passing variant
            d = truth[-1]
            out[i, v] = wide_crop(image, d.x, d.y, max(d.w, d.h))
    return out


def symbol_pool(first_seed: int, count: int, views: int = VIEWS,
                variant_share: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(count, 6, views, WIDE, WIDE, 3) wide crops for made-up sets ``first_seed`` .. + count,
    and (count, 6) how many marks each face shows (-1: not a count); ``variant_share`` of
    the views as another maker prints the set (``render_views``)."""
    pool = np.empty((count, 6, views, WIDE, WIDE, 3), np.uint8)
    counts = np.empty((count, 6), np.int64)
    for k in range(count):
        seed = first_seed + k
        rng = np.random.default_rng([seed, 5])
        variant_rng = np.random.default_rng([seed, 6])
        pool[k] = render_views(symbol_set(seed), rng, views, variant=lambda: symbol_set(seed, variant_rng),
                               variant_share=variant_share)
        counts[k] = symbol_counts(seed)
    return pool, counts


class WithCount(nn.Module):
    """The embedding network plus a training-only head that says how many marks the face
    shows (0-9), for the made-up faces where that is known: it makes the embedding count."""

    def __init__(self, net: FaceNetDW, channels: int):
        super().__init__()
        self.net = net
        self.count = nn.Linear(channels, 10)

    def forward(self, x):
        pooled = self.net.body[:-2](self.net.norm(x))
        return F.normalize(self.net.body[-2:](pooled), dim=1), self.count(pooled)


def to_tensor(crops) -> torch.Tensor:
    """The network's input for BGR crops: their symbol maps (vision.taught.symbol_map)."""
    x = torch.from_numpy(np.stack([symbol_map(c) for c in crops])[:, None])
    return x.contiguous(memory_format=torch.channels_last)


def embed(net, x: torch.Tensor) -> torch.Tensor:
    return F.normalize(net(x), dim=1)


def supcon(z: torch.Tensor, labels: torch.Tensor, temperature: float) -> torch.Tensor:
    """Supervised contrastive loss (every other view with the same label is a positive)."""
    sim = z @ z.T / temperature
    self_mask = torch.eye(len(z), dtype=torch.bool)
    sim = sim.masked_fill(self_mask, -1e9)
    log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    pos = (labels[:, None] == labels[None, :]) & ~self_mask
    has = pos.any(dim=1)
    return -(log_prob * pos).sum(1)[has].div(pos.sum(1)[has]).mean()


def make_batch(pool, counts, real, rng, sets, views, real_n, side=CROP):
    """Crops, their face labels (real crops: one made-up label per crop, both views) and
    mark counts (-1 unknown)."""
    xs, ys, ns = [], [], []
    for s in rng.choice(len(pool), size=sets, replace=False):
        for f in range(6):
            for v in rng.choice(pool.shape[2], size=views, replace=views > pool.shape[2]):
                xs.append(augment(pool[s, f, v], rng, side, CONTEXT))
                ys.append(int(s) * 6 + f)
                ns.append(int(counts[s, f]))
    if real is not None and real_n:
        for k, i in enumerate(rng.choice(len(real), size=real_n, replace=False)):
            xs.append(augment(real[i], rng, side, CONTEXT))
            xs.append(augment(real[i], rng, side, CONTEXT))
            ys += [-1 - k, -1 - k]
            ns += [-1, -1]
    return to_tensor(xs), torch.tensor(ys), torch.tensor(ns)


def episode_accuracy(net, pool, rng, shots=8, side=CROP, rounds=3) -> float:
    """Few-shot reading of held-out made-up sets: prototypes from ``shots`` augmented views
    per face, every other view read by the nearest prototype."""
    right = total = 0
    for _ in range(rounds):
        for s in range(len(pool)):
            teach = [augment(pool[s, f, int(rng.integers(pool.shape[2]))], rng, side, CONTEXT) for f in range(6) for _ in range(shots)]
            query = [augment(pool[s, f, v], rng, side, CONTEXT) for f in range(6) for v in range(pool.shape[2])]
            with torch.no_grad():
                proto = F.normalize(embed(net, to_tensor(teach)).reshape(6, shots, -1).mean(1), dim=1)
                q = embed(net, to_tensor(query))
            pred = (q @ proto.T).argmax(1).numpy()
            truth = np.repeat(np.arange(6), pool.shape[2])
            right += int((pred == truth).sum())
            total += len(truth)
    return right / total


def real_probe(side=CROP, shots=8):
    """Diagnostic only (printed, never used to pick a checkpoint): per folder, the labelled
    val dice as crops, the first ``shots`` of each face to teach, the rest to read."""
    import cv2
    from vision.taught import crop_die
    out = {}
    for folder in ("byler-train", "epanemu-train"):
        crops, faces = [], []
        for p in photos(folder=folder, side="val"):
            image = cv2.imread(str(p.image))
            h, w = image.shape[:2]
            for f, cx, cy, bw, bh in p.dice:
                c = crop_die(image, cx * w, cy * h, bw * w, bh * h, pad=CONTEXT)
                crops.append(cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA))
                faces.append(f - 1)
        faces = np.array(faces)
        teach = np.concatenate([np.flatnonzero(faces == f)[:shots] for f in range(6)])
        out[folder] = (to_tensor(crops), faces, teach)
    return out


def probe_accuracy(net, probe) -> str:
    texts = []
    for folder, (x, faces, teach) in probe.items():
        with torch.no_grad():
            z = embed(net, x)
            zt = torch.cat([embed(net, torch.rot90(x[teach], k, (2, 3))) for k in range(4)])
        labels = np.tile(faces[teach], 4)
        sims = (z @ zt.T).numpy()
        scores = np.full((len(z), 6), -2.0)
        for f in range(6):
            scores[:, f] = sims[:, labels == f].max(axis=1)
        rest = np.setdiff1d(np.arange(len(faces)), teach)
        texts.append(f"{folder[:5]} {np.mean(scores[rest].argmax(1) == faces[rest]):.3f}")
    return "real val probe " + " ".join(texts)


def load_onnx(net: FaceNetDW, path: Path) -> None:
    """Load an exported embedding (batch norm folded into its convolutions) back into
    ``net``: each convolution takes its weights, the batch norm after it becomes the identity
    plus the folded bias. To go on training from a shipped model whose torch weights were not
    kept; train it with ``freeze_norms`` so the folded statistics stay as they are."""
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(str(path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    pairs = []
    modules = list(net.modules())
    for i, m in enumerate(modules):
        if isinstance(m, nn.Conv2d):
            norm = modules[i + 1]
            if not isinstance(norm, nn.BatchNorm2d):
                raise ValueError(f"{path}: expected a batch norm after convolution {len(pairs)}")
            pairs.append((m, norm))
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(pairs)}")
    with torch.no_grad():
        for (conv, norm), node in zip(pairs, convs):
            w, b = weights[node.input[1]], weights[node.input[2]]
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{path}: convolution {node.name} is {w.shape}, the network's {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(w))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(b))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        head = net.body[-1]
        gemm = [node for node in graph.node if node.op_type == "Gemm"][0]
        head.weight.copy_(torch.from_numpy(weights[gemm.input[1]]))
        head.bias.copy_(torch.from_numpy(weights[gemm.input[2]]))


def freeze_norms(net: nn.Module) -> None:
    """Batch norms keep their running statistics (call after ``train()``)."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def export(net, out, weights=True, side=CROP):
    net.eval()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 1, side, side), str(out), dynamo=False,
                      input_names=["maps"], output_names=["embedding"], opset_version=13,
                      dynamic_axes={"maps": {0: "n"}, "embedding": {0: "n"}})
    if weights:
        torch.save(net.state_dict(), Path(out).with_suffix(".pt"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sets", type=int, default=2000, help="made-up die sets to train on")
    ap.add_argument("--val-sets", type=int, default=60)
    ap.add_argument("--batch-sets", type=int, default=8, help="made-up sets per batch")
    ap.add_argument("--views", type=int, default=3, help="views of each face per batch")
    ap.add_argument("--real", type=int, default=24, help="unlabelled real crops per batch (two views each)")
    ap.add_argument("--temperature", type=float, default=0.1)
    ap.add_argument("--count-weight", type=float, default=0.5, help="weight of the mark-count head's loss")
    ap.add_argument("--width", default="32,64,128")
    ap.add_argument("--dim", type=int, default=DIM)
    ap.add_argument("--crop", type=int, default=CROP)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", type=Path)
    ap.add_argument("--init-onnx", type=Path, help="go on from an exported model (its norms frozen)")
    ap.add_argument("--maker-variants", type=float, default=0.0,
                    help="share of made-up views printed as another maker would (symbols.maker_variant)")
    ap.add_argument("--out", default="vision/models/die_embedding.onnx")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    pool, counts = symbol_pool(1_000_000 * (args.seed + 1), args.sets, variant_share=args.maker_variants)
    val_pool, _ = symbol_pool(900_000_000, args.val_sets, variant_share=args.maker_variants)
    real = None
    if args.real:
        real, _ = die_crops([load(p) for p in photos(side="train")])  # labels unused
    print(f"made-up sets {len(pool)} (+{len(val_pool)} held out), real crops "
          f"{0 if real is None else len(real)}", flush=True)
    width = tuple(int(w) for w in args.width.split(","))
    net = FaceNetDW(classes=args.dim, width=width, in_channels=1)
    if args.init:
        net.load_state_dict(torch.load(args.init))
    if args.init_onnx:
        load_onnx(net, args.init_onnx)
    net = net.to(memory_format=torch.channels_last)
    model = WithCount(net, width[-1])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    val_rng_seed = 12345
    probe = real_probe(args.crop)

    def train_step():
        model.train()
        if args.init_onnx:
            freeze_norms(model)
        x, y, n = make_batch(pool, counts, real, rng, args.batch_sets, args.views, args.real, args.crop)
        z, count_logits = model(x)
        contrast = supcon(z, y, args.temperature)
        known = n >= 0
        count_loss = F.cross_entropy(count_logits[known], n[known]) if known.any() else torch.zeros(())
        loss = contrast + args.count_weight * count_loss
        opt.zero_grad(); loss.backward(); opt.step()
        return f"loss {contrast.item():.3f} count {count_loss.item():.3f}"

    def validate():
        acc = episode_accuracy(net, val_pool, np.random.default_rng(val_rng_seed), side=args.crop)
        return acc, f"held-out sets 8-shot {acc:.4f}; {probe_accuracy(net, probe)}"

    best = train_for(net, opt, lr=args.lr, minutes=args.minutes, out=args.out, train_step=train_step,
                     validate=validate, higher_is_better=True, every=250)
    export(net, args.out, side=args.crop)
    print(f"wrote {args.out} (held-out 8-shot {best:.4f})", flush=True)


if __name__ == "__main__":
    main()
