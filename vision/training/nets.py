"""The two small networks behind the pip reader (torch; used only for training and export).

* ``Finder``: a fully convolutional centre-heatmap network (CenterNet-like). Input: a BGR
  image scaled to 0..1, any size divisible by 32. Output at stride 4: channel 0 = die-centre
  logit, channels 1-4 = log(w / 16 px), log(h / 16 px), x and y offset within the cell.
* ``FaceNet``: reads one die crop (CROP x CROP, die about 60% of the crop). Output: 7 logits,
  faces 1..6 and "no die here".
* ``FinderDW``: the finder's job with depthwise-separable blocks (deeper and wider for the
  same cost).
* ``FaceNetDW``: the face reader's job with depthwise-separable residual blocks: about twice the depth
  and width of ``FaceNet`` for half its cost in OpenCV's dnn (which runs depthwise
  convolutions well).
"""
from __future__ import annotations

import torch
from torch import nn
import torch.nn.functional as F


def conv(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


def centre_head(channels: int) -> nn.Conv2d:
    """The finders' output layer: 5 maps (centre logit, log w, log h, x and y offset); the
    centre logit starts at -4 (almost no cell holds a die centre), the rest at 0."""
    head = nn.Conv2d(channels, 5, 1)
    nn.init.constant_(head.bias, 0.0)
    with torch.no_grad():
        head.bias[0] = -4.0
    return head


class _FinderBase(nn.Module):
    """Stages /4, /8, /16 merged back up to stride 4 (a small feature pyramid); a subclass
    builds ``s4 s8 s16 lat8 mix8 lat4 mix4 head``."""

    def forward(self, x):
        f4 = self.s4(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        u8 = self.mix8(f8 + F.interpolate(self.lat8(f16), scale_factor=2.0, mode="nearest"))
        u4 = self.mix4(f4 + F.interpolate(self.lat4(u8), scale_factor=2.0, mode="nearest"))
        return self.head(u4)


class Finder(_FinderBase):
    def __init__(self, width=(16, 24, 40, 64)):
        super().__init__()
        a, b, c, d = width
        self.s4 = nn.Sequential(conv(3, a, 2), conv(a, b, 2), conv(b, b))          # /4
        self.s8 = nn.Sequential(conv(b, c, 2), conv(c, c))                         # /8
        self.s16 = nn.Sequential(conv(c, d, 2), conv(d, d), conv(d, d))            # /16
        self.lat8 = nn.Conv2d(d, c, 1)
        self.mix8 = conv(c, b)
        self.lat4 = nn.Conv2d(b, b, 1)
        self.mix4 = conv(b, b)
        self.head = centre_head(b)


class FaceNet(nn.Module):
    """``norm_input``: each crop's channels are first brought to zero mean and unit spread
    (so dark smoky dice with dim pips look as contrasty as white ones)."""

    def __init__(self, classes=7, width=(24, 48, 96), norm_input=False):
        super().__init__()
        a, b, c = width
        self.norm = nn.InstanceNorm2d(3, eps=1e-3) if norm_input else nn.Identity()
        self.body = nn.Sequential(
            conv(3, a), conv(a, a, 2),          # /2
            conv(a, b), conv(b, b, 2),          # /4
            conv(b, c), conv(c, c, 2),          # /8
            conv(c, c),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(c, classes))

    def forward(self, x):
        return self.body(self.norm(x))


class SeparableBlock(nn.Module):
    """3x3 depthwise then 1x1 pointwise convolution (BN + ReLU after each); a residual add when
    the shape is kept."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
            nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.body(x)
        return F.relu(x + y) if self.residual else F.relu(y)


class FaceNetDW(nn.Module):
    """Face reader of depthwise-separable blocks; each crop's channels are first brought to
    zero mean and unit spread (dark smoky dice with dim pips look as contrasty as white ones)."""

    def __init__(self, classes=7, width=(32, 64, 128), in_channels=3):
        super().__init__()
        a, b, c = width
        self.norm = nn.InstanceNorm2d(in_channels, eps=1e-3)
        self.body = nn.Sequential(
            conv(in_channels, a),
            SeparableBlock(a, a, 2), SeparableBlock(a, a),                         # /2
            SeparableBlock(a, b, 2), SeparableBlock(b, b), SeparableBlock(b, b),   # /4
            SeparableBlock(b, c, 2), SeparableBlock(c, c), SeparableBlock(c, c),   # /8
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(c, classes))

    def forward(self, x):
        return self.body(self.norm(x))


class FinderDW(_FinderBase):
    """Centre-heatmap finder of depthwise-separable blocks; same input and outputs as
    ``Finder``."""

    def __init__(self, width=(16, 32, 64, 96)):
        super().__init__()
        a, b, c, d = width
        self.s4 = nn.Sequential(conv(3, a, 2), SeparableBlock(a, b, 2), SeparableBlock(b, b))           # /4
        self.s8 = nn.Sequential(SeparableBlock(b, c, 2), SeparableBlock(c, c), SeparableBlock(c, c))    # /8
        self.s16 = nn.Sequential(SeparableBlock(c, d, 2), SeparableBlock(d, d), SeparableBlock(d, d),
                                 SeparableBlock(d, d))                                                  # /16
        self.lat8 = nn.Conv2d(d, c, 1)
        self.mix8 = SeparableBlock(c, b)
        self.lat4 = nn.Conv2d(b, b, 1)
        self.mix4 = SeparableBlock(b, b)
        self.head = centre_head(b)
