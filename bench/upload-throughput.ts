// PUT upload throughput versus a raw disk write of the same bytes, and the server's RSS during the upload.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { cpuSeconds, envInt, freePort, makeTempDir, printTable, round, runBench, startServer } from "./lib/harness.ts";
import { type Mixdown, startMixdown } from "./lib/mixdown.ts";

const GOAL = 0.8;
const MiB = 1024 ** 2;
const ROUNDS = envInt("BENCH_ROUNDS", 3);
const SAMPLE_MS = 50;
/**
 * The source file is read in 1 MiB chunks everywhere (raw copy and HTTP client alike): with Node's default
 * 64 KiB the client, not the server, limits an upload on this machine, and the raw copy is slower too.
 */
const CHUNK = MiB;
/** Peak RSS growth during the uploads below which the body was streamed, not held. */
const STREAMED_MAX_GROWTH = 32 * MiB;

/** "1073741824", "512MiB", "1g", "100m"… (binary multiples). */
function parseSize(text: string): number {
  const match = text.trim().match(/^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i);
  const units = ["", "k", "m", "g", "t"];
  if (!match) throw new Error(`not a size: "${text}" (examples: 1073741824, 512MiB, 1GiB)`);
  const bytes = Math.round(Number(match[1]) * 1024 ** units.indexOf((match[2] ?? "").toLowerCase()));
  if (bytes < 1) throw new Error(`size must be at least 1 byte: "${text}"`);
  return bytes;
}

const BYTES = parseSize(process.argv[2] ?? process.env.BENCH_UPLOAD_BYTES ?? "1GiB");

async function writeSource(file: string, bytes: number): Promise<void> {
  const chunk = randomBytes(MiB);
  const handle = await fsp.open(file, "w");
  try {
    for (let written = 0; written < bytes; written += chunk.length) {
      await handle.write(chunk, 0, Math.min(chunk.length, bytes - written));
    }
    await handle.sync(); // so that writing back the source does not slow down the first measurement
  } finally {
    await handle.close();
  }
}

/** Bytes of VmRSS and VmHWM (peak RSS) of a process, from /proc (Linux). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1]) * 1024;
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/** Samples the process's RSS while `work` runs; returns the peak seen. */
async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; peakRss: number }> {
  let peakRss = memoryOf(pid).rss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, memoryOf(pid).rss);
  }, SAMPLE_MS);
  try {
    const value = await work();
    return { value, peakRss: Math.max(peakRss, memoryOf(pid).rss) };
  } finally {
    clearInterval(timer);
  }
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** PUTs the file, streamed from disk with node:http; returns the response's JSON. */
async function put(url: string, file: string, bytes: number): Promise<{ size: number }> {
  const request = http.request(url, {
    method: "PUT",
    headers: { "content-type": "application/octet-stream", "content-length": bytes },
  });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once("response", resolve).once("error", reject);
  });
  const [sent, response] = await Promise.allSettled([
    pipeline(fs.createReadStream(file, { highWaterMark: CHUNK }), request),
    answered,
  ]);
  if (response.status === "rejected") throw response.reason;
  let body = "";
  for await (const chunk of response.value) body += chunk;
  if (response.value.statusCode !== 200) throw new Error(`PUT answered ${response.value.statusCode}: ${body}`);
  if (sent.status === "rejected") throw sent.reason;
  return JSON.parse(body) as { size: number };
}

/** One upload through GET /v1/upload + PUT; checks the stored size; returns seconds, server CPU and peak RSS. */
async function upload(mixdown: Mixdown, key: string, file: string, bytes: number) {
  const pair = await mixdown.api<{ uploadUrl: string; downloadUrl: string }>("GET", "/v1/upload", key);
  let answer = { size: -1 };
  const cpuBefore = cpuSeconds(mixdown.pid);
  const { value: seconds, peakRss } = await peakRssDuring(mixdown.pid, () =>
    timed(async () => {
      answer = await put(pair.uploadUrl, file, bytes);
    }),
  );
  const cpu = cpuSeconds(mixdown.pid) - cpuBefore;
  const head = await fetch(pair.downloadUrl, { method: "HEAD" });
  const stored = Number(head.headers.get("content-length"));
  if (head.status !== 200 || answer.size !== bytes || stored !== bytes) {
    throw new Error(`stored size mismatch: sent ${bytes}, PUT said ${answer.size}, HEAD ${head.status} ${stored}`);
  }
  // Frees the disk space at once (the bench owns this data dir; the path is the local blob store's layout).
  const id = new URL(pair.uploadUrl).pathname.split("/").at(-1) ?? "";
  const blob = path.join(mixdown.dataDir, "blobs", "uploads", id);
  await Promise.all([fsp.rm(blob, { force: true }), fsp.rm(`${blob}.meta.json`, { force: true })]);
  return { seconds, cpu, peakRss };
}

async function rawWrite(source: string, copy: string): Promise<number> {
  const seconds = await timed(() =>
    pipeline(
      fs.createReadStream(source, { highWaterMark: CHUNK }),
      fs.createWriteStream(copy, { highWaterMark: CHUNK }),
    ),
  );
  if ((await fsp.stat(copy)).size !== BYTES) throw new Error("the raw copy has the wrong size");
  await fsp.rm(copy);
  return seconds;
}

async function barePut(url: string, pid: number, source: string): Promise<{ seconds: number; cpu: number }> {
  let answer = { size: -1 };
  const cpuBefore = cpuSeconds(pid);
  const seconds = await timed(async () => {
    answer = await put(url, source, BYTES);
  });
  if (answer.size !== BYTES) throw new Error(`the bare server stored ${answer.size} bytes`);
  return { seconds, cpu: cpuSeconds(pid) - cpuBefore };
}

