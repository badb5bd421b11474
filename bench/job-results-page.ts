// Time to GET a job page whose results the server reads to pick their views (beats, chords and sections JSON;
// stems; one audio file), embedded and, when Postgres and S3 answer, distributed (results on the object store).
// Measured from the client on loopback: the page's whole answer, server time included. No goal: a figure to
// watch (the 50 ms goal of bench/dashboard.ts is for job pages without files to read).
import { execFile } from "node:child_process";
import { type Backend, distributedUnavailable } from "../test/helpers/backends.ts";
import { MIXDOWN_BIN, Mixdown } from "../test/helpers/mixdown.ts";
import { encodeWav, generateTrack, suiteSpecs, type TrackSpec } from "../test/music/generator.ts";
import { envInt, onCleanup, printTable, round, runBench } from "./lib/harness.ts";

const SAMPLES = envInt("BENCH_SAMPLES", 50);
const WARMUP = 5;
const PASSWORD = "correct horse battery";

async function signedInCookie(server: Mixdown): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile(MIXDOWN_BIN, ["user", "add", "bench", "--password-stdin"], {
      env: { ...process.env, ...server.env },
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`user add exited with ${code}`))));
    child.stdin?.end(`${PASSWORD}\n`);
  });
  const form = await fetch(`${server.url}/dashboard/sign-in`);
  const preSession = (form.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const token = /name="_csrf" value="([\w-]+)"/.exec(await form.text())?.[1] ?? "";
  const signedIn = await fetch(`${server.url}/dashboard/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: preSession, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: token, name: "bench", password: PASSWORD }),
  });
  const session = signedIn.headers.getSetCookie().find((c) => c.startsWith("mixdown_session="));
  if (!session) throw new Error(`sign-in failed: ${signedIn.status}`);
  return session.split(";")[0] as string;
}

async function measure(backend: Backend): Promise<(string | number)[][]> {
  const server = await Mixdown.start({}, { backend });
  onCleanup(() => server.dispose());
  const app = await server.createApp("bench");
  const music = encodeWav(generateTrack({ ...(suiteSpecs()[5] as TrackSpec), durationSeconds: 8 }));
  const inputUrl = await server.upload(app.apiKey, music, "audio/wav");
  const pages: [string, string, Record<string, unknown>, string][] = [
    ["beats, chords, sections", "mixdown/beats-chords", { inputUrl }, "data-beats"],
    ["two stems", "mixdown/stems-drums", { inputUrl, method: "classical" }, "data-mixer"],
    ["one audio file", "mixdown/convert", { inputUrl, format: "mp3" }, "data-player"],
  ];
  const cookie = await signedInCookie(server);
  const rows: (string | number)[][] = [];
  for (const [name, workflow, params, expected] of pages) {
    const job = await server.runJob(app.apiKey, workflow, params, 120_000);
    const times: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const started = performance.now();
      const response = await fetch(`${server.url}/dashboard/jobs/${job.id}`, { headers: { cookie } });
      const html = await response.text();
      if (response.status !== 200 || !html.includes(expected))
        throw new Error(`${name}: ${response.status}, no ${expected} in the page`);
      if (i >= WARMUP) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))] as number, 1);
    rows.push([backend, name, at(0.5), at(0.95)]);
  }
  await server.dispose();
  return rows;
}

runBench(async () => {
  const rows = await measure("embedded");
  if (distributedUnavailable) console.error(`distributed not measured: ${distributedUnavailable}`);
  else rows.push(...(await measure("distributed")));
  printTable([["backend", "job page", "p50 ms", "p95 ms"], ...rows]);
  const results = Object.fromEntries(rows.map(([backend, name, p50, p95]) => [`${backend} ${name}`, { p50, p95 }]));
  console.log(JSON.stringify({ bench: "job-results-page", samples: SAMPLES, results }));
});
