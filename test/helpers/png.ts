import zlib from "node:zlib";

/** Decodes an 8-bit RGBA PNG with unfiltered scanlines (what Mixdown writes); enough for tests. */
export function readPng(bytes: Buffer): { width: number; height: number; pixel(x: number, y: number): number[] } {
  if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    throw new Error("not a PNG");
  }
  let offset = 8;
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString("ascii", offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (zlib.crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== bytes.readUInt32BE(offset + 8 + length)) {
      throw new Error(`bad CRC in ${type}`);
    }
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[9] !== 6) throw new Error("not 8-bit RGBA");
    }
    if (type === "IDAT") data.push(body);
    offset += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = width * 4 + 1;
  return {
    width,
    height,
    pixel: (x, y) => {
      if (raw[y * stride] !== 0) throw new Error("filtered scanline");
      const start = y * stride + 1 + x * 4;
      return [...raw.subarray(start, start + 4)];
    },
  };
}
