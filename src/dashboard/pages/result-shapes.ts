/**
 * What a JSON result holds, told by its shape (not by the workflow that made it), so a custom workflow's
 * outputs get the same views as the built-ins'. The shapes are the modules' documented outputs.
 */

export interface Beat {
  time: number;
  beatNum: number;
}
export interface ChordSpan {
  start: number;
  end: number;
  chord: string;
}
export interface Section {
  start: number;
  end: number;
  label: string;
}
export interface Note {
  pitch: number;
  start: number;
  end: number;
  velocity: number;
}
export interface TimedWord {
  word: string;
  start: number | null;
  end: number | null;
}
export interface Segment {
  start: number;
  end: number;
  text: string;
  words: TimedWord[];
}

export type Shaped =
  | { shape: "beats"; beats: Beat[] }
  | { shape: "chords"; chords: ChordSpan[] }
  | { shape: "sections"; sections: Section[] }
  | { shape: "notes"; notes: Note[] }
  | { shape: "transcript"; segments: Segment[] }
  | { shape: "words"; words: TimedWord[] };

type Item = Record<string, unknown>;
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
const isTimeOrNull = (value: unknown) => value === null || isTime(value);
const isWord = (w: Item) => typeof w.word === "string" && isTimeOrNull(w.start) && isTimeOrNull(w.end);

const SHAPES: { shape: Shaped["shape"]; test(item: Item): boolean }[] = [
  { shape: "beats", test: (b) => isTime(b.time) && Number.isInteger(b.beatNum) && (b.beatNum as number) >= 1 },
  { shape: "chords", test: (c) => isTime(c.start) && isTime(c.end) && typeof c.chord === "string" },
  { shape: "sections", test: (s) => isTime(s.start) && isTime(s.end) && typeof s.label === "string" },
  {
    shape: "notes",
    test: (n) =>
      Number.isInteger(n.pitch) &&
      (n.pitch as number) >= 0 &&
      (n.pitch as number) <= 127 &&
      isTime(n.start) &&
      isTime(n.end),
  },
  {
    shape: "transcript",
    test: (s) =>
      isTime(s.start) &&
      isTime(s.end) &&
      typeof s.text === "string" &&
      Array.isArray(s.words) &&
      s.words.every((w) => w !== null && typeof w === "object" && isWord(w as Item)),
  },
  { shape: "words", test: isWord },
];

/** The view a JSON value fits, or undefined (then it is shown formatted). An empty list fits none. */
export function shapeOf(value: unknown): Shaped | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (!value.every((item) => item !== null && typeof item === "object" && !Array.isArray(item))) return undefined;
  const match = SHAPES.find(({ test }) => (value as Item[]).every(test));
  if (!match) return undefined;
  const items = value as Item[];
  switch (match.shape) {
    case "beats":
      return { shape: "beats", beats: items.map((b) => ({ time: b.time as number, beatNum: b.beatNum as number })) };
    case "chords":
      return {
        shape: "chords",
        chords: items.map((c) => ({ start: c.start as number, end: c.end as number, chord: c.chord as string })),
      };
    case "sections":
      return {
        shape: "sections",
        sections: items.map((s) => ({ start: s.start as number, end: s.end as number, label: s.label as string })),
      };
    case "notes":
      return {
        shape: "notes",
        notes: items.map((n) => ({
          pitch: n.pitch as number,
          start: n.start as number,
          end: n.end as number,
          velocity: typeof n.velocity === "number" ? n.velocity : 100,
        })),
      };
    case "transcript":
      return { shape: "transcript", segments: items as unknown as Segment[] };
    case "words":
      return {
        shape: "words",
        words: items.map((w) => ({ word: w.word as string, start: w.start, end: w.end })) as TimedWord[],
      };
  }
}
