import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { ANALYSIS_SAMPLE_RATE, analyzeMusic } from "../../src/dsp/analyze-music.ts";
import { decodeAudio } from "../../src/media/pcm.ts";
import { ffmpeg } from "../helpers/media.ts";
import { chordOverlap, fMeasure, tempoVerdict } from "../helpers/mir-metrics.ts";
import { encodeWav, generateTrack, suiteSpecs } from "../music/generator.ts";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-formats-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function analyzeFile(file: string) {
  const pcm = await decodeAudio(file, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 });
  return analyzeMusic(pcm.channels[0] as Float32Array, pcm.sampleRate);
}

test("the same tracks as WAV, MP3 and Ogg Vorbis give the same answers within tolerance", async (t) => {
  const specs = suiteSpecs().filter((_, i) => i % 8 === 0);
  for (const spec of specs) {
    const wav = path.join(tmp, `${spec.seed}.wav`);
    fs.writeFileSync(wav, encodeWav(generateTrack(spec)));
    const reference = await analyzeFile(wav);
    for (const [format, codec] of [
      ["mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]],
      ["ogg", ["-c:a", "libvorbis", "-q:a", "4"]],
    ] as const) {
      const encoded = path.join(tmp, `${spec.seed}.${format}`);
      await ffmpeg(["-i", wav, ...codec, encoded]);
      const result = await analyzeFile(encoded);
      const label = `seed ${spec.seed} ${format}`;
      assert.ok(reference.bpm !== null && result.bpm !== null, `${label}: a tempo`);
      assert.equal(
        tempoVerdict(reference.bpm, result.bpm, 0.01),
        "correct",
        `${label}: ${reference.bpm} vs ${result.bpm}`,
      );
      assert.ok(reference.key !== null, `${label}: a key`);
      assert.equal(result.key, reference.key, label);
      assert.equal(result.meter, reference.meter, label);
      // MP3 encoders add up to ~50 ms of delay at the start; the ±70 ms window absorbs it.
      const beatAgreement = fMeasure(
        reference.beats.map((b) => b.time),
        result.beats.map((b) => b.time),
      );
      const downbeatAgreement = fMeasure(
        reference.beats.filter((b) => b.beatNum === 1).map((b) => b.time),
        result.beats.filter((b) => b.beatNum === 1).map((b) => b.time),
      );
      const chordAgreement = chordOverlap(reference.chords, result.chords);
      t.diagnostic(
        `${label}: beats ${beatAgreement.toFixed(3)}, downbeats ${downbeatAgreement.toFixed(3)}, chords ${chordAgreement.toFixed(3)}`,
      );
      assert.ok(beatAgreement >= 0.95, `${label}: beats agree ${beatAgreement}`);
      assert.ok(downbeatAgreement >= 0.9, `${label}: downbeats agree ${downbeatAgreement}`);
      assert.ok(chordAgreement >= 0.9, `${label}: chords agree ${chordAgreement}`);
    }
  }
});
