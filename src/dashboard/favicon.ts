import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";

/** assets/icon.svg, drawn in a 32-unit square: a rounded tile and five level bars with round caps. */
const TILE = { radius: 6, color: [0x1f, 0x3a, 0x5f] as const };
const BARS = [
  [6, 12, 20],
  [11, 8, 24],
  [16, 10, 22],
  [21, 6, 26],
  [26, 13, 19],
] as const;
const BAR_RADIUS = 1.5;
const SUBSAMPLES = 4;

function inTile(x: number, y: number): boolean {
  if (x < 0 || y < 0 || x > 32 || y > 32) return false;
  const r = TILE.radius;
  const cx = Math.min(Math.max(x, r), 32 - r);
  const cy = Math.min(Math.max(y, r), 32 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const onBar = (x: number, y: number) =>
  BARS.some(([bx, top, bottom]) => (x - bx) ** 2 + (y - Math.min(Math.max(y, top), bottom)) ** 2 <= BAR_RADIUS ** 2);

/** The icon at size×size, as BGRA rows from the bottom up (what an icon's bitmap holds), anti-aliased. */
function bgraBottomUp(size: number): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const unit = 32 / size;
  for (let py = 0; py < size; py++)
    for (let px = 0; px < size; px++) {
      let covered = 0;
      let white = 0;
      for (let sy = 0; sy < SUBSAMPLES; sy++)
        for (let sx = 0; sx < SUBSAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SUBSAMPLES) * unit;
          const y = (py + (sy + 0.5) / SUBSAMPLES) * unit;
          if (!inTile(x, y)) continue;
          covered++;
          if (onBar(x, y)) white++;
        }
      const at = ((size - 1 - py) * size + px) * 4;
      if (covered === 0) continue;
      const share = white / covered;
      const [r, g, b] = TILE.color.map((c) => Math.round(c + (255 - c) * share)) as [number, number, number];
      pixels.writeUInt8(b, at);
      pixels.writeUInt8(g, at + 1);
      pixels.writeUInt8(r, at + 2);
      pixels.writeUInt8(Math.round((covered / SUBSAMPLES ** 2) * 255), at + 3);
    }
  return pixels;
}

/** One icon image: a 32-bit bitmap (alpha in the pixels, so the 1-bit mask after it stays empty). */
function iconImage(size: number): Buffer {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // the bitmap and its mask, stacked
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  const maskRow = Math.ceil(size / 32) * 4;
  return Buffer.concat([header, bgraBottomUp(size), Buffer.alloc(maskRow * size)]);
}

/** A .ico holding the icon at 16, 32 and 48 pixels. */
export function faviconIco(sizes = [16, 32, 48]): Buffer {
  const images = sizes.map(iconImage);
  const directory = Buffer.alloc(6 + 16 * sizes.length);
  directory.writeUInt16LE(1, 2); // type: icon
  directory.writeUInt16LE(sizes.length, 4);
  let offset = directory.length;
  sizes.forEach((size, i) => {
    const entry = 6 + 16 * i;
    const image = images[i] as Buffer;
    directory.writeUInt8(size % 256, entry);
    directory.writeUInt8(size % 256, entry + 1);
    directory.writeUInt16LE(1, entry + 4);
    directory.writeUInt16LE(32, entry + 6);
    directory.writeUInt32LE(image.length, entry + 8);
    directory.writeUInt32LE(offset, entry + 12);
    offset += image.length;
  });
  return Buffer.concat([directory, ...images]);
}

/** /favicon.svg and /favicon.ico, for browsers and tools that ask for them at the root (no session needed). */
export function favicons(app: FastifyInstance): void {
  const svg = fs.readFileSync(path.join(import.meta.dirname, "assets", "icon.svg"));
  const ico = faviconIco();
  const cache = "public, max-age=86400";
  app.get("/favicon.svg", { schema: { hide: true } }, (_request, reply) =>
    reply.header("cache-control", cache).type("image/svg+xml").send(svg),
  );
  app.get("/favicon.ico", { schema: { hide: true } }, (_request, reply) =>
    reply.header("cache-control", cache).type("image/x-icon").send(ico),
  );
}
