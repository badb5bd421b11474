import { encodeWav16 } from "../../src/media/wav.ts";

/** A 16-bit PCM WAV of planar float channels (clipped to ±1), for uploading test material. */
export const wav16 = encodeWav16;
