import fs from "node:fs";
import { UsageError } from "./app-commands.ts";
import { CONNECTION_HELP, connect, parseCommand, print, printJson } from "./client-common.ts";
import { ProgressBar } from "./client-progress.ts";

export const UPLOAD_HELP = `Usage: mixdown upload FILE [--content-type TYPE]

Uploads FILE to the server's temporary upload storage, with a progress bar, and prints
its download URL (use it as a job's inputUrl). The media type comes from the file's
extension unless --content-type is given.

${CONNECTION_HELP}`;

export async function uploadCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { "content-type": { type: "string" } });
  if (values.help) {
    print(UPLOAD_HELP);
    return 0;
  }
  const [file] = positionals;
  if (!file) throw new UsageError("upload needs a FILE");
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`${file} is not a file`);
  const bar = new ProgressBar("upload", { enabled: !values.json });
  const downloadUrl = await (await connect(values)).uploadFile(file, {
    contentType: values["content-type"],
    onProgress: bar.update,
  });
  bar.done();
  values.json ? printJson({ file, size: fs.statSync(file).size, downloadUrl }) : print(downloadUrl);
  return 0;
}
