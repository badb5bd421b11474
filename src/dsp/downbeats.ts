/**
 * Meter (3 or 4 beats per bar) and the position of the first downbeat, from beat-level cues: low-band
 * onsets (kick and bass notes fall on strong beats) and harmonic change (chords change at bar lines), in the
 * spirit of Goto 2001 ("An audio-based real-time beat tracking system for music with or without drum-sounds")
 * and Davies & Plumbley 2006 (downbeats from spectral change at beat level). Each (meter, phase) is scored
 * by how much the beats it calls downbeats stand out.
 */
export interface DownbeatCues {
  /** Low-band onset strength at each beat. */
  low: number[];
  /** Harmonic change entering each beat (1 − cosine of neighbouring beat chroma). */
  change: number[];
}

function standardize(values: number[]): number[] {
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / Math.max(1, values.length)) || 1;
  return values.map((v) => (v - mean) / sd);
}

export function findDownbeats(cues: DownbeatCues): { meter: 3 | 4; firstDownbeat: number } {
  const low = standardize(cues.low);
  const change = standardize(cues.change);
  const cue = low.map((l, i) => l + 1.5 * (change[i] as number));
  let best = { meter: 4 as 3 | 4, firstDownbeat: 0, score: Number.NEGATIVE_INFINITY };
  for (const meter of [3, 4] as const) {
    for (let phase = 0; phase < meter; phase++) {
      let on = 0;
      let onCount = 0;
      let off = 0;
      let offCount = 0;
      cue.forEach((value, i) => {
        if ((i - phase) % meter === 0) {
          on += value;
          onCount++;
        } else {
          off += value;
          offCount++;
        }
      });
      const score = on / Math.max(1, onCount) - off / Math.max(1, offCount);
      if (score > best.score) best = { meter, firstDownbeat: phase, score };
    }
  }
  return { meter: best.meter, firstDownbeat: best.firstDownbeat };
}
