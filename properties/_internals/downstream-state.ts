import type { RunRecord } from '../../src/harness/property.js';
import { at, isRecord, stable } from './json.js';

/**
 * Reads `RunRecord.downstream` (the fake services' state at the end of a run) into one shape.
 * The harness's `DownstreamState` (src/downstream/run-downstream.ts) is
 * `{ services: [{ name, baseUrl, createdCount, resources: [{ id, body }], byOwner: [{ collection, owner, count, ids }] }] }`;
 * also accepted, so custom downstreams can feed the properties: a bare array of services,
 * resources given as plain objects with an `id`, or as `{ [collection]: resource[] }`, and
 * `null`/absent (no fake services). Anything else reads as no services.
 * @internal
 */

/** One stored external resource. */
export interface ExternalResource {
  id: string;
  /** Collection, when the state says (grouping by owner is per collection when known). */
  collection: string | undefined;
  body: Record<string, unknown>;
}

/** One fake service at the end of the run. */
export interface ServiceSnapshot {
  name: string;
  baseUrl: string;
  createdCount: number | undefined;
  resources: ExternalResource[];
  /** Groups by the service's default owner field, when the state carries them. */
  groups: { collection: string; owner: string; ids: string[] }[] | undefined;
  /** Creates, deletes and out-of-band removals in order, when the state carries them (else empty). */
  history: ExternalChange[];
  /** Edits of existing resources in order, when the state carries them (else empty). */
  edits: ExternalEdit[];
}

/** One edit of an existing resource (the fake service's `edits()`): by a request or out of band. */
export interface ExternalEdit {
  via: 'request' | 'out-of-band';
  collection: string;
  id: string;
  fields: string[];
  body: Record<string, unknown>;
}

/** One change of a service's resources (the fake service's `history()`). */
export interface ExternalChange {
  op: 'create' | 'delete' | 'remove';
  collection: string;
  id: string;
  body: Record<string, unknown>;
}

/** Resources of one service and collection sharing one owner value. */
export interface OwnerGroup {
  service: string;
  collection: string;
  owner: string;
  ids: string[];
  resources: ExternalResource[];
}

/** The services in a downstream state (see the module comment for accepted shapes). */
export function readDownstream(state: unknown): ServiceSnapshot[] {
  const list = Array.isArray(state) ? state : isRecord(state) && Array.isArray(state['services']) ? state['services'] : [];
  const out: ServiceSnapshot[] = [];
  for (const s of list) {
    if (!isRecord(s)) continue;
    const name = typeof s['name'] === 'string' ? s['name'] : typeof s['baseUrl'] === 'string' ? s['baseUrl'] : `service ${out.length + 1}`;
    const baseUrl = typeof s['baseUrl'] === 'string' ? s['baseUrl'] : name;
    const createdCount = typeof s['createdCount'] === 'number' ? s['createdCount'] : undefined;
    const resources = readResources(s['resources']);
    const byOwner = Array.isArray(s['byOwner']) ? s['byOwner'] : undefined;
    const groups = byOwner?.filter(isRecord).map((g) => ({
      collection: String(g['collection'] ?? ''),
      owner: String(g['owner'] ?? ''),
      ids: Array.isArray(g['ids']) ? g['ids'].map(String) : Array.isArray(g['resources']) ? g['resources'].filter(isRecord).map((r) => String(r['id'])) : [],
    }));
    const history: ExternalChange[] = [];
    if (Array.isArray(s['history'])) {
      for (const c of s['history']) {
        if (!isRecord(c) || (c['op'] !== 'create' && c['op'] !== 'delete' && c['op'] !== 'remove') || !isRecord(c['body'])) continue;
        history.push({ op: c['op'], collection: String(c['collection'] ?? ''), id: String(c['id'] ?? c['body']['id'] ?? ''), body: c['body'] });
      }
    }
    const edits: ExternalEdit[] = [];
    if (Array.isArray(s['edits'])) {
      for (const e of s['edits']) {
        if (!isRecord(e) || (e['via'] !== 'request' && e['via'] !== 'out-of-band') || !isRecord(e['body']) || !Array.isArray(e['fields'])) continue;
        edits.push({ via: e['via'], collection: String(e['collection'] ?? ''), id: String(e['id'] ?? e['body']['id'] ?? ''), fields: e['fields'].map(String), body: e['body'] });
      }
    }
    out.push({ name, baseUrl, createdCount, resources, groups, history, edits });
  }
  return out;
}

