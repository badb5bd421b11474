import { parseReference } from "../engine/references.ts";
import type { WorkflowDefinition } from "../engine/types.ts";

/** A box of the drawing: a job param, a step or a result key. */
export interface GraphNode {
  key: string;
  kind: "param" | "step" | "output";
  label: string;
  sub: string;
  /** The label and sub-label in full (the drawing shortens long ones). */
  title: string;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  path: string;
}

export interface WorkflowGraph {
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** The same graph in words, for people who do not see the drawing. */
  summary: string;
}

const NODE_W = 148;
const NODE_H = 44;
const GAP_X = 44;
const GAP_Y = 16;
const PAD = 8;
const MAX_LABEL = 19;

const short = (text: string) => (text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text);

/**
 * Lays out a workflow's DAG left to right: params, then each step one column after the latest step it
 * reads, then the outputs. Drawn by the template as SVG on the server, so the page needs no script.
 */
export function layoutGraph(def: WorkflowDefinition): WorkflowGraph {
  const steps = Array.isArray(def.steps) ? def.steps.filter((s) => s && typeof s.id === "string") : [];
  const stepIds = new Set(steps.map((s) => s.id));
  const sources = new Map<string, Set<string>>();
  const params = new Set<string>();
  for (const step of steps) {
    const from = new Set<string>();
    for (const value of [...Object.values(step.params ?? {}), ...Object.values(step.inputs ?? {})]) {
      const ref = parseReference(value);
      if (!ref || ref === "malformed") continue;
      if (ref.kind === "param") {
        params.add(ref.name);
        from.add(`param:${ref.name}`);
      } else if (stepIds.has(ref.step)) from.add(`step:${ref.step}`);
    }
    sources.set(`step:${step.id}`, from);
  }
  const outputs = Object.entries(def.outputs && typeof def.outputs === "object" ? def.outputs : {}).map(
    ([key, ref]) => {
      const parsed = parseReference(ref);
      const from = parsed && parsed !== "malformed" && parsed.kind === "step" ? parsed.step : undefined;
      return { key, from: from && stepIds.has(from) ? `step:${from}` : undefined };
    },
  );

  // Column of each step: one after its latest source; a cycle (an invalid definition) is cut where met.
  const column = new Map<string, number>();
  const visiting = new Set<string>();
  const columnOf = (key: string): number => {
    if (key.startsWith("param:")) return 0;
    const known = column.get(key);
    if (known !== undefined) return known;
    if (visiting.has(key)) return 0;
    visiting.add(key);
    const value = 1 + Math.max(0, ...[...(sources.get(key) ?? [])].map(columnOf));
    visiting.delete(key);
    column.set(key, value);
    return value;
  };
  for (const step of steps) columnOf(`step:${step.id}`);
  const lastStepColumn = Math.max(0, ...column.values());

  const placed: (Omit<GraphNode, "x" | "y" | "title"> & { column: number })[] = [
    ...[...params].map((name) => ({
      key: `param:${name}`,
      kind: "param" as const,
      label: name,
      sub: "job param",
      column: 0,
    })),
    ...steps.map((s) => ({
      key: `step:${s.id}`,
      kind: "step" as const,
      label: s.id,
      sub: String(s.module),
      column: column.get(`step:${s.id}`) ?? 1,
    })),
    ...outputs.map((o) => ({
      key: `output:${o.key}`,
      kind: "output" as const,
      label: o.key,
      sub: "result",
      column: lastStepColumn + 1,
    })),
  ];
  const rows = new Map<number, number>();
  const laid: GraphNode[] = placed.map(({ column: col, ...node }) => {
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    const title = `${node.label} (${node.sub})`;
    return { ...node, title, x: PAD + col * (NODE_W + GAP_X), y: PAD + row * (NODE_H + GAP_Y) };
  });
  const at = new Map(laid.map((n) => [n.key, n]));

  const edges: GraphEdge[] = [];
  const connect = (from: string, to: string) => {
    const a = at.get(from);
    const b = at.get(to);
    if (!a || !b) return;
    const x1 = a.x + NODE_W;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x - 6;
    const y2 = b.y + NODE_H / 2;
    const bend = Math.max(24, (x2 - x1) / 2);
    edges.push({ from, to, path: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}` });
  };
  for (const [to, from] of sources) for (const source of from) connect(source, to);
  for (const o of outputs) if (o.from) connect(o.from, `output:${o.key}`);

  const columns = Math.max(0, ...[...rows.keys()]) + 1;
  const tallest = Math.max(1, ...rows.values());
  const describe = (key: string) => at.get(key)?.label ?? key;
  const summary = [
    ...steps.map((s) => {
      const from = [...(sources.get(`step:${s.id}`) ?? [])].map(describe);
      return `step ${s.id} (${s.module})${from.length ? ` reads ${from.join(", ")}` : ""}`;
    }),
    ...outputs.map((o) => `result ${o.key}${o.from ? ` from ${describe(o.from)}` : ""}`),
  ].join("; ");
  return {
    width: PAD * 2 + columns * NODE_W + (columns - 1) * GAP_X,
    height: PAD * 2 + tallest * NODE_H + (tallest - 1) * GAP_Y,
    nodeWidth: NODE_W,
    nodeHeight: NODE_H,
    nodes: laid.map((n) => ({ ...n, label: short(n.label), sub: short(n.sub) })),
    edges,
    summary,
  };
}
