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
