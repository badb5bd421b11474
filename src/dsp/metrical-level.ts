/**
 * Which pulse is the beat: the metrical level read from the drum pattern; a tempo prior can only make a grouping
 * harder (below), never pick the level.
 *
 * A fast pulse is found first (the fastest well-fitting tempo up to 520 BPM: eighths or sixteenths, see
 * tempo.ts) and tracked (beats.ts) on the drum hits, as the beats are (drumAccentEnvelope in onsets.ts: the
 * swung eighths of a shuffle's bass and comping otherwise pull the pulse off the beats); halving its period gives
 * a grid fine enough to hold the beat of duple and compound meters alike. Each grid point gets an accent: the
 * larger of its kick (< 200 Hz) and snare (200–2500 Hz) onset strengths, each scaled by its own 95th percentile so
 * neither drum dominates. Then the level climbs: from a level of k grid steps, grouping its pulses by 2 or by 3 is accepted when one pulse of
 * each group carries clearly more accent than the others (the hi-hat subdivisions between kick and snare
 * hits), and refused when the group's pulses are about equally accented (kick and snare alternating on every
 * beat: grouping them would put the backbeat between beats). It is refused too when another pulse of the group
 * carries about as much snare-band onset as the strongest one: the backbeat marks beats, so a louder kick and bass
 * on 1 and 3 must not fold the snare's 2 and 4 into the off-beats (the half-tempo error of rock and shuffle). For
 * the same reason two pulses are not grouped when the stronger carries more snare hits (mid-band onsets with
 * high-band noise) and the other at least as many kick hits (low-band onsets with the beater's click): that is
 * the backbeat's alternation of beats, and grouping would put the beat on the snare.
 * A grouping in twos that takes the beat away from the preferred tempo (~120 BPM) needs a clearer accent, by the
 * ratio of a log-Gaussian tempo prior at the two levels (Ellis 2007): rock at 124–147 BPM, whose kick and snare
 * beats differ in loudness, is then not halved, while the eighths of a ballad still group into its 60–90 BPM beat.
 * This is the drum-pattern reasoning of Goto 2001 ("An audio-based real-time beat tracking system for music
 * with or without drum-sounds", JNMR 30(2): snare and bass drum on beats, the hi-hat between) and the
 * tatum–tactus–measure hierarchy of Klapuri, Eronen & Astola 2006 ("Analysis of the meter of acoustic musical
 * signals", IEEE TASLP 14(1)), in a simple form.
 * Above 228 BPM the level keeps climbing whatever the accents say, by the grouping (two or three pulses) whose
 * period the onsets repeat at best. Last, a level whose drum pattern repeats after eight beats but not after
 * four is doubled (bars hold at most four beats), unless that gives a beat slower than 70 BPM.
 */
import { trackBeats, valueAt } from "./beats.ts";
import { drumAccentEnvelope, type OnsetEnvelope } from "./onsets.ts";
import { estimateTempo } from "./tempo.ts";

/** A group whose weaker pulses carry less than this share of its strongest pulse's accent has one beat. */
const ACCENT_RATIO = 0.7;
/** The fast pulse is searched up to this tempo (sixteenths at 130 BPM). */
const FAST_PULSE_MAX_BPM = 520;
/** Beats are not slower than this (a slow 6/8 counted in dotted quarters)… */
const MIN_BEAT_BPM = 40;
/**
 * …and a grouping by two does not make a beat slower than this: a duple beat under 50 BPM is heard twice as fast
 * (Moelants 2002: tapped tempi cluster around 120 BPM, few under 60). On the family development plan, every track
 * whose beat came out under 60 BPM was wrong (14 of 182): an acoustic ballad strummed on beats 1 and 3 alone (84
 * BPM read as 42, three renderings) and a score (90 as 45) grouped by two under 50; the others, under 60 from
 * groupings by three or at 50–58, are left as they are. The corpus' slowest 4/4 song is 63 BPM, 54 when stretched
 * by 0.85, so none of its beats comes near.
 */
const MIN_DUPLE_BEAT_BPM = 50;
/**
 * …nor faster than this: above it the level keeps climbing whatever the accents say. The fastest beats the styles
 * have are metal's blast beats, 180–220 BPM; 228 is 220 within the 4 % a tempo may be off. At 240, the eighths of
 * dance music at 118–120 BPM (four on the floor, an off-beat bass and open hi-hat, as accented as the beats) and of a
 * 115 BPM score stayed the beat (the family development plan: 236–240 read for 118–120 in five renderings, 230 for
 * 115 in three).
 */
