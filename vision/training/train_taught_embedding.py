"""Train the taught-dice embedding (vision/models/taught_embed.onnx) on random symbols only.

  python -m vision.training.train_taught_embedding [--symbols 2400] [--views 10] [--steps 3000]

Data: vision/training/taught_symbols.py draws dice with random symbols (no photos, no real
die faces). Training is episodic, like prototypical networks: each step picks ``ways``
symbols, averages the embeddings of ``shots`` views of each into a prototype and teaches the
network to put the other views nearest their own prototype (cosine similarity, learned
scale). Every view is also turned by a random quarter turn, so the embedding learns to
ignore rotation. Output: a 64-d unit vector per 32x32 BGR crop (scaled to 0..1).
"""
from __future__ import annotations

import argparse
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "models" / "taught_embed.onnx"


def _make(args):
    seed, count, views = args
    from vision.training.taught_symbols import symbol_views
    rng = np.random.default_rng(seed)
    return np.stack([symbol_views(rng, views) for _ in range(count)])


def make_pool(symbols: int, views: int, seed: int, procs: int) -> np.ndarray:
    chunk = 100
    jobs = [(seed * 100000 + i, min(chunk, symbols - i * chunk), views)
            for i in range(-(-symbols // chunk))]
    with Pool(procs) as pool:
        return np.concatenate(pool.map(_make, jobs))


def build_net(dim: int = 64):
    import torch
    from torch import nn

    def conv(cin, cout, stride=1):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True))

    class Embed(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(conv(3, 24), conv(24, 48, 2), conv(48, 48), conv(48, 96, 2),
                                      conv(96, 96), conv(96, 128, 2), conv(128, 128),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, dim))

        def forward(self, x):
            z = self.body(x)
            return z / torch.sqrt((z * z).sum(dim=1, keepdim=True) + 1e-8)

    return Embed()


def main(argv=None) -> int:
    import torch
    import torch.nn.functional as F
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--symbols", type=int, default=2400)
    parser.add_argument("--views", type=int, default=10)
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--ways", type=int, default=16)
    parser.add_argument("--shots", type=int, default=4)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--export-every", type=int, default=100, metavar="STEPS",
                        help="also write OUT.stepN.onnx every so many steps")
    parser.add_argument("--pool", type=Path, help="cache the rendered pool in this .npy file")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    if args.pool and args.pool.is_file():
        pool = np.load(args.pool)
    else:
        pool = make_pool(args.symbols, args.views, args.seed, args.procs)
        if args.pool:
            np.save(args.pool, pool)
    print(f"pool {pool.shape} in {time.time() - t0:.0f}s", flush=True)
    data = torch.from_numpy(pool).permute(0, 1, 4, 2, 3).float().div_(255.0)  # S,V,3,H,W
    n_sym, n_view = data.shape[:2]
    held = max(1, n_sym // 20)
    net = build_net()
    scale = torch.nn.Parameter(torch.tensor(10.0))
    opt = torch.optim.AdamW(list(net.parameters()) + [scale], lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps)
    rng = np.random.default_rng(args.seed + 1)

    def episode(lo, hi):
        classes = rng.choice(np.arange(lo, hi), args.ways, replace=False)
        views = np.stack([rng.permutation(n_view) for _ in classes])
        x = data[torch.from_numpy(classes)[:, None], torch.from_numpy(views)]  # W,V,3,H,W
        k = int(rng.integers(4))
        x = torch.rot90(x, k, dims=(3, 4))
        turns = torch.from_numpy(rng.integers(0, 4, x.shape[:2]))
        for t in range(1, 4):  # per-view quarter turns
            sel = turns == t
            x[sel] = torch.rot90(x[sel], t, dims=(2, 3))
        return x

    def loss_acc(x):
        w, v = x.shape[:2]
        z = net(x.reshape(-1, *x.shape[2:])).reshape(w, v, -1)
        proto = F.normalize(z[:, :args.shots].mean(dim=1), dim=1)
        query = z[:, args.shots:].reshape(-1, z.shape[-1])
        logits = scale * query @ proto.T
        target = torch.arange(w).repeat_interleave(v - args.shots)
        return F.cross_entropy(logits, target), (logits.argmax(1) == target).float().mean().item()

    for step in range(args.steps):
        net.train()
        loss, acc = loss_acc(episode(held, n_sym))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 50 == 0 or step == args.steps - 1:
            net.eval()
            with torch.no_grad():
                accs = [loss_acc(episode(0, held))[1] for _ in range(5)]
            print(f"step {step} loss {loss.item():.3f} train acc {acc:.3f} held-out symbols "
                  f"{args.ways}-way acc {np.mean(accs):.3f} ({time.time() - t0:.0f}s)", flush=True)
        if step and step % args.export_every == 0:
            export(net, args.out.with_suffix(f".step{step}.onnx"))
    export(net, args.out)
    print(f"wrote {args.out}")
    return 0


def export(net, path: Path) -> None:
    import torch
    net.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, 32, 32), str(path), input_names=["crop"],
                      output_names=["embedding"], dynamic_axes={"crop": {0: "n"}, "embedding": {0: "n"}},
                      opset_version=17, dynamo=False)
    net.train()


if __name__ == "__main__":
    raise SystemExit(main())
