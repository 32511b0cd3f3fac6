import fc, { type Arbitrary } from 'fast-check';
import { keyOf, type JsonObject, type NewObject } from '../store/object.js';
import type { WorkloadAction } from '../harness/scenario.js';

/** The workload action types a generated workload may contain (`create` is always there). @public */
export type WorkloadActionType = 'update' | 'patch' | 'delete' | 'reapply' | 'removeFinalizer';

/** Every action type, in the order they shrink toward (the first is the simplest). @public */
export const ALL_ACTION_TYPES: readonly WorkloadActionType[] = ['reapply', 'update', 'patch', 'delete', 'removeFinalizer'];

/**
 * What the user's primary objects look like: the template the workload creates objects from
 * and the specs it updates them to.
 * @example
 * ```ts
 * const template: ObjectTemplate = {
 *   kind: 'ReplicaSet',
 *   spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }),
 *   status: { replicas: 0 },
 * };
 * ```
 * @public
 */
export interface ObjectTemplate {
  /** @defaultValue the primary kind (`for`) of the first controller */
  kind?: string;
  /**
   * The objects' apiVersion. Needed for a custom resource named like a built-in kind (a
   * `ServiceAccount` of `tokens.example.com/v1`): without one, the simulated API server takes the
   * kind for the built-in, as `{ kind: 'ConfigMap' }` is the core ConfigMap, with its defaults,
   * validation and subresources. @defaultValue none: a built-in kind's own, else none
   */
  apiVersion?: string;
  /** Namespace of the objects; `''` for cluster-scoped kinds. @defaultValue 'default' */
  namespace?: string;
  /**
   * Namespaces the objects are spread over instead: a list (the i-th object takes the i-th,
   * cycling; shrinks toward the first) or an arbitrary (each object draws one).
   * @defaultValue none: every object in `namespace`
   */
  namespaces?: Arbitrary<string> | readonly string[];
  /** Objects are named `<name>-0`, `<name>-1`, … @defaultValue the kind in lower case, other characters as "-" (`Web_App` → `web-app`) */
  name?: string;
  /**
   * Real names instead of `<name>-<i>`: a list (the i-th object takes the i-th; beyond the list,
   * `<last>-<i>`) or an arbitrary (each object draws one; a name drawn twice gets `-<i>`).
   * Names must be DNS-style (lower case, digits, "-" or ".").
   * @example names: ['web', 'api', 'worker']
   * @example names: fc.constantFrom('web', 'api').map((n) => `${n}-prod`)
   * @defaultValue none: `<name>-<i>`
   */
  names?: Arbitrary<string> | readonly string[];
  /**
   * Specs to create objects with and update them to: an arbitrary (shrinks the way it does), a
   * list of specs (shrinks toward the first), or one spec.
   */
  spec: Arbitrary<JsonObject> | readonly JsonObject[] | JsonObject;
  /** Status the object is created with (a user cannot normally set it; seed it when your controller expects one). @defaultValue none */
  status?: JsonObject | undefined;
  /** @defaultValue {} */
  labels?: Record<string, string>;
  /** @defaultValue {} */
  annotations?: Record<string, string>;
  /** Finalizers the object is created with. @defaultValue [] */
  finalizers?: string[];
  /** Finalizers the user may remove by hand (`removeFinalizer` actions). @defaultValue [] */
  removableFinalizers?: string[];
}

/** An {@link ObjectTemplate} with its defaults applied. @internal */
export interface ResolvedObjectTemplate {
  kind: string;
  apiVersion?: string | undefined;
  namespace: string;
  name: string;
  /** Namespace per object (`undefined`: always `namespace`). */
  namespaces: Arbitrary<string> | readonly string[] | undefined;
  /** Name per object (`undefined`: `<name>-<i>`). */
  names: Arbitrary<string> | readonly string[] | undefined;
  spec: Arbitrary<JsonObject>;
  status: JsonObject | undefined;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  finalizers: string[];
  removableFinalizers: string[];
}

/** Options of {@link workload}. @public */
export interface WorkloadArbitraryOptions {
  /** Object templates (each with a `kind`); each generated object picks one (shrinking toward the first). */
  objects: readonly (ObjectTemplate | ResolvedObjectTemplate)[];
  /** Objects created, at least 1. @defaultValue 2 */
  maxObjects?: number;
  /** Actions besides the creates. @defaultValue 4 */
  maxActions?: number;
  /** Actions happen in [0, windowMs] (virtual ms). @defaultValue 30_000 */
  windowMs?: number;
  /** Action types to use. @defaultValue every type in {@link ALL_ACTION_TYPES} */
  actions?: readonly WorkloadActionType[];
}

