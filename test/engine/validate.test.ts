import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import type { DefinitionError } from "../../src/engine/types.ts";
import { validateDefinition } from "../../src/engine/validate.ts";
import { MODULES } from "../../src/modules/index.ts";
import { checkDefinition } from "../../src/workflows/registry.ts";

const BUILT_IN_DIR = path.resolve(import.meta.dirname, "../../src/workflows/builtin");
const KNOWN_MODULES = [...MODULES.keys()].sort().join(", ");

/**
 * A sound definition using several modules, value and file ports, $params in inputs and in params:
 * input, other (fetch) → mix → encode (convert) → measure (loudness).
 */
function base(): any {
  return {
    slug: "acme/master",
    name: "Master",
    description: "Mixes two files, encodes the mix and measures its loudness.",
    inputSchema: {
      type: "object",
      required: ["inputUrl", "otherUrl", "format"],
      additionalProperties: false,
      properties: {
        inputUrl: { type: "string", format: "uri" },
        otherUrl: { type: "string", format: "uri" },
        format: { enum: ["mp3", "wav", "flac"] },
        gain: { type: "number", minimum: 0, maximum: 4 },
      },
    },
    steps: [
      { id: "input", module: "fetch", inputs: { url: "$params.inputUrl" } },
      { id: "other", module: "fetch", inputs: { url: "$params.otherUrl" } },
      {
        id: "mix",
        module: "mix",
        params: { format: "wav", gainA: "$params.gain" },
        inputs: { a: "$steps.input.file", b: "$steps.other.file" },
      },
      { id: "encode", module: "convert", params: { format: "$params.format" }, inputs: { audio: "$steps.mix.audio" } },
      { id: "measure", module: "loudness", inputs: { audio: "$steps.encode.audio" } },
    ],
    outputs: { output: "$steps.encode.audio", loudness: "$steps.measure.integratedLoudness" },
  };
}

/** The errors of the base definition after `mutate` broke it. */
function errorsAfter(mutate: (def: any) => void): DefinitionError[] {
  const def = base();
  mutate(def);
  return validateDefinition(def, MODULES);
}

