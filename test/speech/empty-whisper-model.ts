import fs from "node:fs";

/**
 * A ggml whisper model file with hyperparameters (tiny's 4 layers, 64-wide), mel filters and a vocabulary but
 * no tensors: whisper.cpp loads such a file as "an empty model for testing" and runs it, transcribing nothing.
 * It exercises the real binding, loader and decoding loop where no real model can be downloaded. The
 * vocabulary holds " -" and " '", which this build's logit filter looks up unconditionally (without them it
 * throws std::out_of_range, which the binding turns into an abort).
 */
export function writeEmptyWhisperModel(file: string): void {
  const ints = (...values: number[]) => {
    const b = Buffer.alloc(4 * values.length);
    for (const [i, v] of values.entries()) b.writeInt32LE(v, i * 4);
    return b;
  };
  const parts: Buffer[] = [ints(0x67676d6c)];
  // n_vocab (English-only), n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx,
  // n_text_state, n_text_head, n_text_layer, n_mels, ftype (1: f16)
  parts.push(ints(51864, 1500, 64, 1, 4, 448, 64, 1, 4, 80, 1));
  parts.push(ints(80, 201), Buffer.alloc(80 * 201 * 4));
  const special = [" -", " '", "-", "'", " ", ".", ",", "?", "!"];
  const tokens = Array.from({ length: 50256 }, (_, i) => Buffer.from(special[i] ?? ` w${i}`));
  parts.push(ints(tokens.length));
  for (const token of tokens) parts.push(ints(token.length), token);
  fs.writeFileSync(file, Buffer.concat(parts));
}
