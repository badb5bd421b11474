/** Note-level transcription measures as mir_eval.transcription defines them (onsets only, no offset criterion). */

export interface TimedNote {
  pitch: number;
  start: number;
}

export interface NoteScores {
  precision: number;
  recall: number;
  f: number;
  matched: number;
}

/**
 * Precision, recall and F-measure of estimated notes against reference ones: a pair matches when the pitches are
 * the same MIDI note and the onsets are within ±onsetTolerance seconds; each note is matched at most once, and
 * the matching is a maximum one (Kuhn's augmenting paths), as mir_eval's bipartite matching.
 */
export function noteScores(reference: TimedNote[], estimated: TimedNote[], onsetTolerance = 0.05): NoteScores {
  const candidates = reference.map((r) =>
    estimated.flatMap((e, j) => (e.pitch === r.pitch && Math.abs(e.start - r.start) <= onsetTolerance ? [j] : [])),
  );
  const owner = new Array<number>(estimated.length).fill(-1);
  const augment = (i: number, seen: Set<number>): boolean => {
    for (const j of candidates[i] ?? []) {
      if (seen.has(j)) continue;
      seen.add(j);
      if (owner[j] === -1 || augment(owner[j] as number, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  let matched = 0;
  for (let i = 0; i < reference.length; i++) if (augment(i, new Set())) matched++;
  const precision = estimated.length === 0 ? 0 : matched / estimated.length;
  const recall = reference.length === 0 ? 0 : matched / reference.length;
  const f = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f, matched };
}
