import type { Probe } from '../harness/property.js';
import type { WorldView } from '../harness/world.js';
import type { StoredObject } from '../store/object.js';

/**
 * Desired vs actual of one object over a run, columnar (the shape charts want). `fields` are the
 * compared fields, e.g. `['replicas']` for `spec.replicas` vs `status.replicas`, or
 * `['generation']` for `metadata.generation` vs `status.observedGeneration` when spec and status
 * share no numeric field. A `null` value means the object (or field) did not exist then.
 * @public
 */
export interface ObjectTimeline {
  kind: string;
  key: string;
  fields: string[];
  /** Virtual ms of each sample. */
  t: number[];
  /** desired[i][j]: field i at sample j. */
  desired: (number | null)[][];
  /** actual[i][j]: field i at sample j. */
  actual: (number | null)[][];
}

/** Limits keep a report small even for a hot-looping controller that writes thousands of times. */
const MAX_OBJECTS = 12;
const MAX_SAMPLES = 2000;
const MAX_FIELDS = 3;

interface Raw {
  t: number;
  /** undefined: object absent. */
  spec?: Map<string, number>;
  status?: Map<string, number>;
  generation?: number;
  observedGeneration?: number | undefined;
}

/**
 * Records desired vs actual of every primary object while a scenario runs, through an ordinary
 * probe (sampled after every store write), so the recorder never holds the world and the trace
 * stays unchanged. Used on the replay of a minimal failing scenario to draw the HTML timeline.
 * @param kinds - the primary kinds to follow
 * @example
 * const rec = createTimelineRecorder(['ReplicaSet']);
 * await simulate(scenario, { controllers: [c], probes: [rec.probe] });
 * const timelines = rec.timelines();
 * @public
 */
export function createTimelineRecorder(kinds: readonly string[]): { probe: Probe; timelines(): ObjectTimeline[] } {
  const samples = new Map<string, Raw[]>();
  const order: string[] = [];
  const sample = (view: WorldView): void => {
    const t = view.now();
    const seen = new Set<string>();
    for (const kind of kinds) {
      for (const obj of view.list(kind)) {
        const id = `${kind}\u0000${keyOf(obj)}`;
        seen.add(id);
        let list = samples.get(id);
        if (!list) {
          if (order.length >= MAX_OBJECTS) continue;
          list = [];
          samples.set(id, list);
          order.push(id);
        }
        push(list, { t, spec: numericLeaves(obj.spec), status: numericLeaves(obj.status), generation: obj.metadata.generation, observedGeneration: observed(obj) });
      }
    }
    for (const [id, list] of samples) if (!seen.has(id)) push(list, { t });
  };
  const probe: Probe = {
    name: 'steadystate:timeline',
    everyMs: 'write',
    phases: ['faults', 'settle', 'tail'],
    fn: (view) => {
      sample(view);
      return true;
    },
  };
  return {
    probe,
    timelines: () => order.map((id) => toTimeline(id, samples.get(id) ?? [])),
  };
}

function push(list: Raw[], raw: Raw): void {
  const last = list[list.length - 1];
  if (last && sameRaw(last, raw)) return;
  if (list.length >= MAX_SAMPLES) return;
  // several writes at one virtual instant: keep the latest state of that instant
  if (last && last.t === raw.t) list[list.length - 1] = raw;
  else list.push(raw);
}

function sameRaw(a: Raw, b: Raw): boolean {
  return a.generation === b.generation && a.observedGeneration === b.observedGeneration && sameMap(a.spec, b.spec) && sameMap(a.status, b.status);
}

function sameMap(a: Map<string, number> | undefined, b: Map<string, number> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function keyOf(obj: StoredObject): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

function observed(obj: StoredObject): number | undefined {
  const v = (obj.status as Record<string, unknown> | undefined)?.['observedGeneration'];
  return typeof v === 'number' ? v : undefined;
}

function numericLeaves(value: unknown, prefix = '', out = new Map<string, number>(), depth = 0): Map<string, number> {
  if (depth > 4 || value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'number' && Number.isFinite(v)) out.set(path, v);
    else if (typeof v === 'boolean') out.set(path, v ? 1 : 0);
    else numericLeaves(v, path, out, depth + 1);
  }
  return out;
}

function toTimeline(id: string, raws: Raw[]): ObjectTimeline {
  const [kind = '', key = ''] = id.split('\u0000');
  // fields present in both spec and status (observedGeneration is bookkeeping, not a field)
  const fields: string[] = [];
  for (const r of raws) {
    if (!r.spec || !r.status) continue;
    for (const p of [...r.spec.keys()].sort()) {
      if (fields.length >= MAX_FIELDS) break;
      if (p !== 'observedGeneration' && r.status.has(p) && !fields.includes(p)) fields.push(p);
    }
  }
  const t = raws.map((r) => r.t);
  if (fields.length === 0) {
    return {
      kind,
      key,
      fields: ['generation'],
      t,
      desired: [raws.map((r) => r.generation ?? null)],
      actual: [raws.map((r) => (r.spec ? (r.observedGeneration ?? 0) : null))],
    };
  }
  return {
    kind,
    key,
    fields,
    t,
    desired: fields.map((f) => raws.map((r) => r.spec?.get(f) ?? null)),
    actual: fields.map((f) => raws.map((r) => r.status?.get(f) ?? null)),
  };
}
