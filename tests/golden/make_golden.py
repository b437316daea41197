#!/usr/bin/python3
"""Golden test cases: small PyTorch models with BatchNorm in many positions (and the unary
math ops, GELU, Min/Max after a folded conv, ConvTranspose, GRU/LSTM, LayerNorm, a tiny
vision transformer, InstanceNorm and GroupNorm, an LR-ASPP segmentation head).

Each case is written as an ONNX backend test directory, the layout of ONNX's own node tests:
  tests/golden/data/<name>/model.onnx
  tests/golden/data/<name>/test_data_set_0/input_0.pb   (TensorProto, float32)
  tests/golden/data/<name>/test_data_set_0/output_0.pb  (PyTorch eval-mode output)
and tests/golden/data/MANIFEST.json stamps the generator, versions and seed.

Every BatchNorm gets random statistics (running_var in [0.5, 2], running_mean ~ N(0,1),
weight in [0.5, 1.5] with random sign, bias ~ N(0, 0.5)) so that folding is never the identity.
Export: eval mode, TrainingMode.PRESERVE and no constant folding, so BatchNormalization nodes
survive into the ONNX graph; opset 13 unless the case says otherwise.

Run: /usr/bin/python3 tests/golden/make_golden.py   (deterministic; rewrites data/)
"""
import datetime
import hashlib
import json
import os
import shutil
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

SEED = 1234
OUT_DIR = os.environ.get("GOLDEN_OUT_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))


def bn2(c):
    return nn.BatchNorm2d(c)


class Residual(nn.Module):
    """relu(x + bn(conv(relu(bn(conv(x))))))"""

    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn2(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn2(c)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class ConcatBranches(nn.Module):
    """concat(relu(bn(conv1x1(x))), relu(bn(conv3x3(x)))) on channels, then conv-bn."""

    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(4, 6, 1), bn2(6), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(4, 5, 3, padding=1), bn2(5), nn.ReLU())
        self.out = nn.Sequential(nn.Conv2d(11, 8, 1), bn2(8))

    def forward(self, x):
        return self.out(torch.cat([self.a(x), self.b(x)], dim=1))


class SkipAddMul(nn.Module):
    """bn(conv(x)) * sigmoid(bn(conv(x))) - x / 2: binary ops around folded convs."""

    def __init__(self):
        super().__init__()
        self.p = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), bn2(3))
        self.q = nn.Sequential(nn.Conv2d(3, 3, 1), bn2(3))

    def forward(self, x):
        return self.p(x) * torch.sigmoid(self.q(x)) - x / 2


class UnaryMath(nn.Module):
    """The unary math ops, Pow with constant exponents and Min/Max around a folded conv."""

    def __init__(self):
        super().__init__()
        self.p = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), bn2(4))

    def forward(self, x):
        p = self.p(x)
        a = torch.exp(-torch.abs(p))                   # Abs, Neg, Exp
        b = torch.sqrt(p.pow(2) + 1)                   # Pow 2, Sqrt
        c = torch.log(b) + torch.reciprocal(b)         # Log, Reciprocal
        d = torch.erf(p) + b.pow(1.5) * 0.1            # Erf, Pow 1.5
        return torch.maximum(a + c, torch.minimum(d, torch.tanh(p)))   # Max, Min, Tanh


def S(*layers):
    return nn.Sequential(*layers)


class UNetTiny(nn.Module):
    """Two-level U-Net decoder: conv down (stride 2), ConvTranspose up, BN, ReLU, concat skip."""

    def __init__(self):
        super().__init__()
        self.enc = S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.ReLU())
        self.down = S(nn.Conv2d(6, 10, 3, stride=2, padding=1), bn2(10), nn.ReLU())
        self.up = S(nn.ConvTranspose2d(10, 6, 2, stride=2), bn2(6), nn.ReLU())
        self.dec = S(nn.Conv2d(12, 6, 3, padding=1), bn2(6), nn.ReLU(), nn.Conv2d(6, 2, 1))

    def forward(self, x):
        e = self.enc(x)
        return self.dec(torch.cat([self.up(self.down(e)), e], dim=1))


class ConvAutoencoder(nn.Module):
    """Conv encoder to a 2x2 code, ConvTranspose decoder (3x3 stride 2 with output_padding)."""

    def __init__(self):
        super().__init__()
        self.enc = S(nn.Conv2d(1, 4, 3, stride=2, padding=1), bn2(4), nn.ReLU(),
                     nn.Conv2d(4, 8, 3, stride=2, padding=1), bn2(8), nn.ReLU())
        self.dec = S(nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1), bn2(4), nn.ReLU(),
                     nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