/**
 * Applies a list of templates' defaults and validates them, with messages that name `api`, the
 * template (`path[i]`) and the fix. Templates without a `kind` get `defaultKind`.
 * @internal
 */
export function resolveObjectTemplates(list: readonly (ObjectTemplate | ResolvedObjectTemplate)[], defaultKind: string | undefined, api: string, path: (i: number) => string): ResolvedObjectTemplate[] {
  const fail = (message: string): never => {
    throw new TypeError(`${api}: ${message}`);
  };
  if (list.length === 0) fail(`${path(-1)} is empty. Give at least one template, e.g. { kind: "WebApp", spec: { replicas: 3 } }.`);
  const seen = new Set<string>();
  return list.map((t, i) => {
    const at = path(i);
    if (!t || typeof t !== 'object') fail(`${at} must be an object template { kind?, spec, … }, got ${show(t)}.`);
    if (t.spec === undefined || t.spec === null || typeof t.spec !== 'object')
      fail(`${at}.spec is required: a fast-check arbitrary (fc.record({...})), a list of specs, or one spec object. Got ${show(t.spec)}.`);
    if (Array.isArray(t.spec) && t.spec.length === 0) fail(`${at}.spec is an empty list. Give at least one spec, e.g. spec: [{ replicas: 3 }].`);
    const kind = t.kind ?? defaultKind;
    if (typeof kind !== 'string' || kind === '') fail(`${at}.kind must be a non-empty string (the object kind, e.g. 'WebApp'), got ${show(kind)}.`);
    const k = kind as string;
    // the default prefix is the kind made DNS-style ('Web_App' → 'web-app'): only a given name can be wrong
    const name = t.name ?? dnsPrefixOf(k);
    if (t.name !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) fail(`${at}.name must be a DNS-style prefix (lower case, digits, "-" or "."), got ${JSON.stringify(name)}.`);
    const namespace = t.namespace ?? 'default';
    const names = nameSource(t.names, `${at}.names`, fail);
    const namespaces = nameSource(t.namespaces, `${at}.namespaces`, fail, true);
    const id = `${k} ${namespace}/${name}`;
    if (seen.has(id) && names === undefined) fail(`${at} would name its objects like an earlier template (${k} ${namespace}/${name}-0, …). Give it a different \`name\` prefix.`);
    seen.add(id);
    if (t.apiVersion !== undefined && (typeof t.apiVersion !== 'string' || t.apiVersion === '')) fail(`${at}.apiVersion must be a non-empty string (group/version, e.g. 'example.com/v1'), got ${show(t.apiVersion)}.`);
    return {
      kind: k,
      ...(t.apiVersion !== undefined ? { apiVersion: t.apiVersion } : {}),
      namespace,
      name,
      names,
      namespaces,
      spec: specArbitrary(t.spec),
      status: t.status,
      labels: { ...(t.labels ?? {}) },
      annotations: { ...(t.annotations ?? {}) },
      finalizers: [...(t.finalizers ?? [])],
      removableFinalizers: [...(t.removableFinalizers ?? [])],
    };
  });
}

const DNS_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** A name or namespace source, validated: a non-empty list of DNS-style names, or an arbitrary (its names are checked as drawn). */
function nameSource(v: unknown, at: string, fail: (m: string) => never, namespace = false): Arbitrary<string> | readonly string[] | undefined {
  if (v === undefined) return undefined;
  if (v instanceof fc.Arbitrary) return v as Arbitrary<string>;
  if (!Array.isArray(v) || v.length === 0) fail(`${at} must be a non-empty list of ${namespace ? 'namespaces' : 'names'} or a fast-check arbitrary of strings, got ${show(v)}.`);
  for (const n of v as unknown[]) if (typeof n !== 'string' || (!DNS_NAME.test(n) && !(namespace && n === ''))) fail(`${at} holds ${show(n)}, which is not a DNS-style ${namespace ? 'namespace' : 'name'} (lower case, digits, "-" or ".").`);
  return [...(v as string[])];
}

/** The i-th object's name from a list (beyond it: `<last>-<i>`), or the drawn one. @internal */
export function objectName(t: ResolvedObjectTemplate, i: number, drawn: string | undefined): string {
  const names = t.names;
  if (names === undefined) return `${t.name}-${i}`;
  if (Array.isArray(names)) return i < names.length ? names[i]! : `${names[names.length - 1]!}-${i}`;
  const name = drawn ?? `${t.name}-${i}`;
  if (!DNS_NAME.test(name)) throw new TypeError(`steadystate: the names arbitrary of the ${t.kind} template drew ${JSON.stringify(name)}, which is not a DNS-style name (lower case, digits, "-" or "."). Map its values to valid names.`);
  return name;
}

