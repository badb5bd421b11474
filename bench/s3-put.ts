/**
 * Storing a job's result file in S3: one PUT with the file's size (what the job runner does) against a
 * multipart upload of the same file (what happens when the size is not given), alternated in one run.
 * Prints wall time and this process's CPU per 16 MB file. Needs S3 (scripts/s3-server.sh start); prints why
 * and exits 0 when absent. Run: node bench/s3-put.ts   (BENCH_ROUNDS=10)
 */
import fs from "node:fs";
import path from "node:path";
import { openS3 } from "../src/store/s3/open.ts";
import { distributedUnavailable, TEST_S3 } from "../test/helpers/backends.ts";
import { envInt, makeTempDir, round } from "./lib/harness.ts";

const ROUNDS = envInt("BENCH_ROUNDS", 10);
const SIZE = 16 * 1024 * 1024;

if (distributedUnavailable) {
  console.log(`s3-put bench skipped: ${distributedUnavailable}`);
  console.log(JSON.stringify({ bench: "s3-put", skipped: distributedUnavailable }));
  process.exit(0);
}

const { blobs } = await openS3({
  endpoint: TEST_S3.endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  accessKeyId: TEST_S3.accessKeyId,
  secretAccessKey: TEST_S3.secretAccessKey,
  bucket: `mixdown-bench-put-${process.pid}`,
});
const file = path.join(makeTempDir("mixdown-bench-s3-put-"), "result.wav");
fs.writeFileSync(file, Buffer.alloc(SIZE, 7));

const totals = { onePut: { ms: 0, cpuMs: 0 }, multipart: { ms: 0, cpuMs: 0 } };
/** Stores the file once, adding its wall and CPU time to `total`. */
async function store(key: string, size: number | undefined, total: { ms: number; cpuMs: number }): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await blobs.put(key, fs.createReadStream(file, { highWaterMark: 1 << 20 }), { contentType: "audio/wav", size });
  total.ms += performance.now() - start;
  const used = process.cpuUsage(cpu);
  total.cpuMs += (used.user + used.system) / 1000;
}
try {
  await store("warm-up", SIZE, { ms: 0, cpuMs: 0 });
  for (let i = 0; i < ROUNDS; i++) {
    await store(`one-put/${i}`, SIZE, totals.onePut);
    await store(`multipart/${i}`, undefined, totals.multipart);
  }
} finally {
  await blobs.deletePrefix("");
}
const per = (total: { ms: number; cpuMs: number }) => ({
  ms: round(total.ms / ROUNDS, 1),
  cpuMs: round(total.cpuMs / ROUNDS, 1),
});
const onePut = per(totals.onePut);
const multipart = per(totals.multipart);
console.log(`16 MB result file into S3, ${ROUNDS} rounds, alternated:`);
console.log(`  one PUT with its size: ${onePut.ms} ms, ${onePut.cpuMs} ms CPU`);
console.log(`  multipart upload     : ${multipart.ms} ms, ${multipart.cpuMs} ms CPU`);
console.log(JSON.stringify({ bench: "s3-put", rounds: ROUNDS, onePut, multipart }));