class Interpolate(nn.Module):
    """F.interpolate with fixed arguments (nn.Upsample has no size-of-another-tensor form)."""

    def __init__(self, **kwargs):
        super().__init__()
        self.kwargs = kwargs

    def forward(self, x):
        return nn.functional.interpolate(x, **self.kwargs)


class FpnMerge(nn.Module):
    """FPN top-down step: lateral(c4) + upsample(top, size=lateral's H, W), a Shape chain."""

    def __init__(self):
        super().__init__()
        self.down = S(nn.Conv2d(3, 6, 3, stride=2, padding=1), bn2(6), nn.ReLU())
        self.lateral = S(nn.Conv2d(3, 6, 1), bn2(6))

    def forward(self, x):
        top = self.down(x)
        lat = self.lateral(x)
        return lat + nn.functional.interpolate(top, size=lat.shape[-2:], mode="nearest")


class RnnOutput(nn.Module):
    """One output of a GRU/LSTM: the sequence Y, or the final hidden state h_n."""

    def __init__(self, rnn, final_state=False):
        super().__init__()
        self.rnn, self.final_state = rnn, final_state

    def forward(self, x):
        y, state = self.rnn(x)
        if not self.final_state:
            return y
        return state[0] if isinstance(state, tuple) else state


class KeywordSpotter(nn.Module):
    """Conv + BN + ReLU over a 49x10 MFCC map, each time frame's channels x coefficients as one
    GRU input vector, the last time step classified into 12 keywords."""

    def __init__(self):
        super().__init__()
        self.front = S(nn.Conv2d(1, 8, 3, padding=1), bn2(8), nn.ReLU())
        self.gru = nn.GRU(8 * 10, 32, batch_first=True)
        self.head = nn.Linear(32, 12)

    def forward(self, x):
        f = self.front(x)                                          # [N, 8, 49, 10]
        seq = f.permute(0, 2, 1, 3).reshape(x.shape[0], 49, 8 * 10)  # [N, 49, 80]
        y, _ = self.gru(seq)
        return self.head(y[:, -1, :])


def random_affine(module):
    """Non-trivial γ, β for every LayerNorm/GroupNorm/InstanceNorm (torch's global seed), so a
    fused normalization that dropped or misplaced them shows."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (nn.LayerNorm, nn.GroupNorm, nn.InstanceNorm2d)) and m.weight is not None:
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.2)
    return module


class Attention(nn.Module):
    """Multi-head self-attention written as ViTs write it: one qkv Linear, softmax(q·kᵀ/√d)·v."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = ((q @ k.transpose(-2, -1)) * self.scale).softmax(dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, n, c))


class Block(nn.Module):
    """Pre-LN transformer block: x + attn(LN(x)), then x + MLP(LN(x)) with GELU."""

    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.n1, self.attn, self.n2 = nn.LayerNorm(dim), Attention(dim, heads), nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        x = x + self.attn(self.n1(x))
        return x + self.mlp(self.n2(x))


