import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

/*
 * A self-signed certificate built with node:crypto and a few lines of DER, so `mixdown dev-cert` needs no
 * openssl binary and no dependency. ECDSA P-256 with SHA-256; subjectAltName covers localhost, 127.0.0.1
 * and ::1 (plus any extra names), which is what Node, curl and browsers check (not the CN).
 */

/** A DER tag-length-value. */
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}
const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, item: Buffer) => tlv(0xa0 + n, item);
const octets = (content: Buffer) => tlv(0x04, content);
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, "utf8"));
const bool = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0]));
/** A BIT STRING whose bits are all used. */
const bits = (content: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

/** subjectAltName entries: IP addresses as iPAddress [7], anything else as dNSName [2]. */
function altNames(hosts: string[]): Buffer {
  const names = hosts.map((host) => {
    const family = net.isIP(host);
    if (family === 4) return tlv(0x87, Buffer.from(host.split(".").map(Number)));
    if (family === 6) return tlv(0x87, ipv6Bytes(host));
    return tlv(0x82, Buffer.from(host, "ascii"));
  });
  return sequence(...names);
}

function ipv6Bytes(address: string): Buffer {
  const [head = "", tail = ""] = address.split("::");
  const part = (s: string) => (s ? s.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = part(head);
  const right = address.includes("::") ? part(tail) : [];
  const groups = [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const out = Buffer.alloc(16);
  for (const [i, group] of groups.entries()) out.writeUInt16BE(group, i * 2);
  return out;
}

export interface DevCertificate {
  cert: string;
  key: string;
  hosts: string[];
  notAfter: Date;
}

/** Makes a self-signed certificate (PEM) and its private key (PKCS#8 PEM), valid for `days` days. */
export function createDevCertificate(extraHosts: string[] = [], days = 365): DevCertificate {
  const hosts = [...new Set(["localhost", "127.0.0.1", "::1", ...extraHosts])];
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  const serial = randomBytes(16);
  // A positive INTEGER in minimal DER: the top bit clear, and the first byte never 0 (a leading zero byte
  // followed by one under 0x80 is "illegal padding" to OpenSSL; 1 certificate in 128 had it).
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  // A name of its own: trust stores find an issuer by name, so two dev certificates must not share one.
  const commonName = `Mixdown development certificate ${serial.subarray(0, 4).toString("hex")}`;
  const name = sequence(set(sequence(oid("2.5.4.3"), utf8(commonName))));
  const notBefore = new Date(Date.now() - 60 * 60 * 1000);
  const notAfter = new Date(Date.now() + days * 24 * 60 * 60 * 1000);
  const ecdsaWithSha256 = sequence(oid("1.2.840.10045.4.3.2"));
  const keyId = createHash("sha1").update(spki.subarray(-65)).digest();
  const tbs = sequence(
    explicit(0, tlv(0x02, Buffer.from([2]))), // version 3
    tlv(0x02, serial),
    ecdsaWithSha256,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    spki,
    explicit(
      3,
      sequence(
        // CA:TRUE so that the certificate can be its own trust anchor (NODE_EXTRA_CA_CERTS, a browser's store).
        extension("2.5.29.19", true, sequence(bool(true))),
        // digitalSignature and keyCertSign
        extension("2.5.29.15", true, tlv(0x03, Buffer.from([0x02, 0x84]))),
        extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"))), // serverAuth
        extension("2.5.29.14", false, octets(keyId)),
        extension("2.5.29.35", false, sequence(tlv(0x80, keyId))), // authorityKeyIdentifier: itself
        extension("2.5.29.17", false, altNames(hosts)),
      ),
    ),
  );
  const signature = sign("sha256", tbs, { key: privateKey, dsaEncoding: "der" });
  const der = sequence(tbs, ecdsaWithSha256, bits(signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").replace(/\n?$/, "\n")}-----END CERTIFICATE-----\n`;
  const x509 = new X509Certificate(cert);
  if (!x509.verify(publicKey) || !x509.checkPrivateKey(privateKey))
    throw new Error("generated certificate does not verify");
  return { cert, key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(), hosts, notAfter };
}

export const DEV_CERT_HELP = `Usage: mixdown dev-cert [--out DIR] [--host NAME …] [--days N] [--force] [--json]

Writes a self-signed TLS certificate and its private key for local use, made with
Node's crypto (no openssl needed): DIR/cert.pem and DIR/key.pem (mode 600).
Valid for localhost, 127.0.0.1 and ::1, plus every --host (a DNS name or an IP).

  --out DIR     where to write (default $MIXDOWN_DATA_DIR/tls, i.e. ./data/tls)
  --host NAME   another name or address the certificate is valid for (repeatable)
  --days N      validity in days (default 365)
  --force       replace existing files

Then start the server with
  MIXDOWN_TLS_CERT=DIR/cert.pem MIXDOWN_TLS_KEY=DIR/key.pem mixdown serve
and let Node clients trust it with NODE_EXTRA_CA_CERTS=DIR/cert.pem
(curl: --cacert DIR/cert.pem).`;

/** `mixdown dev-cert`: writes cert.pem and key.pem; refuses to overwrite unless forced. */
export function devCertCommand(options: {
  out?: string;
  hosts: string[];
  days: number;
  force: boolean;
  json: boolean;
}): void {
  const dir = path.resolve(options.out ?? path.join(process.env.MIXDOWN_DATA_DIR?.trim() || "./data", "tls"));
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  for (const file of [certFile, keyFile]) {
    if (!options.force && fs.existsSync(file)) throw new DevCertError(`${file} exists (use --force to replace it)`);
  }
  for (const host of options.hosts) {
    if (!net.isIP(host) && !/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(host))
      throw new DevCertError(`--host "${host}" is not a host name or IP address`);
  }
  const created = createDevCertificate(options.hosts, options.days);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(keyFile, created.key, { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600);
  fs.writeFileSync(certFile, created.cert);
  const report = { cert: certFile, key: keyFile, hosts: created.hosts, notAfter: created.notAfter.toISOString() };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  process.stdout.write(
    `Wrote a self-signed certificate for ${created.hosts.join(", ")} (valid until ${report.notAfter}):\n` +
      `  ${certFile}\n  ${keyFile}\n\nServe HTTPS with:\n` +
      `  MIXDOWN_TLS_CERT=${certFile} MIXDOWN_TLS_KEY=${keyFile} mixdown serve\n` +
      `Trust it in Node clients with NODE_EXTRA_CA_CERTS=${certFile} (curl: --cacert ${certFile}).\n`,
  );
}

export class DevCertError extends Error {}
