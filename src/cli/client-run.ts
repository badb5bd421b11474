import fs from "node:fs";
import path from "node:path";
import { UsageError } from "./app-commands.ts";
import { checkBeforeUpload } from "./client-check.ts";
import {
  CONNECTION_HELP,
  connect,
  formatBytes,
  note,
  parseCommand,
  parseParams,
  positiveNumber,
  print,
  printJson,
} from "./client-common.ts";
import { ProgressBar, StatusLine } from "./client-progress.ts";

export const RUN_HELP = `Usage: mixdown run WORKFLOW FILE_OR_URL [--param KEY=VALUE]… [--out DIR] [options]

Runs one job end to end: checks WORKFLOW and the params against the server (the
workflow exists and can run there, the params match its input schema) before anything
is uploaded, uploads FILE (with a progress bar: bytes, rate, ETA) or uses the http(s)
URL as is, creates the job with the input as inputUrl, shows its status live,
downloads the result files (with progress) and prints a summary.
Exit code 1 when the job FAILED (its error is shown) or the check refused it, 3 when
--timeout passes. mixdown workflow list|show --remote: the server's workflows and params.

  --param KEY=VALUE     a workflow param (repeatable); VALUE is JSON when it parses as
                        JSON (22050, true, [1,2]), else a string (mp3)
  --out DIR             where result files go (default ./JOB_ID); files are named by
                        result key (output.mp3), inline values go to result.mixdown.json
  --no-download         leave the results on the server, print their URLs
  --name NAME           job name (default: the input's file name)
  --batch NAME          batch name of the job
  --input-param NAME    the param that receives the input URL (default inputUrl)
  --timeout SECONDS     give up waiting after this long (the job goes on)
  --webhook-url URL     also POST the job's events to URL (signed with the application's
                        job-webhook secret: mixdown app webhook secret APP_ID)
  --copy-result NAME=URL
                        PUT result NAME to URL (e.g. a presigned PUT URL) instead of keeping
                        it; its value becomes "[custom storage]" (repeatable)

Example: mixdown run mixdown/convert song.wav --param format=mp3 --out converted/

${CONNECTION_HELP}`;

/** --copy-result NAME=URL…, as copyResultsTo (undefined when none). */
function copyTargets(pairs: string[]): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const targets: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--copy-result must be NAME=URL, got "${pair}"`);
    targets[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return targets;
}

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    param: { type: "string", multiple: true },
    out: { type: "string" },
    "no-download": { type: "boolean", default: false },
    name: { type: "string" },
    batch: { type: "string" },
    "input-param": { type: "string", default: "inputUrl" },
    timeout: { type: "string" },
    "webhook-url": { type: "string" },
    "copy-result": { type: "string", multiple: true },
  });
  if (values.help) {
    print(RUN_HELP);
    return 0;
  }
  const [workflow, input] = positionals;
  if (!workflow || !input) throw new UsageError("run needs a WORKFLOW and a FILE_OR_URL");
  const params = parseParams(values.param ?? []);
  const timeout = positiveNumber("--timeout", values.timeout);
  const copyResultsTo = copyTargets(values["copy-result"] ?? []);
  const human = !values.json;
  const isUrl = /^https?:\/\//i.test(input);
  if (!isUrl && !fs.statSync(input, { throwIfNoEntry: false })?.isFile())
    throw new UsageError(`${input} is not a file or an http(s) URL`);
  const client = await connect(values);
  const started = Date.now();
  // Everything the server would refuse is found before the upload, not after it.
  await checkBeforeUpload(client, { workflow, params, inputParam: values["input-param"], copyResultsTo });

  let inputUrl = input;
  if (!isUrl) {
    const bar = new ProgressBar("upload", { enabled: human });
    inputUrl = await client.uploadFile(input, { onProgress: bar.update });
    bar.done();
  }
  const id = await client.addJob({
    name: values.name ?? ((isUrl ? new URL(input).pathname.split("/").pop() : path.basename(input)) || "mixdown run"),
    workflow,
    params: { [values["input-param"]]: inputUrl, ...params },
    batchName: values.batch,
    webhookUrl: values["webhook-url"],
    copyResultsTo,
  });
  const line = new StatusLine(id, { enabled: human });
  let job: Awaited<ReturnType<typeof client.getJob>>;
  try {
    job = await client.waitForJobCompletion(id, {
      timeoutMs: timeout === undefined ? undefined : timeout * 1000,
      onStatus: line.set,
      onProgress: line.setProgress,
    });
  } finally {
    line.stop();
  }

  if (job.status === "FAILED") {
    if (values.json) printJson({ job });
    const error = job.error;
    note(`mixdown: job ${id} FAILED${error ? `: ${error.code} (${error.title}): ${error.message}` : ""}`);
    return 1;
  }
  if (values["no-download"]) {
    if (values.json) printJson({ job });
    else {
      print(`Job ${id} SUCCEEDED in ${((Date.now() - started) / 1000).toFixed(1)} s (${workflow})`);
      for (const [key, value] of Object.entries(job.result ?? {}))
        print(`  ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    }
    return 0;
  }

  const dir = path.resolve(values.out ?? id);
  const bars = new Map<string, ProgressBar>();
  const downloaded = await client.downloadJobResults(job, dir, {
    onProgress: (progress) => {
      let bar = bars.get(progress.key);
      if (!bar) {
        for (const previous of bars.values()) previous.done();
        bars.clear();
        bar = new ProgressBar(`download ${progress.key}`, { enabled: human });
        bars.set(progress.key, bar);
      }
      bar.update(progress);
    },
  });
  for (const bar of bars.values()) bar.done();

  if (values.json) {
    printJson({ job, files: downloaded.files, values: downloaded.values, summaryFile: downloaded.summaryFile });
    return 0;
  }
  const relative = (file: string) => path.relative(process.cwd(), file) || ".";
  print(`Job ${id} SUCCEEDED in ${((Date.now() - started) / 1000).toFixed(1)} s (${workflow})`);
  for (const [key, file] of Object.entries(downloaded.files))
    print(`  ${key}: ${relative(file)} (${formatBytes(fs.statSync(file).size)})`);
  for (const [key, value] of Object.entries(downloaded.values)) print(`  ${key}: ${JSON.stringify(value)}`);
  print(`Result: ${relative(downloaded.summaryFile)}`);
  return 0;
}