/** The i-th object's namespace ('' = cluster-scoped). @internal */
export function objectNamespace(t: ResolvedObjectTemplate, i: number, drawn: string | undefined): string {
  const ns = t.namespaces;
  if (ns === undefined) return t.namespace;
  if (Array.isArray(ns)) return ns[i % ns.length]!;
  const v = drawn ?? t.namespace;
  if (v !== '' && !DNS_NAME.test(v)) throw new TypeError(`steadystate: the namespaces arbitrary of the ${t.kind} template drew ${JSON.stringify(v)}, which is not a DNS-style namespace. Map its values to valid namespaces.`);
  return v;
}

function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  try {
    const text = JSON.stringify(v);
    return text.length > 80 ? text.slice(0, 80) + '…' : text;
  } catch {
    return String(v);
  }
}

/** Key of the i-th object made from a template, when it is known up front (names from a list or the prefix; arbitraries: the first draw of seed 42). @internal */
export function templateKey(t: ResolvedObjectTemplate, i: number): string {
  const draw = (a: Arbitrary<string> | readonly string[] | undefined) => (a instanceof fc.Arbitrary ? fc.sample(a, { seed: 42 + i, numRuns: 1 })[0] : undefined);
  const namespace = objectNamespace(t, i, draw(t.namespaces));
  return keyOf({ namespace: namespace === '' ? undefined : namespace, name: objectName(t, i, draw(t.names)) });
}

/** A spec source as an arbitrary: lists shrink toward their first element. @internal */
export function specArbitrary(spec: ObjectTemplate['spec']): Arbitrary<JsonObject> {
  if (spec instanceof fc.Arbitrary) return spec;
  if (Array.isArray(spec)) {
    const list = spec as readonly JsonObject[];
    if (list.length === 0) throw new TypeError('steadystate.workload: a template\'s spec list is empty; give at least one spec, e.g. spec: [{ replicas: 3 }]');
    return list.length === 1 ? fc.constant(list[0]!) : fc.nat({ max: list.length - 1 }).map((i) => list[i]!);
  }
  return fc.constant(spec as JsonObject);
}

type RawOp =
  | { type: 'update'; specs: JsonObject[] }
  | { type: 'patch'; specs: JsonObject[]; mask: number; label: number }
  | { type: 'delete' }
  | { type: 'reapply' }
  | { type: 'removeFinalizer'; which: number };

interface RawAction {
  obj: number;
  at: number;
  op: RawOp;
}

/**
 * Workloads: timed user actions over objects made from the templates — create, update spec,
 * merge-patch (part of the spec, or only a label), delete, re-apply the identical spec, and
 * remove a finalizer by hand. Shrinks toward fewer objects, fewer actions, earlier times, the
 * first template and the simplest action types. (Recreation and drift are fault kinds.)
 * @example
 * ```ts
 * fc.sample(workload({ objects: [resolvedTemplate], maxObjects: 1 }), 1);
 * ```
 * @public
 */
export function workload(options: WorkloadArbitraryOptions): Arbitrary<WorkloadAction[]> {
  const templates = resolveObjectTemplates(options.objects, undefined, 'steadystate.workload', (i) => (i < 0 ? 'options.objects' : `options.objects[${i}]`));
  const maxObjects = options.maxObjects ?? 2;
  const maxActions = options.maxActions ?? 4;
  const windowMs = options.windowMs ?? 30_000;
  const types = (options.actions ?? ALL_ACTION_TYPES).filter((t) => t !== 'removeFinalizer' || templates.some((x) => x.removableFinalizers.length > 0));
  // coarse times: 100 slots over the window shrink much faster than raw milliseconds
  const time = fc.integer({ min: 0, max: 100 }).map((k) => Math.round((k * windowMs) / 100));
  const specsOfAll = fc.tuple(...templates.map((t) => t.spec));
  const drawn = (a: Arbitrary<string> | readonly string[] | undefined): Arbitrary<string | undefined> => (a instanceof fc.Arbitrary ? a : fc.constant(undefined));
  const objectArb = fc.oneof(...templates.map((t, i) => fc.record({ template: fc.constant(i), spec: t.spec, at: time, name: drawn(t.names), namespace: drawn(t.namespaces) })));
  const opArbs: Record<WorkloadActionType, Arbitrary<RawOp>> = {
    reapply: fc.constant({ type: 'reapply' as const }),
    update: specsOfAll.map((specs) => ({ type: 'update' as const, specs })),
    patch: fc.record({ specs: specsOfAll, mask: fc.nat({ max: 255 }), label: fc.nat({ max: 3 }) }).map((p) => ({ type: 'patch' as const, ...p })),
    delete: fc.constant({ type: 'delete' as const }),
    removeFinalizer: fc.nat({ max: 7 }).map((which) => ({ type: 'removeFinalizer' as const, which })),
  };
  const ops = types.map((t) => opArbs[t]);
  const actionArb: Arbitrary<RawAction[]> =
    ops.length === 0 || maxActions === 0
      ? fc.constant([])
      : fc.array(fc.record({ obj: fc.nat({ max: Math.max(0, maxObjects - 1) }), at: time, op: fc.oneof(...ops) }), { maxLength: maxActions });
  return fc.tuple(fc.array(objectArb, { minLength: 1, maxLength: maxObjects }), actionArb).map(([objs, acts]) => build(templates, objs, acts, windowMs));
}

