import { JobTimeoutError, MixdownError } from "../../sdk/src/index.ts";
import { JOBS_HELP, jobsCommand } from "./client-jobs.ts";
import { ClientError } from "./client-reach.ts";
import { RUN_HELP, runCommand } from "./client-run.ts";
import { UPLOAD_HELP, uploadCommand } from "./client-upload.ts";

/** The commands that talk to a Mixdown server over HTTP, through the SDK. */
export const CLIENT_COMMANDS: Record<string, { help: string; run: (argv: string[]) => Promise<number> }> = {
  run: { help: RUN_HELP, run: runCommand },
  jobs: { help: JOBS_HELP, run: jobsCommand },
  upload: { help: UPLOAD_HELP, run: uploadCommand },
};

/** Runs a client command; an error from the server becomes a one-line message and exit code 1 (3: timeout). */
export async function clientCommand(name: string, argv: string[]): Promise<number> {
  const command = CLIENT_COMMANDS[name];
  if (!command) throw new Error(`not a client command: ${name}`);
  return runClient(() => command.run(argv));
}

/** Runs `run` (a command that talks to a server), reporting what went wrong in one line plus its details. */
export async function runClient(run: () => Promise<number>): Promise<number> {
  // Piped into `head` and the like: stop quietly once the reader has gone.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  try {
    return await run();
  } catch (error) {
    if (error instanceof ClientError || error instanceof MixdownError) {
      const where =
        error instanceof ClientError
          ? ""
          : ` (${error.status === 0 ? error.code : `HTTP ${error.status} ${error.code}`})`;
      process.stderr.write(`mixdown: ${error.message}${where}\n`);
      for (const detail of error.details ?? []) process.stderr.write(`  ${detail.field ?? ""}: ${detail.message}\n`);
      return 1;
    }
    if (error instanceof JobTimeoutError) {
      process.stderr.write(`mixdown: ${error.message}\n`);
      return 3;
    }
    throw error;
  }
}
