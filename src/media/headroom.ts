/** The loudest sample a 16-bit file holds, as a float: 32767 / 32768 (+1 would clip by a step). */
export const FULL_SCALE = 32767 / 32768;

/**
 * Brings the loudest sample of all `parts` (the stems of one song, each one signal per channel) down to full
 * scale when it passes it, by one factor for all of them, in place, and returns the factor (six decimals; 1 when
 * nothing passes full scale). One factor keeps the parts' balance and their sum: they add up to the input times
 * it. A stem can pass full scale where the input does not (a mix mastered to 0 dBFS whose stems partly cancel),
 * and a decoded lossy input can pass it itself; 16-bit WAV or FLAC would clip those samples, distorting the stem
 * and breaking the sum.
 */
export function fitToFullScale(parts: readonly (readonly Float32Array[])[]): number {
  let peak = 0;
  for (const channels of parts) {
    for (const channel of channels) {
      for (let i = 0; i < channel.length; i++) {
        const magnitude = Math.abs(channel[i] as number);
        if (magnitude > peak) peak = magnitude;
      }
    }
  }
  if (peak <= FULL_SCALE) return 1;
  // Six decimals, rounded down: the factor reported is the one applied, and the loudest sample stays in range.
  const factor = Math.floor((FULL_SCALE / peak) * 1e6) / 1e6;
  for (const channels of parts) {
    for (const channel of channels) {
      for (let i = 0; i < channel.length; i++) channel[i] = (channel[i] as number) * factor;
    }
  }
  return factor;
}
