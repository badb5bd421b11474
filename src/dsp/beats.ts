/**
 * Beat tracking by dynamic programming (Ellis 2007, "Beat tracking by dynamic programming", JNMR 36(1)):
 * the beat sequence maximising the onset strength at the beats minus a penalty on inter-beat intervals
 * that stray (in log ratio) from the tempo's period.
 */
export function trackBeats(envelope: Float32Array, frameRate: number, bpm: number, tightness = 100): number[] {
  const period = (60 * frameRate) / bpm;
  const n = envelope.length;
  if (n === 0) return [];
  // Onset strength smoothed by a Gaussian about a 32nd of the period wide (Ellis's "local score").
  const sigma = Math.max(1, period / 32);
  const radius = Math.ceil(3 * sigma);
  const local = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let d = -radius; d <= radius; d++) sum += (envelope[i + d] ?? 0) * Math.exp(-0.5 * (d / sigma) ** 2);
    local[i] = sum;
  }
  const std = Math.sqrt(local.reduce((a, v) => a + v * v, 0) / n) || 1;
  for (let i = 0; i < n; i++) local[i] = (local[i] as number) / std;

  const score = new Float64Array(n);
  const backlink = new Int32Array(n).fill(-1);
  const from = Math.round(period / 2);
  const to = Math.round(2 * period);
  for (let t = 0; t < n; t++) {
    let best = 0;
    let link = -1;
    for (let prev = t - to; prev <= t - from; prev++) {
      if (prev < 0) continue;
      const candidate = (score[prev] as number) - tightness * Math.log((t - prev) / period) ** 2;
      if (link === -1 || candidate > best) {
        best = candidate;
        link = prev;
      }
    }
    score[t] = (local[t] as number) + (link === -1 ? 0 : Math.max(0, best));
    backlink[t] = link !== -1 && best > 0 ? link : -1;
  }
  // End on the best-scoring frame within the last period, then follow the links back.
  let end = n - 1;
  for (let t = Math.max(0, n - Math.round(period)); t < n; t++)
    if ((score[t] as number) > (score[end] as number)) end = t;
  const beats: number[] = [];
  for (let t = end; t >= 0; t = backlink[t] as number) beats.push(t);
  return beats.reverse().map((frame) => frame / frameRate);
}

/**
 * Drops the beats after the music's last onset: the tracker's path runs on through a final chord's ring-out,
 * where nothing marks a beat. The last kept beat is the last one carrying an onset of at least `share` of the
 * median onset strength at beats.
 */
export function dropTrailingBeats(beats: number[], envelope: Float32Array, frameRate: number, share = 0.25): number[] {
  const strength = beats.map((t) => {
    const i = Math.round(t * frameRate);
    return Math.max(envelope[i - 1] ?? 0, envelope[i] ?? 0, envelope[i + 1] ?? 0);
  });
  const sorted = [...strength].sort((a, b) => a - b);
  const threshold = share * (sorted[Math.floor(sorted.length / 2)] ?? 0);
  let last = strength.length - 1;
  while (last > 0 && (strength[last] as number) < threshold) last--;
  return beats.slice(0, last + 1);
}

/** A beat's onset in an envelope: the largest value from the frame before the beat's to two frames after it. */
export function onsetAtBeat(envelope: Float32Array, frame: number): number {
  return Math.max(envelope[frame - 1] ?? 0, envelope[frame] ?? 0, envelope[frame + 1] ?? 0, envelope[frame + 2] ?? 0);
}

/**
 * Beats a half period off, moved onto the beat. The tracker follows the strongest onsets; where a hi-hat or
 * cymbal marks every off-beat (four-on-the-floor dance music), its many bins outweigh a kick without a click.
 * The kick and the bass carry most of the energy, so the loudness onsets (onsets.ts) fall on the beat: when the
 * points halfway between the beats are clearly louder onsets than the beats, the beats move there. "Clearly":
 * twice, set on the development material (test/families/tracks.ts's developmentPlan and the corpus' development
 * and tuning splits): halfway is at most 1.41 times the beats in the corpus (funk's syncopated kicks and bass),
 * 2.5 times in a four-on-the-floor song whose beats were tracked on its hi-hats.
 */
const HALFWAY_LOUDER = 2;
export function onTheLoudBeat(beats: number[], loudness: Float32Array, frameRate: number, duration: number): number[] {
  if (beats.length < 4) return beats;
  const at = (t: number) => onsetAtBeat(loudness, Math.round(t * frameRate));
  const halfway = beats.slice(1).map((t, i) => ((beats[i] as number) + t) / 2);
  const mean = (times: number[]) => times.reduce((a, t) => a + at(t), 0) / times.length;
  const onBeats = mean(beats);
  const between = mean(halfway);
  if (!(between > HALFWAY_LOUDER * onBeats)) return beats;
  const first = (halfway[0] as number) - ((beats[1] as number) - (beats[0] as number));
  const last = (halfway.at(-1) as number) + ((beats.at(-1) as number) - (beats.at(-2) as number));
  return [...(first >= 0 ? [first] : []), ...halfway, ...(last < duration ? [last] : [])];
}
