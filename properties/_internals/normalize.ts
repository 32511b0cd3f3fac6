import { contentOf, keyOf, type StoredObject } from '../../src/store/object.js';
import { historyOf, type HistorySelector } from './history.js';
import { retainedClaimKeys } from '../../src/environment/stateful-set.js';
import { readDownstream } from './downstream-state.js';
import { isRecord, stable } from './json.js';
import { fmtList } from '../../src/report/explain.js';
import { dropPattern, fmtPath, leafDiffs, type LeafDiff } from './paths.js';
import { notePaths, patternOf, type MaskTally } from './masks.js';

/**
 * Normalized end states, so two runs can be compared (same-end-state, recovery): uids,
 * resourceVersions and timestamps are replaced, generated names become their prefix, owner
 * references name their owner instead of its uid, and user masks drop fields that may differ.
 * Claims a StatefulSet retains from ordinals scaled away are left out (history, not end state).
 * @internal
 */

/** Options of {@link normalizeState}. */
export interface NormalizeOptions {
  /** Kinds left out entirely (leader-election Leases differ in timing by nature). */
  ignoreKinds: readonly string[];
  /** Objects that record history, not state, left out too (see {@link HistorySelector}). @defaultValue none */
  history?: readonly HistorySelector[];
  /**
   * Downstream collections (`service/collection`, or a whole `service`) that are ledgers: the
   * records of an owner gone by the end (the object whose uid a record holds) are left out. @defaultValue none
   */
  ledgers?: readonly string[];
  /**
   * Field paths dropped before comparing (see paths.ts): `status.lastSyncTime`,
   * `metadata.annotations.*`, `status.conditions[*].lastTransitionTime`,
   * `status.conditions[type=Ready].message`, `downstream.*.createdAt`.
   */
  masks: readonly string[];
  /** Counts mask matches and notes the paths seen (mask validation). */
  tally?: MaskTally;
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
  /**
   * Keys of the claims the stateful-set environment created (see {@link statefulSetClaims}): those
   * it retains from history are left out. @defaultValue none (then only the claims of live sets'
   * ordinals scaled away are left out)
   */
  statefulSetClaims?: ReadonlySet<string>;
  /** Kinds whose objects compare by content, not name (see {@link Interchangeable}). @defaultValue none */
  interchangeable?: Interchangeable | undefined;
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

function normName(o: StoredObject, aliases?: ReadonlyMap<string, string>, interchangeable?: Interchangeable): string {
  if (interchangeable?.kinds.has(o.kind)) return `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}<interchangeable ${o.kind}>`;
  const g = o.metadata.generateName;
  // a generateName may hold another object's generated name (a Job's Pods: `<job name>-`)
  const name = g !== undefined && g !== '' && o.metadata.name.startsWith(g) ? `${aliases ? aliasUids(g, aliases) : g}*` : aliases ? aliasUids(o.metadata.name, aliases) : o.metadata.name;
  return o.metadata.namespace ? `${o.metadata.namespace}/${name}` : name;
}

/** The id a normalized state gives an object (`Pod default/web-*` for a generated name). */
export function stateIdOf(o: StoredObject, aliases?: ReadonlyMap<string, string>, interchangeable?: Interchangeable): string {
  return `${o.kind} ${normName(o, aliases, interchangeable)}`;
}

/** Keys of the PersistentVolumeClaims the stateful-set environment actor created in a run. */
export function statefulSetClaims(writes: readonly (CreateFacts & { actor: string })[]): Set<string> {
  const out = new Set<string>();
  for (const w of writes) if (w.verb === 'create' && w.kind === 'PersistentVolumeClaim' && w.actor === 'environment:stateful-set' && w.error === undefined) out.add(w.key);
  return out;
}

/**
 * name → `<generated Kind namespace/prefix*>` for every object of `objects` whose name the server
 * generated; a prefix that starts with another generated name (a ReplicaSet's or a Job's Pods,
 * `<owner name>-`) is written with that one's alias.
 */
function generatedNames(objects: readonly StoredObject[], uidAliases: ReadonlyMap<string, string> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const gen = objects.filter((o) => o.metadata.generateName !== undefined && o.metadata.generateName !== '' && o.metadata.name.startsWith(o.metadata.generateName) && o.metadata.name !== o.metadata.generateName);
  if (gen.length === 0) return out;
  // shorter names first: a name that starts with another is longer than it
  gen.sort((a, b) => a.metadata.name.length - b.metadata.name.length || (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const o of gen) {
    const g = o.metadata.generateName!;
    let prefix = uidAliases ? aliasUids(g, uidAliases) : g;
    for (let i = g.lastIndexOf('-'); i > 0; i = g.lastIndexOf('-', i - 1)) {
      const outer = out.get(g.slice(0, i));
      if (outer !== undefined) {
        prefix = `${outer}${g.slice(i)}`;
        break;
      }
    }
    out.set(o.metadata.name, `<generated ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${prefix}*>`);
  }
  return out;
}

/**
 * Kinds declared interchangeable (same-end-state's `interchangeable`: a pool's alike members) and
 * the names of their objects a run created: such an object compares by content whatever its name
 * (its id is `<interchangeable Kind>`, duplicates told apart by content as generated names are),
 * and a value equal to one of those names compares as `<interchangeable Kind>`, unless an object
 * of another kind has that name too (a pool `runners-2` beside its runner `runners-2`: which one
 * it names is unknown, so it stays as it is in both runs).
 */
export interface Interchangeable {
  kinds: ReadonlySet<string>;
  names: ReadonlyMap<string, string>;
}

/** The {@link Interchangeable} of a run: `kinds`, and the names of their objects its writes created (undefined when no kind is declared). */
export function interchangeableOf(writes: readonly CreateFacts[], kinds: readonly string[] | undefined): Interchangeable | undefined {
  if (kinds === undefined || kinds.length === 0) return undefined;
  const wanted = new Set(kinds);
  const names = new Map<string, string>();
  for (const w of writes) {
    if (w.verb !== 'create' || w.error !== undefined || !wanted.has(w.kind)) continue;
    const name = w.key.slice(w.key.indexOf('/') + 1);
    if (name !== '') names.set(name, `<interchangeable ${w.kind}>`);
  }
  return { kinds: wanted, names };
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

/**
 * The state id {@link normalizeState} gives an external resource of `service`/`collection` with
 * `body`, among the end's `objects` (drift-marks.ts: which entry a resource drift touched is).
 */
export function externalStateId(service: string, collection: string | undefined, body: Record<string, unknown>, objects: readonly StoredObject[], aliases?: ReadonlyMap<string, string>): string {
  const uidNames = new Map<string, string>(aliases ?? []);
  for (const o of objects) uidNames.set(o.metadata.uid, `<uid of ${o.kind} ${normName(o, aliases)}>`);
  const { id: _id, ...rest } = body;
  const owner = ownerUidIn(rest, uidNames);
  return `downstream ${service}${collection ? `/${collection}` : ''}${owner !== undefined ? ` of ${owner}` : ''}`;
}

/** The name of the first object whose uid a value of `body` holds (depth first, in key order), if any. */
function ownerUidIn(body: unknown, uidNames: ReadonlyMap<string, string>): string | undefined {
  const uid = ownerUidValue(body, uidNames);
  return uid === undefined ? undefined : uidNames.get(uid);
}

/** The first uid `body` holds (see {@link ownerUidIn}), itself. */
function ownerUidValue(body: unknown, uidNames: ReadonlyMap<string, string>): string | undefined {
  if (typeof body === 'string') return uidNames.has(body) ? body : undefined;
  if (Array.isArray(body)) {
    for (const x of body) {
      const o = ownerUidValue(x, uidNames);
      if (o !== undefined) return o;
    }
    return undefined;
  }
  if (isRecord(body)) {
    for (const k of Object.keys(body).sort()) {
      const o = ownerUidValue(body[k], uidNames);
      if (o !== undefined) return o;
    }
  }
  return undefined;
}

/** A downstream resource another value may name by its id, named by its content when first needed. */
interface ExternalResource {
  service: string;
  body: Record<string, unknown>;
  name?: string;
  /** Being named: a reference back to it is a cycle. */
  naming?: boolean;
}

/** Normalizes objects (and, when asked, the downstream state) into comparable values. */
export function normalizeState(objects: readonly StoredObject[], downstream: unknown, options: NormalizeOptions): NormalizedState {
  const ignore = new Set(options.ignoreKinds);
  // claims a StatefulSet retains from ordinals scaled away are history (how far rollouts got), not an end state
  const retained = retainedClaimKeys(objects, options.statefulSetClaims ?? new Set());
  const history = options.history ?? [];
  const kept = objects.filter((o) => !ignore.has(o.kind) && !(retained.size > 0 && o.kind === 'PersistentVolumeClaim' && retained.has(keyOf(o.metadata))) && (history.length === 0 || historyOf(o, history) === undefined));
  // Generated names (a Job's `nightly-0-x7k2p`) are the API server's choice, which faults change as
  // they change uids: a name or value holding one (its Pods' names, their job-name labels and owner
  // names, a status field naming it) compares by whose generated name it is (corpus job-runner, stop 35)
  const generated = generatedNames(objects, options.uidAliases);
  const aliases = generated.size > 0 ? new Map([...(options.uidAliases ?? []), ...generated]) : options.uidAliases;
  const ic = options.interchangeable;
  const uidNames = new Map<string, string>(aliases ?? []);
  for (const o of objects) uidNames.set(o.metadata.uid, `<uid of ${o.kind} ${normName(o, aliases, ic)}>`);
  // a name that an object of another kind has too may name either: left as it is
  const ambiguous = ic ? new Set(objects.filter((o) => !ic.kinds.has(o.kind)).map((o) => o.metadata.name)) : undefined;
  const masks = options.masks;
  const tally = options.tally;
  if (tally) tally.compared++;
  // Downstream ids are handed out in creation order, which faults reorder: an id-named field
  // (`recordId`, `bucketID`, `externalId`) holding one compares by the resource it names.
  const mapIds = options.externalIds ?? options.downstream;
  const services = options.downstream || mapIds ? readDownstream(downstream) : [];
  const externalNames = new Map<string, ExternalResource>();
  // a field named after a collection (`user` of a key, `list` of a member) holding one of its ids
  const inCollection = new Map<string, ExternalResource>();
  // a resource is named by its content as the rest is compared (uids named, timestamps normalized,
  // ids it holds named by the resources they name, in turn): a snapshot taken later, or for an owner
  // with another uid, is the same snapshot; a subscription naming customer "3" in one run and "1"
  // in the other names the same customer (found by the corpus case license-seat). Named on first
  // use; a reference back to a resource being named (a cycle) stays its id.
  const nameOf = (e: ExternalResource): string | undefined => {
    if (e.name !== undefined) return e.name;
    if (e.naming) return undefined;
    e.naming = true;
    e.name = `<id of a ${e.service} resource ${stable(scrub(withoutId(e.body)))}>`;
    e.naming = false;
    return e.name;
  };
  const scrub = (v: unknown, field = ''): unknown => {
    if (typeof v === 'string') {
      const u = uidNames.get(v);
      if (u !== undefined) return u;
      const n = ic?.names.get(v);
      if (n !== undefined && !ambiguous!.has(v)) return n;
      // no key strings made when there is no downstream resource to look up
      const e = ID_FIELD.test(field) ? externalNames.get(v) : inCollection.size === 0 ? undefined : (inCollection.get(`${field}s\u0000${v}`) ?? inCollection.get(`${field}\u0000${v}`) ?? inCollection.get(`${field}es\u0000${v}`));
      const named = e !== undefined ? nameOf(e) : undefined;
      if (named !== undefined) return named;
      // a uid inside a value (`pr-0.<uid>`, `verify=<uid>`) compares by whose uid it is, as in names
      const a = v.length > 3 ? aliasUids(v, uidNames) : v;
      if (a !== v) return a;
      return options.timestamps && TIMESTAMP.test(v) ? '<time>' : v;
    }
    // copy on write: a value with nothing to replace is kept as it is (it may be part of a stored
    // object: normalized states are never mutated), so most of a state is not copied
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) continue; // a hole stays one, as map keeps it
        const x: unknown = v[i];
        const y = scrub(x, field);
        if (out === undefined) {
          if (y === x) continue;
          out = v.slice(0, i);
          out.length = v.length;
        }
        out[i] = y;
      }
      return out ?? v;
    }
    if (isRecord(v)) {
      const keys = Object.keys(v);
      // a copy assigns its keys, and `__proto__` assigned sets the prototype instead: such a value is always copied, as it was
      if (keys.includes('__proto__')) {
        const out: Record<string, unknown> = {};
        for (const k of keys) out[k] = scrub(v[k], k);
        return out;
      }
      let out: Record<string, unknown> | undefined;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        const x = v[k];
        const y = scrub(x, k);
        if (out === undefined) {
          if (y === x) continue;
          out = {};
          for (let j = 0; j < i; j++) out[keys[j]!] = v[keys[j]!];
        }
        out[k] = y;
      }
      return out ?? v;
    }
    return v;
  };
  if (mapIds) {
    for (const s of services) {
      for (const r of s.resources) {
        const e: ExternalResource = { service: s.name, body: r.body };
        if (!externalNames.has(r.id)) externalNames.set(r.id, e);
        if (r.collection) inCollection.set(`${r.collection}\u0000${r.id}`, e);
      }
    }
  }
  const entries: [string, unknown][] = [];
  for (const o of kept) {
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, deletionTimestamp, generateName: _g, name: _n, ...meta } = o.metadata;
    const annotations: Record<string, string> = {};
    const given = meta.annotations ?? {};
    for (const k of Object.keys(given)) if (!k.startsWith(INTERNAL_ANNOTATION)) annotations[k] = given[k]!;
    const value = scrub({
      kind: o.kind,
      metadata: {
        ...meta,
        annotations,
        ownerReferences: (meta.ownerReferences ?? []).map((r) => ({ ...r, uid: uidNames.get(r.uid) ?? '<uid of a deleted owner>' })),
        ...(deletionTimestamp !== undefined ? { deletionTimestamp: '<set>' } : {}),
      },
      // every content field: spec, and a ConfigMap's or Secret's data, RBAC rules…
      ...(o.kind === 'Service' ? allocatedByName(o, contentOf(o), normName(o, aliases, ic)) : contentOf(o)),
      status: byConditionType(o.status),
    });
    notePaths(tally, value);
    entries.push([stateIdOf(o, aliases, ic), applyMasks(value, masks, tally)]);
  }
  if (options.downstream) {
    const ledgers = new Set(options.ledgers ?? []);
    const live = ledgers.size > 0 ? new Set(objects.map((o) => o.metadata.uid)) : undefined;
    // downstream collections declared history (`service/collection`): an order log the server never deletes from
    const logs = new Set(history.filter((h) => h.kind.includes('/')).map((h) => h.kind));
    for (const s of services) {
      const ledger = ledgers.has(s.name);
      for (const r of s.resources) {
        if (logs.size > 0 && r.collection !== undefined && logs.has(`${s.name}/${r.collection}`)) continue;
        const { id: _id, ...body } = r.body;
        // a ledger's records of an owner gone by the end: a cancelled order charged and refunded, or never charged, moved no money
        if (live && (ledger || (r.collection !== undefined && ledgers.has(`${s.name}/${r.collection}`)))) {
          const owner = ownerUidValue(body, uidNames);
          if (owner !== undefined && !live.has(owner)) continue;
        }
        const value = scrub({ downstream: { [s.name]: body } });
        notePaths(tally, value);
        // identified by the object it belongs to (a field holding its uid), so each owner's resource compares with that owner's
        // whatever else came and went: a transfer of a payout never paid is that payout's, not the first of the list (found by payout-transfer)
        const owner = ownerUidIn(body, uidNames);
        entries.push([`downstream ${s.name}${r.collection ? `/${r.collection}` : ''}${owner !== undefined ? ` of ${owner}` : ''}`, (applyMasks(value, masks, tally) as { downstream: Record<string, unknown> }).downstream[s.name]]);
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

/**
 * Condition lists in type order. Kubernetes declares them maps keyed by `type` (metav1.Condition
 * lists are `+listType=map +listMapKey=type`; the built-in kinds' merge on `type`): their order
 * says only who wrote first, as when two controllers each set their own condition on one object.
 * Any `conditions` list (at any depth of status, e.g. Gateway API `status.parents[].conditions`)
 * whose entries all have a string `type`, with no type twice, is sorted by it; others stay.
 */
export function byConditionType(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    // a copy only where something below changed: statuses are walked on every comparison
    let items: unknown[] = v;
    for (let i = 0; i < v.length; i++) {
      const y = byConditionType(v[i]);
      if (y !== v[i]) (items === v ? (items = [...v]) : items)[i] = y;
    }
    if (key !== 'conditions' || items.length < 2) return items;
    const types = items.map((c) => (isRecord(c) && typeof c['type'] === 'string' ? c['type'] : undefined));
    if (types.some((t) => t === undefined) || new Set(types).size !== types.length) return items;
    if (types.every((t, i) => i === 0 || types[i - 1]! <= t!)) return items;
    return items.map((c, i) => [types[i]!, c] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, c]) => c);
  }
  if (isRecord(v)) {
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      const y = byConditionType(x, k);
      if (y !== x) (out ??= { ...v })[k] = y;
    }
    return out ?? v;
  }
  return v;
}

