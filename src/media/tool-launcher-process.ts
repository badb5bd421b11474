/**
 * The tool launcher's process (see tool-launcher.ts): starts each requested tool at background priority, answers
 * with its outcome, and stops a tool when asked. When the channel to its parent closes (the parent exited or
 * died), it stops every tool it runs and exits once they have.
 */

import { lowerPriority, spawnTool } from "./run-tool.ts";
import type { LauncherReply, LauncherRequest } from "./tool-launcher.ts";

// The launcher itself runs at background priority, so each tool it starts inherits it from its first instant
// (lowering a child's priority after spawn leaves a moment at normal priority).
lowerPriority(0);

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

// Its life is its parent's: a SIGINT or SIGTERM sent to the whole process group (Ctrl-C, a service manager) is for
// the parent, which answers by stopping its jobs through this process or by exiting, which closes the channel.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {});

process.on("disconnect", () => {
  for (const controller of running.values()) controller.abort();
});
