import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { createDevCertificate } from "../../src/cli/dev-cert.ts";
import { Mixdown } from "./mixdown.ts";

export interface TestCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
}

/**
 * A self-signed certificate for 127.0.0.1 and localhost, written to a temporary folder, and trusted by this
 * test process from now on (fetch included); child processes trust it through NODE_EXTRA_CA_CERTS=certFile.
 */
export function testCertificate(): TestCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-tls-"));
  const { cert, key } = createDevCertificate();
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  fs.writeFileSync(certFile, cert);
  fs.writeFileSync(keyFile, key, { mode: 0o600 });
  tls.setDefaultCACertificates([...tls.getCACertificates("default"), cert]);
  return { dir, certFile, keyFile, cert };
}

/** An embedded Mixdown serving HTTPS on loopback with `certificate` (its URLs are https://127.0.0.1:PORT). */
export function startTlsMixdown(certificate: TestCertificate, env: Record<string, string> = {}): Promise<Mixdown> {
  return Mixdown.start({ MIXDOWN_TLS_CERT: certificate.certFile, MIXDOWN_TLS_KEY: certificate.keyFile, ...env });
}