/**
 * Tallies user masks against objects a property does not compare (recovery compares one subtree,
 * but its masks are written for the whole world): a mask that matches something anywhere is
 * no typo. Only while some mask has matched nothing yet, so it costs nothing once all have.
 */
export function tallyObjects(objects: readonly StoredObject[], masks: readonly string[], defaults: readonly string[], tally: MaskTally): void {
  const open = masks.filter((m) => !defaults.includes(m) && (tally.hits.get(m) ?? 0) === 0);
  if (open.length === 0) return;
  for (const o of objects) {
    const value = { kind: o.kind, metadata: o.metadata, ...contentOf(o), status: o.status };
    notePaths(tally, value);
    applyMasks(value, open, tally);
  }
}

function applyMasks(value: unknown, masks: readonly string[], tally: MaskTally | undefined): unknown {
  let v = value;
  for (const m of masks) {
    const hits = { n: 0 };
    v = dropPattern(v, patternOf(m), hits);
    if (tally && hits.n > 0) tally.hits.set(m, (tally.hits.get(m) ?? 0) + hits.n);
  }
  return v;
}

/** One difference between two normalized states. */
export interface StateDifference {
  id: string;
  /** `missing` in the run, `extra` in the run, or the field paths that differ. */
  change: 'missing' | 'extra' | 'differs';
  /** Full paths of the differing leaves (`status.conditions[0].message`). */
  paths: string[];
  /** The differing leaves, both sides. */
  leaves: LeafDiff[];
  expected: unknown;
  actual: unknown;
}

