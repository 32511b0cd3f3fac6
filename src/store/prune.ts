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
  if (Array.isArray(value) && isObject(schema['items'])) {
    let out: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = prunedValue(value[i]!, schema['items']);
      if (next === value[i]) continue;
      out ??= [...value];
      out[i] = next;
    }
    return out ?? value;
  }
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
