/** Min and max of the samples of all channels in each bucket of `bucketSize` frames (the last may be shorter). */
export function computePeaks(channels: Float32Array[], bucketSize: number): { min: Float32Array; max: Float32Array } {
  const length = channels[0]?.length ?? 0;
  const buckets = Math.ceil(length / bucketSize);
  const min = new Float32Array(buckets);
  const max = new Float32Array(buckets);
  for (let b = 0; b < buckets; b++) {
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    const end = Math.min(length, (b + 1) * bucketSize);
    for (const channel of channels) {
      for (let i = b * bucketSize; i < end; i++) {
        const v = channel[i] as number;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
    min[b] = lo;
    max[b] = hi;
  }
  return { min, max };
}
