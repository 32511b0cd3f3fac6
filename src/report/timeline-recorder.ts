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
  /** What the fields are, when it needs saying (the default convergence test, fields the user chose). */
  note?: string;
}

/**
 * A field to chart as desired vs actual, chosen by the user (CheckOptions.reportFields): dotted
 * paths into the object, `[field=value]` picking a list element, or a constant desired value.
 * Booleans chart as 1/0, condition statuses `True`/`False` too.
 * @example { label: 'Ready', desired: 1, actual: 'status.conditions[type=Ready].status' }
 * @public
 */
export interface ReportField {
  /** @defaultValue the actual path */
  label?: string;
  desired: string | number;
  actual: string;
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
  /** spec/status hold the user's chosen fields by label. */
  chosen?: boolean;
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
export function createTimelineRecorder(kinds: readonly string[], fields?: readonly ReportField[]): { probe: Probe; timelines(): ObjectTimeline[] } {
  const chosen = fields && fields.length > 0 ? fields.slice(0, MAX_FIELDS) : undefined;
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
        if (chosen) {
          const desired = new Map<string, number>();
          const actual = new Map<string, number>();
          for (const f of chosen) {
            const label = f.label ?? f.actual;
            const d = typeof f.desired === 'number' ? f.desired : chartValue(valueAt(obj, f.desired));
            const a = chartValue(valueAt(obj, f.actual));
            if (d !== undefined) desired.set(label, d);
            if (a !== undefined) actual.set(label, a);
          }
          push(list, { t, spec: desired, status: actual, generation: obj.metadata.generation, observedGeneration: observed(obj), chosen: true });
        } else push(list, { t, spec: numericLeaves(obj.spec), status: numericLeaves(obj.status), generation: obj.metadata.generation, observedGeneration: observed(obj) });
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

/** The value at a dotted path (`status.conditions[type=Ready].status`), or undefined. */
function valueAt(obj: StoredObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    const m = /^([^[\]]+)(?:\[([^=\]]+)=([^\]]*)\])?$/.exec(part);
    if (!m || cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[m[1]!];
    if (m[2] !== undefined) cur = Array.isArray(cur) ? cur.find((x) => x !== null && typeof x === 'object' && String((x as Record<string, unknown>)[m[2]!]) === m[3]) : undefined;
  }
  return cur;
}

function chartValue(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'boolean' || v === 'True' || v === 'False') return v === true || v === 'True' ? 1 : 0;
  return undefined;
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
  const chosen = raws.some((r) => r.chosen);
  if (fields.length === 0 && !chosen) {
    return {
      kind,
      key,
      fields: ['generation'],
      t,
      desired: [raws.map((r) => r.generation ?? null)],
      actual: [raws.map((r) => (r.spec ? (r.observedGeneration ?? 0) : null))],
      note: 'metadata.generation (desired) vs status.observedGeneration (actual): what the default convergence test compares, as spec and status share no numeric field; choose fields with reportFields',
    };
  }
  const shown = chosen ? [...new Set(raws.flatMap((r) => [...(r.spec?.keys() ?? []), ...(r.status?.keys() ?? [])]))] : fields;
  return {
    kind,
    key,
    fields: shown,
    t,
    desired: shown.map((f) => raws.map((r) => r.spec?.get(f) ?? null)),
    actual: shown.map((f) => raws.map((r) => r.status?.get(f) ?? null)),
    ...(chosen ? { note: 'the fields chosen with reportFields' } : {}),
  };
}
