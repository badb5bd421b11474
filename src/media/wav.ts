/** A 16-bit PCM WAV of planar float channels (clipped to ±1). */
export function encodeWav16(channels: readonly Float32Array[], sampleRate: number): Buffer {
  const frames = Math.min(...channels.map((c) => c.length));
  const count = channels.length;
  const data = Buffer.alloc(frames * count * 2);
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < count; c++) {
      const value = Math.max(-1, Math.min(1, (channels[c] as Float32Array)[i] as number));
      data.writeInt16LE(Math.round(value * 32767), (i * count + c) * 2);
    }
  }
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(count, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * count * 2, 28);
  header.writeUInt16LE(count * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
