import fsp from "node:fs/promises";
import type { Module } from "../../engine/types.ts";
import { JobFailure } from "../../jobs/job-failure.ts";
import { FETCH_MODULE, FETCH_URL_INPUT } from "./url-params.ts";

export const EMPTY_INPUT_MESSAGE =
  "The input file is empty (0 bytes): nothing was uploaded to its upload URL, or its URL served no content.";

export const fetchModule: Module = {
  name: FETCH_MODULE,
  description: "Reads a URL (one of Mixdown's own download URLs, or any http(s) URL) into a file.",
  params: { type: "object", additionalProperties: false, properties: {} },
  inputs: { [FETCH_URL_INPUT]: { type: "string", description: "URL of the file" } },
  outputs: { file: { type: "audio", description: "The file, as fetched (any media file)" } },
  async run(ctx) {
    const file = await ctx.fetchInput(String(ctx.inputs[FETCH_URL_INPUT]));
    // Said here, once, rather than as "not a media file" by whichever step reads it first.
    if ((await fsp.stat(file)).size === 0) throw new JobFailure("BAD_INPUT", EMPTY_INPUT_MESSAGE);
    return { file };
  },
};