function readResources(v: unknown): ExternalResource[] {
  const out: ExternalResource[] = [];
  const one = (r: unknown, collection: string | undefined) => {
    if (!isRecord(r)) return;
    const body = isRecord(r['body']) ? r['body'] : r;
    const id = r['id'] ?? body['id'];
    out.push({ id: String(id ?? out.length + 1), collection: typeof r['collection'] === 'string' ? r['collection'] : collection, body });
  };
  if (Array.isArray(v)) for (const r of v) one(r, undefined);
  else if (isRecord(v)) for (const [c, rs] of Object.entries(v)) if (Array.isArray(rs)) for (const r of rs) one(r, c);
  return out;
}

/**
 * Resources grouped by (service, collection, value of `ownerField`), skipping resources without
 * one. Uses the state's own groups when they were made with the same field, since only they
 * know each resource's collection.
 */
export function ownerGroups(services: readonly ServiceSnapshot[], ownerField: string): OwnerGroup[] {
  const out: OwnerGroup[] = [];
  for (const s of services) {
    const byId = new Map(s.resources.map((r) => [r.id, r]));
    if (ownerField === 'owner' && s.groups) {
      for (const g of s.groups) out.push({ service: s.name, collection: g.collection, owner: g.owner, ids: g.ids, resources: g.ids.map((id) => byId.get(id)).filter((r): r is ExternalResource => r !== undefined) });
      continue;
    }
    const groups = new Map<string, OwnerGroup>();
    for (const r of s.resources) {
      const v = at(r.body, ownerField);
      if (v === undefined || v === null || typeof v === 'object') continue;
      const collection = r.collection ?? '';
      const k = `${collection}\u0000${String(v)}`;
      let g = groups.get(k);
      if (!g) groups.set(k, (g = { service: s.name, collection, owner: String(v), ids: [], resources: [] }));
      g.ids.push(r.id);
      g.resources.push(r);
    }
    for (const g of groups.values()) out.push(g);
  }
  return out;
}

/** Whether an owner value names this object: its key, `Kind/key`, its name or its uid. */
export function ownerMatches(owner: string, o: { kind: string; key: string; uid?: string | undefined }): boolean {
  if (owner === o.key || owner === `${o.kind}/${o.key}` || (o.uid !== undefined && owner === o.uid)) return true;
  const name = o.key.slice(o.key.lastIndexOf('/') + 1);
  return !o.key.includes('/') && owner === name;
}

const IDEMPOTENCY_FIELD = /^idempotency[-_]?key$/i;

/** The primary objects a run created (also ones gone by its end): kind, key, uid. */
function primaries(run: RunRecord): { kind: string; key: string; uid?: string | undefined }[] {
  const kinds = new Set(run.primaryKinds);
  const out = new Map<string, { kind: string; key: string; uid?: string | undefined }>();
  for (const w of run.writes ?? []) if (w.verb === 'create' && w.error === undefined && kinds.has(w.kind)) out.set(`${w.kind} ${w.key} ${w.uid ?? ''}`, { kind: w.kind, key: w.key, uid: w.uid });
  return [...out.values()];
}

/** String leaves of a resource body, two levels deep, by dotted path. */
function fields(body: Record<string, unknown>, prefix = '', depth = 2): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k === 'id') continue;
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.push([path, v]);
    else if (depth > 1 && isRecord(v)) for (const f of fields(v, path, depth - 1)) out.push(f);
  }
  return out;
}

/**
 * How to tell the owner of a resource, per service: the configured field, an idempotency-key
 * field, a field naming a primary object, or `owner`. Undefined when no resource says.
 */
