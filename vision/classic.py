"""The classic pip counter: the baseline the learned reader is measured against.

No learning: find the pips as round blobs (OpenCV's ``SimpleBlobDetector``, dark pips on
light dice and light pips on dark dice, after a 3x3 median against sensor specks), then
group pips that lie close together into dice (single-linkage clustering with a reach of
about four pip diameters, the diagonal of a two) and count each group. A group of more
than six pips is split by k-means into the fewest groups of at most six.

It is honest but naive, like most pip counters one finds: it has no notion of a die's body,
so coloured, swirled and translucent dice, dice touching each other and glare defeat it.
Its confidence is a constant ``CONFIDENCE`` (it cannot tell when it is wrong).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.roll import Die, Roll

CONFIDENCE = 0.5
REACH = 4.2       # pips closer than REACH x pip diameter belong to one die
DIE_PER_PIP = 5.0  # a die's side is about this many pip diameters


def blob_detector(polarity: int, min_area: float, max_area: float) -> cv2.SimpleBlobDetector:
    params = cv2.SimpleBlobDetector_Params()
    params.filterByColor = True
    params.blobColor = polarity
    params.minThreshold, params.maxThreshold, params.thresholdStep = 30, 230, 20
    params.filterByArea = True
    params.minArea, params.maxArea = min_area, max_area
    params.filterByCircularity = True
    params.minCircularity = 0.6
    params.filterByConvexity = True
    params.minConvexity = 0.8
    params.filterByInertia = True
    params.minInertiaRatio = 0.4
    params.minDistBetweenBlobs = 2.0
    return cv2.SimpleBlobDetector.create(params)


def find_pips(gray: np.ndarray) -> np.ndarray:
    """Pips as rows (x, y, diameter), both polarities, duplicates removed."""
    scale = max(gray.shape) / 640.0
    min_area, max_area = 4.0 * scale ** 2, 250.0 * scale ** 2
    found = []
    for polarity in (0, 255):
        for kp in blob_detector(polarity, min_area, max_area).detect(gray):
            found.append((kp.pt[0], kp.pt[1], kp.size))
    pips = np.array(sorted(found, key=lambda p: -p[2]), np.float32).reshape(-1, 3)
    if len(pips) < 2:
        return pips
    dist = np.hypot(pips[:, None, 0] - pips[None, :, 0], pips[:, None, 1] - pips[None, :, 1])
    near = dist <= 0.6 * np.maximum(pips[:, None, 2], pips[None, :, 2])
    keep = np.ones(len(pips), bool)
    for i in range(len(pips)):  # larger first: drop the smaller copy of a pip
        if keep[i]:
            later = near[i].copy()
            later[: i + 1] = False
            keep[later] = False
    return pips[keep]


def group_pips(pips: np.ndarray) -> list[np.ndarray]:
    """Single-linkage groups of pips: two pips join when closer than REACH x their size."""
    n = len(pips)
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    dist = np.hypot(pips[:, None, 0] - pips[None, :, 0], pips[:, None, 1] - pips[None, :, 1])
    reach = REACH * np.maximum(pips[:, None, 2], pips[None, :, 2])
    for i, j in zip(*np.nonzero(np.triu(dist < reach, 1))):
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    out = []
    for members in groups.values():
        group = pips[members]
        if len(group) <= 6:
            out.append(group)
            continue
        k = -(-len(group) // 6)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        _, labels, _ = cv2.kmeans(group[:, :2].copy(), k, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
        out.extend(group[labels.ravel() == i] for i in range(k) if np.any(labels.ravel() == i))
    return out


def read_frame(frame: np.ndarray) -> Roll:
    """Count pips per die in a BGR frame; every group of 1..6 pips is a die."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    gray = cv2.medianBlur(gray, 3)  # salt-and-pepper specks are not pips
    dice = []
    for group in group_pips(find_pips(gray)):
        if not 1 <= len(group) <= 6:
            continue
        pip = float(np.median(group[:, 2]))
        x, y = (float(v) for v in group[:, :2].mean(axis=0))
        spread = float(np.ptp(group[:, :2], axis=0).max()) if len(group) > 1 else 0.0
        side = max(DIE_PER_PIP * pip, spread + 2.5 * pip)
        dice.append(Die(face=str(len(group)), confidence=CONFIDENCE, x=x, y=y, w=side, h=side))
    dice.sort(key=lambda d: (round(d.y / max(d.h, 1.0)), d.x))
    h, w = gray.shape[:2]
    return Roll(tuple(dice), "d6-pips", (w, h), ("classic pip counter",))
