"""
The four-stem mask network over a band-compressed magnitude spectrogram (MaskNet below: per-frame dense layers
after Open-Unmix, dilated convolutions over time, small convolutions over bands and frames before and after),
with softmax masks so the four stems add up to the mixture. STFT 4096 / hop 1024 at 44.1 kHz, periodic Hann,
as src/dsp/spectrogram.ts. Bins below BIN_SPLIT are one band each; above, bands are spaced evenly in log
frequency (64 a octave), so harmonics stay resolved where the bass and the voice have them.
"""
import math
import os

import torch
from torch import nn

N_FFT = 4096
HOP = 1024
BINS = N_FFT // 2 + 1
BIN_SPLIT = 128
BANDS_PER_OCTAVE = 64
STEMS = ("vocals", "drums", "bass", "other")
DILATIONS = (1, 2, 4, 8, 16, 32)
# Width of the per-frame layers and of the convolutions over time.
HIDDEN = int(os.environ.get("HIDDEN", "256"))
# Channels of the refining convolution over (band, frame) after the per-frame layers.
REFINE = 12


def band_matrices():
    """(pool [bands, bins]: each band the mean of its bins; expand [bins, bands]: linear interpolation between band centres)."""
    edges = list(range(BIN_SPLIT + 1))
    f = float(BIN_SPLIT)
    while edges[-1] < BINS:
        f *= 2 ** (1 / BANDS_PER_OCTAVE)
        edge = max(edges[-1] + 1, round(f))
        edges.append(min(edge, BINS))
    bands = len(edges) - 1
    pool = torch.zeros(bands, BINS)
    centres = []
    for b in range(bands):
        lo, hi = edges[b], edges[b + 1]
        pool[b, lo:hi] = 1.0 / (hi - lo)
        centres.append((lo + hi - 1) / 2)
    expand = torch.zeros(BINS, bands)
    for k in range(BINS):
        if k <= centres[0]:
            expand[k, 0] = 1
        elif k >= centres[-1]:
            expand[k, -1] = 1
        else:
            j = max(i for i, c in enumerate(centres) if c <= k)
            w = (k - centres[j]) / (centres[j + 1] - centres[j])
            expand[k, j] = 1 - w
            expand[k, j + 1] = w
    return pool, expand