export function ownerFieldOf(run: RunRecord, s: ServiceSnapshot, configured: string | undefined, bodies: readonly Record<string, unknown>[] = s.resources.map((r) => r.body)): string | undefined {
  if (configured !== undefined) return configured;
  if (bodies.length === 0) return undefined;
  const counts = new Map<string, number>();
  const objs = primaries(run);
  for (const body of bodies) for (const [path, v] of fields(body)) {
    const leaf = path.slice(path.lastIndexOf('.') + 1);
    if (IDEMPOTENCY_FIELD.test(leaf) || objs.some((o) => ownerMatches(v, o))) counts.set(path, (counts.get(path) ?? 0) + 1);
  }
  const idem = [...counts.keys()].find((p) => IDEMPOTENCY_FIELD.test(p.slice(p.lastIndexOf('.') + 1)));
  if (idem) return idem;
  // the field that names a primary object in the most resources
  const best = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  if (best) return best[0];
  return bodies.some((b) => at(b, 'owner') !== undefined) ? 'owner' : undefined;
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

const NO_TIMES: ReadonlySet<string> = new Set();

/**
 * The timestamps the user wrote (in the scenario's objects and actions): data, not the time a
 * request was made. Two restarts for `restartedAt` A and B (`kubectl rollout restart` twice) are
 * two resources, not one made twice (found by the corpus case restart-trigger: judged copies of one).
 */
export function userTimes(run: RunRecord): ReadonlySet<string> {
  let out = userTimesCache.get(run);
  if (out) return out;
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (TIME.test(v)) found.add(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (isRecord(v)) for (const x of Object.values(v)) walk(x);
  };
  // a record made by hand (a unit test, an old report) may have no scenario
  const scenario = run.scenario as RunRecord['scenario'] | undefined;
  walk(scenario?.initialObjects);
  walk(scenario?.workload);
  userTimesCache.set(run, (out = found));
  return out;
}

const userTimesCache = new WeakMap<RunRecord, ReadonlySet<string>>();

/**
 * A body as two creates of one resource would make it: without its id, owner, idempotency keys
 * and times (those the user wrote, `userTimes`, are kept: they tell resources apart).
 */
export function alike(body: Record<string, unknown>, ownerField: string, keep: ReadonlySet<string> = NO_TIMES): string {
  const strip = (v: unknown, path: string): unknown => {
    if (typeof v === 'string') return TIME.test(v) && !keep.has(v) ? '<time>' : v;
    if (Array.isArray(v)) return v.map((x) => strip(x, path));
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = path ? `${path}.${k}` : k;
      if ((path === '' && k === 'id') || p === ownerField || IDEMPOTENCY_FIELD.test(k)) continue;
      out[k] = strip(x, p);
    }
    return out;
  };
  return stable(strip(body, ''));
}

/**
 * The run's downstream state without the resources a reconcile still running when the run ended
 * had created: the run stopped that reconcile half-way (a renewal that had issued the new
 * certificate and not yet revoked the old one, found by the corpus case cert-renewal), so they
 * are no end the controller reached. Same shape as `DownstreamState` (what `readDownstream` reads).
 */
export function settledDownstream(run: RunRecord, requests: readonly { method: string; reconcile: { end: number | undefined } | undefined; headers: Readonly<Record<string, string>> | undefined }[]): unknown {
  const services = readDownstream(run.downstream);
  const inFlight = new Set<string>();
  for (const r of requests) if (r.method === 'POST' && r.reconcile !== undefined && r.reconcile.end === undefined && r.headers?.['location'] !== undefined) inFlight.add(r.headers['location']);
  if (inFlight.size === 0) return run.downstream;
  return {
    services: services.map((s) => ({
      name: s.name,
      baseUrl: s.baseUrl,
      createdCount: s.createdCount,
      resources: s.resources.filter((r) => !inFlight.has(`${s.baseUrl}/${encodeURIComponent(r.collection ?? '')}/${encodeURIComponent(r.id)}`)).map((r) => ({ id: r.id, collection: r.collection, body: r.body })),
    })),
  };
}
