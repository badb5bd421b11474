import { InverseStft, type Spectrogram } from "./spectrogram.ts";

/**
 * Multichannel Wiener filtering of a stereo mixture from soft masks (the post-filter of Open-Unmix, Stöter et
 * al., JOSS 2019, after Nugraha, Liutkus & Vincent, IEEE/ACM TASLP 2016), one iteration. A source's power in a
 * cell is its mask times the mixture's power, and per frequency it has a 2×2 covariance estimated from its
 * masked mixture over the whole recording:
 *   A_j(f) = Σ_t m_j² x xᴴ / Σ_t m_j (|x_L|² + |x_R|²)/2.
 * Its estimate is y_j = m_j A_j Q⁻¹ x with Q = Σ_j m_j A_j, so the estimates add up to the mixture. A_j holds
 * where the source sits (a guitar panned left, a voice in the centre), and by its scale c_j(f) how sure the
 * masks are of the source at that frequency over the recording (1 where its mask is 1 whenever it sounds):
 * where all sources sit in one place (a mono mixture) y_j = m_j c_j / Σ_k m_k c_k · x, the masks reweighted by
 * that certainty; where they sit apart, a cell's power is also shared out by where it comes from.
 * The power of m_j in A_j sets how much the certainty counts (1: not at all, A_j only a direction; 2: Open-
 * Unmix's covariance of the masked mixture). Measured with Mixdown's first network (before its second
 * training, tools/separation-model/README.md), vocals / drums / bass / other
 * SI-SDR (dB) on the corpus' ten tuning tracks, then on material made another way (test/separation/
 * stems-4-network.test.ts: synthesised drums, a vibrato line as vocals, bass + other, an espeak-ng voice):
 * - the masks alone: 5.82 / 3.57 / 4.38 / −0.56; 3.91, 0.75, 2.71, −0.66;
 * - power 1.25: 6.37 / 3.96 / 4.68 / −0.21; 4.11, 0.63, 2.77, −0.83;
 * - power 1.5: 6.58 / 4.07 / 4.87 / −0.18; 4.21, 0.32, 2.70, −1.08;
 * - power 2: 6.73 / 4.13 / 5.05 / −0.24; 4.28, −0.17, 2.56, −1.47.
 * Above 1.25 the corpus gained a little more and the voices made another way lost: a voice the network is unsure
 * of is taken for less sure still. Power 1.5 from the seventeenth network, which is surer of the voices:
 * against 1.25 every corpus figure rises, by 0.02–0.09 dB (`test/corpus/separation.test.ts`, `separation-report.ts`;
 * held-out other 5.60 → 5.69 dB), the six espeak-ng voices by 0.01–0.09 dB (`voices-report.ts`), the espeak voice over
 * a loop 10.08 → 10.14; the synthesised drums, vibrato line and harmony lose 0.04–0.07 dB (`stems-4-network.test.ts`,
 * `stems-4.test.ts`), the two-stem report's drums 0.05–0.09. Power 2 with the seventeenth network, against 1.5: the
 * corpus −0.01 to +0.10 dB (held-out other 5.79), the espeak-ng voices +0.02–0.12; the synthesised drums, vibrato line
 * and harmony −0.07 to −0.11, the network's drums of `stems-4.test.ts`, `workflows.test.ts` and the two-stem report
 * −0.11 to −0.16: material made another way loses as much as the corpus gains, so 1.5 stays. In PyTorch (train.py's
 * chunking: masks alone 5.81 / 3.57 / 4.45 / −0.51 on tuning, power 2 6.73 / 4.13 / 5.12 / −0.18), also tried: power 1
 * 5.89 / 3.76 / 4.40 / −0.25; at power 2, powers m_j² as the shares (Open-Unmix's) 6.05 / 3.89 / 4.61 / −0.82, a
 * second iteration 6.46 / 4.13 / 4.96 / −0.70, and A_j per 12-second block 6.67 / 4.07 / 5.01 / −0.31.
 * Power 2 (this) since the twenty-first network was exported with softer masks (its softmax's logits × 0.7,
 * tools/separation-model/export.py): the soft masks share out more of each cell, and the higher power lets the
 * certainty the masks still have over the recording weigh more. Every track of development / tuning, vocals / drums /
 * bass / other (dB), sharpness 1 at power 1.5: 8.76 / 7.78 / 9.05 / 5.20, 11.09 / 8.12 / 9.55 / 5.45; sharpness 0.7 at
 * power 1.5: 8.98 / 7.70 / 9.00 / 5.36; at power 2: 8.99 / 7.68 / 9.05 / 5.46, 11.29 / 7.99 / 9.52 / 5.68; at power 2.5:
 * 8.97 / 7.62 / 9.04 / 5.48, 11.30 / 7.92 / 9.51 / 5.71 (drums lose what other gains). Power 2 at sharpness 1: 8.77 /
 * 7.79 / 9.09 / 5.26. The material made another way gains with sharpness 0.7 and power 2 (tools/separation-model/
 * README.md, "Softer masks").
 */

