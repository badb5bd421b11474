"""
Trains MaskNet (model.py) on the songs tools/separation-model/render-training.ts rendered with other soundfonts
than the test corpus' FluidR3. Each example is 256 frames (about 6 s) of a song, or, half the time, a remix of
four stems from four songs; per-stem gains of GAIN_DB (-9..+3 dB), stems sometimes silent, channels sometimes swapped.
Loss: the thresholded SNR of each masked stem in the STFT domain, example by example (batch_loss), summed over
the four stems.
Two fifths of the examples take their vocal stem from Festival speech (render-voices.sh) instead, always over a
bass line and coloured at random (colour), a quarter (DRUM_HITS_SHARE) their drum stem from lone drum patterns
(render-drum-hits.ts), and a tenth keep one stem alone.
The weights saved and validated are an exponential moving average of the trained ones (Polyak averaging):
with 4 examples a step, the trained weights jitter by more than a few hundred steps improve them.
Usage: python3 train.py <training dir> <out .pt> <minutes> [validation dir] [voices dir] [drum hits dir]
"""
import copy
import glob
import math
import os
import random
import sys
import time

import numpy as np
import soundfile
import torch

from model import HOP, N_FFT, STEMS, MaskNet

FRAMES = 256
SAMPLES = (FRAMES - 1) * HOP
BATCH = int(os.environ.get("BATCH", "4"))


def load_tracks(root):
    tracks = []
    for d in sorted(glob.glob(os.path.join(root, "*"))):
        if not os.path.exists(os.path.join(d, "truth.json")):
            continue
        stems = [soundfile.read(os.path.join(d, f"{s}.wav"), dtype="int16")[0].T for s in STEMS]
        tracks.append(np.stack(stems))  # [4, 2, samples] int16
    return tracks


WINDOW = torch.hann_window(N_FFT, periodic=True)


