import type { ClimbStep } from "../../src/dsp/metrical-level.ts";

/** One step of the metrical level's climb (src/dsp/metrical-level.ts) as a line of a report. */
export const describeClimbStep = (s: ClimbStep): string =>
  s.outcome === "doubled"
    ? "doubled (eight-beat pattern)"
    : `${s.fromBpm.toFixed(1)}: ${s.ratios.map((r) => `by ${r.size} ${r.ratio.toFixed(2)}`).join(", ")} ` +
      `(needed < ${s.needed.toFixed(2)}) → ${s.outcome}`;