/** Relative floor added to Q's diagonal (its trace is at most 2): keeps Q⁻¹ finite where Q is nearly singular. */
const DIAGONAL_FLOOR = 1e-3;
/** The covariances are estimated from every FRAME_STRIDE-th frame: a song has thousands, and it halves the pass. */
const FRAME_STRIDE = 2;

/**
 * The estimates of the sources `wanted` (indices into `masks`), each [left, right] signals, for stereo
 * spectrograms `left` and `right` (the same STFT of both channels) and masks of all the sources but one, each a
 * gain per cell of `left`'s layout, in [0, 1] and adding up to at most 1 (softmax masks); the last source's mask
 * is 1 minus their sum, and its estimate is the mixture minus the others'. Frame by frame: no estimate's
 * spectrogram is ever held whole.
 */
export function spatialWiener(
  left: Spectrogram,
  right: Spectrogram,
  masks: readonly Float32Array[],
  wanted: readonly number[],
): Float32Array[][] {
  const { bins, frames, fftSize, hop, length } = left;
  const last = masks.length;
  for (const j of wanted) {
    if (!(j >= 0 && j < last)) throw new Error(`spatialWiener: source ${j} is not one of the masked ones`);
  }
  const { re: lRe, im: lIm } = left;
  const { re: rRe, im: rIm } = right;
  // Per source (the last one's from `last * bins`) and bin: A11, A22, Re A12, Im A12 (A21 = conj A12).
  const size = (last + 1) * bins;
  const a11 = new Float64Array(size);
  const a22 = new Float64Array(size);
  const a12re = new Float64Array(size);
  const a12im = new Float64Array(size);
  const norm = new Float64Array(size);
  // Row buffers: one frame's values per bin, so that each loop below is a plain walk over bins.
  const ll = new Float64Array(bins);
  const rr = new Float64Array(bins);
  const cre = new Float64Array(bins);
  const cim = new Float64Array(bins);
  const rest = new Float64Array(bins);

  const accumulate = (at: number, share: number, f: number) => {
    // share²: the power of m_j in A_j (above)
    const w = share * share;
    a11[at] = (a11[at] as number) + w * (ll[f] as number);
    a22[at] = (a22[at] as number) + w * (rr[f] as number);
    a12re[at] = (a12re[at] as number) + w * (cre[f] as number);
    a12im[at] = (a12im[at] as number) + w * (cim[f] as number);
    norm[at] = (norm[at] as number) + (share * ((ll[f] as number) + (rr[f] as number))) / 2;
  };
  for (let t = 0; t < frames; t += FRAME_STRIDE) {
    const row = t * bins;
    for (let f = 0; f < bins; f++) {
      const xlr = lRe[row + f] as number;
      const xli = lIm[row + f] as number;
      const xrr = rRe[row + f] as number;
      const xri = rIm[row + f] as number;
      ll[f] = xlr * xlr + xli * xli;
      rr[f] = xrr * xrr + xri * xri;
      // x_L conj(x_R)
      cre[f] = xlr * xrr + xli * xri;
      cim[f] = xli * xrr - xlr * xri;
    }
    rest.fill(1);
    for (let j = 0; j < last; j++) {
      const mask = masks[j] as Float32Array;
      for (let f = 0; f < bins; f++) {
        const share = mask[row + f] as number;
        rest[f] = (rest[f] as number) - share;
        accumulate(j * bins + f, share, f);
      }
    }
    for (let f = 0; f < bins; f++) accumulate(last * bins + f, Math.max(0, rest[f] as number), f);
  }
  for (let at = 0; at < size; at++) {
    const n = norm[at] as number;
    const scale = n > 0 ? 1 / n : 0;
    a11[at] = (a11[at] as number) * scale;
    a22[at] = (a22[at] as number) * scale;
    a12re[at] = (a12re[at] as number) * scale;
    a12im[at] = (a12im[at] as number) * scale;
  }
  // Q = A_last + Σ_{j<last} m_j (A_j − A_last), since the shares add up to 1: D_j = A_j − A_last.
  const d11 = new Float64Array(last * bins);
  const d22 = new Float64Array(last * bins);
  const d12re = new Float64Array(last * bins);
  const d12im = new Float64Array(last * bins);
  for (let at = 0; at < last * bins; at++) {
    const f = last * bins + (at % bins);
    d11[at] = (a11[at] as number) - (a11[f] as number);
    d22[at] = (a22[at] as number) - (a22[f] as number);
    d12re[at] = (a12re[at] as number) - (a12re[f] as number);
    d12im[at] = (a12im[at] as number) - (a12im[f] as number);
  }

  // Frame by frame: Q (summed into the row buffers), z = Q⁻¹x, then each wanted y_j = m_j A_j z.
  const q11 = ll;
  const q22 = rr;
  const q12re = cre;
  const q12im = cim;
  const zlr = new Float64Array(bins);
  const zli = new Float64Array(bins);
  const zrr = new Float64Array(bins);
  const zri = new Float64Array(bins);
  const leftRe = new Float32Array(bins);
  const leftIm = new Float32Array(bins);
  const rightRe = new Float32Array(bins);
  const rightIm = new Float32Array(bins);
  const inverses = wanted.map(() => [new InverseStft(fftSize, hop, length), new InverseStft(fftSize, hop, length)]);
  for (let t = 0; t < frames; t++) {
    const row = t * bins;
    q11.set(a11.subarray(last * bins));
    q22.set(a22.subarray(last * bins));
    q12re.set(a12re.subarray(last * bins));
    q12im.set(a12im.subarray(last * bins));
    for (let j = 0; j < last; j++) {
      const mask = masks[j] as Float32Array;
      for (let f = 0, at = j * bins; f < bins; f++, at++) {
        const m = mask[row + f] as number;
        q11[f] = (q11[f] as number) + m * (d11[at] as number);
        q22[f] = (q22[f] as number) + m * (d22[at] as number);
        q12re[f] = (q12re[f] as number) + m * (d12re[at] as number);
        q12im[f] = (q12im[f] as number) + m * (d12im[at] as number);
      }
    }
    for (let f = 0; f < bins; f++) {
      const floor = DIAGONAL_FLOOR * (((q11[f] as number) + (q22[f] as number)) / 2 + 1e-9);
      const p11 = (q11[f] as number) + floor;
      const p22 = (q22[f] as number) + floor;
      const ore = q12re[f] as number;
      const oim = q12im[f] as number;
      const det = p11 * p22 - (ore * ore + oim * oim);
      const inv = det > 0 ? 1 / det : 0;
      const xlr = lRe[row + f] as number;
      const xli = lIm[row + f] as number;
      const xrr = rRe[row + f] as number;
      const xri = rIm[row + f] as number;
      // Q⁻¹ = [[q22, -q12], [-conj q12, q11]] / det
      zlr[f] = (p22 * xlr - (ore * xrr - oim * xri)) * inv;
      zli[f] = (p22 * xli - (ore * xri + oim * xrr)) * inv;
      zrr[f] = (p11 * xrr - (ore * xlr + oim * xli)) * inv;
      zri[f] = (p11 * xri - (ore * xli - oim * xlr)) * inv;
    }
    wanted.forEach((j, w) => {
      const mask = masks[j] as Float32Array;
      for (let f = 0, at = j * bins; f < bins; f++, at++) {
        // m (A11 zL + A12 zR) and m (conj(A12) zL + A22 zR)
        const m = mask[row + f] as number;
        const ore = a12re[at] as number;
        const oim = a12im[at] as number;
        const a = zlr[f] as number;
        const b = zli[f] as number;
        const c = zrr[f] as number;
        const d = zri[f] as number;
        const p11 = a11[at] as number;
        const p22 = a22[at] as number;
        leftRe[f] = m * (p11 * a + ore * c - oim * d);
        leftIm[f] = m * (p11 * b + ore * d + oim * c);
        rightRe[f] = m * (ore * a + oim * b + p22 * c);
        rightIm[f] = m * (ore * b - oim * a + p22 * d);
      }
      const [toLeft, toRight] = inverses[w] as InverseStft[];
      (toLeft as InverseStft).add(t, leftRe, leftIm);
      (toRight as InverseStft).add(t, rightRe, rightIm);
    });
  }
  return inverses.map((pair) => pair.map((inverse) => inverse.finish()));
}
