"""Export saved torch weights (.pt) of the finder and/or face reader to ONNX.

  python -m vision.training.export [--finder F.pt] [--faces F.pt] [--out vision/models]

Used for checkpoints written during a long run (``*.best.pt``).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from vision.training import train_faces, train_finder
from vision.training.nets import FaceNet, Finder


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--finder", type=Path)
    ap.add_argument("--faces", type=Path)
    ap.add_argument("--out", type=Path, default=Path("vision/models"))
    ap.add_argument("--crop", type=int, default=32, help="the face reader's crop side")
    ap.add_argument("--width", default="24,48,96", help="the face reader's stage channels")
    ap.add_argument("--norm-input", action="store_true", help="the face reader normalises its input")
    args = ap.parse_args(argv)
    if args.finder:
        net = Finder()
        net.load_state_dict(torch.load(args.finder))
        train_finder.export(net, args.out / "pip_finder.onnx", weights=False)
    if args.faces:
        net = FaceNet(width=tuple(int(w) for w in args.width.split(",")), norm_input=args.norm_input)
        net.load_state_dict(torch.load(args.faces))
        train_faces.export(net, args.out / "pip_faces.onnx", weights=False, side=args.crop)


if __name__ == "__main__":
    main()
