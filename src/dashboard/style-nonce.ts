import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";

const nonces = new WeakMap<ServerResponse, string>();

/**
 * The CSP nonce of one response's `<style>` elements. wavesurfer.js styles its waveform with a `<style>` in
 * a shadow root and takes this nonce for it (its `cspNonce` option); scripts get no nonce: 'self' only.
 */
export function styleNonce(response: ServerResponse): string {
  let nonce = nonces.get(response);
  if (!nonce) {
    nonce = randomBytes(16).toString("base64");
    nonces.set(response, nonce);
  }
  return nonce;
}
