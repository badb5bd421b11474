import fsp from "node:fs/promises";

/**
 * The metadata_props of an ONNX model (ModelProto field 14: key/value strings), which onnxruntime does not
 * expose. Only the top level of the protobuf is walked; the graph and its weights are skipped by length.
 */
export async function readOnnxMetadata(file: string): Promise<Record<string, string>> {
  return parseOnnxMetadata(await fsp.readFile(file));
}

export function parseOnnxMetadata(bytes: Uint8Array): Record<string, string> {
  const metadata: Record<string, string> = {};
  const decoder = new TextDecoder();
  const walk = (start: number, end: number, onField: (field: number, from: number, to: number) => void) => {
    let offset = start;
    const varint = () => {
      let value = 0;
      let scale = 1;
      for (;;) {
        if (offset >= end) throw new RangeError("truncated protobuf");
        const byte = bytes[offset++] as number;
        value += (byte & 0x7f) * scale;
        if (byte < 0x80) return value;
        scale *= 128;
      }
    };
    while (offset < end) {
      const key = varint();
      const field = Math.floor(key / 8);
      const wireType = key % 8;
      if (wireType === 0) varint();
      else if (wireType === 1) offset += 8;
      else if (wireType === 5) offset += 4;
      else if (wireType === 2) {
        const length = varint();
        if (offset + length > end) throw new RangeError("truncated protobuf");
        onField(field, offset, offset + length);
        offset += length;
      } else throw new RangeError(`unsupported protobuf wire type ${wireType}`);
    }
  };
  walk(0, bytes.length, (field, from, to) => {
    if (field !== 14) return;
    let key = "";
    let value = "";
    walk(from, to, (entryField, a, b) => {
      if (entryField === 1) key = decoder.decode(bytes.subarray(a, b));
      if (entryField === 2) value = decoder.decode(bytes.subarray(a, b));
    });
    metadata[key] = value;
  });
  return metadata;
}