def spec(x):
    """
    Complex STFT of [..., samples] as src/dsp/spectrogram.ts (centred frames, zeros outside the signal), frame-major:
    [..., frames, bins], contiguous, so the loss's sums over bins run along the last axis.
    """
    padded = torch.nn.functional.pad(x, (N_FFT // 2, N_FFT // 2))
    return torch.fft.rfft(padded.unfold(-1, N_FFT, HOP) * WINDOW, dim=-1)


def load_wavs(root):
    """Stereo int16 [2, samples] of each WAV in `root`."""
    return [soundfile.read(f, dtype="int16")[0].T.copy() for f in sorted(glob.glob(os.path.join(root, "*.wav")))]


VOICE_SHARE = float(os.environ.get("VOICE_SHARE", 0.4))
# Speech at 0.5 of its peak-normalised level sits about 4 dB under the rest of the mix (median), as the songs'
# sung lines do; at 0.3 it sat 8.5 dB under, and a network trained so gave a louder voice's low harmonics to bass.
SPEECH_SCALE = 0.5
# The sixth training took a third (DRUM_HITS_SHARE=0.33): after the fifth, with a quarter, the standard kit's lone
# floor tom had fallen to 73.5 % in drums; the sixth raised it to 80.5 %.
DRUM_HITS_SHARE = float(os.environ.get("DRUM_HITS_SHARE", 1 / 4))
SOLO_SHARE = 0.1
# Each stem's gain is drawn uniformly in GAIN_DB dB ("low,high"), -9..+3 for every shipped training. The test
# corpus' FluidR3 plays other 1.1-2.6 dB louder against the voice than the training soundfonts (median per split,
# stem-levels.ts), so the nineteenth run drew -15..+5: development and held-out fell on every stem (README).
GAIN_DB = tuple(float(v) for v in os.environ.get("GAIN_DB", "-9,3").split(","))


def excerpt(audio, rng, scale=1.0):
    """A random SAMPLES-long piece of stereo int16 [2, samples] as float."""
    start = rng.randrange(0, max(1, audio.shape[-1] - SAMPLES))
    return audio[:, start : start + SAMPLES].astype(np.float32) / 32768 * scale


SAMPLE_RATE = 44100


def colour(piece, rng):
    """
    A speech piece as voices are recorded and mixed: a random high-pass (12 dB per octave from 60-500 Hz,
    log-uniform) and a random tilt (-3..+4 dB per octave around 1 kHz, within 250 Hz-4 kHz). Mixes high-pass
    their vocals, and a thin synthetic voice (espeak-ng) has 14 % of its energy under 300 Hz where most training
    voices have more than half; without this the network takes a thin voice's harmonics for a bass line.
    """
    f = np.fft.rfftfreq(piece.shape[-1], 1 / SAMPLE_RATE)
    cutoff = math.exp(rng.uniform(math.log(60), math.log(500)))
    highpass = 1 / np.sqrt(1 + (cutoff / np.maximum(f, 1)) ** 4)
    tilt = rng.uniform(-3, 4) * np.clip(np.log2(np.maximum(f, 1) / 1000), -2, 2)
    return np.fft.irfft(np.fft.rfft(piece) * highpass * 10 ** (tilt / 20), n=piece.shape[-1]).astype(np.float32)


# The share of examples put through a mixing and mastering chain (master): records are saturated, compressed
# and limited, the training songs are summed plainly. The twenty-third run drew it at 0.5; earlier runs had none.
MASTER_SHARE = float(os.environ.get("MASTER_SHARE", "0"))


def envelope_gain(level_db, threshold_db, ratio, attack, release):
    """A compressor's gain in dB per block from the blocks' levels: over threshold, 1 - 1/ratio of the excess is
    taken off, smoothed with one-pole attack and release coefficients (per block)."""
    target = -np.maximum(level_db - threshold_db, 0) * (1 - 1 / ratio)
    out = np.empty_like(target)
    g = 0.0
    for i, t in enumerate(target):
        g += (t - g) * (attack if t < g else release)
        out[i] = g
    return out


def per_sample(block_gain_db, block, samples):
    """Block gains (dB) to a gain per sample, linearly between block centres."""
    centres = (np.arange(len(block_gain_db)) + 0.5) * block
    return (10 ** (np.interp(np.arange(samples), centres, block_gain_db) / 20)).astype(np.float32)


def blocks_of(x, block):
    n = x.shape[-1] // block * block
    return x[..., :n].reshape(*x.shape[:-1], -1, block)


def master(out, rng):
    """
    [4, 2, samples] stems through a mixing and mastering chain written here, drawn per example: saturation on half
    the stems (tanh, 0-15 dB of drive over the stem's peak), a reverb send on a quarter (decaying stereo noise,
    RT60 0.3-2 s, -20..-8 dB; the reverb belongs to its stem), a bus compressor (ratio 2-8, threshold 0-12 dB
    under the mix's loud blocks, attack 1-30 ms, release 50-400 ms) and a limiter driven 3-12 dB into it (1.5 ms
    blocks, 4.4 ms lookahead, 30-200 ms release). The bus stages compute one gain on the mix and apply it to every stem, so the stems still add up to
    the mixture, as a mixing desk's bus does. The test families' chains (ffmpeg's, test/families/mix-chains.ts)
    are held out: none of this is theirs.
    """
    samples = out.shape[-1]
    for s in range(4):
        peak = np.abs(out[s]).max()
        if peak == 0:
            continue
        if rng.random() < 0.5:
            before = np.sqrt((out[s] ** 2).mean())
            drive = 10 ** (rng.uniform(0, 15) / 20) / peak
            out[s] = np.tanh(out[s] * drive)
            out[s] *= before / max(np.sqrt((out[s] ** 2).mean()), 1e-9)
        if rng.random() < 0.25:
            rt60 = rng.uniform(0.3, 2.0)
            length = int(rt60 * SAMPLE_RATE)
            t = np.arange(length) / SAMPLE_RATE
            ir = np.random.default_rng(rng.randrange(1 << 30)).standard_normal((2, length)) * 10 ** (-3 * t / rt60)
            ir[:, : int(rng.uniform(0, 0.03) * SAMPLE_RATE)] = 0
            ir *= 10 ** (rng.uniform(-20, -8) / 20) / np.sqrt((ir**2).sum(axis=-1, keepdims=True))
            n = 1 << int(math.ceil(math.log2(samples + length)))
            dry, response = torch.from_numpy(out[s]), torch.from_numpy(ir.astype(np.float32))
            wet = torch.fft.irfft(torch.fft.rfft(dry, n) * torch.fft.rfft(response, n), n)[:, :samples]
            out[s] += wet.numpy()
    mix = out.sum(axis=0)
    if rng.random() < 0.7:
        block = 128
        level = 10 * np.log10((blocks_of(mix, block) ** 2).mean(axis=(0, 2)) + 1e-12)
        threshold = np.percentile(level, 80) - rng.uniform(0, 12)
        per_block = block / SAMPLE_RATE
        attack = 1 - math.exp(-per_block / rng.uniform(0.001, 0.03))
        release = 1 - math.exp(-per_block / rng.uniform(0.05, 0.4))
        gain = per_sample(envelope_gain(level, threshold, rng.uniform(2, 8), attack, release), block, samples)
        out *= gain
        mix = out.sum(axis=0)
    if rng.random() < 0.7:
        block = 64
        peak = np.abs(mix).max()
        drive = 10 ** (rng.uniform(3, 12) / 20) / max(peak, 1e-9)
        peaks = np.abs(blocks_of(mix * drive, block)).max(axis=(0, 2))
        ahead = 3  # blocks of lookahead: the gain is down before the peak arrives
        padded = np.concatenate([peaks, np.zeros(ahead)])
        peaks = np.max(np.stack([padded[i : i + len(peaks)] for i in range(ahead + 1)]), axis=0)
        want = np.minimum(0, -20 * np.log10(np.maximum(peaks, 1e-9)))
        release = 1 - math.exp(-block / SAMPLE_RATE / rng.uniform(0.03, 0.2))
        gain = per_sample(envelope_gain(-want, 0, 1e9, 1.0, release), block, samples)
        out *= gain * drive
    return out


def example(tracks, rng, voices=(), drum_hits=()):
    """[4, 2, SAMPLES]: one song's excerpt, or half the time four stems from four songs; each stem's gain drawn apart."""
    remix = rng.random() < 0.5
    speech = voices and rng.random() < VOICE_SHARE
    base = rng.choice(tracks)
    base_start = rng.randrange(0, max(1, base.shape[-1] - SAMPLES))
    out = np.zeros((4, 2, SAMPLES), dtype=np.float32)
    for s in range(4):
        t = rng.choice(tracks) if remix else base
        start = rng.randrange(0, max(1, t.shape[-1] - SAMPLES)) if remix else base_start
        piece = t[s, :, start : start + SAMPLES].astype(np.float32) / 32768
        if s == 0 and speech:
            piece = colour(excerpt(rng.choice(voices), rng, SPEECH_SCALE), rng)
        if s == 1 and drum_hits and rng.random() < DRUM_HITS_SHARE:
            piece = excerpt(rng.choice(drum_hits), rng)
        # Speech always comes with a bass line: its low harmonics, in the bass's range, are to be told apart from it.
        silent = rng.random() < 0.1 and not (speech and s == 2)
        gain = 0.0 if silent else 10 ** (rng.uniform(*GAIN_DB) / 20)
        out[s, :, : piece.shape[-1]] = piece * gain
    if rng.random() < SOLO_SHARE:
        # One stem alone: a lone tom or voice still belongs to its stem.
        keep = rng.randrange(4)
        out[[s for s in range(4) if s != keep]] = 0
    if rng.random() < MASTER_SHARE:
        out = master(out, rng)
    return out[:, ::-1].copy() if rng.random() < 0.5 else out


KNOTS = 8


def random_eq(shape_b, shape_s, bins, generator):
    """Smooth random gains over frequency [B, 4, 1, 1, bins], one curve per example and stem: ±EQ_DB at KNOTS points spaced in log frequency."""
    db = (torch.rand(shape_b, shape_s, KNOTS, generator=generator) * 2 - 1) * EQ_DB
    position = torch.log2(torch.arange(bins).clamp(min=1).float()) / math.log2(bins - 1) * (KNOTS - 1)
    lo = position.floor().long().clamp(max=KNOTS - 2)
    w = position - lo
    curve = db[..., lo] * (1 - w) + db[..., lo + 1] * w
    return (10 ** (curve / 20))[:, :, None, None, :]


EQ_DB = float(os.environ.get("EQ_DB", "6"))
EQ_GENERATOR = torch.Generator().manual_seed(1)


SNR_MAX_DB = 30


# Bins per block of BandSums: each block's bins touch a few neighbouring bands only.
BAND_BLOCK = 128


class BandSums:
    """
    The loss's sums over bins gathered per band: each bin's mask interpolates two neighbouring bands (model.py),
    m_k = a_k M_j + b_k M_(j+1), so sum_k m_k^2 P_k - 2 m_k C_k is a quadratic form in the band masks M with
    Q_j = sum a^2 P + b^2 P (over the bins that touch band j), R_j = sum a b P (bands j and j+1) and
    L_j = sum a C + b C. The network's masks then stay in bands in the backward pass: 385 values a frame instead
    of 2049, the same loss to rounding. The [BINS, bands] matrices are zero but near their diagonal, so each block
    of BAND_BLOCK bins is multiplied by its own few columns only: 7 % of the whole product's work.
    """

    def __init__(self, net):
        def gather(w_first, w_second):
            m = torch.zeros(len(net.first), net.bands)
            m[torch.arange(len(net.first)), net.first] += w_first
            m[torch.arange(len(net.first)), net.second] += w_second
            return m

        a, b = net.w_first, net.w_second
        self.q, self.r, self.l = gather(a**2, b**2), gather(a * b, torch.zeros_like(b)), gather(a, b)
        self.bands = net.bands
        self.blocks = []
        for lo in range(0, len(net.first), BAND_BLOCK):
            hi = min(len(net.first), lo + BAND_BLOCK)
            low = int(net.first[lo:hi].min())
            high = int(torch.maximum(net.first[lo:hi], net.second[lo:hi]).max()) + 1
            self.blocks.append((lo, hi, low, high))

    def per_band(self, x, matrix):
        """x [..., BINS] @ matrix [BINS, bands], block by block."""
        out = x.new_zeros(*x.shape[:-1], self.bands)
        for lo, hi, low, high in self.blocks:
            out[..., low:high] += x[..., lo:hi] @ matrix[lo:hi, low:high]
        return out


def batch_loss(net, stems, sums, augment=True):
    """
    stems: [B, 4, 2, samples] float; sums: BandSums(net); returns each stem's loss averaged over the batch.
    Each stem's timbre is varied by a random EQ (instruments unlike the training soundfonts'). The loss is the
    negative thresholded SNR of each masked stem in the STFT domain, example by example (Wisdom et al., NeurIPS
    2020, "Unsupervised sound separation using mixture invariant training"): 10 log10((|S - M X|^2 + tau |X|^2) /
    |S|^2) with tau = 10^(-SNR_MAX_DB / 10), so a silent stem asks for silence down to 30 dB under the mixture and
    no further. Its mean over examples is what the figures average (dB per track), so a quiet stem in one example
    counts as much as a loud one in another.
    """
    with torch.no_grad():
        S = spec(stems)  # [B, 4, 2, T, F]
        Sr = torch.view_as_real(S)
        if augment and EQ_DB > 0:
            Sr.mul_(random_eq(S.shape[0], S.shape[1], S.shape[-1], EQ_GENERATOR)[..., None])
        X = S[:, 0] + S[:, 1] + S[:, 2] + S[:, 3]  # [B, 2, T, F]
        Xr = torch.view_as_real(X)
        # |S - m X|^2 summed over the channels, which share the mask: m^2 P - 2 m C + |S|^2 with these two,
        # written out term by term (reductions over inner axes are several times slower in torch).
        P = Xr[:, 0, ..., 0].square() + Xr[:, 0, ..., 1].square() + Xr[:, 1, ..., 0].square() + Xr[:, 1, ..., 1].square()
        C = Sr[:, :, 0, ..., 0] * Xr[:, None, 0, ..., 0]  # [B, 4, T, F]: Re(conj(X) S)
        for c, part in ((0, 1), (1, 0), (1, 1)):
            C.addcmul_(Sr[:, :, c, ..., part], Xr[:, None, c, ..., part])
        energy = Sr.reshape(*Sr.shape[:2], -1).square().sum(dim=-1).double()  # [B, 4]
        floor = 10 ** (-SNR_MAX_DB / 10) * P.sum(dim=(1, 2)).double()[:, None] + 1e-9
        magnitude = X.abs().transpose(-1, -2)  # [B, 2, F, T], as the network takes it
        del S, X, Xr, Sr
        Q, R, L = (sums.per_band(x, m).transpose(-1, -2) for x, m in ((P, sums.q), (P, sums.r), (C, sums.l)))
        del C
    M = net.band_masks(magnitude)  # [B, 4, bands, T]
    err = (M * (M * Q.unsqueeze(1) - 2 * L)).sum(dim=(2, 3)) + 2 * (M[:, :, :-1] * M[:, :, 1:] * R[:, None, :-1]).sum(dim=(2, 3))
    err = err.double() + energy
    return (10 * torch.log10((err.clamp(min=0) + floor) / (energy + floor))).mean(dim=0).float()


def sdr(est, ref):
    ref = ref.flatten()
    est = est.flatten()
    a = (est @ ref) / (ref @ ref + 1e-12)
    t = a * ref
    return 10 * math.log10((t @ t) / (((est - t) ** 2).sum() + 1e-12) + 1e-12)


FREEZE_BATCHNORM = os.environ.get("FREEZE_BATCHNORM") == "1"
EMA_DECAY = float(os.environ.get("EMA_DECAY", "0.998"))
# Steps between saving (and validating) the averaged weights.
SAVE_EVERY = int(os.environ.get("SAVE_EVERY", "200"))


def train_step(net, opt, sums, tracks, rng, voices=(), drum_hits=(), batch=BATCH):
    """One optimiser step on a batch of fresh examples; returns each stem's loss."""
    stems = torch.from_numpy(np.stack([example(tracks, rng, voices, drum_hits) for _ in range(batch)]))
    losses = batch_loss(net, stems, sums)
    opt.zero_grad()
    losses.sum().backward()
    opt.step()
    return losses


def train_mode(net):
    """Training mode; with FREEZE_BATCHNORM=1 (weights from from_onnx.py) the BatchNorms keep their statistics."""
    net.train()
    if FREEZE_BATCHNORM:
        for module in net.modules():
            if isinstance(module, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                module.eval()


def validate(net, tracks):
    """Scale-invariant SDR per stem, whole tracks in 256-frame chunks (no overlap), averaged over tracks."""
    net.eval()
    scores = {s: [] for s in STEMS}
    with torch.no_grad():
        for t in tracks:
            stems = torch.from_numpy(t.astype(np.float32) / 32768)
            n = stems.shape[-1]
            S = spec(stems).transpose(-1, -2)  # [4, 2, F, T]
            X = S.sum(0)
            T = X.shape[-1]
            pad = (-T) % FRAMES
            Xp = torch.nn.functional.pad(X, (0, pad))
            masks = torch.cat([net(Xp[None, :, :, i : i + FRAMES].abs())[0] for i in range(0, T + pad, FRAMES)], dim=-1)[..., :T]
            for k, s in enumerate(STEMS):
                est = torch.istft(masks[k][None] * X, N_FFT, HOP, window=WINDOW, center=True, length=n)
                if stems[k].abs().max() > 0:
                    scores[s].append(sdr(est, stems[k]))
    train_mode(net)
    return {s: (sum(v) / len(v) if v else float("nan")) for s, v in scores.items()}


def main():
    root, out, minutes = sys.argv[1], sys.argv[2], float(sys.argv[3])
    val_root = sys.argv[4] if len(sys.argv) > 4 else None
    voices = load_wavs(sys.argv[5]) if len(sys.argv) > 5 else []
    drum_hits = load_wavs(sys.argv[6]) if len(sys.argv) > 6 else []
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    torch.manual_seed(0)
    rng = random.Random(0)
    tracks = load_tracks(root)
    val = load_tracks(val_root) if val_root else []
    print(f"{len(tracks)} training songs, {len(voices)} voice files, {len(drum_hits)} drum takes, {len(val)} validation songs", flush=True)
    net = MaskNet()
    if os.path.exists(out) and os.environ.get("RESUME"):
        net.load_state_dict(torch.load(out))
    # Channels last: the convolutions over (band, frame) run about twice as fast (a step 20–25 % faster).
    net = net.to(memory_format=torch.channels_last)
    train_mode(net)
    if val and os.environ.get("RESUME"):
        print("starting validation SI-SDR", {s: round(v, 2) for s, v in validate(net, val).items()}, flush=True)
    sums = BandSums(net)
    opt = torch.optim.Adam(net.parameters(), lr=float(os.environ.get("LR", "2e-3")))
    average = copy.deepcopy(net)
    deadline = time.time() + minutes * 60
    start = time.time()
    step = 0
    running = None
    while time.time() < deadline:
        frac = (time.time() - start) / (minutes * 60)
        for g in opt.param_groups:
            g["lr"] = float(os.environ.get("LR", "2e-3")) * (0.5 * (1 + math.cos(math.pi * min(1, frac))) * 0.95 + 0.05)
        losses = train_step(net, opt, sums, tracks, rng, voices, drum_hits)
        step += 1
        with torch.no_grad():
            for a, p in zip(average.parameters(), net.parameters()):
                a.mul_(EMA_DECAY).add_(p, alpha=1 - EMA_DECAY)
            for a, b in zip(average.buffers(), net.buffers()):
                a.copy_(b)
        running = losses.detach() if running is None else 0.98 * running + 0.02 * losses.detach()
        if step % 50 == 0:
            print(f"step {step} {time.time() - start:.0f}s loss " + " ".join(f"{s}={v:.3f}" for s, v in zip(STEMS, running.tolist())), flush=True)
        if step % SAVE_EVERY == 0:
            torch.save(average.state_dict(), out)
            if val:
                print("validation SI-SDR", {s: round(v, 2) for s, v in validate(average, val).items()}, flush=True)
    torch.save(average.state_dict(), out)
    if val:
        print("final validation SI-SDR", {s: round(v, 2) for s, v in validate(average, val).items()}, flush=True)


if __name__ == "__main__":
    main()
