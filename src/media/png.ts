import zlib from "node:zlib";

/** An RGBA image in memory. */
export class Image {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;

  constructor(width: number, height: number, background: [number, number, number, number] = [0, 0, 0, 0]) {
    this.width = width;
    this.height = height;
    this.pixels = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) this.pixels.set(background, i * 4);
  }

  set(x: number, y: number, [r, g, b, a]: readonly [number, number, number, number]): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    this.pixels.set([r, g, b, a], (y * this.width + x) * 4);
  }
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Encodes an image as PNG (8-bit RGBA, no filtering, zlib-compressed). */
export function encodePng(image: Image): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  const stride = image.width * 4;
  const raw = Buffer.alloc((stride + 1) * image.height);
  for (let y = 0; y < image.height; y++) {
    raw[y * (stride + 1)] = 0; // filter: none
    raw.set(image.pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** "#rrggbb" or "#rrggbbaa" to RGBA. */
export function parseColor(hex: string): [number, number, number, number] {
  const value = hex.replace(/^#/, "");
  const channel = (i: number) => Number.parseInt(value.slice(i, i + 2), 16);
  return [channel(0), channel(2), channel(4), value.length === 8 ? channel(6) : 255];
}