const MAX_BEAT_BPM = 228;
/**
 * A level doubled because its drum pattern spans eight beats (the eighths of a 16th-note groove) gives a beat not
 * slower than this (the level doubled is 140 BPM or faster). The repetition is weaker evidence than an accent: a
 * 130 BPM dance groove and a 126 BPM score whose patterns run over two bars were doubled into 65 and 63 (the
 * development plan's dev-electronic-130 and dev-score-e3m3-fm), where the doublings that were right gave 80–115 BPM;
 * a 52 BPM "beat" doubled from a 105 BPM shuffle is the two-bar phrase of its bass line, not half bars.
 */
const MIN_DOUBLED_BEAT_BPM = 70;
/** The preferred tempo and the width (in octaves) of the prior around it (Ellis 2007). */
const PREFERRED_BPM = 120;
const PRIOR_OCTAVES = 1.4;

export interface MetricalLevel {
  /** The beat tempo. */
  bpm: number;
  /** Times (s) of the fine grid: the tracked fast pulse and the midpoints between its pulses. */
  grid: number[];
  /** Beats are grid[phase], grid[phase + step], …: the grid steps per beat and the first beat's index. */
  step: number;
  phase: number;
  /** Each step of the climb, for reports (test/families/metrical-level-report.ts). */
  steps: ClimbStep[];
}

/** One step of the climb from the fast pulse: the groupings weighed, the ratio needed, what was done. */
export interface ClimbStep {
  /** The level's tempo before the step. */
  fromBpm: number;
  /** Per grouping size: the runner-up pulse's accent over the strongest's (see Grouping). */
  ratios: { size: number; ratio: number }[];
  /** The best grouping's ratio must be under this (ACCENT_RATIO, less by the tempo prior for a duple one). */
  needed: number;
  /** "accent": grouped by a clear accent; "repetition": too fast, grouped by repetition; "stop"; "doubled": the eight-beat check. */
  outcome: "accent" | "repetition" | "stop" | "doubled";
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(p * (sorted.length - 1))] ?? 0;
}

/**
 * An onset counts at most this many times a loud hit (its band's 95th percentile) in the accents: the first chord
 * after silence or a crash at a section's start (29 times a loud hit at the start of the family plan's metal-184)
 * must not outweigh a song's worth of kick and snare pattern in a pulse's mean, where it made a 184 BPM metal song's
 * eighths group in threes (40.8 BPM). Set on the development plan: at 2 the pattern's own accented hits were cut too,
 * and a 208 BPM song, whose beats' accents differ by a ratio just above ACCENT_RATIO, was halved; at 4 one such onset
 * still outweighs the pattern of a ten-second excerpt (the first 10 s of the plan's 138 songs: tempo right on 86 at 3,
 * 85 at 2 and 4, 83 without a cap, where two metal songs at 192 and 208 BPM read at a third).
 */
const LOUDEST_HIT = 3;

/** Per grid point: snare-band onsets, and the larger of kick- and snare-band ones, each relative to its loud hits. */
function drumAccents(onsets: OnsetEnvelope, grid: number[]): DrumAccents {
  const relative = (band: Float32Array) => {
    const values = grid.map((t) => valueAt(band, onsets.frameRate, t));
    const scale = percentile(values, 0.95) || 1;
    return values.map((v) => Math.min(LOUDEST_HIT, v / scale));
  };
  const kick = relative(onsets.low);
  const snare = relative(onsets.mid);
  const high = relative(onsets.high);
  const withNoise = (band: number[]) => band.map((v, i) => Math.min(v, high[i] as number));
  return {
    accent: kick.map((k, i) => Math.max(k, snare[i] as number)),
    snare,
    kickHit: withNoise(kick),
    snareHit: withNoise(snare),
  };
}

interface DrumAccents {
  /** The larger of the kick- and snare-band onsets, each relative to its loud hits. */
  accent: number[];
  /** Snare-band onsets, relative to its loud hits. */
  snare: number[];
  /** Drum hits: low- or mid-band onsets with high-band noise at once (kick click, snare rattle; see onsets.ts). */
  kickHit: number[];
  snareHit: number[];
}

