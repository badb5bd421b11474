import tls from "node:tls";

/** A client command stopped before doing anything: the server could not be reached, and why in plain words. */
export class ClientError extends Error {
  readonly details: { field?: string; message: string }[];

  constructor(message: string, details: { field?: string; message: string }[] = []) {
    super(message);
    this.name = "ClientError";
    this.details = details;
  }
}

/** How long the first request may take before the server counts as not answering. */
const REACH_TIMEOUT_MS = 15_000;

const UNTRUSTED_CERTIFICATE = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_UNTRUSTED",
]);
const NOT_TLS = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG", "ERR_SSL_HTTP_REQUEST"]);
const CERT_FILE_HINT = "the certificate file: mixdown dev-cert writes data/tls/cert.pem";

/** Whether host:port completes a TLS handshake (any certificate): it speaks HTTPS. */
function speaksTls(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port,
      servername: /^[\d.]+$|:/.test(host) ? undefined : host,
      rejectUnauthorized: false,
      timeout: 3000,
    });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

/**
 * One request to the server (GET /application, which every server of the Music.AI API answers, 401 included),
 * without the SDK's retries: a server that is not there, or that speaks HTTPS where the URL says http (or the
 * reverse), is said at once, with what to do, instead of after several silent retries. Any HTTP answer counts.
 */
export async function checkReachable(apiBase: string, apiKey: string, shownUrl: string): Promise<void> {
  let failure: unknown;
  try {
    const response = await fetch(`${apiBase}/application`, {
      headers: { authorization: apiKey, "user-agent": "mixdown-cli/0.1" },
      signal: AbortSignal.timeout(REACH_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return;
  } catch (error) {
    failure = error;
  }
  throw new ClientError(await describeFailure(failure, new URL(apiBase), shownUrl));
}

async function describeFailure(error: unknown, url: URL, shownUrl: string): Promise<string> {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { name?: string }).name ?? "";
  const reason = cause?.message ?? (error as Error).message;
  const where = `Could not reach Mixdown at ${shownUrl}`;
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const hostPort = `${url.hostname}:${port}`;
  const setUrl = "set MIXDOWN_URL (or pass --url) to the server's address";
  if (code === "ECONNREFUSED")
    return `${where} (connection refused: nothing listens on ${hostPort}). Start it with \`npm start\` in the Mixdown folder, or ${setUrl}.`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `${where}: the host name "${url.hostname}" was not found. Check MIXDOWN_URL (or --url).`;
  if (code === "TimeoutError" || code === "ETIMEDOUT" || code === "UND_ERR_CONNECT_TIMEOUT")
    return `${where}: no answer within ${REACH_TIMEOUT_MS / 1000} s. Check that the server runs and that MIXDOWN_URL (or --url) is its address.`;
  if (url.protocol === "http:" && (code === "UND_ERR_SOCKET" || code === "ECONNRESET") && (await speaksTls(host, port)))
    return `${where}: the server on ${hostPort} speaks HTTPS, not HTTP. Use ${shownUrl.replace(/^http:/i, "https:")} as MIXDOWN_URL (or --url); for a self-signed certificate also set NODE_EXTRA_CA_CERTS to ${CERT_FILE_HINT}.`;
  if (url.protocol === "https:" && (NOT_TLS.has(code) || /wrong version number|http request/i.test(reason ?? "")))
    return `${where}: the server on ${hostPort} speaks plain HTTP, not HTTPS. Use ${shownUrl.replace(/^https:/i, "http:")} as MIXDOWN_URL (or --url), or give the server a certificate (MIXDOWN_TLS_CERT, MIXDOWN_TLS_KEY).`;
  if (UNTRUSTED_CERTIFICATE.has(code))
    return `${where}: its TLS certificate is not trusted (${reason}). For a self-signed certificate, set NODE_EXTRA_CA_CERTS to ${CERT_FILE_HINT}.`;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return `${where}: its TLS certificate is not valid for "${url.hostname}" (${reason}). Use a host name the certificate names (mixdown dev-cert --host NAME makes one for another name).`;
  if (code === "CERT_HAS_EXPIRED") return `${where}: its TLS certificate has expired.`;
  return `${where} (${reason}). Check that the server runs, and ${setUrl}.`;
}
