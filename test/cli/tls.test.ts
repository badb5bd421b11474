import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { createDevCertificate } from "../../src/cli/dev-cert.ts";
import { assertNoneRunning, MIXDOWN_BIN } from "../helpers/mixdown.ts";
import { startTlsMixdown, testCertificate } from "../helpers/tls.ts";

const execFileAsync = promisify(execFile);

async function mixdown(args: string[], env: Record<string, string> = {}) {
  const { NODE_EXTRA_CA_CERTS: _, MIXDOWN_URL: _u, MIXDOWN_API_KEY: _k, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await execFileAsync(MIXDOWN_BIN, args, {
      env: { ...inherited, ...env },
      timeout: 60_000,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe("TLS: mixdown dev-cert and MIXDOWN_TLS_CERT / MIXDOWN_TLS_KEY", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-tls-test-"));
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("dev-cert writes a certificate for localhost, 127.0.0.1, ::1 and extra hosts, and a private key only the owner reads", async () => {
    const out = path.join(tmp, "certs");
    const r = await mixdown(["dev-cert", "--out", out, "--host", "mixdown.test", "--host", "10.1.2.3", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.cert, path.join(out, "cert.pem"));
    const cert = new X509Certificate(fs.readFileSync(report.cert));
    for (const host of ["localhost", "mixdown.test"]) assert.equal(cert.checkHost(host), host);
    for (const ip of ["127.0.0.1", "::1", "10.1.2.3"]) assert.ok(cert.checkIP(ip), ip);
    assert.equal(cert.checkHost("example.com"), undefined);
    assert.ok(cert.verify(cert.publicKey), "self-signed");
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 364 && days < 366, `${days} days`);
    assert.equal(fs.statSync(report.key).mode & 0o777, 0o600);

    const again = await mixdown(["dev-cert", "--out", out]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists \(use --force/);
    assert.equal((await mixdown(["dev-cert", "--out", out, "--force", "--days", "30"])).code, 0);
    assert.notEqual(new X509Certificate(fs.readFileSync(report.cert)).serialNumber, cert.serialNumber);
  });

  test("every certificate is valid DER: 3,000 in a row parse and verify (random serials included)", () => {
    for (let i = 0; i < 3000; i++) {
      const { cert } = createDevCertificate([], 1); // throws if OpenSSL rejects or cannot verify it
      assert.equal(new X509Certificate(cert).serialNumber.length, 32);
    }
  });

  test("bad TLS settings stop the server with a message naming the variable", async () => {
    const { certFile, keyFile, dir } = testCertificate();
    const other = testCertificate();
    const garbage = path.join(tmp, "garbage.pem");
    fs.writeFileSync(garbage, "not a certificate");
    const cases: [Record<string, string>, RegExp][] = [
      [{ MIXDOWN_TLS_CERT: certFile }, /MIXDOWN_TLS_CERT and MIXDOWN_TLS_KEY go together/],
      [
        { MIXDOWN_TLS_CERT: path.join(tmp, "missing.pem"), MIXDOWN_TLS_KEY: keyFile },
        /MIXDOWN_TLS_CERT: cannot read .*missing\.pem \(ENOENT\)/,
      ],
      [{ MIXDOWN_TLS_CERT: garbage, MIXDOWN_TLS_KEY: keyFile }, /MIXDOWN_TLS_CERT: .* is not a PEM certificate/],
      [{ MIXDOWN_TLS_CERT: certFile, MIXDOWN_TLS_KEY: garbage }, /MIXDOWN_TLS_KEY: .* is not a PEM private key/],
      [
        { MIXDOWN_TLS_CERT: certFile, MIXDOWN_TLS_KEY: other.keyFile },
        /MIXDOWN_TLS_KEY: .* is not the private key of the certificate/,
      ],
    ];
    for (const [env, message] of cases) {
      const r = await mixdown(["serve"], { MIXDOWN_DATA_DIR: path.join(tmp, "data"), PORT: "0", ...env });
      assert.equal(r.code, 2, JSON.stringify(env));
      assert.match(r.stderr, message);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(other.dir, { recursive: true, force: true });
  });

  test("with TLS the server speaks HTTPS only, and its URLs default to https://localhost:PORT", async () => {
    const certificate = testCertificate();
    const server = await startTlsMixdown(certificate, { MIXDOWN_PUBLIC_URL: "" });
    try {
      assert.equal((await fetch(`https://127.0.0.1:${server.port}/healthz`)).status, 200);
      assert.equal((await fetch(`https://localhost:${server.port}/healthz`)).status, 200);
      await assert.rejects(fetch(`http://127.0.0.1:${server.port}/healthz`));
      const { apiKey } = await server.createApp();
      const pair = await server.api("GET", "/v1/upload", { key: apiKey });
      assert.ok(pair.body.uploadUrl.startsWith(`https://localhost:${server.port}/uploads/`), pair.body.uploadUrl);
      const put = await fetch(pair.body.uploadUrl, {
        method: "PUT",
        body: "abc",
        headers: { "content-type": "text/plain" },
      });
      assert.equal(put.status, 200);
      assert.equal(await (await fetch(pair.body.downloadUrl)).text(), "abc");
    } finally {
      await server.dispose();
      fs.rmSync(certificate.dir, { recursive: true, force: true });
    }
  });

  test("the CLI against an HTTPS server: an http URL is named as the mismatch, once, without retries", async () => {
    const certificate = testCertificate();
    const server = https.createServer({ cert: certificate.cert, key: fs.readFileSync(certificate.keyFile) }, (_, r) =>
      r.end("{}"),
    );
    let connections = 0;
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await mixdown(["jobs", "list"], { MIXDOWN_URL: url, MIXDOWN_API_KEY: "mxd_any" });
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr.trim(),
        `mixdown: Could not reach Mixdown at ${url}: the server on ${url.slice(7)} speaks HTTPS, not HTTP. Use ${url.replace("http:", "https:")} as MIXDOWN_URL (or --url); for a self-signed certificate also set NODE_EXTRA_CA_CERTS to the certificate file: mixdown dev-cert writes data/tls/cert.pem.`,
      );
      assert.equal(connections, 2, "the request, then one TLS handshake to tell what the server speaks; no retries");
    } finally {
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(certificate.dir, { recursive: true, force: true });
    }
  });

  test("the CLI against Mixdown over HTTPS: an untrusted certificate is said; trusted, it works", async () => {
    const certificate = testCertificate();
    const server = await startTlsMixdown(certificate);
    try {
      const { apiKey } = await server.createApp();
      const env = { MIXDOWN_URL: server.url, MIXDOWN_API_KEY: apiKey };
      const untrusted = await mixdown(["jobs", "list"], env);
      assert.equal(untrusted.code, 1);
      assert.match(
        untrusted.stderr,
        /^mixdown: Could not reach Mixdown at https:\/\/127\.0\.0\.1:\d+: its TLS certificate is not trusted \(self-signed certificate.*\)\. For a self-signed certificate, set NODE_EXTRA_CA_CERTS to the certificate file/,
      );
      const trusted = await mixdown(["jobs", "list"], { ...env, NODE_EXTRA_CA_CERTS: certificate.certFile });
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.equal(trusted.stdout.trim(), "No jobs.");
    } finally {
      await server.dispose();
      fs.rmSync(certificate.dir, { recursive: true, force: true });
    }
  });
});