interface Grouping {
  size: number;
  /** Which pulse of the group carries the accent. */
  strongest: number;
  /**
   * The runner-up pulse's mean accent over the strongest one's, or its mean snare-band onset over the strongest
   * one's, whichever is larger: a group holds one beat only if its strongest pulse leads on both.
   */
  ratio: number;
}

/** Mean of `values` over each of the `size` pulses of groups of `step` grid steps starting at `phase`. */
function pulseMeans(values: number[], phase: number, step: number, size: number): number[] {
  return Array.from({ length: size }, (_, j) => {
    let sum = 0;
    let count = 0;
    for (let i = phase + j * step; i < values.length; i += step * size) {
      sum += values[i] as number;
      count++;
    }
    return sum / Math.max(1, count);
  });
}

/** The runner-up over the value at `strongest` (1 when that is 0). */
function runnerUpRatio(means: number[], strongest: number): number {
  const top = means[strongest] as number;
  return top > 0 ? Math.max(...means.filter((_, j) => j !== strongest)) / top : 1;
}

/** How well pulses of `step` grid steps starting at `phase` group by `size`. */
function grouping(drums: DrumAccents, phase: number, step: number, size: number): Grouping {
  const accent = pulseMeans(drums.accent, phase, step, size);
  const strongest = accent.indexOf(Math.max(...accent));
  const snare = pulseMeans(drums.snare, phase, step, size);
  if (size === 2 && backbeatLeads(drums, phase, step, strongest)) return { size, strongest, ratio: 1 };
  return { size, strongest, ratio: Math.max(runnerUpRatio(accent, strongest), runnerUpRatio(snare, strongest)) };
}

/**
 * Whether, of two alternating pulses, the stronger is the backbeat: it carries more snare hits and the other at
 * least as many kick hits. Kick on 1 and 3, snare on 2 and 4 (Goto 2001) makes both pulses beats: grouping them
 * would put the beat on the snare and halve the tempo.
 */
function backbeatLeads(drums: DrumAccents, phase: number, step: number, strongest: number): boolean {
  const kick = pulseMeans(drums.kickHit, phase, step, 2);
  const snare = pulseMeans(drums.snareHit, phase, step, 2);
  const other = 1 - strongest;
  return (
    (snare[strongest] as number) > (snare[other] as number) && (kick[other] as number) >= (kick[strongest] as number)
  );
}

export function findMetricalLevel(onsets: OnsetEnvelope): MetricalLevel {
  const fast = estimateTempo(onsets.strength, onsets.frameRate, { minBpm: 60, maxBpm: FAST_PULSE_MAX_BPM });
  const pulses = trackBeats(drumAccentEnvelope(onsets), onsets.frameRate, fast);
  const grid: number[] = [];
  pulses.forEach((t, i) => {
    grid.push(t);
    const next = pulses[i + 1];
    if (next !== undefined) grid.push((t + next) / 2);
  });
  const gridSeconds = 30 / fast;
  const bpmOf = (step: number) => 60 / (gridSeconds * step);
  const drums = drumAccents(onsets, grid);
  const allOnsets = grid.map((t) => valueAt(onsets.strength, onsets.frameRate, t));
  let step = 1;
  let phase = 0;
  const steps: ClimbStep[] = [];
  for (;;) {
    const options = [2, 3]
      .filter((size) => bpmOf(step * size) >= (size === 2 ? MIN_DUPLE_BEAT_BPM : MIN_BEAT_BPM))
      .map((size) => grouping(drums, phase, step, size));
    const best = options.reduce<Grouping | null>((a, o) => (a === null || o.ratio < a.ratio ? o : a), null);
    if (!best) break;
    const needed = ACCENT_RATIO * (best.size === 2 ? priorFavour(bpmOf(step * 2), bpmOf(step)) : 1);
    const convincing = best.ratio < needed;
    const stops = !convincing && bpmOf(step) <= MAX_BEAT_BPM;
    steps.push({
      fromBpm: bpmOf(step),
      ratios: options.map(({ size, ratio }) => ({ size, ratio })),
      needed,
      outcome: convincing ? "accent" : stops ? "stop" : "repetition",
    });
    if (stops) break;
    // Too fast for a beat, yet no pulse of a group stands out (16th-note syncopation, off-beat bass and open
    // hi-hat): group by the period at which the onsets repeat best, two pulses or three.
    const chosen = convincing ? best : groupingByRepetition(options, allOnsets.slice(phase), step);
    phase += chosen.strongest * step;
    step *= chosen.size;
  }
  if (bpmOf(step * 2) >= MIN_DOUBLED_BEAT_BPM && drumPatternSpansEightBeats(onsets, grid, step)) {
    steps.push({ fromBpm: bpmOf(step), ratios: [], needed: 0, outcome: "doubled" });
    step *= 2;
  }
  return { bpm: bpmOf(step), grid, step, phase, steps };
}