runBench(async () => {
  const dir = makeTempDir("mixdown-upload-bench-");
  const { bavail, bsize } = fs.statfsSync(dir);
  if (bavail * bsize < 2 * BYTES + 256 * MiB) {
    throw new Error(`${dir}: needs ${((2 * BYTES) / MiB).toFixed(0)} MiB free (set BENCH_DIR elsewhere)`);
  }
  const source = path.join(dir, "source.bin");
  console.log(`Writing a ${(BYTES / MiB).toFixed(1)} MiB source file in ${dir}…`);
  await writeSource(source, BYTES);

  const mixdown = await startMixdown({
    dataDir: path.join(dir, "data"),
    env: { MIXDOWN_LOG_LEVEL: "warn", MIXDOWN_MAX_UPLOAD_BYTES: String(Math.max(BYTES, 2 * 1024 ** 3)) },
  });
  const key = await mixdown.createApp("bench");
  const sinkUrl = `http://127.0.0.1:${await freePort()}/`;
  const sinkScript = path.join(import.meta.dirname, "lib/sink-server.ts");
  const sinkEnv = { PORT: new URL(sinkUrl).port, SINK_DIR: dir };
  const sink = await startServer(process.execPath, [sinkScript], sinkEnv, sinkUrl);
  const warmup = path.join(dir, "warmup.bin");
  await writeSource(warmup, MiB);
  await upload(mixdown, key, warmup, MiB); // loads the upload code paths before the baseline
  const before = memoryOf(mixdown.pid);

  const times = { raw: [] as number[], bare: [] as number[], mixdown: [] as number[] };
  const cpu = { bare: [] as number[], mixdown: [] as number[] };
  let peakRss = before.rss;
  for (let i = 1; i <= ROUNDS; i++) {
    times.raw.push(await rawWrite(source, path.join(dir, "raw-copy.bin")));
    const bare = await barePut(sinkUrl, sink.pid, source);
    times.bare.push(bare.seconds);
    cpu.bare.push(bare.cpu);
    const result = await upload(mixdown, key, source, BYTES);
    times.mixdown.push(result.seconds);
    cpu.mixdown.push(result.cpu);
    peakRss = Math.max(peakRss, result.peakRss);
    const line = Object.entries(times).map(([name, seconds]) => `${name} ${seconds.at(-1)?.toFixed(2)} s`);
    console.log(`  round ${i}: ${line.join(", ")}`);
  }
  const after = memoryOf(mixdown.pid);

  const best = (seconds: number[]) => Math.min(...seconds);
  const mbps = (seconds: number[]) => BYTES / 1e6 / best(seconds);
  const rawMBps = mbps(times.raw);
  const bareMBps = mbps(times.bare);
  const uploadMBps = mbps(times.mixdown);
  const ratio = uploadMBps / rawMBps;
  const growth = peakRss - before.rss;
  // The server frees each socket chunk once it is on disk (src/store/stream-to-file.ts), so what it holds
  // is a few MiB of batches in flight whatever the upload's size.
  const streamed = growth < STREAMED_MAX_GROWTH;
  const mib = (n: number) => (n / MiB).toFixed(1);
  console.log(`\n${mib(BYTES)} MiB, best of ${ROUNDS} (MB = 10^6 bytes):`);
  printTable([
    ["measure", "MB/s", "seconds", "server CPU s (least)"],
    ["raw disk write (fs pipeline)", rawMBps.toFixed(1), best(times.raw).toFixed(2), "-"],
    ["PUT to bare node:http → file", bareMBps.toFixed(1), best(times.bare).toFixed(2), best(cpu.bare).toFixed(2)],
    ["PUT upload to Mixdown", uploadMBps.toFixed(1), best(times.mixdown).toFixed(2), best(cpu.mixdown).toFixed(2)],
  ]);
  console.log(`\nratio upload/raw: ${ratio.toFixed(3)} (goal >= ${GOAL}: ${ratio >= GOAL ? "met" : "NOT met"})`);
  console.log(`ratio upload/bare http: ${(uploadMBps / bareMBps).toFixed(3)} (Mixdown's own cost; HTTP excluded)`);
  console.log("\nMixdown server memory (MiB):");
  printTable([
    ["RSS before", "peak RSS during uploads", "growth", "VmHWM before", "VmHWM after"],
    [mib(before.rss), mib(peakRss), mib(growth), mib(before.hwm), mib(after.hwm)],
  ]);
  console.log(`streamed (growth < ${mib(STREAMED_MAX_GROWTH)} MiB): ${streamed ? "yes" : "NO"}`);
  const inMiB = (n: number) => round(n / MiB, 1);
  console.log(
    JSON.stringify({
      bench: "upload-throughput",
      settings: { bytes: BYTES, rounds: ROUNDS, sampleMs: SAMPLE_MS },
      rawMBps: round(rawMBps, 1),
      bareHttpMBps: round(bareMBps, 1),
      uploadMBps: round(uploadMBps, 1),
      ratio: round(ratio, 3),
      ratioToBareHttp: round(uploadMBps / bareMBps, 3),
      goal: GOAL,
      goalMet: ratio >= GOAL,
      serverCpuSeconds: Object.fromEntries(Object.entries(cpu).map(([name, s]) => [name, s.map((x) => round(x))])),
      seconds: Object.fromEntries(Object.entries(times).map(([name, s]) => [name, s.map((x) => round(x, 3))])),
      serverMemoryMiB: {
        rssBefore: inMiB(before.rss),
        peakRss: inMiB(peakRss),
        growth: inMiB(growth),
        hwmBefore: inMiB(before.hwm),
        hwmAfter: inMiB(after.hwm),
      },
      streamed,
      storedSizeVerified: true,
    }),
  );
});