class TinyViT(nn.Module):
    """16×16 image, 4×4 patches (a strided Conv), class token + position embedding, 2 pre-LN
    blocks of 4 heads, final LayerNorm, linear head on the class token. ~19k parameters."""

    def __init__(self, img=16, patch=4, dim=32, depth=2, heads=4, hidden=64, classes=10):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls = nn.Parameter(0.5 * torch.randn(1, 1, dim))
        self.pos = nn.Parameter(0.5 * torch.randn(1, (img // patch) ** 2 + 1, dim))
        self.blocks = nn.Sequential(*[Block(dim, heads, hidden) for _ in range(depth)])
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)
        random_affine(self)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


def build_cases():
    """name → (module, input shape, opset). Weights come from torch's global seed."""
    torch.manual_seed(SEED)
    return {
        "conv_bn": (S(nn.Conv2d(3, 8, 3), bn2(8)), (1, 3, 9, 9), 13),
        "conv_bn_relu": (S(nn.Conv2d(3, 8, 3, padding=1), bn2(8), nn.ReLU()), (1, 3, 8, 8), 13),
        "conv_nobias_bn_relu": (S(nn.Conv2d(4, 6, 3, stride=2, padding=1, bias=False), bn2(6),
                                  nn.ReLU()), (1, 4, 11, 11), 13),
        "conv_grouped_bn": (S(nn.Conv2d(8, 12, 3, padding=1, groups=4), bn2(12), nn.ReLU()),
                            (1, 8, 7, 7), 13),
        "conv_depthwise_bn_relu6": (S(nn.Conv2d(6, 6, 3, padding=1, groups=6, bias=False), bn2(6),
                                      nn.ReLU6()), (1, 6, 10, 10), 13),
        "conv_dilated_bn": (S(nn.Conv2d(3, 5, 3, padding=2, dilation=2), bn2(5)), (1, 3, 9, 9), 13),
        "conv_batch2_bn": (S(nn.Conv2d(2, 4, 3, padding=1), bn2(4), nn.ReLU()), (2, 2, 6, 6), 13),
        "conv1d_bn1d_relu": (S(nn.Conv1d(3, 6, 3, padding=1), nn.BatchNorm1d(6), nn.ReLU()),
                             (1, 3, 17), 13),
        "linear_bn1d_relu": (S(nn.Linear(20, 16), nn.BatchNorm1d(16), nn.ReLU()), (2, 20), 13),
        "linear_nobias_bn1d": (S(nn.Linear(20, 12, bias=False), nn.BatchNorm1d(12)), (3, 20), 13),
        "bn_only_2d": (S(bn2(5)), (1, 5, 4, 6), 13),
        "bn_first_then_conv": (S(bn2(3), nn.Conv2d(3, 4, 3), nn.ReLU()), (1, 3, 7, 7), 13),
        "bn_first_then_conv_padded": (S(bn2(3), nn.Conv2d(3, 4, 3, padding=1)), (1, 3, 6, 6), 13),
        "relu_bn_conv": (S(nn.Conv2d(3, 4, 3), nn.ReLU(), bn2(4), nn.Conv2d(4, 4, 1)),
                         (1, 3, 8, 8), 13),
        "residual_block": (S(nn.Conv2d(3, 8, 3, padding=1), bn2(8), nn.ReLU(), Residual(8)),
                           (1, 3, 8, 8), 13),
        "maxpool_padded": (S(nn.Conv2d(3, 4, 3, padding=1), bn2(4), nn.ReLU(),
                             nn.MaxPool2d(3, stride=2, padding=1)), (1, 3, 9, 9), 13),
        "avgpool_padded_incl": (S(nn.Conv2d(3, 4, 3), bn2(4),
                                  nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=True)),
                                (1, 3, 10, 10), 13),
        "avgpool_padded_excl": (S(nn.Conv2d(3, 4, 3), bn2(4),
                                  nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)),
                                (1, 3, 10, 10), 13),
        "global_avgpool_linear": (S(nn.Conv2d(3, 8, 3), bn2(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                    nn.Flatten(), nn.Linear(8, 5)), (1, 3, 7, 7), 13),
        "concat_branches": (ConcatBranches(), (1, 4, 6, 6), 13),
        "hardswish": (S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.Hardswish()), (1, 3, 6, 6), 13),
        "leakyrelu": (S(nn.Conv2d(3, 6, 3), bn2(6), nn.LeakyReLU(0.1)), (1, 3, 7, 7), 13),
        "prelu_channel": (S(nn.Conv2d(3, 6, 3), bn2(6), nn.PReLU(6)), (1, 3, 7, 7), 13),
        "sigmoid_mul": (SkipAddMul(), (1, 3, 6, 6), 13),
        "softmax_head": (S(nn.Flatten(), nn.Linear(48, 16), nn.BatchNorm1d(16), nn.ReLU(),
                           nn.Linear(16, 10), nn.Softmax(dim=1)), (1, 3, 4, 4), 13),
        "flatten_linear": (S(nn.Conv2d(2, 4, 3, padding=1), bn2(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 3 * 3, 7)), (1, 2, 6, 6), 13),
        "opset11_conv_bn_relu6": (S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.ReLU6(),
                                    nn.MaxPool2d(2)), (1, 3, 8, 8), 11),
        "opset11_linear_bn1d": (S(nn.Linear(10, 8), nn.BatchNorm1d(8), nn.ReLU(),
                                  nn.Linear(8, 4)), (2, 10), 11),
        # Resize / DepthToSpace (edge workloads: segmentation heads, FPN necks, super-resolution).
        "upsample_nearest2x": (S(nn.Conv2d(3, 4, 3, padding=1), bn2(4), nn.ReLU(),
                                 nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(4, 3, 3)),
                               (1, 3, 6, 7), 13),
        "upsample_bilinear2x": (S(nn.Conv2d(3, 5, 3, padding=1), bn2(5),
                                  nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                  nn.Conv2d(5, 2, 1)), (1, 3, 5, 9), 13),
        "interpolate_align_corners": (S(nn.Conv2d(3, 4, 3), bn2(4),
                                        Interpolate(size=(9, 13), mode="bilinear", align_corners=True)),
                                      (1, 3, 7, 8), 13),
        "interpolate_nearest_1p5": (S(nn.Conv2d(2, 3, 1), bn2(3),
                                      Interpolate(scale_factor=1.5, mode="nearest")), (1, 2, 5, 6), 13),
        "interpolate_linear_1d": (S(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3),
                                    Interpolate(scale_factor=3, mode="linear", align_corners=False)),
                                  (1, 2, 9), 13),
        "fpn_merge_nearest": (FpnMerge(), (1, 3, 8, 10), 13),
        "pixel_shuffle_bn": (S(nn.Conv2d(3, 12, 3, padding=1), bn2(12), nn.ReLU(), nn.PixelShuffle(2),
                               nn.Conv2d(3, 2, 1)), (1, 3, 5, 6), 13),
        "pixel_unshuffle_bn": (S(nn.Conv2d(2, 3, 1), bn2(3), nn.PixelUnshuffle(2)), (1, 2, 6, 8), 13),
        "opset9_upsample_nearest": (S(nn.Conv2d(3, 4, 3, padding=1), bn2(4),
                                      nn.Upsample(scale_factor=2, mode="nearest")), (1, 3, 4, 5), 9),
        # Appended last so the cases above keep their weights (one global seed, built in order).
        "conv_bn_tanh": (S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.Tanh()), (1, 3, 8, 8), 13),
        "conv_bn_gelu": (S(nn.Conv2d(3, 8, 3, padding=1), bn2(8), nn.GELU(), nn.Conv2d(8, 4, 1)),
                         (1, 3, 8, 8), 13),
        "unary_math_minmax": (UnaryMath(), (1, 3, 6, 6), 13),
        # ConvTranspose (decoders, segmentation upsampling), BatchNorm folded into its output channels.
        "convtranspose2d_bn_relu": (S(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1),
                                      bn2(6), nn.ReLU()), (1, 4, 5, 6), 13),
        "convtranspose2d_grouped_dilated_bn": (S(nn.ConvTranspose2d(6, 9, 3, stride=2, padding=2, dilation=2,
                                                                    groups=3), bn2(9)), (1, 6, 5, 4), 13),
        "convtranspose1d_bn": (S(nn.ConvTranspose1d(3, 5, 4, stride=2, padding=1), nn.BatchNorm1d(5),
                                 nn.ReLU6()), (1, 3, 11), 13),
        "convtranspose2d_nobias_bn_batch2": (S(nn.ConvTranspose2d(5, 4, (2, 3), stride=(2, 1), padding=(0, 1),
                                                                  bias=False), bn2(4)), (2, 5, 3, 7), 13),
        "unet_tiny_decoder": (UNetTiny(), (1, 3, 8, 10), 13),
        "conv_autoencoder": (ConvAutoencoder(), (1, 1, 12, 12), 13),
        # Recurrent models (keyword spotting, sensor sequences): GRU with PyTorch's
        # linear_before_reset, time-major and batch-first, a bidirectional LSTM.
        "gru_time_major": (RnnOutput(nn.GRU(6, 8)), (7, 2, 6), 13),
        "gru_batch_first_final_state": (RnnOutput(nn.GRU(6, 8, batch_first=True), final_state=True),
                                        (2, 7, 6), 13),
        "lstm_bidirectional": (RnnOutput(nn.LSTM(6, 5, bidirectional=True)), (7, 2, 6), 13),
        "kws_conv_bn_gru": (KeywordSpotter(), (1, 1, 49, 10), 13),
        # LayerNormalization (opset 17): over the last dim of tokens, and over [C, H, W] of a
        # conv feature map after a folded BatchNorm.
        "layer_norm_tokens": (S(nn.Linear(16, 24), nn.LayerNorm(24), nn.GELU(), nn.Linear(24, 5)), (1, 7, 16), 17),
        "conv_bn_layer_norm_chw": (S(nn.Conv2d(3, 6, 3, padding=1), bn2(6), nn.LayerNorm([6, 5, 5])),
                                   (1, 3, 5, 5), 17),
        # A tiny vision transformer (one model): opset 13 spells LayerNorm out in ReduceMean,
        # Sub, Pow, …, which the compiler fuses back; opset 17 has LayerNormalization.
        "vit_tiny_opset13": (vit := TinyViT(), (1, 3, 16, 16), 13),
        "vit_tiny_opset17": (vit, (1, 3, 16, 16), 17),
        # InstanceNorm and GroupNorm (GroupNorm exports as Reshape, InstanceNormalization with
        # unit scale, Reshape, Mul γ, Add β).
        "conv_instance_norm": (random_affine(S(nn.Conv2d(3, 6, 3, padding=1), nn.InstanceNorm2d(6, affine=True),
                                               nn.ReLU(), nn.Conv2d(6, 4, 1))), (1, 3, 7, 6), 13),
        "conv_group_norm": (random_affine(S(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(4, 8), nn.ReLU(),
                                            nn.Conv2d(8, 4, 1))), (2, 3, 6, 5), 13),
        # Segmentation (LR-ASPP head): bilinear Resize to sizes computed from other tensors' shapes.
        "lraspp_tiny_segmentation": (LrAsppTiny(), (1, 3, 16, 20), 13),
    }