describe("validateDefinition", () => {
  test("the base definition used below is valid", () => {
    assert.deepEqual(validateDefinition(base(), MODULES), []);
  });

  test("every built-in definition validates with no errors", () => {
    const files = fs.readdirSync(BUILT_IN_DIR).filter((f) => f.endsWith(".json"));
    assert.ok(files.length >= 6, `built-ins found: ${files.join(", ")}`);
    for (const file of files) {
      const raw = JSON.parse(fs.readFileSync(path.join(BUILT_IN_DIR, file), "utf8"));
      assert.deepEqual(validateDefinition(raw, MODULES), [], file);
      assert.deepEqual(checkDefinition(raw, MODULES, true), [], `${file} as a built-in`);
    }
  });

  test("an unknown module is reported on the step, listing the known modules", () => {
    const errors = errorsAfter((def) => {
      def.steps[4].module = "reverb";
    });
    assert.deepEqual(errors, [
      { field: "steps[4].module", message: `unknown module "reverb"; known: ${KNOWN_MODULES}` },
    ]);
  });

  test("a reference to an unknown step (dangling) is reported on the input", () => {
    const errors = errorsAfter((def) => {
      def.steps[3].inputs.audio = "$steps.nothing.audio";
    });
    assert.deepEqual(errors, [{ field: "steps[3].inputs.audio", message: 'references unknown step "nothing"' }]);
  });

  test("a reference to an unknown output of a known step lists that step's outputs", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[3].inputs.audio = "$steps.mix.peaks";
      }),
      [
        {
          field: "steps[3].inputs.audio",
          message: 'step "mix" (module "mix") has no output "peaks"; its outputs: audio, scale',
        },
      ],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps.push({
          id: "rms",
          module: "convert",
          params: { format: "wav" },
          inputs: { audio: "$steps.measure.rms" },
        });
      }),
      [
        {
          field: "steps[5].inputs.audio",
          message:
            'step "measure" (module "loudness") has no output "rms"; its outputs: integratedLoudness, loudnessRange, truePeak',
        },
      ],
    );
  });

  test("a reference to a job param missing from inputSchema, in an input and in a param", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[0].inputs.url = "$params.sourceUrl";
      }),
      [
        {
          field: "steps[0].inputs.url",
          message: 'references job param "sourceUrl", which the input schema does not define',
        },
      ],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[3].params.format = "$params.codec";
      }),
      [
        {
          field: "steps[3].params.format",
          message: 'references job param "codec", which the input schema does not define',
        },
      ],
    );
  });

  test("a malformed reference string in an input", () => {
    for (const value of ["$steps.mix", "$steps.mix.audio.left", "$step.mix.audio", "$steps.1mix.audio", "$params."]) {
      assert.deepEqual(
        errorsAfter((def) => {
          def.steps[3].inputs.audio = value;
        }),
        [{ field: "steps[3].inputs.audio", message: `malformed reference "${value}"` }],
        value,
      );
    }
  });

  test("a malformed reference string in a param is reported once (not also as a missing required param)", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[3].params.format = "$param.format";
      }),
      [{ field: "steps[3].params.format", message: 'malformed reference "$param.format"' }],
    );
  });

  test("a step output referenced from params is reported once (not also as a missing required param)", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[3].params.format = "$steps.mix.audio";
      }),
      [
        {
          field: "steps[3].params.format",
          message: "params may reference job params only; connect step outputs to inputs",
        },
      ],
    );
  });

  test("a cycle: two steps feeding each other, and a step feeding itself", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[2].inputs.a = "$steps.encode.audio";
      }),
      [{ field: "steps", message: "cycle between steps: mix → encode → mix" }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[3].inputs.audio = "$steps.encode.audio";
      }),
      [{ field: "steps", message: "cycle between steps: encode → encode" }],
    );
  });

  test("type mismatch: a number output into an audio input", () => {
    const errors = errorsAfter((def) => {
      def.steps.push({ id: "level", module: "loudness", inputs: { audio: "$steps.input.file" } });
      def.steps[3].inputs.audio = "$steps.level.integratedLoudness";
    });
    assert.deepEqual(errors, [
      {
        field: "steps[3].inputs.audio",
        message: "type mismatch: input expects an audio file but $steps.level.integratedLoudness is a number",
      },
    ]);
  });

  test('type mismatch: the "$params.inputUrl" string straight into an audio input', () => {
    const errors = errorsAfter((def) => {
      def.steps[3].inputs.audio = "$params.inputUrl";
    });
    assert.deepEqual(errors, [
      {
        field: "steps[3].inputs.audio",
        message: "type mismatch: input expects an audio file but $params.inputUrl is a string",
      },
    ]);
  });

  test("type mismatch: a json file output into an audio input", () => {
    const errors = errorsAfter((def) => {
      def.steps.push({ id: "wave", module: "waveform", inputs: { audio: "$steps.input.file" } });
      def.steps[3].inputs.audio = "$steps.wave.peaks";
    });
    assert.deepEqual(errors, [
      {
        field: "steps[3].inputs.audio",
        message: "type mismatch: input expects an audio file but $steps.wave.peaks is a json file",
      },
    ]);
  });

  test("type mismatch: a literal value into a file input", () => {
    const errors = errorsAfter((def) => {
      def.steps[3].inputs.audio = "https://example.com/a.wav";
    });
    assert.deepEqual(errors, [
      { field: "steps[3].inputs.audio", message: "expects an audio file, which only a step output can supply" },
    ]);
  });

  test("type mismatch: number and object values into a string input", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[0].inputs.url = "$params.gain";
      }),
      [{ field: "steps[0].inputs.url", message: "type mismatch: input expects a string but $params.gain is a number" }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[0].inputs.url = 42;
      }),
      [{ field: "steps[0].inputs.url", message: "type mismatch: input expects a string but 42 is a number" }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps.push({ id: "meta", module: "probe", inputs: { audio: "$steps.input.file" } });
        def.steps[1].inputs.url = "$steps.meta.metadata";
      }),
      [
        {
          field: "steps[1].inputs.url",
          message: "type mismatch: input expects a string but $steps.meta.metadata is an object",
        },
      ],
    );
  });

  test("type mismatch: a job param of the wrong type into a module param", () => {
    // gainA is a number param of "mix"; inputUrl is a string job param: no job can ever satisfy it.
    const errors = errorsAfter((def) => {
      def.steps[2].params.gainA = "$params.inputUrl";
    });
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(errors[0]?.field, "steps[2].params.gainA");
    assert.match(errors[0]?.message ?? "", /number/);
    assert.match(errors[0]?.message ?? "", /string/);
  });

  test("invalid module params: a value outside the enum", () => {
    const errors = errorsAfter((def) => {
      def.steps[2].params.format = "aiff";
    });
    assert.deepEqual(errors, [
      {
        field: "steps[2].params.format",
        message: 'invalid params for module "mix": must be equal to one of the allowed values',
      },
    ]);
  });

  test('invalid module params: a literal "$$" escape is checked as the literal it stands for', () => {
    const errors = errorsAfter((def) => {
      def.steps[3].params.format = "$$params.format";
    });
    assert.deepEqual(errors, [
      {
        field: "steps[3].params.format",
        message: 'invalid params for module "convert": must be equal to one of the allowed values',
      },
    ]);
  });

  test("invalid module params: wrong type, and out of range", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[2].params.gainB = "loud";
      }),
      [{ field: "steps[2].params.gainB", message: 'invalid params for module "mix": must be number' }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps[2].params.gainB = 9;
      }),
      [{ field: "steps[2].params.gainB", message: 'invalid params for module "mix": must be <= 4' }],
    );
  });

  test("invalid module params: an unknown param is named", () => {
    const errors = errorsAfter((def) => {
      def.steps[2].params.volume = 2;
    });
    assert.deepEqual(errors, [
      {
        field: "steps[2].params.volume",
        message: 'module "mix" has no param "volume"; its params: format, gainA, gainB',
      },
    ]);
  });

  test("invalid module params: a required param left out names it once", () => {
    const errors = errorsAfter((def) => {
      delete def.steps[3].params;
    });
    assert.deepEqual(errors, [
      { field: "steps[3].params", message: 'invalid params for module "convert": must have "format"' },
    ]);
  });

  test("a required input left unconnected", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        delete def.steps[2].inputs.b;
      }),
      [{ field: "steps[2].inputs.b", message: 'required input of module "mix" is not connected' }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        delete def.steps[4].inputs;
      }),
      [{ field: "steps[4].inputs.audio", message: 'required input of module "loudness" is not connected' }],
    );
  });

  test("an unknown input name lists the module's inputs", () => {
    const errors = errorsAfter((def) => {
      def.steps[2].inputs.c = "$steps.input.file";
    });
    assert.deepEqual(errors, [
      { field: "steps[2].inputs.c", message: 'module "mix" has no input "c"; its inputs: a, b' },
    ]);
  });

  test("an output key referencing nothing: unknown step, unknown output, not a step reference", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.outputs.output = "$steps.nothing.audio";
      }),
      [{ field: "outputs.output", message: 'references unknown step "nothing"' }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.outputs.output = "$steps.encode.image";
      }),
      [{ field: "outputs.output", message: 'step "encode" (module "convert") has no output "image"' }],
    );
    for (const value of ["audio.wav", "$params.inputUrl", "$steps.encode", ""]) {
      assert.deepEqual(
        errorsAfter((def) => {
          def.outputs.output = value;
        }),
        [{ field: "outputs.output", message: `must reference a step output ("$steps.STEP.OUTPUT"), got "${value}"` }],
        value,
      );
    }
  });

  test("an input schema that is not valid JSON Schema", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.inputSchema.type = "nonsense";
      }),
      [
        {
          field: "inputSchema",
          message:
            "is not a valid JSON Schema: /type must be equal to one of the allowed values; /type must be array; /type must match a schema in anyOf",
        },
      ],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.inputSchema.properties.gain.minimum = "zero";
      }),
      [{ field: "inputSchema", message: "is not a valid JSON Schema: /properties/gain/minimum must be number" }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        def.inputSchema.properties.gain = { $ref: "#/$defs/nowhere" };
      }),
      [
        {
          field: "inputSchema",
          message: "is not a valid JSON Schema: can't resolve reference #/$defs/nowhere from id #",
        },
      ],
    );
  });

  test("duplicate step ids", () => {
    const errors = errorsAfter((def) => {
      def.steps.push({ id: "measure", module: "loudness", inputs: { audio: "$steps.mix.audio" } });
    });
    assert.deepEqual(errors, [{ field: "steps[5].id", message: 'duplicate step id "measure"' }]);
  });

  test("shape: missing top-level fields, each named", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        delete def.slug;
      }),
      [{ field: "definition", message: 'must have "slug"' }],
    );
    assert.deepEqual(
      errorsAfter((def) => {
        delete def.name;
        delete def.steps;
        delete def.outputs;
      }),
      [
        { field: "definition", message: 'must have "name"' },
        { field: "definition", message: 'must have "steps"' },
        { field: "definition", message: 'must have "outputs"' },
      ],
    );
    for (const raw of [undefined, null, "a workflow", 42, []]) {
      assert.deepEqual(
        validateDefinition(raw, MODULES),
        [{ field: "definition", message: "must be object" }],
        JSON.stringify(raw),
      );
    }
  });

  test("shape: wrongly typed or empty top-level fields", () => {
    assert.deepEqual(
      errorsAfter((def) => {
        def.steps = [];
        def.outputs = {};
        def.inputSchema = [];
      }),
      [
        { field: "inputSchema", message: "must be object" },
        { field: "steps", message: "must NOT have fewer than 1 items" },
        { field: "outputs", message: "must NOT have fewer than 1 properties" },
      ],
    );
  });

  test("shape: a malformed step is named the way other step errors are (steps[N])", () => {
    const errors = errorsAfter((def) => {
      delete def.steps[1].module;
    });
    assert.deepEqual(errors, [{ field: "steps[1]", message: 'must have "module"' }]);
  });

  test('the reserved "mixdown/" prefix is refused for custom workflows only', () => {
    const def = base();
    def.slug = "mixdown/master";
    assert.deepEqual(validateDefinition(def, MODULES), []);
    assert.deepEqual(checkDefinition(def, MODULES, false), [
      { field: "slug", message: 'the "mixdown/" prefix is reserved for built-in workflows' },
    ]);
    assert.deepEqual(checkDefinition(def, MODULES, true), []);
    def.slug = "acme/mixdown";
    assert.deepEqual(checkDefinition(def, MODULES, false), []);
  });

  test("a definition with several problems reports all of them", () => {
    const errors = errorsAfter((def) => {
      def.inputSchema.properties.gain.maximum = "four";
      def.steps[0].inputs.url = "$params.sourceUrl";
      def.steps[2].inputs.c = "$steps.other.file";
      def.steps[3].inputs.audio = "$steps.nothing.audio";
      def.steps[4].module = "reverb";
      def.steps.push({ id: "mix", module: "probe", inputs: { audio: "$steps.input.file" } });
      def.outputs.extra = "nothing";
    });
    assert.deepEqual(errors, [
      { field: "inputSchema", message: "is not a valid JSON Schema: /properties/gain/maximum must be number" },
      { field: "steps[5].id", message: 'duplicate step id "mix"' },
      {
        field: "steps[0].inputs.url",
        message: 'references job param "sourceUrl", which the input schema does not define',
      },
      { field: "steps[2].inputs.c", message: 'module "mix" has no input "c"; its inputs: a, b' },
      { field: "steps[3].inputs.audio", message: 'references unknown step "nothing"' },
      { field: "steps[4].module", message: `unknown module "reverb"; known: ${KNOWN_MODULES}` },
      { field: "outputs.extra", message: 'must reference a step output ("$steps.STEP.OUTPUT"), got "nothing"' },
    ]);
  });
});