/** Differences between an expected and an actual normalized state, in id order. */
export function compareStates(expected: NormalizedState, actual: NormalizedState): StateDifference[] {
  const out: StateDifference[] = [];
  for (const id of [...new Set([...expected.keys(), ...actual.keys()])].sort()) {
    const e = expected.get(id);
    const a = actual.get(id);
    if (!expected.has(id)) out.push({ id, change: 'extra', paths: [], leaves: [], expected: null, actual: a });
    else if (!actual.has(id)) out.push({ id, change: 'missing', paths: [], leaves: [], expected: e, actual: null });
    else {
      const leaves = leafDiffs(e, a);
      if (leaves.length > 0) out.push({ id, change: 'differs', paths: leaves.map((l) => fmtPath(l.path)), leaves, expected: e, actual: a });
    }
  }
  return out;
}

/** A value as JSON, whole when short, else a window around where it differs from `other` (never cut before the difference). */
export function fmtAround(v: unknown, other: unknown, max = 160): string {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  if (s.length <= max) return s;
  const o = other === undefined ? '' : JSON.stringify(other);
  let i = 0;
  while (i < s.length && i < o.length && s[i] === o[i]) i++;
  const from = Math.max(0, i - 40);
  return `${from > 0 ? '…' : ''}${s.slice(from, from + max)}${from + max < s.length ? '…' : ''}`;
}

