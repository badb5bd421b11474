import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { guardedLookup, httpUrlProblem, isPublicAddress, whenConnected } from "./download-url.ts";

/** The URL's host is (or resolves to) an address that MIXDOWN_ALLOW_PRIVATE_URLS does not allow. */
export class PrivateAddressError extends Error {}

export interface OutboundOptions {
  method: "POST" | "PUT";
  headers: Record<string, string>;
  body: string | Readable;
  allowPrivate: boolean;
  /** Fails when nothing is sent or received for this long. */
  idleTimeoutMs: number;
  /** Aborts the whole exchange (e.g. AbortSignal.timeout for a deadline). */
  signal?: AbortSignal;
}

const refused = (host: string, address: string) =>
  new PrivateAddressError(`${host} resolves to ${address}, an internal address (MIXDOWN_ALLOW_PRIVATE_URLS is off)`);

/** Refuses a URL whose host is a literal internal address, or that is not http(s); undefined when it may be tried. */
export function checkOutboundUrl(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return `must be an http or https URL`;
  if (url.username || url.password) return "must not contain a user name or password";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (allowPrivate) return undefined;
  if (host === "localhost" || host.endsWith(".localhost") || (net.isIP(host) && !isPublicAddress(host)))
    return `points at ${host}, an internal address (MIXDOWN_ALLOW_PRIVATE_URLS is off)`;
  return undefined;
}

/** Why a URL a client gave cannot be used ("… must …"), or undefined when it may be tried; no DNS lookup. */
export function outboundUrlProblem(raw: string, allowPrivate: boolean): string | undefined {
  if (raw.length > 4000) return "must be at most 4000 characters long";
  return httpUrlProblem(raw) ?? checkOutboundUrl(new URL(raw), allowPrivate);
}

/**
 * One request to a URL a client gave (a webhook receiver, a copyResultsTo target), under the address rule of
 * inputs: the host's addresses are checked when resolved and again on the socket connected (DNS rebinding).
 * Redirects are not followed. Resolves with the response's status once its body has been read (and dropped).
 */
export function outboundRequest(url: URL, options: OutboundOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const problem = checkOutboundUrl(url, options.allowPrivate);
    if (problem) return reject(new PrivateAddressError(`${url.origin} ${problem}`));
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(url, {
      method: options.method,
      headers: options.headers,
      lookup: guardedLookup(options.allowPrivate, refused),
      signal: options.signal,
    });
    request.setTimeout(options.idleTimeoutMs, () =>
      request.destroy(new Error(`no answer for ${options.idleTimeoutMs} ms`)),
    );
    request.on("socket", (socket) => {
      whenConnected(socket, () => {
        const address = socket.remoteAddress ?? "";
        if (!options.allowPrivate && !isPublicAddress(address)) request.destroy(refused(url.hostname, address));
      });
    });
    request.on("response", (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
      response.on("error", reject);
    });
    request.on("error", reject);
    if (typeof options.body === "string") request.end(options.body);
    else pipeline(options.body, request).catch((error) => request.destroy(error));
  });
}

/** A request error as one line for a log or a job error (the cause, not a stack). */
export function describeOutboundError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e instanceof PrivateAddressError) return e.message;
  if (e.name === "AbortError" || e.name === "TimeoutError") return "timed out";
  const known: Record<string, string> = {
    ENOTFOUND: "the host name could not be resolved",
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset",
    EHOSTUNREACH: "the host is unreachable",
  };
  return known[e.code ?? ""] ?? e.message ?? String(error);
}
