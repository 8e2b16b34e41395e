"""Export saved torch weights (.pt) of the finder, the face reader and/or the taught-dice
embedding to ONNX.

  python -m vision.training.export [--finder F.pt] [--faces F.pt] [--embedding E.pt] [--out vision/models]

Used for checkpoints written during a long run (``*.best.pt``).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from vision.training import train_embedding, train_faces, train_finder
from vision.training.nets import FaceNetDW


def widths(text: str) -> tuple[int, ...]:
    return tuple(int(w) for w in text.split(","))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--finder", type=Path)
    ap.add_argument("--finder-arch", choices=("dw", "plain"), default="dw")
    ap.add_argument("--find-size", type=int, default=train_finder.FIND_SIZE, help="the finder's input side")
    ap.add_argument("--faces", type=Path)
    ap.add_argument("--faces-arch", choices=("dw", "plain"), default="dw")
    ap.add_argument("--crop", type=int, default=train_faces.CROP, help="the face reader's crop side")
    ap.add_argument("--width", default="48,96,160", help="the face reader's stage channels")
    ap.add_argument("--norm-input", action="store_true", help="(plain face reader) it normalises its input")
    ap.add_argument("--embedding", type=Path)
    ap.add_argument("--embedding-width", default="32,64,128")
    ap.add_argument("--dim", type=int, default=train_embedding.DIM)
    ap.add_argument("--out", type=Path, default=Path("vision/models"))
    args = ap.parse_args(argv)
    if args.finder:
        net = train_finder.make_net(args.finder_arch)
        net.load_state_dict(torch.load(args.finder))
        train_finder.export(net, args.out / "pip_finder.onnx", weights=False, find_size=args.find_size)
    if args.faces:
        net = train_faces.make_net(args.faces_arch, widths(args.width), args.norm_input)
        net.load_state_dict(torch.load(args.faces))
        train_faces.export(net, args.out / "pip_faces.onnx", weights=False, side=args.crop)
    if args.embedding:
        net = FaceNetDW(classes=args.dim, width=widths(args.embedding_width), in_channels=1)
        net.load_state_dict(torch.load(args.embedding))
        train_embedding.export(net, args.out / "die_embedding.onnx", weights=False)


if __name__ == "__main__":
    main()