class LrAsppTiny(nn.Module):
    """LR-ASPP segmentation head (torchvision's MobileNetV3 one, in small): the high-level map gated
    by a global-pool sigmoid, bilinear-resized to the low-level map's size (computed by shape
    arithmetic), both classified and summed, then resized to the input's size."""

    def __init__(self, classes=3):
        super().__init__()
        self.low = S(nn.Conv2d(3, 8, 3, stride=2, padding=1), bn2(8), nn.Hardswish())
        self.high = S(nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8), bn2(8), nn.ReLU(),
                      nn.Conv2d(8, 16, 1), bn2(16), nn.Hardswish())
        self.cbr = S(nn.Conv2d(16, 12, 1, bias=False), bn2(12), nn.ReLU())
        self.scale = S(nn.AdaptiveAvgPool2d(1), nn.Conv2d(16, 12, 1, bias=False), nn.Sigmoid())
        self.low_classifier = nn.Conv2d(8, classes, 1)
        self.high_classifier = nn.Conv2d(12, classes, 1)

    def forward(self, x):
        low = self.low(x)
        high = self.high(low)
        h = nn.functional.interpolate(self.cbr(high) * self.scale(high), size=low.shape[-2:], mode="bilinear",
                                      align_corners=False)
        out = self.low_classifier(low) + self.high_classifier(h)
        return nn.functional.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)


