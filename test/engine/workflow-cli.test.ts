import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { type ApiResponse, type AppInfo, assertNoneRunning, Mixdown } from "../helpers/mixdown.ts";

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const BUILT_IN_CONVERT = path.resolve(import.meta.dirname, "../../src/workflows/builtin/convert.json");

interface DefinitionError {
  field: string;
  message: string;
}

/** A sound custom workflow: fetch → convert → loudness, with a file output and a value output. */
function masterDefinition(slug = "acme/master") {
  return {
    slug,
    name: "Master",
    description: "Encodes a file as WAV and measures its loudness.",
    inputSchema: {
      type: "object",
      required: ["inputUrl"],
      additionalProperties: false,
      properties: {
        inputUrl: { type: "string", format: "uri", description: "URL of the input file" },
        sampleRate: { type: "integer", minimum: 8000, maximum: 192000 },
      },
    },
    steps: [
      { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
      {
        id: "encode",
        module: "convert",
        params: { format: "wav", sampleRate: "$params.sampleRate" },
        inputs: { audio: "$steps.input.file" },
      },
      { id: "measure", module: "loudness", inputs: { audio: "$steps.encode.audio" } },
    ],
    outputs: { audio: "$steps.encode.audio", loudness: "$steps.measure.integratedLoudness" },
  };
}

/** The same kind of workflow written in YAML. */
const PROBE_YAML = `# a YAML workflow
slug: acme/probe-yaml
name: Probe (YAML)
description: Reads a file's metadata.
inputSchema:
  type: object
  required: [inputUrl]
  properties:
    inputUrl: { type: string, description: URL of the input file }
steps:
  - id: input
    module: fetch
    inputs: { url: $params.inputUrl }
  - id: probe
    module: probe
    inputs:
      audio: $steps.input.file
outputs:
  metadata: $steps.probe.metadata
`;

/** A definition with four independent errors, and those errors. */
function brokenDefinition(slug: string) {
  return {
    slug,
    name: "Broken",
    description: "Does not hold together.",
    inputSchema: { type: "object", properties: { inputUrl: { type: "string" } } },
    steps: [
      { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
      { id: "measure", module: "loudness", inputs: { audio: "$steps.input.file", sidechain: "$steps.input.file" } },
      { id: "encode", module: "convert", params: { format: "wav" }, inputs: { audio: "$steps.missing.audio" } },
    ],
    outputs: { output: "$steps.encode.audio", peaks: "$steps.encode.peaks", extra: "file.wav" },
  };
}
const BROKEN_ERRORS: DefinitionError[] = [
  { field: "steps[1].inputs.sidechain", message: 'module "loudness" has no input "sidechain"; its inputs: audio' },
  { field: "steps[2].inputs.audio", message: 'references unknown step "missing"' },
  { field: "outputs.peaks", message: 'step "encode" (module "convert") has no output "peaks"' },
  { field: "outputs.extra", message: 'must reference a step output ("$steps.STEP.OUTPUT"), got "file.wav"' },
];

describe("workflow definitions through the CLI and the API", () => {
  let server: Mixdown;
  let app: AppInfo;
  let root: string;
  let workflowsDir: string;
  let files: string;

  /** Writes a fixture file (outside the workflows dir) and returns its path. */
  const fixture = (name: string, content: unknown) => {
    const file = path.join(files, name);
    fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
    return file;
  };
  const describeWorkflow = (slug: string) => server.api("GET", `/v1/workflow/${slug}`, { key: app.apiKey });
  const listWorkflows = async () => {
    const response = await server.api("GET", "/v1/workflow?size=1000", { key: app.apiKey });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.workflows as { slug: string; createdAt: string; updatedAt: string; description: string }[];
  };
  const cliList = async () => {
    const result = await server.cli(["workflow", "list", "--json"]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as { slug: string; builtIn: boolean; source: string; errors: DefinitionError[] }[];
  };
  /** Asks again until `done` holds (the server looks at its workflows dir at most once a second); bounded. */
  async function eventually<T>(ask: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 15_000;
    let value = await ask();
    while (!done(value) && Date.now() < deadline) {
      await delay(100);
      value = await ask();
    }
    return value;
  }

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "mixdown-workflow-cli-"));
    workflowsDir = path.join(root, "workflows");
    files = path.join(root, "files");
    fs.mkdirSync(files);
    server = await Mixdown.start({ MIXDOWN_WORKERS: "0", MIXDOWN_WORKFLOWS_DIR: workflowsDir });
    app = await server.createApp("workflow-cli");
  });
  after(async () => {
    await server?.dispose();
    if (root) fs.rmSync(root, { recursive: true, force: true });
    assertNoneRunning();
  });

  test("workflow validate: a valid JSON file and a valid YAML file exit 0", async () => {
    const json = fixture("master.json", masterDefinition());
    const yaml = fixture("probe.yaml", PROBE_YAML);
    const yml = fixture("probe.yml", PROBE_YAML);
    for (const [file, slug] of [
      [json, "acme/master"],
      [yaml, "acme/probe-yaml"],
      [yml, "acme/probe-yaml"],
    ] as const) {
      const result = await server.cli(["workflow", "validate", file]);
      assert.equal(result.code, 0, `${file}: ${result.stdout}${result.stderr}`);
      assert.equal(result.stdout, `${file}: valid workflow "${slug}"\n`);
      const asJson = await server.cli(["workflow", "validate", file, "--json"]);
      assert.equal(asJson.code, 0, asJson.stderr);
      assert.deepEqual(JSON.parse(asJson.stdout), { slug, valid: true, errors: [] });
    }
    assert.equal(fs.existsSync(workflowsDir), false, "validate installs nothing");
  });

  test("workflow validate: an invalid file exits 1 and prints every error as field: message", async () => {
    const file = fixture("broken.json", brokenDefinition("acme/broken"));
    const result = await server.cli(["workflow", "validate", file]);
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines[0], `${file}: 4 errors`);
    assert.deepEqual(
      lines.slice(1),
      BROKEN_ERRORS.map((e) => `  ${e.field}: ${e.message}`),
    );

    const asJson = await server.cli(["workflow", "validate", file, "--json"]);
    assert.equal(asJson.code, 1, asJson.stderr);
    assert.deepEqual(JSON.parse(asJson.stdout), { slug: "acme/broken", valid: false, errors: BROKEN_ERRORS });

    const yaml = fixture("broken.yaml", PROBE_YAML.replace("audio: $steps.input.file", "audio: $steps.input.data"));
    const yamlResult = await server.cli(["workflow", "validate", yaml, "--json"]);
    assert.equal(yamlResult.code, 1, yamlResult.stderr);
    assert.deepEqual(JSON.parse(yamlResult.stdout), {
      slug: "acme/probe-yaml",
      valid: false,
      errors: [
        {
          field: "steps[1].inputs.audio",
          message: 'step "input" (module "fetch") has no output "data"; its outputs: file',
        },
      ],
    });
  });

  test("workflow validate: unreadable, unparsable and wrongly named files exit 1 with a file error", async () => {
    const cases: [string, RegExp][] = [
      [fixture("garbled.json", '{"slug": "acme/garbled",'), /^is not valid JSON: /],
      [fixture("garbled.yaml", "slug: [acme\n  name: {"), /^is not valid YAML: /],
      [fixture("definition.txt", JSON.stringify(masterDefinition())), /^must end with \.json, \.yaml, \.yml$/],
      [path.join(files, "absent.json"), /^cannot be read: /],
    ];
    for (const [file, message] of cases) {
      const result = await server.cli(["workflow", "validate", file, "--json"]);
      assert.equal(result.code, 1, `${file}: ${result.stderr}`);
      const body = JSON.parse(result.stdout);
      assert.equal(body.slug, null, file);
      assert.equal(body.valid, false, file);
      assert.equal(body.errors.length, 1, JSON.stringify(body));
      assert.equal(body.errors[0].field, "file", file);
      assert.match(body.errors[0].message, message, file);
    }
  });

  test("workflow add refuses an invalid definition and installs nothing", async () => {
    const file = fixture("refused.json", brokenDefinition("acme/refused"));
    const result = await server.cli(["workflow", "add", file]);
    assert.equal(result.code, 1, result.stdout);
    for (const e of BROKEN_ERRORS) assert.ok(result.stderr.includes(`${e.field}: ${e.message}`), result.stderr);
    assert.ok(!(await cliList()).some((wf) => wf.slug === "acme/refused"));
    assert.ok(!(await listWorkflows()).some((wf) => wf.slug === "acme/refused"));
    assert.equal((await describeWorkflow("acme/refused")).status, 404);
  });

  test('workflow add refuses a "mixdown/" slug and installs nothing', async () => {
    const file = fixture("reserved.json", masterDefinition("mixdown/master"));
    const result = await server.cli(["workflow", "add", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.ok(result.stderr.includes('slug: the "mixdown/" prefix is reserved for built-in workflows'), result.stderr);
    assert.ok(!(await listWorkflows()).some((wf) => wf.slug === "mixdown/master"));
    assert.equal((await describeWorkflow("mixdown/master")).status, 404);

    const validated = await server.cli(["workflow", "validate", file, "--json"]);
    assert.equal(validated.code, 1);
    assert.deepEqual(JSON.parse(validated.stdout), {
      slug: "mixdown/master",
      valid: false,
      errors: [{ field: "slug", message: 'the "mixdown/" prefix is reserved for built-in workflows' }],
    });
  });

  test("workflow add installs a valid definition: listed as custom by the CLI and the API, described as runnable", async () => {
    const definition = masterDefinition();
    const file = fixture("master-add.json", definition);
    const startedAt = Date.now();
    const result = await server.cli(["workflow", "add", file]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Added workflow "acme\/master"/);

    const listed = (await server.cli(["workflow", "list"])).stdout.split("\n");
    const line = listed.find((l) => l.startsWith("acme/master "));
    assert.ok(line, listed.join("\n"));
    assert.match(line, /^acme\/master +custom +ok +\S/);
    assert.match(listed.find((l) => l.startsWith("mixdown/convert ")) ?? "", /built-in +ok$/);
    const entry = (await cliList()).find((wf) => wf.slug === "acme/master");
    assert.ok(entry);
    assert.equal(entry.builtIn, false);
    assert.deepEqual(entry.errors, []);
    assert.equal(entry.source, "metadata store");

    const record = (await listWorkflows()).find((wf) => wf.slug === "acme/master");
    assert.ok(record, "GET /v1/workflow lists it");
    assert.deepEqual(Object.keys(record).sort(), ["createdAt", "description", "id", "name", "slug", "updatedAt"]);
    assert.equal(record.description, definition.description);
    assert.match(record.createdAt, ISO_UTC);
    assert.match(record.updatedAt, ISO_UTC);
    assert.equal(record.updatedAt, record.createdAt);
    assert.ok(Date.parse(record.createdAt) >= startedAt, `${record.createdAt} is when it was added`);

    const described = await eventually(
      () => describeWorkflow("acme/master"),
      (r) => r.status === 200,
    );
    assert.equal(described.status, 200, JSON.stringify(described.body));
    const body = described.body;
    assert.equal(body.slug, "acme/master");
    assert.equal(body.name, "Master");
    assert.equal(body.id, (record as unknown as { id: string }).id);
    assert.equal(body.createdAt, record.createdAt);
    assert.equal(body.updatedAt, record.updatedAt);
    assert.equal(body.builtIn, false);
    assert.equal(body.runnable, true);
    assert.deepEqual(body.errors, []);
    assert.deepEqual(body.inputSchema, definition.inputSchema);
    assert.deepEqual(body.outputs, {
      audio: { type: "audio", kind: "file URL", description: "The encoded audio" },
      loudness: {
        type: "number",
        kind: "inline value",
        description: "Integrated loudness, LUFS (null for silence)",
      },
    });
    assert.deepEqual(body.steps, [
      { id: "input", module: "fetch" },
      { id: "encode", module: "convert" },
      { id: "measure", module: "loudness" },
    ]);
  });

  test("workflow add installs a valid YAML definition", async () => {
    const result = await server.cli(["workflow", "add", fixture("probe-add.yaml", PROBE_YAML), "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const printed = JSON.parse(result.stdout);
    assert.equal(printed.slug, "acme/probe-yaml");
    assert.equal(printed.changed, true);
    assert.ok((await listWorkflows()).some((wf) => wf.slug === "acme/probe-yaml"));
    const described = await eventually(
      () => describeWorkflow("acme/probe-yaml"),
      (r) => r.status === 200,
    );
    assert.equal(described.status, 200, JSON.stringify(described.body));
    assert.equal(described.body.runnable, true);
    assert.deepEqual(described.body.outputs, {
      metadata: { type: "object", kind: "inline value", description: "The metadata" },
    });
    assert.deepEqual(described.body.inputSchema, {
      type: "object",
      required: ["inputUrl"],
      properties: { inputUrl: { type: "string", description: "URL of the input file" } },
    });
  });

  test("re-adding a changed definition keeps createdAt and moves updatedAt forward", async () => {
    const slug = "acme/revised";
    const first = await server.cli(["workflow", "add", fixture("revised-1.json", masterDefinition(slug))]);
    assert.equal(first.code, 0, first.stderr);
    const before = (await listWorkflows()).find((wf) => wf.slug === slug);
    assert.ok(before);

    const changed = { ...masterDefinition(slug), description: "Now with a better description." };
    const second = await server.cli(["workflow", "add", fixture("revised-2.json", changed)]);
    assert.equal(second.code, 0, second.stderr);
    const revised = (await listWorkflows()).find((wf) => wf.slug === slug);
    assert.ok(revised);
    assert.equal(revised.createdAt, before.createdAt);
    assert.match(revised.updatedAt, ISO_UTC);
    assert.ok(
      Date.parse(revised.updatedAt) > Date.parse(before.updatedAt),
      `${before.updatedAt} → ${revised.updatedAt}`,
    );
    assert.equal(revised.description, "Now with a better description.");

    const described = await eventually(
      () => describeWorkflow(slug),
      (r) => r.status === 200 && r.body.description === changed.description,
    );
    assert.equal(described.body.description, changed.description);
    assert.equal(described.body.createdAt, before.createdAt);
    assert.equal(described.body.updatedAt, revised.updatedAt);

    // The same definition again changes nothing.
    const again = await server.cli(["workflow", "add", fixture("revised-3.json", changed), "--json"]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { slug, changed: false });
    const unchanged = (await listWorkflows()).find((wf) => wf.slug === slug);
    assert.deepEqual(unchanged, revised);
  });

  test('workflow add keeps apart slugs that differ only in "/" and "__"', async () => {
    try {
      const first = await server.cli(["workflow", "add", fixture("twin-1.json", masterDefinition("acme/twin"))]);
      assert.equal(first.code, 0, first.stderr);
      const second = await server.cli(["workflow", "add", fixture("twin-2.json", masterDefinition("acme__twin"))]);
      assert.equal(second.code, 0, second.stderr);
      const custom = (await cliList()).map((wf) => wf.slug);
      assert.ok(custom.includes("acme__twin"), custom.join(", "));
      assert.ok(custom.includes("acme/twin"), `adding "acme__twin" must not replace "acme/twin": ${custom.join(", ")}`);
      const listed = (await listWorkflows()).map((wf) => wf.slug);
      assert.ok(listed.includes("acme/twin") && listed.includes("acme__twin"), listed.join(", "));
    } finally {
      for (const slug of ["acme/twin", "acme__twin"]) await server.cli(["workflow", "remove", slug]);
    }
  });

  test("workflow remove removes a custom workflow and refuses built-ins and unknown slugs", async () => {
    const slug = "acme/doomed";
    const added = await server.cli(["workflow", "add", fixture("doomed.json", masterDefinition(slug))]);
    assert.equal(added.code, 0, added.stderr);
    const present = await eventually(
      () => describeWorkflow(slug),
      (r) => r.status === 200,
    );
    assert.equal(present.status, 200);

    const removed = await server.cli(["workflow", "remove", slug]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Removed workflow "acme\/doomed"/);
    const gone = await eventually(
      () => describeWorkflow(slug),
      (r) => r.status === 404,
    );
    assert.equal(gone.status, 404, JSON.stringify(gone.body));
    assert.equal(gone.body.code, "WORKFLOW_NOT_FOUND");
    assert.ok(!(await listWorkflows()).some((wf) => wf.slug === slug));
    assert.ok(!(await cliList()).some((wf) => wf.slug === slug));

    const twice = await server.cli(["workflow", "remove", slug]);
    assert.equal(twice.code, 2);
    assert.match(twice.stderr, /no workflow "acme\/doomed"/);

    const builtIn = await server.cli(["workflow", "remove", "mixdown/convert"]);
    assert.equal(builtIn.code, 2);
    assert.match(builtIn.stderr, /"mixdown\/convert" is built in and cannot be removed/);
    assert.equal((await describeWorkflow("mixdown/convert")).status, 200);
    assert.ok((await listWorkflows()).some((wf) => wf.slug === "mixdown/convert"));
  });

  test("an invalid definition dropped into the workflows dir is described with its errors; jobs on it answer 422", async () => {
    fs.mkdirSync(workflowsDir, { recursive: true });
    const slug = "acme/dropped";
    fs.writeFileSync(path.join(workflowsDir, "acme__dropped.json"), JSON.stringify(brokenDefinition(slug)));

    const described = await eventually(
      () => describeWorkflow(slug),
      (r) => r.status === 200,
    );
    assert.equal(described.status, 200, JSON.stringify(described.body));
    assert.equal(described.body.runnable, false);
    assert.equal(described.body.builtIn, false);
    assert.deepEqual(described.body.errors, BROKEN_ERRORS);
    assert.match(described.body.createdAt, ISO_UTC);
    assert.ok((await listWorkflows()).some((wf) => wf.slug === slug));
    const listed = (await cliList()).find((wf) => wf.slug === slug);
    assert.deepEqual(listed?.errors, BROKEN_ERRORS);

    const job: ApiResponse = await server.api("POST", "/v1/job", {
      key: app.apiKey,
      body: { name: "on a broken workflow", workflow: slug, params: { inputUrl: "https://example.com/a.wav" } },
    });
    assert.equal(job.status, 422, JSON.stringify(job.body));
    assert.equal(job.body.code, "WORKFLOW_HAS_ERRORS");
    assert.equal(typeof job.body.message, "string");
    assert.deepEqual(job.body.details, BROKEN_ERRORS);
    const jobs = await server.api("GET", "/v1/job?size=1000", { key: app.apiKey });
    assert.deepEqual(jobs.body, [], "no job was created");

    const removed = await server.cli(["workflow", "remove", slug]);
    assert.equal(removed.code, 0, removed.stderr);
    const gone = await eventually(
      () => describeWorkflow(slug),
      (r) => r.status === 404,
    );
    assert.equal(gone.status, 404);
  });

  test('a file dropped into the workflows dir cannot take a "mixdown/" slug', async () => {
    fs.mkdirSync(workflowsDir, { recursive: true });
    const impostor = { ...masterDefinition("mixdown/convert"), name: "Impostor", description: "Not the built-in." };
    fs.writeFileSync(path.join(workflowsDir, "impostor.json"), JSON.stringify(impostor));
    fs.writeFileSync(path.join(workflowsDir, "squatter.json"), JSON.stringify(masterDefinition("mixdown/squatter")));
    // A marker written with them: once the server lists it, it has read the whole directory.
    fs.writeFileSync(path.join(workflowsDir, "marker.json"), JSON.stringify(masterDefinition("acme/marker")));
    const marker = await eventually(
      () => describeWorkflow("acme/marker"),
      (r) => r.status === 200,
    );
    assert.equal(marker.status, 200);

    const convert = await describeWorkflow("mixdown/convert");
    assert.equal(convert.body.name, "Convert audio");
    assert.equal(convert.body.builtIn, true);
    assert.equal((await describeWorkflow("mixdown/squatter")).status, 404);
    const slugs = (await listWorkflows()).map((wf) => wf.slug);
    assert.ok(!slugs.includes("mixdown/squatter"), slugs.join(", "));
    assert.equal(slugs.filter((s) => s === "mixdown/convert").length, 1);

    for (const name of ["impostor.json", "squatter.json", "marker.json"]) fs.rmSync(path.join(workflowsDir, name));
  });

  test("GET /v1/workflow/mixdown/convert describes the built-in; an unknown slug answers 404", async () => {
    const builtIn = JSON.parse(fs.readFileSync(BUILT_IN_CONVERT, "utf8"));
    for (const prefix of ["/v1", "/api"]) {
      const response = await server.api("GET", `${prefix}/workflow/mixdown/convert`, { key: app.apiKey });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const body = response.body;
      assert.equal(body.slug, "mixdown/convert");
      assert.equal(body.name, builtIn.name);
      assert.equal(body.description, builtIn.description);
      assert.equal(body.builtIn, true);
      assert.equal(body.runnable, true);
      assert.deepEqual(body.errors, []);
      assert.deepEqual(body.inputSchema, builtIn.inputSchema);
      assert.deepEqual(body.outputs, {
        output: { type: "audio", kind: "file URL", description: "The encoded audio" },
      });
      assert.deepEqual(body.steps, [
        { id: "input", module: "fetch" },
        { id: "encode", module: "convert" },
      ]);
      assert.match(body.createdAt, ISO_UTC);
      assert.match(body.updatedAt, ISO_UTC);
    }
    for (const slug of ["mixdown/nothing", "acme/nothing", "convert", "mixdown/convert/extra"]) {
      const response = await describeWorkflow(slug);
      assert.equal(response.status, 404, `${slug}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.code, "WORKFLOW_NOT_FOUND", slug);
    }
  });
});
