import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction, Socket } from "node:net";
import net from "node:net";
import ipaddr from "ipaddr.js";
import { streamToFile } from "../store/stream-to-file.ts";
import { JobFailure } from "./job-failure.ts";

export interface DownloadOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  maxBytes: number;
  signal: AbortSignal;
}

const MAX_REDIRECTS = 5;

/** Public unicast only: no loopback, private, link-local, CGNAT, multicast, reserved or mapped ranges. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === "unicast";
}

/** Why a URL text that `new URL` refuses is no URL, told from its shape (it is never repeated back). */
function unparsableReason(raw: string): string {
  const parts = /^([a-z][a-z\d+.-]*):\/\/([^/?#]*)/i.exec(raw.trim());
  if (!parts) return "must be an absolute http or https URL (scheme://host/path)";
  const authority = (parts[2] ?? "").replace(/^.*@/, "");
  if (authority === "" || authority.startsWith(":")) return "must name a host after the scheme's //";
  const port = /:([^:\]]*)$/.exec(authority)?.[1];
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) > 65535)) {
    return "has an invalid port (a port is a number from 1 to 65535)";
  }
  return "has a host name with characters a host name cannot contain";
}

/**
 * Why `raw` is not an http(s) URL that can be fetched — unparsable, another scheme, no host, port 0 — or undefined.
 * Form only: where the host is (internal addresses) is the caller's rule.
 */
export function httpUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return unparsableReason(raw);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.hostname === "") return "must name a host after the scheme's //";
  if (url.port === "0") return "has an invalid port (a port is a number from 1 to 65535)";
  return undefined;
}

function refuse(host: string, address: string): JobFailure {
  return new JobFailure(
    "BAD_INPUT",
    `The input URL's host ${host} resolves to ${address}, an internal address; Mixdown only fetches from public addresses.`,
  );
}

/** dns.lookup that answers only with addresses we may connect to (else fails with `refused`'s error). */
export function guardedLookup(
  allowPrivate: boolean,
  refused: (host: string, address: string) => Error = refuse,
): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const usable = addresses.filter((a) => allowPrivate || isPublicAddress(a.address));
      const first = usable[0];
      if (!first) return callback(refused(hostname, addresses[0]?.address ?? "nothing"), "", 0);
      if (options.all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * Runs `check` once the socket is connected: at once on a kept-alive socket the agent reuses (a "connect"
 * listener per request would never fire there, and would pile up), else when it connects.
 */
export function whenConnected(socket: Socket, check: () => void): void {
  if (socket.connecting) socket.once("connect", check);
  else check();
}

function describeNetworkError(url: URL, error: NodeJS.ErrnoException): JobFailure {
  if (error instanceof JobFailure) return error;
  const what: Record<string, string> = {
    ENOTFOUND: "its host name could not be resolved",
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset before the file was complete",
    EHOSTUNREACH: "the host is unreachable",
    CERT_HAS_EXPIRED: "its TLS certificate has expired",
  };
  const reason = what[error.code ?? ""] ?? `the download failed (${error.code ?? error.message})`;
  return new JobFailure("BAD_INPUT", `Could not read the input URL ${url.origin}: ${reason}.`);
}

/** One GET; resolves with the response once headers arrive. Enforces the address rule on the socket. */
function request(url: URL, options: DownloadOptions): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (net.isIP(host) && !options.allowPrivate && !isPublicAddress(host)) return reject(refuse(host, host));
    let req: http.ClientRequest;
    try {
      req = client.get(url, { lookup: guardedLookup(options.allowPrivate), signal: options.signal });
    } catch (error) {
      // Node refuses some URLs outright (e.g. characters a request path cannot carry).
      return reject(describeNetworkError(url, error as NodeJS.ErrnoException));
    }
    req.setTimeout(options.timeoutMs, () =>
      req.destroy(
        new JobFailure(
          "TIMEOUT",
          `Timed out reading the input URL ${url.origin}: nothing received for ${options.timeoutMs} ms.`,
        ),
      ),
    );
    req.on("socket", (socket: Socket) => {
      // Checked again on the address actually connected to, against DNS rebinding.
      whenConnected(socket, () => {
        const address = socket.remoteAddress ?? "";
        if (!options.allowPrivate && !isPublicAddress(address)) req.destroy(refuse(url.hostname, address));
      });
    });
    req.on("response", resolve);
    req.on("error", (error) => reject(describeNetworkError(url, error)));
  });
}

/** Downloads an http(s) URL to a file, following redirects; failures are JobFailures. */
export async function downloadUrl(rawUrl: string, destination: string, options: DownloadOptions): Promise<void> {
  const problem = httpUrlProblem(rawUrl);
  if (problem) throw new JobFailure("BAD_INPUT", `The input URL ${problem}.`);
  let url = new URL(rawUrl);
  for (let hop = 0; ; hop++) {
    const response = await request(url, options);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= MAX_REDIRECTS) throw new JobFailure("BAD_INPUT", "The input URL redirects too many times.");
      const target = URL.parse(response.headers.location, url);
      const problem = target
        ? httpUrlProblem(target.href)
        : (httpUrlProblem(response.headers.location) ?? "is not a valid URL");
      if (!target || problem)
        throw new JobFailure("BAD_INPUT", `The input URL redirects to an unusable URL: it ${problem}.`);
      url = target;
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw new JobFailure("BAD_INPUT", `The input URL answered HTTP ${status}; the file could not be read.`);
    }
    const expected = Number(response.headers["content-length"] ?? Number.NaN);
    if (expected > options.maxBytes) {
      response.destroy();
      throw new JobFailure("BAD_INPUT", `The input file is larger than the limit of ${options.maxBytes} bytes.`);
    }
    const tooLarge = () =>
      new JobFailure("BAD_INPUT", `The input file is larger than the limit of ${options.maxBytes} bytes.`);
    let received: number;
    try {
      received = await streamToFile(response, destination, { maxBytes: options.maxBytes, tooLarge, freeChunks: true });
    } catch (error) {
      throw describeNetworkError(url, error as NodeJS.ErrnoException);
    }
    if (!Number.isNaN(expected) && received !== expected) {
      throw new JobFailure("BAD_INPUT", `The input download was incomplete: ${received} of ${expected} bytes.`);
    }
    return;
  }
}