function build(templates: readonly ResolvedObjectTemplate[], objs: { template: number; spec: JsonObject; at: number; name: string | undefined; namespace: string | undefined }[], acts: RawAction[], windowMs: number): WorkloadAction[] {
  const perTemplate = new Map<number, number>();
  const taken = new Set<string>();
  const made = objs.map((o) => {
    const t = templates[o.template]!;
    const i = perTemplate.get(o.template) ?? 0;
    perTemplate.set(o.template, i + 1);
    const namespace = objectNamespace(t, i, o.namespace);
    let name = objectName(t, i, o.name);
    // two draws of one name in a namespace would be one object: the second gets its index
    if (taken.has(`${t.kind} ${namespace}/${name}`)) name = `${name}-${i}`;
    taken.add(`${t.kind} ${namespace}/${name}`);
    return { t, namespace, templateIndex: o.template, key: keyOf({ namespace: namespace === '' ? undefined : namespace, name }), name, at: o.at, spec: o.spec };
  });
  const out: { order: number; action: WorkloadAction }[] = [];
  for (const m of made) {
    const object: NewObject = {
      ...(m.t.apiVersion !== undefined ? { apiVersion: m.t.apiVersion } : {}),
      kind: m.t.kind,
      metadata: {
        name: m.name,
        ...(m.namespace !== '' ? { namespace: m.namespace } : {}),
        ...(Object.keys(m.t.labels).length > 0 ? { labels: { ...m.t.labels } } : {}),
        ...(Object.keys(m.t.annotations).length > 0 ? { annotations: { ...m.t.annotations } } : {}),
        ...(m.t.finalizers.length > 0 ? { finalizers: [...m.t.finalizers] } : {}),
      },
      spec: m.spec,
      ...(m.t.status !== undefined ? { status: m.t.status } : {}),
    };
    out.push({ order: out.length, action: { at: m.at, type: 'create', object } });
  }
  for (const a of acts) {
    const m = made[a.obj % made.length]!;
    const base = { at: a.at, kind: m.t.kind, key: m.key };
    let action: WorkloadAction;
    switch (a.op.type) {
      case 'update':
        action = { ...base, type: 'update', spec: a.op.specs[m.templateIndex]! };
        break;
      case 'patch': {
        const spec = a.op.specs[m.templateIndex]!;
        const keys = Object.keys(spec).filter((_, i) => ((a.op as { mask: number }).mask >> i) & 1);
        action =
          keys.length === 0
            ? { ...base, type: 'patch', patch: { metadata: { labels: { 'steadystate.dev/touched': String(a.op.label) } } } }
            : { ...base, type: 'patch', patch: { spec: Object.fromEntries(keys.map((k) => [k, spec[k]!])) } };
        break;
      }
      case 'delete':
        // a foreground cascade (kubectl --cascade=foreground, Argo CD: the object stays until what it owns is gone) at every
        // fourth time slot: decided from the time already drawn, so a seed keeps its scenarios, and shrinking toward t=0
        // makes it a plain delete; a quarter, not a half, because it also deletes what an owner adopted whatever its
        // controller does, which hides a release bug (machine-pool's twin) as often as it is chosen
        action = Math.round((a.at * 100) / Math.max(1, windowMs)) % 4 === 3 ? { ...base, type: 'delete', propagationPolicy: 'Foreground' } : { ...base, type: 'delete' };
        break;
      case 'reapply':
        action = { ...base, type: 'reapply' };
        break;
      case 'removeFinalizer': {
        const fins = m.t.removableFinalizers;
        if (fins.length === 0) continue;
        action = { ...base, type: 'removeFinalizer', finalizer: fins[a.op.which % fins.length]! };
        break;
      }
    }
    out.push({ order: out.length, action });
  }
  // creates come first among actions at the same time, then generation order: stable and readable
  out.sort((x, y) => x.action.at - y.action.at || x.order - y.order);
  return out.map((x) => x.action);
}

/** A kind as a DNS-style name prefix: lower case, other characters as "-" ("Web_App" → "web-app"). */
function dnsPrefixOf(kind: string): string {
  const p = kind.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return p === '' ? 'object' : p;
}
