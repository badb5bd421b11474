/**
 * How a stored file is handed to a browser, whoever serves it (Mixdown's file route, or the object store through
 * what it lets a presigned URL or an object's metadata say): never as a page that can run script.
 */

/** Content types a browser may show in place: media, the images the dashboard shows, JSON (shown as text). */
const INLINE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** "Text/HTML; charset=utf-8" → "text/html". */
const essence = (contentType: string): string => (contentType.split(";")[0] ?? "").trim().toLowerCase();

const isMedia = (type: string): boolean => type.startsWith("audio/") || type.startsWith("video/");

/** True when `contentType` is shown in the browser (inline); anything else is downloaded (attachment). */
export function isInline(contentType: string): boolean {
  const type = essence(contentType);
  return isMedia(type) || INLINE_IMAGES.has(type) || type === "application/json";
}

/**
 * The Content-Type a file is served with: its own when it is shown inline, else application/octet-stream, so that
 * HTML, SVG, XML, script or a style sheet is never parsed as such, whatever the uploader said it was.
 */
export function servedContentType(contentType: string): string {
  return isInline(contentType) ? contentType : "application/octet-stream";
}

/**
 * The Content-Security-Policy of a served file: a sandbox (an opaque origin, no script, no forms, no plugins) that
 * loads nothing. A browser's own viewers still work: the media viewer loads the file itself again (`media-src`), and
 * the image and media viewers style their one element.
 */
export function fileContentSecurityPolicy(contentType: string): string {
  const type = essence(contentType);
  if (isMedia(type)) return "sandbox; default-src 'none'; media-src 'self'; style-src 'unsafe-inline'";
  if (INLINE_IMAGES.has(type)) return "sandbox; default-src 'none'; style-src 'unsafe-inline'";
  return "sandbox; default-src 'none'";
}

/** The policy of a response about no file (an error): nothing at all. */
export const NO_FILE_CSP = "sandbox; default-src 'none'";

/** Characters kept as they are in the quoted, ASCII-only `filename` parameter; others become "_". */
const PLAIN_NAME = /[^A-Za-z0-9 ._()+,=@~-]/g;

/**
 * A Content-Disposition value (RFC 6266): `inline` for what a browser may show, `attachment` otherwise, and the
 * file's name: an ASCII `filename` every client reads, plus `filename*` (RFC 8187, UTF-8) when the name needs it.
 */
export function contentDisposition(contentType: string, name: string): string {
  const kind = isInline(contentType) ? "inline" : "attachment";
  const plain = name.replace(PLAIN_NAME, "_").replace(/^[ .]+/, "") || "file";
  if (plain === name) return `${kind}; filename="${plain}"`;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${plain}"; filename*=UTF-8''${encoded}`;
}
