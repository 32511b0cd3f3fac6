import type { Json, JsonObject, StoredObject } from './object.js';

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** What an object node of a structural schema keeps: its `properties`, the values of `additionalProperties`, or everything. */
function pruneMap(value: JsonObject, schema: JsonObject, keep: ReadonlySet<string> | undefined): JsonObject {
  const props = isObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = schema['additionalProperties'];
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  let out: JsonObject | undefined;
  for (const k of Object.keys(value)) {
    const v = value[k]!;
    let next: Json | undefined = v;
    if (keep?.has(k) || (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata'))) next = v;
    else if (props !== undefined && Object.hasOwn(props, k)) next = prunedValue(v, props[k]);
    else if (isObject(additional)) next = prunedValue(v, additional);
    else if (additional === true || preserve) next = v;
    else next = undefined;
    // the store keeps spec and status as objects (an empty one is none on the wire)
    if (next === undefined && keep !== undefined && (k === 'spec' || k === 'status') && isObject(v)) next = Object.keys(v).length === 0 ? v : {};
    if (next === v) continue;
    out ??= { ...value };
    if (next === undefined) delete out[k];
    else out[k] = next;
  }
  return out ?? value;
}

function prunedValue(value: Json, schema: unknown): Json {
  if (!isObject(schema)) return value;
  if (isObject(value)) {
    // a node that says nothing of objects (a string, int-or-string) is validation's business, not pruning's
    const objectNode = schema['type'] === 'object' || schema['properties'] !== undefined || schema['additionalProperties'] !== undefined;
    return objectNode ? pruneMap(value, schema, undefined) : value;
  }
  if (Array.isArray(value) && isObject(schema['items'])) return mapItems(value, schema['items'], prunedValue);
  return value;
}

/** `value` with `fn` applied to each item under the items' schema; `value` itself when no item changed (copy on write). */
function mapItems(value: Json[], items: JsonObject, fn: (v: Json, s: unknown) => Json): Json[] {
  let out: Json[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const next = fn(value[i]!, items);
    if (next === value[i]) continue;
    out ??= [...value];
    out[i] = next;
  }
  return out ?? value;
}

/**
 * Structural defaulting of one node: every property the schema gives a `default` that the value
 * lacks (or holds null where the schema is not `nullable`) gets a copy of it, then the properties,
 * items and map values present are defaulted in turn. Copy on write, as {@link pruneMap}.
 */
function defaultedValue(value: Json, schema: unknown, skip?: ReadonlySet<string>): Json {
  if (!isObject(schema)) return value;
  if (isObject(value)) {
    const props = isObject(schema['properties']) ? schema['properties'] : undefined;
    const additional = isObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    let out: JsonObject | undefined;
    const set = (k: string, v: Json): void => {
      out ??= { ...value };
      out[k] = v;
    };
    if (props !== undefined) {
      for (const [k, p] of Object.entries(props)) {
        if (skip?.has(k) || !isObject(p)) continue;
        const v = value[k];
        if ((v === undefined || (v === null && p['nullable'] !== true)) && p['default'] !== undefined) set(k, structuredClone(p['default']) as Json);
      }
    }
    const now: JsonObject = out ?? value;
    for (const k of Object.keys(now)) {
      if (skip?.has(k)) continue;
      const sub = props !== undefined && Object.hasOwn(props, k) ? props[k] : additional;
      if (sub === undefined) continue;
      const v = now[k]!;
      const next = defaultedValue(v, sub);
      if (next !== v) set(k, next);
    }
    return out ?? value;
  }
  if (Array.isArray(value) && isObject(schema['items'])) return mapItems(value, schema['items'], (v, s) => defaultedValue(v, s));
  return value;
}

/** The fields of a custom resource's root no schema speaks of: the API machinery's own. */
const ROOT = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * A custom resource as kube-apiserver stores it: the fields its CRD's structural schema
 * (`openAPIV3Schema` of the version written) does not declare are dropped, as the apiextensions
 * server prunes them on every write, unless a node says `x-kubernetes-preserve-unknown-fields`
 * (or the values are a map's, `additionalProperties`). A controller that writes a status field
 * its CRD forgot sees it gone on the next read (and one that writes it back on every reconcile
 * loops, as it would on a cluster). Returns `obj` itself when nothing is pruned; never modifies it
 * (a stored object may share parts with the one written).
 * @internal
 */
export function prunedBySchema<T extends StoredObject>(obj: T, schema: unknown): T {
  if (!isObject(schema)) return obj;
  return pruneMap(obj as unknown as JsonObject, schema, ROOT) as unknown as T;
}

/**
 * A custom resource with its CRD schema's `default`s applied, as the apiextensions server applies
 * them after pruning (a kubebuilder `+kubebuilder:default=` marker): a property the object lacks
 * gets its default, at every level of the object present. A controller written against a cluster
 * reads defaulted fields without a fallback; here they were missing (a NaN interval, a crash).
 * Returns `obj` itself when nothing is defaulted; never modifies it.
 * @internal
 */
export function defaultedBySchema<T extends StoredObject>(obj: T, schema: unknown): T {
  return defaultedValue(obj as unknown as JsonObject, schema, ROOT) as unknown as T;
}
