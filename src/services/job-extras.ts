import type { ErrorDetail } from "../errors.ts";
import { outboundUrlProblem } from "../jobs/outbound-request.ts";

/** The Mixdown and Music.AI extensions of POST /job beyond name, workflow and params. */
export interface JobExtras {
  webhookUrl?: string;
  copyResultsTo?: Record<string, string>;
}

/**
 * Problems with a request's webhookUrl and copyResultsTo: every copyResultsTo key must name a file output of the
 * workflow (`outputs`: result key → "file URL" | "inline value"), every URL be usable under the address rule.
 */
export function jobExtrasProblems(
  extras: JobExtras,
  outputs: () => Promise<Record<string, string | undefined>>,
  allowPrivate: boolean,
): Promise<ErrorDetail[]> | ErrorDetail[] {
  const details: ErrorDetail[] = [];
  if (extras.webhookUrl !== undefined) {
    const problem = outboundUrlProblem(extras.webhookUrl, allowPrivate);
    if (problem) details.push({ field: "webhookUrl", message: problem });
  }
  if (extras.copyResultsTo === undefined) return details;
  const copies = extras.copyResultsTo;
  return outputs().then((kinds) => {
    const names = Object.keys(kinds);
    for (const [name, url] of Object.entries(copies)) {
      const field = `copyResultsTo.${name}`;
      const kind = kinds[name];
      if (!(name in kinds))
        details.push({ field, message: `is not an output of the workflow (its outputs: ${names.join(", ")})` });
      else if (kind !== "file URL")
        details.push({ field, message: "is an inline value, not a file: only file outputs can be copied" });
      const problem = outboundUrlProblem(url, allowPrivate);
      if (problem) details.push({ field, message: problem });
    }
    return details;
  });
}
