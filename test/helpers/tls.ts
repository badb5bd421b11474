import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { createDevCertificate } from "../../src/cli/dev-cert.ts";
import { type Backend, s3TlsUnavailable, TEST_S3_TLS } from "./backends.ts";
import { Mixdown } from "./mixdown.ts";

export interface TestCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
  /** This certificate and, when there is one, the test S3 server's: for NODE_EXTRA_CA_CERTS. */
  trustFile: string;
}

/**
 * A self-signed certificate for 127.0.0.1 and localhost, written to a temporary folder, and trusted by this
 * test process from now on (fetch included), with the test S3 server's HTTPS certificate when there is one;
 * child processes trust both through NODE_EXTRA_CA_CERTS=trustFile.
 */
export function testCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-tls-"));
  const { cert, key } = createDevCertificate();
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  const trustFile = path.join(dir, "trust.pem");
  fs.writeFileSync(certFile, cert);
  fs.writeFileSync(keyFile, key, { mode: 0o600 });
  const trusted = [cert, ...(s3TlsUnavailable ? [] : [fs.readFileSync(TEST_S3_TLS.caFile, "utf8")])];
  fs.writeFileSync(trustFile, trusted.join("\n"));
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), ...trusted]);
  return { dir, certFile, keyFile, cert, trustFile };
}

/**
 * A Mixdown serving HTTPS on loopback with `certificate` (its URLs are https://127.0.0.1:PORT); on the
 * distributed backend, with the test S3 server over HTTPS too, so that every URL it hands out is https.
 */
export function startTlsMixdown(
  certificate: TestCertificate,
  env: Record<string, string> = {},
  backend: Backend = "embedded",
): Promise<Mixdown> {
  const tlsEnv = { MIXDOWN_TLS_CERT: certificate.certFile, MIXDOWN_TLS_KEY: certificate.keyFile };
  const s3Env: Record<string, string> =
    backend === "distributed"
      ? { MIXDOWN_S3_ENDPOINT: TEST_S3_TLS.endpoint, NODE_EXTRA_CA_CERTS: certificate.trustFile }
      : {};
  return Mixdown.start({ ...tlsEnv, ...s3Env, ...env }, { backend });
}
