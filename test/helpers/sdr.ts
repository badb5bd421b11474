/**
 * Signal-to-distortion ratio of an estimate against its reference, BSS-eval style: the estimate is projected
 * onto the reference (s_target = <ŝ, s> s / ‖s‖²) and everything else is the error (e_interf + e_artif), so
 * SDR = 10 log10(‖s_target‖² / ‖ŝ − s_target‖²). Without BSS-eval's 512-tap distortion filter this is the
 * scale-invariant SDR (SI-SDR, Le Roux et al. 2019): a gain on the estimate does not change it. Channels are
 * taken together, as one signal.
 */
export function sdr(estimate: readonly Float32Array[], reference: readonly Float32Array[]): number {
  let dot = 0;
  let referencePower = 0;
  for (let c = 0; c < reference.length; c++) {
    const s = reference[c] as Float32Array;
    const e = estimate[c] as Float32Array;
    if (e.length !== s.length) throw new RangeError(`channel ${c}: ${e.length} samples vs ${s.length}`);
    for (let i = 0; i < s.length; i++) {
      dot += (e[i] as number) * (s[i] as number);
      referencePower += (s[i] as number) ** 2;
    }
  }
  const scale = dot / referencePower;
  let targetPower = 0;
  let errorPower = 0;
  for (let c = 0; c < reference.length; c++) {
    const s = reference[c] as Float32Array;
    const e = estimate[c] as Float32Array;
    for (let i = 0; i < s.length; i++) {
      const target = scale * (s[i] as number);
      targetPower += target * target;
      errorPower += ((e[i] as number) - target) ** 2;
    }
  }
  return 10 * Math.log10(targetPower / errorPower);
}
