import type { JobStatus } from "./types.ts";

/** One event of GET /job/:id/events (Mixdown): the job's state after a change. */
export interface JobStateEvent {
  /** The job's revision: send it back as Last-Event-ID to resume. */
  eventId: string;
  type: "status" | "progress";
  id: string;
  status: JobStatus;
  progress: number;
  step: string | null;
}

/** Splits a text/event-stream body into events (the fields Mixdown sends: id, event, data). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<JobStateEvent> {
  let buffer = "";
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replaceAll("\r\n", "\n");
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        const event = parseEvent(block);
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseEvent(block: string): JobStateEvent | undefined {
  const fields = new Map<string, string>();
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue; // a comment (keep-alive)
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const value = line.slice(colon + 1).replace(/^ /, "");
    const name = line.slice(0, colon);
    fields.set(name, name === "data" && fields.has("data") ? `${fields.get("data")}\n${value}` : value);
  }
  const data = fields.get("data");
  if (data === undefined) return undefined;
  try {
    const state = JSON.parse(data) as Omit<JobStateEvent, "eventId" | "type">;
    const type = fields.get("event") === "progress" ? "progress" : "status";
    return { ...state, type, eventId: fields.get("id") ?? "" };
  } catch {
    return undefined;
  }
}