/**
 * How much less likely a duple beat at `slower` BPM is than one at `faster` by the preferred-tempo prior (at most
 * 1): a grouping that takes the beat away from ~120 BPM needs that much more accent contrast. The prior is Ellis
 * 2007's log-Gaussian tempo weighting ("Beat tracking by dynamic programming", JNMR 36(1): centred on 0.5 s, 1.4
 * octaves wide; cf. Moelants 2002, "Preferred tempo reconsidered"). It never eases a grouping (a fast two-step's
 * beats stay beats), and groupings in threes are not weighed: the compound beat (the 6/8 dotted quarter, 40–95
 * BPM) is counted however slow it is.
 */
function priorFavour(slower: number, faster: number): number {
  const weight = (bpm: number) => Math.exp(-0.5 * (Math.log2(bpm / PREFERRED_BPM) / PRIOR_OCTAVES) ** 2);
  return Math.min(1, weight(slower) / weight(faster));
}

/**
 * A grouping by three must repeat better than one by two by this much of a correlation: duple groupings are the
 * default. Where every pulse carries an onset (sixteenth hi-hats over four on the floor) the onsets repeat about
 * equally at every lag, and a hair's lead took a 128 BPM song to 85 (the family development plan's
 * dev-electronic-128-training, 0.755 against 0.751); on the corpus' development and tuning splits and the
 * development plan, wherever this rule decides, two leads by 0.08–1.2.
 */
const TRIPLE_MARGIN = 0.1;

/**
 * Of the groupings by two and by three, the one whose period the onsets repeat at more closely (see TRIPLE_MARGIN),
 * each at its group's length or twice it, whichever repeats better: a pattern of two beats (kick, off-beat bass,
 * kick, clap) repeats after four pulses, not two, and compared at two pulses alone it lost to three (the development
 * plan's 120 BPM dance song by two sounds: 0.61 at two pulses, 0.72 at three, 0.86 at four).
 */
function groupingByRepetition(options: Grouping[], onsets: number[], step: number): Grouping {
  const repeat = (size: number) =>
    Math.max(autocorrelation(onsets, step * size), autocorrelation(onsets, 2 * step * size)) -
    (size === 3 ? TRIPLE_MARGIN : 0);
  return options.reduce((a, o) => (repeat(o.size) > repeat(a.size) ? o : a));
}

/** Pearson correlation of a sequence with itself `lag` items later. */
function autocorrelation(values: number[], lag: number): number {
  const n = values.length - lag;
  if (n < 8) return 0;
  let meanX = 0;
  let meanY = 0;
  for (let i = 0; i < n; i++) {
    meanX += (values[i] as number) / n;
    meanY += (values[i + lag] as number) / n;
  }
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < n; i++) {
    const x = (values[i] as number) - meanX;
    const y = (values[i + lag] as number) - meanY;
    num += x * y;
    dx += x * x;
    dy += y * y;
  }
  return dx > 0 && dy > 0 ? num / Math.sqrt(dx * dy) : 0;
}

/** How much better the kick and snare patterns repeat after eight beats than after four, for eights to win. */
const EIGHT_BEAT_MARGIN = 0.12;

/**
 * Whether the kick and snare patterns repeat after eight beats clearly better than after four: a bar holds
 * at most four beats, so such "beats" are half-beats. This catches 16th-note grooves whose kick plays the
 * offbeats (funk), whose eighths otherwise group no better by two than the beats do.
 */
function drumPatternSpansEightBeats(onsets: OnsetEnvelope, grid: number[], step: number): boolean {
  const kick = grid.map((t) => valueAt(onsets.low, onsets.frameRate, t));
  const snare = grid.map((t) => valueAt(onsets.mid, onsets.frameRate, t));
  const repeat = (beats: number) => (autocorrelation(kick, beats * step) + autocorrelation(snare, beats * step)) / 2;
  // In three-beat meters lags 4 and 8 both cut across bars; the bar's own lags (3, 6) then repeat best.
  return repeat(8) > repeat(4) + EIGHT_BEAT_MARGIN && repeat(8) > Math.max(repeat(3), repeat(6));
}
