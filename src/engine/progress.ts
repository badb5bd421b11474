/**
 * A part of a step's progress: the returned function maps its own 0..1 onto `from`..`to` of the step's. Modules
 * split their work with it (e.g. decoding 0 to 0.1, the main loop 0.1 to 0.9).
 */
export function progressSpan(
  report: ((fraction: number) => void) | undefined,
  from: number,
  to: number,
): (fraction: number) => void {
  return (fraction) => report?.(from + (to - from) * Math.min(1, Math.max(0, fraction)));
}
