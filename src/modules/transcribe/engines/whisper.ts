import { spawn } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ToolError } from "../../../media/run-tool.ts";
import { SPEECH_SAMPLE_RATE } from "../../../speech/vad.ts";
import type { SpeechInput, TranscriptionEngine, TranscriptSegment } from "./engine.ts";
import type { WhisperRequest } from "./whisper-process.ts";

const ENTRY = path.join(import.meta.dirname, "whisper-process.ts");

/**
 * whisper.cpp through @napi-rs/whisper with an operator-supplied ggml model, run in a child process
 * (whisper-process.ts says why). Each speech span is decoded on its own, with word times.
 */
export class WhisperEngine implements TranscriptionEngine {
  readonly name = "whisper";
  readonly model: string;
  private readonly modelPath: string;

  constructor(modelPath: string) {
    this.modelPath = modelPath;
    this.model = path.basename(modelPath);
  }

  async transcribe(
    input: SpeechInput,
    options: { language: string; workDir: string },
    signal: AbortSignal,
  ): Promise<TranscriptSegment[]> {
    if (input.spans.length === 0) return [];
    const samplesFile = path.join(options.workDir, "speech.f32");
    await fsp.writeFile(
      samplesFile,
      new Uint8Array(input.samples.buffer, input.samples.byteOffset, input.samples.byteLength),
    );
    const request: WhisperRequest = {
      model: this.modelPath,
      language: options.language,
      threads: Math.max(1, Math.min(4, os.availableParallelism())),
      samplesFile,
      sampleRate: SPEECH_SAMPLE_RATE,
      spans: input.spans,
    };
    const requestFile = path.join(options.workDir, "whisper-request.json");
    await fsp.writeFile(requestFile, JSON.stringify(request));
    const stdout = await new Promise<string>((resolve, reject) => {
      const args = ["--disable-warning=ExperimentalWarning", ENTRY, requestFile];
      const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], signal, killSignal: "SIGKILL" });
      const out: string[] = [];
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => out.push(chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr = (stderr + chunk).slice(-16384);
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (signal.aborted) reject(signal.reason);
        else if (code !== 0) reject(new ToolError(`whisper (model ${this.modelPath})`, code, stderr));
        else resolve(out.join(""));
      });
    });
    return JSON.parse(stdout) as TranscriptSegment[];
  }
}