/**
 * A difference in words, from the point of view of the run judged: `ReplicaSet default/web:
 * status.replicas is 2, expected 3` / `Pod default/web-* exists, but not in the expected state`.
 */
export function fmtDifference(d: StateDifference, expectedName: string): string {
  if (d.change === 'extra') return `${d.id} exists, but not in ${expectedName}`;
  if (d.change === 'missing') return `${d.id} is missing (it exists in ${expectedName})`;
  const parts = d.leaves.slice(0, 3).map((l) => (l.path.length === 0 ? `it is ${fmtAround(l.actual, l.expected)}, ${fmtAround(l.expected, l.actual)} in ${expectedName}` : `${fmtPath(l.path)} is ${fmtAround(l.actual, l.expected)}, ${fmtAround(l.expected, l.actual)} in ${expectedName}`));
  return `${d.id}: ${fmtList(parts, 3)}${d.leaves.length > 3 ? ` (${d.leaves.length - 3} more fields differ)` : ''}`;
}

/** The differing leaves of one difference as path → value objects, for a `-`/`+` diff. */
export function leafSides(d: StateDifference): { expected: Record<string, unknown>; actual: Record<string, unknown> } {
  const expected: Record<string, unknown> = {};
  const actual: Record<string, unknown> = {};
  if (d.change !== 'differs') return { expected: d.change === 'missing' ? { [d.id]: d.expected } : {}, actual: d.change === 'extra' ? { [d.id]: d.actual } : {} };
  for (const l of d.leaves) {
    const k = fmtPath(l.path);
    if (l.expected !== undefined) expected[k] = l.expected;
    if (l.actual !== undefined) actual[k] = l.actual;
  }
  return { expected, actual };
}

