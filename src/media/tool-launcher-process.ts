/**
 * The tool launcher's process (see tool-launcher.ts): starts each requested tool at background priority, answers
 * with its outcome, and stops a tool when asked. When the channel to its parent closes (the parent exited or
 * died), it stops every tool it runs and exits once they have.
 */

import { spawnTool } from "./run-tool.ts";
import type { LauncherReply, LauncherRequest } from "./tool-launcher.ts";

const running = new Map<number, AbortController>();

const reply = (message: LauncherReply) => {
  if (process.connected) process.send?.(message);
};

process.on("message", (request: LauncherRequest) => {
  const { id } = request;
  if ("kill" in request) return void running.get(id)?.abort();
  const controller = new AbortController();
  running.set(id, controller);
  spawnTool(request.binary, request.args, controller.signal)
    .then(
      (outcome) => reply({ id, outcome }),
      (error: NodeJS.ErrnoException) => reply({ id, error: { message: error.message, code: error.code } }),
    )
    .finally(() => running.delete(id));
});

process.on("disconnect", () => {
  for (const controller of running.values()) controller.abort();
});
