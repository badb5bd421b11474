import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyInstance } from "fastify";

const require = createRequire(import.meta.url);

/** Browser modules served from their npm packages (no CDN, no build step): URL name → [directory, file]. */
const VENDOR_FILES: Record<string, [string, string]> = {
  "wavesurfer.esm.js": [path.dirname(require.resolve("wavesurfer.js")), "wavesurfer.esm.js"],
};

/** /dashboard/assets/vendor/NAME: only the files listed above, never the rest of node_modules. */
export function vendorFiles(scope: FastifyInstance): void {
  for (const [name, [root, file]] of Object.entries(VENDOR_FILES))
    scope.get(`/assets/vendor/${name}`, (_request, reply) => reply.sendFile(file, root, { maxAge: "1h" }));
}