def randomize(module, gen):
    """Random BN statistics and a few random PReLU slopes, so nothing folds trivially."""
    for m in module.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen))
            m.running_var.copy_(0.5 + 1.5 * torch.rand(c, generator=gen))
            sign = torch.where(torch.rand(c, generator=gen) < 0.2, -1.0, 1.0)
            m.weight.data.copy_(sign * (0.5 + torch.rand(c, generator=gen)))
            m.bias.data.copy_(0.5 * torch.randn(c, generator=gen))
        elif isinstance(m, nn.PReLU):
            m.weight.data.copy_(0.5 * torch.rand(m.weight.shape, generator=gen))


def write_case(name, module, shape, opset, gen):
    case_dir = os.path.join(OUT_DIR, name)
    data_dir = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data_dir)
    with torch.no_grad():
        randomize(module, gen)
    module.eval()
    x = torch.randn(*shape, generator=gen)
    with torch.no_grad():
        y = module(x)
    path = os.path.join(case_dir, "model.onnx")
    torch.onnx.export(module, x, path, opset_version=opset, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["x"], output_names=["y"])
    model = onnx.load(path)
    onnx.checker.check_model(model)
    ops = [n.op_type for n in model.graph.node]
    want_bn = sum(isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)) for m in module.modules())
    if ops.count("BatchNormalization") != want_bn:
        sys.exit(f"{name}: expected {want_bn} BatchNormalization nodes, graph has {ops}")
    for fname, t, tname in (("input_0.pb", x, "x"), ("output_0.pb", y, "y")):
        proto = numpy_helper.from_array(t.numpy().astype(np.float32), tname)
        with open(os.path.join(data_dir, fname), "wb") as f:
            f.write(proto.SerializeToString())
    return {"ops": sorted(set(ops)), "batchnorm": want_bn, "input_shape": list(shape),
            "opset": opset}


def main():
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(SEED)
    if os.path.isdir(OUT_DIR):
        shutil.rmtree(OUT_DIR)
    os.makedirs(OUT_DIR)
    cases = {}
    for name, (module, shape, opset) in build_cases().items():
        cases[name] = write_case(name, module, shape, opset, gen)
        print(f"{name:28s} {' '.join(cases[name]['ops'])}")
    with open(os.path.abspath(__file__), "rb") as f:
        script_sha = hashlib.sha256(f.read()).hexdigest()
    manifest = {
        "generator": "tests/golden/make_golden.py", "generator_sha256": script_sha,
        "torch": torch.__version__, "onnx": onnx.__version__, "numpy": np.__version__,
        "seed": SEED, "export": "eval, TrainingMode.PRESERVE, do_constant_folding=False",
        "date_utc": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cases": cases,
    }
    with open(os.path.join(OUT_DIR, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