class MaskNet(nn.Module):
    """
    Stereo magnitudes [batch, 2, BINS, frames] to masks [batch, 4, BINS, frames] that sum to 1. Two small
    convolutions over (band, frame) catch local shapes (a drum hit is vertical, a note horizontal); per frame a
    dense layer reads all bands (after Open-Unmix, Stoter et al., JOSS 2019), residual dilated convolutions over
    time carry about ±1.5 s of context (a temporal convolutional network, Bai et al. 2018, instead of Open-Unmix's
    LSTM: several times faster on a CPU), and a dense layer gives each stem's logit per band; two small
    convolutions over (band, frame) then correct each logit from its neighbourhood (refine).
    """

    def __init__(self, hidden=HIDDEN, conv=8):
        super().__init__()
        pool, expand = band_matrices()
        edges_lo = (pool > 0).float().argmax(dim=1)
        widths = (pool > 0).sum(dim=1)
        self.register_buffer("lo", edges_lo.long())
        self.register_buffer("hi", (edges_lo + widths).long())
        self.register_buffer("width", widths.float())
        # Each bin interpolates two bands.
        first = (expand > 0).float().argmax(dim=1)
        second = torch.clamp(first + 1, max=expand.shape[1] - 1)
        self.register_buffer("first", first.long())
        self.register_buffer("second", second.long())
        self.register_buffer("w_first", expand.gather(1, first[:, None])[:, 0])
        self.register_buffer("w_second", expand.gather(1, second[:, None])[:, 0] * (second != first).float())
        self.bands = pool.shape[0]
        nb = self.bands
        self.conv = nn.Sequential(
            nn.Conv2d(3, conv, 3, padding=1),
            nn.BatchNorm2d(conv),
            nn.LeakyReLU(0.1),
            nn.Conv2d(conv, conv, 3, padding=(2, 1), dilation=(2, 1)),
            nn.BatchNorm2d(conv),
            nn.LeakyReLU(0.1),
        )
        self.fc_in = nn.Sequential(nn.Linear((conv + 3) * nb, hidden), nn.LayerNorm(hidden), nn.Tanh())
        self.context = nn.ModuleList(
            nn.Sequential(
                nn.Conv1d(hidden, hidden, 3, padding=d, dilation=d), nn.BatchNorm1d(hidden), nn.LeakyReLU(0.1)
            )
            for d in DILATIONS
        )
        self.fc_mid = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.LayerNorm(hidden), nn.LeakyReLU(0.1))
        self.fc_out = nn.Linear(hidden, len(STEMS) * nb)
        # The softmax's inverse temperature: the logits are scaled by it before the softmax (export.py's third
        # argument; not a weight, so training runs at 1). Below 1 the masks are softer: trained on its own
        # renders, the network is surer of each cell than it has cause to be on music made another way.
        self.sharpness = 1.0
        # The per-frame layers see every band through a 256-wide bottleneck, so their masks cannot follow one
        # bin's local shape (a kick's short broadband rise under a bass note's steady partials). Two small
        # convolutions over (band, frame) read the logits beside the input's features and correct them. The last
        # starts at zero: a network trained without them starts where it was.
        self.refine = nn.Sequential(
            nn.Conv2d(conv + 3 + len(STEMS), REFINE, 3, padding=1),
            nn.LeakyReLU(0.1),
            nn.Conv2d(REFINE, len(STEMS), 3, padding=1),
        )
        nn.init.zeros_(self.refine[-1].weight)
        nn.init.zeros_(self.refine[-1].bias)

    def band_masks(self, mag):
        """The masks per band [b, 4, bands, t]; forward interpolates them to bins, as the exported network does."""
        b, _, _, t = mag.shape
        # Band means from a running sum over bins; log magnitude relative to the chunk's mean level.
        total = torch.nn.functional.pad(torch.cumsum(mag, dim=2), (0, 0, 1, 0))
        bands = (total.index_select(2, self.hi) - total.index_select(2, self.lo)) / self.width[:, None]
        level = bands.mean(dim=(1, 2, 3), keepdim=True).clamp(min=1e-4)
        logs = torch.log(bands / level + 1e-3)
        mid = (logs[:, :1] + logs[:, 1:2]) / 2
        side = logs[:, :1] - logs[:, 1:2]
        x = torch.cat([mid, side, torch.abs(side)], dim=1)  # [b, 3, bands, t]
        features = torch.cat([x, self.conv(x)], dim=1)  # [b, 11, bands, t]
        # The per-frame layers take [b * t, features], not [b, t, features]: on a 3-D input torch computes their
        # weights' gradients as one product per example (a batched product several times slower than one).
        h = self.fc_in(features.permute(0, 3, 1, 2).reshape(b * t, -1)).reshape(b, t, -1)
        r = h.transpose(1, 2)
        for layer in self.context:
            r = r + layer(r)
        r = r.transpose(1, 2)
        h = self.fc_mid(torch.cat([h, r], dim=-1).reshape(b * t, -1))
        logits = self.fc_out(h).reshape(b, t, len(STEMS), self.bands).permute(0, 2, 3, 1)
        logits = logits + self.refine(torch.cat([features, logits], dim=1))
        if self.sharpness != 1.0:
            logits = logits * self.sharpness
        return torch.softmax(logits, dim=1)  # [b, 4, bands, t]

    def forward(self, mag):
        masks = self.band_masks(mag)
        return masks.index_select(2, self.first) * self.w_first[:, None] + masks.index_select(2, self.second) * self.w_second[:, None]


if __name__ == "__main__":
    net = MaskNet()
    print("bands", net.bands, "parameters", sum(p.numel() for p in net.parameters()))
    _, expand = band_matrices()
    m = torch.rand(1, 4, net.bands, 3)
    dense = torch.einsum("kn,bsnt->bskt", expand, m)
    sparse = m.index_select(2, net.first) * net.w_first[:, None] + m.index_select(2, net.second) * net.w_second[:, None]
    print("expand check", (dense - sparse).abs().max().item())
    mag = torch.rand(1, 2, BINS, 5)
    pool, _ = band_matrices()
    total = torch.nn.functional.pad(torch.cumsum(mag, dim=2), (0, 0, 1, 0))
    bands = (total.index_select(2, net.hi) - total.index_select(2, net.lo)) / net.width[:, None]
    print("pool check", (bands - torch.einsum("nf,bcft->bcnt", pool, mag)).abs().max().item())
