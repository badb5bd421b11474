import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { errorFromResponse } from "../../sdk/src/errors.ts";
import { MixdownError, normalizeJob, normalizeJobList } from "../../sdk/src/index.ts";
import { nextPage, nextPageFromLink } from "../../sdk/src/pagination.ts";
import { extensionFromUrl, safeFileStem } from "../../sdk/src/transfer.ts";

const slugForm = {
  id: "0b9c6c2e-4c4b-4d8f-9b7a-2f0e7c1d9a11",
  app: "my-app",
  name: "song",
  batchName: "batch-1",
  metadata: { user: "42", priority: 3, test: true },
  workflow: "mixdown/convert",
  workflowParams: { inputUrl: "https://example.com/a.wav", format: "mp3" },
  status: "FAILED",
  result: { output: "https://example.com/out.mp3" },
  error: { code: "BAD_INPUT", title: "Invalid input", message: "not a media file" },
  createdAt: "2026-01-01T00:00:00.000Z",
  startedAt: "2026-01-01T00:00:01.000Z",
  completedAt: "2026-01-01T00:00:02.000Z",
};

const variantForm = {
  id: "6f1d2c3b-0000-4000-8000-000000000001",
  name: "song",
  metadata: {},
  workflow: { id: "wf-123", name: "Convert" },
  workflowParams: { inputUrl: "https://example.com/a.wav" },
  status: "SUCCEEDED",
  result: { vocals: "https://example.com/vocals.wav" },
  createdAt: "2026-01-01T00:00:00.000Z",
  startedAt: "2026-01-01T00:00:01.000Z",
  completedAt: "2026-01-01T00:00:02.000Z",
};

describe("SDK: job normalisation", () => {
  test("the string-slug form is kept as it is", () => {
    assert.deepEqual(normalizeJob(slugForm), { ...slugForm, workflowName: null });
  });

  test("the {id, name} variant: workflow becomes the id, its name kept; app, batchName, error become null", () => {
    const job = normalizeJob(variantForm);
    assert.equal(job.workflow, "wf-123");
    assert.equal(job.workflowName, "Convert");
    assert.equal(job.app, null);
    assert.equal(job.batchName, null);
    assert.equal(job.error, null);
    assert.deepEqual(job.result, variantForm.result);
    assert.equal(job.status, "SUCCEEDED");
    assert.equal(job.completedAt, "2026-01-01T00:00:02.000Z");
  });

  test("a variant workflow object that has a slug uses the slug", () => {
    assert.equal(normalizeJob({ ...variantForm, workflow: { id: "1", name: "C", slug: "acme/c" } }).workflow, "acme/c");
  });

  test("metadata keeps only string, number and boolean values; a missing result is null", () => {
    const job = normalizeJob({ ...slugForm, metadata: { a: "x", b: { nested: 1 }, c: null, d: 2 }, result: undefined });
    assert.deepEqual(job.metadata, { a: "x", d: 2 });
    assert.equal(job.result, null);
  });

  test("both list shapes give the same jobs: a bare array and {jobs: [...]}", () => {
    const fromArray = normalizeJobList([slugForm, variantForm]);
    const fromObject = normalizeJobList({ jobs: [slugForm, variantForm] });
    assert.deepEqual(fromArray, fromObject);
    assert.deepEqual(
      fromArray.map((j) => j.workflow),
      ["mixdown/convert", "wf-123"],
    );
    assert.deepEqual(normalizeJobList({ jobs: [] }), []);
  });

  test("malformed answers are INVALID_RESPONSE errors, not crashes later", () => {
    for (const bad of [null, "x", { nojobs: [] }, [{ status: "QUEUED" }], [{ id: "1", status: "DONE" }]]) {
      assert.throws(
        () => normalizeJobList(bad),
        (error: unknown) => error instanceof MixdownError && error.code === "INVALID_RESPONSE",
        JSON.stringify(bad),
      );
    }
  });
});

describe("SDK: pagination and file names", () => {
  test("the next page comes from the Link header, else X-Total-Count, else a full page", () => {
    const link =
      '<https://h/v1/job?status=QUEUED&page=0&size=2>; rel="first", <https://h/v1/job?status=QUEUED&page=2&size=2>; rel="next", <https://h/v1/job?page=4&size=2>; rel="last"';
    assert.equal(nextPageFromLink(link), 2);
    assert.equal(nextPageFromLink('<https://h/v1/job?page=0&size=2>; rel="first"'), null);
    assert.equal(nextPageFromLink(null), undefined);
    assert.equal(nextPage(new Headers({ link }), 1, 2, 2), 2);
    assert.equal(nextPage(new Headers({ "x-total-count": "5" }), 1, 2, 2), 2);
    assert.equal(nextPage(new Headers({ "x-total-count": "4" }), 1, 2, 2), null);
    assert.equal(nextPage(new Headers(), 0, 2, 2), 1);
    assert.equal(nextPage(new Headers(), 0, 2, 1), null);
  });

  test("result files are named by key and the extension of the URL's path", () => {
    assert.equal(extensionFromUrl("https://h/files/results/1/output.mp3?expires=1&signature=a.b"), "mp3");
    assert.equal(extensionFromUrl("http://h/files/vocals.WAV"), "wav");
    assert.equal(extensionFromUrl("https://h/files/noext"), "");
    assert.equal(extensionFromUrl("https://h/files/.hidden"), "");
    assert.equal(safeFileStem("../../etc/passwd"), "__.._etc_passwd"); // no separator, no leading dot
    assert.equal(safeFileStem("beat map"), "beat_map");
  });
});

describe("SDK: errors from responses", () => {
  const answer = (status: number, body: string, type: string) =>
    new Response(body, {
      status,
      statusText: status === 403 ? "Forbidden" : "Not Found",
      headers: { "content-type": type },
    });

  test("Mixdown's JSON errors give their code, message and details", async () => {
    const body = { code: "INVALID_SIGNATURE", message: "The URL's signature is not valid", details: [] };
    const error = await errorFromResponse(answer(403, JSON.stringify(body), "application/json"), "download");
    assert.deepEqual([error.status, error.code, error.message], [403, body.code, body.message]);
  });

  test("an object store's S3 XML errors give their Code, and their Message when there is one", async () => {
    const xml = (code: string, message: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>tx1</RequestId></Error>`;
    const expired = await errorFromResponse(
      answer(403, xml("AccessDenied", "Request has expired"), "application/xml"),
      "download",
    );
    assert.deepEqual([expired.status, expired.code, expired.message], [403, "AccessDenied", "Request has expired"]);
    const forged = await errorFromResponse(answer(403, xml("SignatureDoesNotMatch", ""), "application/xml"), "upload");
    assert.equal(forged.code, "SignatureDoesNotMatch");
    assert.equal(forged.message, "upload failed: HTTP 403 Forbidden (SignatureDoesNotMatch)");
  });

  test("any other body: HTTP_<status> and the start of the body in the message", async () => {
    const error = await errorFromResponse(answer(404, "<html>gone</html>", "text/html"), "download");
    assert.equal(error.code, "HTTP_404");
    assert.equal(error.message, "download failed: HTTP 404 Not Found: <html>gone</html>");
  });
});
