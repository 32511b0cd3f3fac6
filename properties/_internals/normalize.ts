import type { StoredObject } from '../../src/store/object.js';
import { readDownstream } from './downstream-state.js';
import { at, diffPaths, isRecord, stable } from './json.js';
import { fmtList, fmtValue } from '../../src/report/explain.js';

/**
 * Normalized end states, so two runs can be compared (same-end-state, recovery): uids,
 * resourceVersions and timestamps are replaced, generated names become their prefix, owner
 * references name their owner instead of its uid, and user masks drop fields that may differ.
 * @internal
 */

/** Options of {@link normalizeState}. */
export interface NormalizeOptions {
  /** Kinds left out entirely (leader-election Leases differ in timing by nature). */
  ignoreKinds: readonly string[];
  /**
   * Field paths dropped before comparing, dotted, `*` matching any one segment:
   * `status.lastSyncTime`, `metadata.annotations.*`, `downstream.*.createdAt`.
   */
  masks: readonly string[];
  /** Replace RFC 3339 timestamps anywhere with `<time>`. */
  timestamps: boolean;
  /** Include the fake downstream services' resources (ids dropped). */
  downstream: boolean;
  /**
   * uids of objects the run created (see {@link uidAliases}), also ones gone by the end: names
   * and values holding one compare by whose uid it is. @defaultValue none
   */
  uidAliases?: ReadonlyMap<string, string>;
  /**
   * Compare id-named fields holding a downstream resource's id by that resource's content, also
   * when the resources themselves are not compared. @defaultValue the value of `downstream`
   */
  externalIds?: boolean;
}

/** id (`Kind namespace/name`, generated names as `prefix*`, duplicates `#2`…) → normalized value. */
export type NormalizedState = Map<string, unknown>;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const INTERNAL_ANNOTATION = 'steadystate.dev/';
const ID_FIELD = /(^id|Id|ID)s?$/;

function withoutId(body: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = body;
  return rest;
}

function normName(o: StoredObject, aliases?: ReadonlyMap<string, string>): string {
  const g = o.metadata.generateName;
  const name = g !== undefined && g !== '' && o.metadata.name.startsWith(g) ? `${g}*` : aliases ? aliasUids(o.metadata.name, aliases) : o.metadata.name;
  return o.metadata.namespace ? `${o.metadata.namespace}/${name}` : name;
}

/** The parts of a write record {@link uidAliases} reads. */
interface CreateFacts {
  verb: string;
  kind: string;
  key: string;
  uid?: string | undefined;
  error?: string | undefined;
}

/**
 * uid → `<uid of Kind key>` for every object a run created, also the ones gone by its end. The
 * server hands uids out in creation order, which faults change, so a name that embeds another
 * object's uid (`audit-<uid>-g2`, a deterministic child name that survives recreation) compares
 * by whose uid it holds.
 */
export function uidAliases(writes: readonly CreateFacts[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of writes) if (w.verb === 'create' && w.error === undefined && w.uid !== undefined && w.uid !== '') out.set(w.uid, `<uid of ${w.kind} ${w.key}>`);
  return out;
}

const aliasPatterns = new WeakMap<ReadonlyMap<string, string>, RegExp | null>();

