import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { outboundRequest } from "../../src/jobs/outbound-request.ts";

test("1,000 deliveries to one keep-alive receiver leave no listener behind on the socket they share", async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200).end());
  });
  let connections = 0;
  receiver.on("connection", () => connections++);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const url = new URL(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    for (let i = 0; i < 1000; i++) {
      const status = await outboundRequest(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ delivery: i }),
        allowPrivate: true,
        idleTimeoutMs: 10_000,
      });
      assert.equal(status, 200);
    }
    await tick(); // warnings are emitted on a later tick
    // outboundRequest uses the global agent, which keeps connections alive: the deliveries shared one socket.
    assert.ok(connections <= 2, `${connections} connections for 1,000 deliveries: the socket was not reused`);
    const sockets = Object.values(http.globalAgent.freeSockets).flat();
    assert.ok(sockets.length >= 1, "the receiver's connection is kept alive");
    for (const socket of sockets) assert.equal(socket?.listenerCount("connect"), 0, "connect listeners left");
    assert.deepEqual(
      warnings.filter((w) => w.name === "MaxListenersExceededWarning").map(String),
      [],
      "no listener leak warning",
    );
  } finally {
    process.off("warning", onWarning);
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
