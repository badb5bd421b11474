import type { Module } from "../../engine/types.ts";

export const fetchModule: Module = {
  name: "fetch",
  description: "Reads a URL (one of Mixdown's own download URLs, or any http(s) URL) into a file.",
  params: { type: "object", additionalProperties: false, properties: {} },
  inputs: { url: { type: "string", description: "URL of the file" } },
  outputs: { file: { type: "audio", description: "The file, as fetched (any media file)" } },
  async run(ctx) {
    return { file: await ctx.fetchInput(String(ctx.inputs.url)) };
  },
};
