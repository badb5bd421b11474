// The transport baseline of bench/upload-throughput.ts: bare node:http streaming a PUT body into a file.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";

const dir = process.env.SINK_DIR ?? ".";
const server = http.createServer((request, response) => {
  if (request.method !== "PUT") return void response.end("ok");
  const file = path.join(dir, `sink-${randomUUID()}.bin`);
  pipeline(request, fs.createWriteStream(file, { highWaterMark: 1024 * 1024 })).then(
    () => {
      response.end(JSON.stringify({ size: fs.statSync(file).size }));
      fs.rmSync(file);
    },
    (error: Error) => {
      fs.rmSync(file, { force: true });
      response.writeHead(500).end(error.message);
    },
  );
});
server.listen(Number(process.env.PORT), "127.0.0.1");