/**
 * A Service's spec with what the Service registry allocated named, not valued: its cluster IPs
 * and node ports are drawn from the Service's uid, which differs between a run and its twin when
 * the Service was made again (corpus preview-env, guided hunt seed 498 run 5: a conflict and a lost
 * event, the same Service, another address). `None` (headless) and an empty value stay as they are.
 */
function allocatedByName(o: StoredObject, content: Record<string, unknown>, name: string): Record<string, unknown> {
  const spec = content['spec'];
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return content;
  const s = { ...(spec as Record<string, unknown>) };
  const ip = (v: unknown) => (typeof v === 'string' && v !== '' && v !== 'None' ? `<cluster IP of ${o.kind} ${name}>` : v);
  if ('clusterIP' in s) s['clusterIP'] = ip(s['clusterIP']);
  if (Array.isArray(s['clusterIPs'])) s['clusterIPs'] = (s['clusterIPs'] as unknown[]).map(ip);
  if (typeof s['healthCheckNodePort'] === 'number') s['healthCheckNodePort'] = '<node port>';
  if (Array.isArray(s['ports'])) s['ports'] = (s['ports'] as unknown[]).map((p) => (p !== null && typeof p === 'object' && typeof (p as Record<string, unknown>)['nodePort'] === 'number' ? { ...(p as Record<string, unknown>), nodePort: '<node port>' } : p));
  return { ...content, spec: s };
}
