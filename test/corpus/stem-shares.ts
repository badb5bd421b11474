/**
 * Where each true stem goes in a four-stem separation, per frequency band. Each estimated stem ŝ_j is projected,
 * in least squares, onto all four true stems at once over the STFT cells of a band, ŝ_j ≈ Σ_k a_jk s_k (BSS-eval's
 * interference projection, Vincent, Gribonval & Févotte 2006, without its distortion filter, per band). When the
 * estimates add up to the mixture and the mixture is the sum of the true stems, Σ_j a_jk = 1: a_jk is the share
 * of true stem k, by amplitude, that lands in stem j (a stem only partly moved, its low end say, shows as a
 * fraction). A stem with under 1 % of a band's mixture energy is left out of that band's projection: its
 * coefficients there would be mostly the other stems' leftovers.
 */
import { type Spectrogram, stft } from "../../src/dsp/spectrogram.ts";
import { analysisSize } from "../../src/modules/stems-shared/masked-stem.ts";
import { FOUR_STEM_NAMES, SAMPLE_RATE, type Stereo } from "./separation-scoring.ts";

export const BANDS = [
  { name: "all", low: 0, high: Number.POSITIVE_INFINITY },
  { name: "<150 Hz", low: 0, high: 150 },
  { name: "150 Hz-2 kHz", low: 150, high: 2000 },
  { name: ">2 kHz", low: 2000, high: Number.POSITIVE_INFINITY },
] as const;
/** A true stem under this share of a band's mixture energy is absent from the band. */
const ABSENT = 1e-2;
const N = FOUR_STEM_NAMES.length;

/** Per band: [truth × truth] inner products, then [estimate × truth]. */
export interface BandSums {
  gram: Float64Array;
  cross: Float64Array;
}

/** Inner products of the true stems with each other and with the estimates, cell by cell in each band. */
export function bandSums(truth: Stereo[], estimates: Stereo[]): BandSums[] {
  const { fftSize, hop } = analysisSize(SAMPLE_RATE);
  const sums = BANDS.map(() => ({ gram: new Float64Array(N * N), cross: new Float64Array(N * N) }));
  const channels = (truth[0] as Stereo).length;
  for (let c = 0; c < channels; c++) {
    const s = truth.map((stem) => stft(stem[c] as Float32Array, fftSize, hop));
    const e = estimates.map((stem) => stft(stem[c] as Float32Array, fftSize, hop));
    const { bins, frames } = s[0] as Spectrogram;
    const bandOf = Int8Array.from({ length: bins }, (_, bin) => {
      const hz = (bin * SAMPLE_RATE) / fftSize;
      return BANDS.findIndex((b, i) => i > 0 && hz >= b.low && hz < b.high);
    });
    /** Re Σ a b̄ over each band's cells, added into entry `at` of each band's `target`. */
    const accumulate = (a: Spectrogram, b: Spectrogram, at: number, target: "gram" | "cross") => {
      const perBand = new Float64Array(BANDS.length);
      for (let t = 0; t < frames; t++) {
        const row = t * bins;
        for (let k = 0; k < bins; k++) {
          const i = row + k;
          const band = bandOf[k] as number;
          perBand[band] =
            (perBand[band] as number) +
            (a.re[i] as number) * (b.re[i] as number) +
            (a.im[i] as number) * (b.im[i] as number);
        }
      }
      perBand[0] = perBand.reduce((total, v) => total + v, 0);
      sums.forEach((bandSum, band) => {
        const values = bandSum[target];
        values[at] = (values[at] as number) + (perBand[band] as number);
      });
    };
    for (let k = 0; k < N; k++) {
      for (let l = k; l < N; l++) accumulate(s[k] as Spectrogram, s[l] as Spectrogram, k * N + l, "gram");
      for (let j = 0; j < N; j++) accumulate(e[j] as Spectrogram, s[k] as Spectrogram, j * N + k, "cross");
    }
  }
  for (const { gram } of sums) {
    for (let k = 0; k < N; k++) for (let l = 0; l < k; l++) gram[k * N + l] = gram[l * N + k] as number;
  }
  return sums;
}

/** x solving A x = b for a small dense symmetric positive definite A (Gaussian elimination with pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++)
      if (Math.abs(m[r]?.[col] as number) > Math.abs(m[pivot]?.[col] as number)) pivot = r;
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const p = m[col] as number[];
    for (let r = col + 1; r < n; r++) {
      const row = m[r] as number[];
      const f = (row[col] as number) / (p[col] as number);
      for (let k = col; k <= n; k++) row[k] = (row[k] as number) - f * (p[k] as number);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    const row = m[r] as number[];
    let v = row[n] as number;
    for (let k = r + 1; k < n; k++) v -= (row[k] as number) * (x[k] as number);
    x[r] = v / (row[r] as number);
  }
  return x;
}

/** shares[k][j]: the share of true stem k in estimate j, or NaN where stem k is absent from the band. */
export function shares({ gram, cross }: BandSums): number[][] {
  const mixEnergy = Array.from({ length: N * N }, (_, i) => gram[i] as number).reduce((a, v) => a + v, 0);
  const present = FOUR_STEM_NAMES.map((_, k) => k).filter((k) => (gram[k * N + k] as number) > ABSENT * mixEnergy);
  const out = FOUR_STEM_NAMES.map(() => new Array<number>(N).fill(Number.NaN));
  const g = present.map((k) => present.map((l) => gram[k * N + l] as number));
  for (let j = 0; j < N; j++) {
    const a = solve(
      g,
      present.map((k) => cross[j * N + k] as number),
    );
    present.forEach((k, i) => {
      (out[k] as number[])[j] = a[i] as number;
    });
  }
  return out;
}
