import http from "node:http";
import type { AddressInfo } from "node:net";

export type FixtureHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A tiny HTTP server on loopback serving whatever the test says; closes every connection on close(). */
export async function startFixture(
  handler: FixtureHandler,
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A reverse proxy on loopback, as a load balancer in front of a node: it forwards every request as it came (Host
 * header included) to the target given to `to()`, known once the server behind it has started. `onRequest` sees each
 * request first; `hostname` names the proxy in its `url` (another name for the same address is another origin).
 */
export async function startForwardingProxy({
  hostname = "127.0.0.1",
  onRequest,
}: {
  hostname?: string;
  onRequest?: (request: http.IncomingMessage) => void;
} = {}) {
  let target = "";
  const proxy = await startFixture((request, response) => {
    onRequest?.(request);
    const upstream = http.request(
      `${target}${request.url}`,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  return {
    ...proxy,
    url: `http://${hostname}:${proxy.port}`,
    to(url: string) {
      target = url;
    },
  };
}

/**
 * Serves `body` on every path. While `state.stall` is set, a response sends its headers and first 100 bytes,
 * then waits (the job reading it stays STARTED) until resume() sends the rest. Every request is recorded.
 */
export async function startStallingFixture(body: Buffer, contentType = "audio/wav") {
  const state = { stall: true, requests: [] as { path: string; at: number }[] };
  const stalled = new Set<http.ServerResponse>();
  const fixture = await startFixture((request, response) => {
    state.requests.push({ path: request.url ?? "", at: Date.now() });
    response.writeHead(200, { "content-length": String(body.length), "content-type": contentType });
    if (!state.stall) return void response.end(body);
    response.write(body.subarray(0, 100));
    stalled.add(response);
  });
  return {
    ...fixture,
    state,
    /** Ends the stall: stalled responses get the rest of the body, new ones all of it. */
    resume() {
      state.stall = false;
      for (const response of stalled) if (!response.destroyed) response.end(body.subarray(100));
      stalled.clear();
    },
  };
}
