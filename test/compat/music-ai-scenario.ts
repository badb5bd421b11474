/**
 * Runs the official Music.AI JavaScript SDK, unmodified, against the endpoint in MUSICAI_ENDPOINT and prints
 * what every call returned (or threw) as one JSON document. Started by music-ai-sdk.test.ts in a child process,
 * because NODE_EXTRA_CA_CERTS (which makes the SDK trust the test certificate) is read at process start.
 */
import { MusicAi } from "@music.ai/sdk";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

async function caught(
  call: () => Promise<unknown>,
): Promise<{ name: string; message: string } | { returned: unknown }> {
  try {
    return { returned: await call() };
  } catch (error) {
    return { name: (error as Error).constructor.name, message: (error as Error).message };
  }
}

const sdk = new MusicAi({ apiKey: env("MUSICAI_KEY"), apiEndpoint: env("MUSICAI_ENDPOINT"), jobMonitorInterval: 200 });
const report: Record<string, unknown> = {};

if (process.env.SCENARIO === "application") {
  report.application = await caught(() => sdk.getApplicationInfo());
} else {
  const outDir = env("OUT_DIR");
  const downloadUrl = await sdk.uploadFile(env("INPUT_FILE"));
  const jobId = await sdk.addJob({
    name: "compat",
    workflow: "mixdown/convert",
    params: { inputUrl: downloadUrl, format: "mp3" },
    metadata: { client: "music.ai" },
  });
  const finished = await sdk.waitForJobCompletion(jobId);
  const downloaded = await sdk.downloadJobResults(finished, `${outDir}/good`);
  const job = await sdk.getJob(jobId);

  const badUrl = await sdk.uploadFile(env("BAD_FILE"));
  const badId = await sdk.addJob({
    name: "compat-bad",
    workflow: "mixdown/convert",
    params: { inputUrl: badUrl, format: "mp3" },
  });
  const failed = await sdk.waitForJobCompletion(badId);
  const failedDownload = await caught(() => sdk.downloadJobResults(failed, `${outDir}/bad`));

  Object.assign(report, {
    downloadUrl,
    jobId,
    finished,
    downloaded,
    job,
    badId,
    failed,
    failedDownload,
    listedFinished: await sdk.listJobs({ status: ["SUCCEEDED", "FAILED"], workflow: ["mixdown/convert"] }),
    listedFailed: await sdk.listJobs({ status: ["FAILED"] }),
    listedOtherWorkflow: await sdk.listJobs({ workflow: ["mixdown/loudness", "mixdown/probe"] }),
    workflows: await sdk.listWorkflows(),
    workflowsPage: await sdk.listWorkflows({ page: 1, size: 2 }),
    application: await sdk.getApplicationInfo(),
    unknownWorkflow: await caught(() =>
      sdk.addJob({ name: "x", workflow: "no/such-workflow", params: { inputUrl: downloadUrl } }),
    ),
    deleted: await sdk.deleteJob(jobId),
    afterDelete: await caught(() => sdk.getJob(jobId)),
  });
}
process.stdout.write(JSON.stringify(report));
