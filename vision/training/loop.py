"""The wall-clock training loop both networks share: cosine learning rate over a time
budget, validation every ``every`` steps, the best checkpoint kept (``*.best.pt``) and loaded
back at the end."""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable

import torch


def train_for(net, opt, *, lr: float, minutes: float, out, train_step: Callable[[], str],
              validate: Callable[[], tuple[float, str]], higher_is_better: bool,
              every: int = 100) -> float:
    """Run ``train_step`` (one optimiser step; returns a short loss text) until ``minutes``
    have passed; every ``every`` steps ``validate`` gives (score, text). Returns the best
    score; ``net`` ends with the best weights."""
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    start = time.time()
    deadline = start + minutes * 60
    best = -math.inf if higher_is_better else math.inf
    best_state, step = None, 0
    while time.time() < deadline:
        frac = (time.time() - start) / (deadline - start)
        for group in opt.param_groups:
            group["lr"] = lr * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0)))
        net.train()
        loss_text = train_step()
        step += 1
        if step % every == 0:
            net.eval()
            with torch.no_grad():
                score, text = validate()
            if (score >= best) if higher_is_better else (score < best):
                best, best_state = score, {k: v.clone() for k, v in net.state_dict().items()}
                torch.save(best_state, Path(out).with_suffix(".best.pt"))
            print(f"step {step} {time.time() - start:.0f}s {loss_text} {text} best {best:.4f}", flush=True)
    if best_state is not None:
        net.load_state_dict(best_state)
    return best