/** `name` with every uid of `aliases` it holds (between non-alphanumerics) replaced by its alias, in one pass. */
export function aliasUids(name: string, aliases: ReadonlyMap<string, string>): string {
  let re = aliasPatterns.get(aliases);
  if (re === undefined) {
    const uids = [...aliases.keys()].sort((a, b) => b.length - a.length).map((u) => u.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    re = uids.length === 0 ? null : new RegExp(`(?<![A-Za-z0-9])(?:${uids.join('|')})(?![A-Za-z0-9])`, 'g');
    aliasPatterns.set(aliases, re);
  }
  return re === null ? name : name.replace(re, (u) => aliases.get(u) ?? u);
}

/** Normalizes objects (and, when asked, the downstream state) into comparable values. */
export function normalizeState(objects: readonly StoredObject[], downstream: unknown, options: NormalizeOptions): NormalizedState {
  const ignore = new Set(options.ignoreKinds);
  const kept = objects.filter((o) => !ignore.has(o.kind));
  const aliases = options.uidAliases;
  const uidNames = new Map<string, string>(aliases ?? []);
  for (const o of objects) uidNames.set(o.metadata.uid, `<uid of ${o.kind} ${normName(o, aliases)}>`);
  const masks = options.masks.map((m) => m.split('.'));
  // Downstream ids are handed out in creation order, which faults reorder: an id-named field
  // (`recordId`, `bucketID`, `externalId`) holding one compares by the resource it names.
  const mapIds = options.externalIds ?? options.downstream;
  const services = options.downstream || mapIds ? readDownstream(downstream) : [];
  const externalNames = new Map<string, string>();
  let naming = false;
  const scrub = (v: unknown, field = ''): unknown => {
    if (typeof v === 'string') {
      const u = uidNames.get(v);
      if (u !== undefined) return u;
      const e = ID_FIELD.test(field) && !naming ? externalNames.get(v) : undefined;
      if (e !== undefined) return e;
      return options.timestamps && TIMESTAMP.test(v) ? '<time>' : v;
    }
    if (Array.isArray(v)) return v.map((x) => scrub(x, field));
    if (isRecord(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = scrub(x, k);
      return out;
    }
    return v;
  };
  // a resource is named by its content as the rest is compared (uids named, timestamps
  // normalized): a snapshot taken later, or for an owner with another uid, is the same snapshot
  naming = true;
  if (mapIds) for (const s of services) for (const r of s.resources) if (!externalNames.has(r.id)) externalNames.set(r.id, `<id of a ${s.name} resource ${stable(scrub(withoutId(r.body)))}>`);
  naming = false;
  const entries: [string, unknown][] = [];
  for (const o of kept) {
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, deletionTimestamp, generateName: _g, name: _n, ...meta } = o.metadata;
    const annotations: Record<string, string> = {};
    for (const [k, v] of Object.entries(meta.annotations ?? {})) if (!k.startsWith(INTERNAL_ANNOTATION)) annotations[k] = v;
    const value = scrub({
      kind: o.kind,
      metadata: {
        ...meta,
        annotations,
        ownerReferences: (meta.ownerReferences ?? []).map((r) => ({ ...r, uid: uidNames.get(r.uid) ?? '<uid of a deleted owner>' })),
        ...(deletionTimestamp !== undefined ? { deletionTimestamp: '<set>' } : {}),
      },
      spec: o.spec,
      status: o.status,
    });
    entries.push([`${o.kind} ${normName(o, aliases)}`, applyMasks(value, masks)]);
  }
  if (options.downstream) {
    for (const s of services) {
      for (const r of s.resources) {
        const { id: _id, ...body } = r.body;
        const value = scrub({ downstream: { [s.name]: body } });
        entries.push([`downstream ${s.name}${r.collection ? `/${r.collection}` : ''}`, (applyMasks(value, masks) as { downstream: Record<string, unknown> }).downstream[s.name]]);
      }
    }
  }
  // equal ids (generated names, downstream resources) are told apart by content, so they compare as multisets
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : stable(a[1]) < stable(b[1]) ? -1 : 1));
  const out: NormalizedState = new Map();
  for (const [id, v] of entries) {
    let k = id;
    for (let i = 2; out.has(k); i++) k = `${id} #${i}`;
    out.set(k, v);
  }
  return out;
}

function applyMasks(value: unknown, masks: readonly string[][]): unknown {
  let v = value;
  for (const m of masks) v = dropPath(v, m);
  return v;
}

function dropPath(v: unknown, path: readonly string[]): unknown {
  if (path.length === 0) return v;
  const [head, ...rest] = path as [string, ...string[]];
  // `*` also matches every element of a list (`status.conditions.*.observedGeneration`)
  if (Array.isArray(v)) return head === '*' ? v.map((x) => (rest.length === 0 ? undefined : dropPath(x, rest))).filter((x) => x !== undefined) : v;
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = { ...v };
  for (const k of head === '*' ? Object.keys(out) : [head]) {
    if (!(k in out)) continue;
    if (rest.length === 0) delete out[k];
    else out[k] = dropPath(out[k], rest);
  }
  return out;
}

/** One difference between two normalized states. */
export interface StateDifference {
  id: string;
  /** `missing` in the run, `extra` in the run, or the field paths that differ. */
  change: 'missing' | 'extra' | 'differs';
  paths: string[];
  expected: unknown;
  actual: unknown;
}

/** Differences between an expected and an actual normalized state, in id order. */
export function compareStates(expected: NormalizedState, actual: NormalizedState): StateDifference[] {
  const out: StateDifference[] = [];
  for (const id of [...new Set([...expected.keys(), ...actual.keys()])].sort()) {
    const e = expected.get(id);
    const a = actual.get(id);
    if (!expected.has(id)) out.push({ id, change: 'extra', paths: [], expected: null, actual: a });
    else if (!actual.has(id)) out.push({ id, change: 'missing', paths: [], expected: e, actual: null });
    else {
      const paths = diffPaths(e, a);
      if (paths.length > 0) out.push({ id, change: 'differs', paths, expected: e, actual: a });
    }
  }
  return out;
}

/**
 * A difference in words, from the point of view of the run judged: `ReplicaSet default/web:
 * status.replicas is 2, expected 3` / `Pod default/web-* exists, but not in the expected state`.
 */
export function fmtDifference(d: StateDifference, expectedName: string): string {
  if (d.change === 'extra') return `${d.id} exists, but not in ${expectedName}`;
  if (d.change === 'missing') return `${d.id} is missing (it exists in ${expectedName})`;
  const parts = d.paths.slice(0, 3).map((p) => (p === '.' ? `it is ${fmtValue(d.actual, 60)}, ${fmtValue(d.expected, 60)} in ${expectedName}` : `${p} is ${fmtValue(at(d.actual, p), 40)}, ${fmtValue(at(d.expected, p), 40)} in ${expectedName}`));
  return `${d.id}: ${fmtList(parts, 3)}${d.paths.length > 3 ? ` (${d.paths.length - 3} more fields differ)` : ''}`;
}
