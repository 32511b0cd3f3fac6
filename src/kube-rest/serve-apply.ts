import { yaml } from '../story/yaml.js';
import { keyOf, type JsonObject } from '../store/object.js';
import { applySchema, fieldManagersOf, managedTime, scoped, type ApplyScope } from './managed-fields.js';
import type { ServeContext } from './serve-context.js';
import { createObject, notFound, storedFromPatched } from './serve-write.js';
import { jsonResponse, KubeStatusError } from './status.js';
import { fromWire, toWire } from './wire.js';

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The applied configuration: one YAML (or JSON) document holding an object. */
function readApplied(c: ServeContext): JsonObject {
  if (c.body.trim() === '') throw new KubeStatusError('BadRequest', 'the request body is empty; send the applied configuration as YAML or JSON');
  const docs = yaml().parseAllDocuments(c.body);
  if (!Array.isArray(docs) || docs.length !== 1) throw new KubeStatusError('BadRequest', 'error decoding YAML: an apply patch must be exactly one YAML document');
  const doc = docs[0]!;
  if (doc.errors.length > 0) throw new KubeStatusError('BadRequest', `error decoding YAML: ${doc.errors[0]!.message}`);
  const body = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isObject(body)) throw new KubeStatusError('BadRequest', 'error decoding YAML: the applied configuration must be an object');
  for (const k of ['apiVersion', 'kind'] as const) {
    if (typeof body[k] !== 'string' || body[k] === '') throw new KubeStatusError('BadRequest', `Object '${k === 'kind' ? 'Kind' : 'apiVersion'}' is missing in the applied configuration`);
  }
  const meta = body['metadata'];
  if (isObject(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) throw new KubeStatusError('BadRequest', 'metadata.managedFields must be nil');
  return body;
}

/** Where the built-in workload kinds keep their pod template's containers. */
const POD_CONTAINERS: Readonly<Record<string, { template: boolean; selector: boolean }>> = {
  Pod: { template: false, selector: false },
  Deployment: { template: true, selector: true },
  ReplicaSet: { template: true, selector: true },
  StatefulSet: { template: true, selector: true },
  DaemonSet: { template: true, selector: true },
  Job: { template: true, selector: false },
};

/**
 * The required fields kube-apiserver's validation asks of a new workload (a selector, containers
 * with a name and an image), checked when an apply would create one: an applied configuration
 * that only states a few fields of an object that was deleted meanwhile is refused (422), as in a
 * real cluster, instead of creating a fragment. (Creates by POST are not validated.)
 */
function invalidCreate(c: ServeContext, obj: JsonObject): KubeStatusError | undefined {
  const shape = c.resource.group === '' || c.resource.group === 'apps' || c.resource.group === 'batch' ? POD_CONTAINERS[c.resource.kind] : undefined;
  if (shape === undefined) return undefined;
  const spec = isObject(obj['spec']) ? obj['spec'] : {};
  const missing: string[] = [];
  if (shape.selector && !isObject(spec['selector'])) missing.push('spec.selector');
  const template = isObject(spec['template']) ? spec['template'] : {};
  const podSpec = shape.template ? (isObject(template['spec']) ? template['spec'] : {}) : spec;
  const at = shape.template ? 'spec.template.spec.containers' : 'spec.containers';
  const containers = Array.isArray(podSpec['containers']) ? podSpec['containers'] : [];
  if (containers.length === 0) missing.push(at);
  containers.forEach((x, i) => {
    for (const f of ['name', 'image']) if (!isObject(x) || typeof x[f] !== 'string' || x[f] === '') missing.push(`${at}[${i}].${f}`);
  });
  if (missing.length === 0) return undefined;
  const what = `${c.resource.kind}${c.resource.group !== '' ? `.${c.resource.group}` : ''} "${c.name}"`;
  const errors = missing.map((f) => `${f}: Required value`);
  return new KubeStatusError('Invalid', `${what} is invalid: ${errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`}`, {
    name: c.name!,
    ...(c.resource.group !== '' ? { group: c.resource.group } : {}),
    kind: c.resource.kind,
    causes: missing.map((f) => ({ reason: 'FieldValueRequired', message: 'Required value', field: f })),
  });
}

/**
 * Server-side apply (PATCH with `application/apply-patch+yaml`): merges the applied
 * configuration into the object (creating it when it does not exist, 201), records which fields
 * the `fieldManager` owns in `metadata.managedFields`, removes the fields the manager applied
 * before and leaves out now (unless another manager owns them too), and answers 409 when it
 * would change a field another manager owns (unless `force=true`, which takes it over). On
 * `/status` only the status is applied.
 * @internal
 */
export function serveApply(c: ServeContext): Response {
  const q = c.url.searchParams;
  const manager = q.get('fieldManager') ?? '';
  if (manager === '') {
    throw new KubeStatusError('Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
    });
  }
  const force = q.get('force') === 'true' || q.get('force') === '1';
  const body = readApplied(c);
  const resource = c.resource;
  const scope: ApplyScope = c.subresource === 'status' ? 'status' : 'main';
  if (scope === 'status' && !resource.statusSubresource) throw notFound(c);
  // the kind, apiVersion, namespace and name checks of a create/update
  const checked = fromWire(body, resource, { namespace: c.namespace, name: c.name });
  const cfg = scoped(body, scope, resource);
  const schema = applySchema(c);
  const { store } = c.api;
  const table = fieldManagersOf(store);
  const ref = { namespace: c.namespace, name: c.name! };
  const key = keyOf(ref);
  const time = managedTime(c.info.t);
  const options = { manager, force, scope, schema, apiVersion: resource.apiVersion, time };
  const cur = store.peek(resource.kind, key);
  if (cur === undefined) {
    if (scope === 'status') throw new KubeStatusError('NotFound', `${resource.plural}${resource.group !== '' ? `.${resource.group}` : ''} "${c.name}" not found`, { name: c.name!, kind: resource.plural });
    const plan = table.plan(undefined, {}, cfg, options);
    const invalid = invalidCreate(c, plan.merged);
    if (invalid !== undefined) throw invalid;
    const undo = table.commit(resource.kind, key, undefined, plan.entries);
    try {
      const input = fromWire({ ...plan.merged, apiVersion: resource.apiVersion, kind: resource.kind, metadata: { ...(plan.merged['metadata'] as JsonObject | undefined), name: c.name! } }, resource, { namespace: c.namespace, name: c.name });
      const created = createObject(c, input);
      return jsonResponse(toWire(created, resource, table), 201);
    } catch (err) {
      undo();
      throw err;
    }
  }
  const precondition = checked.metadata.resourceVersion;
  let undo: (() => void) | undefined;
  try {
    const result = store.transform(
      c.info.actor,
      resource.kind,
      ref,
      (live) => {
        const plan = table.plan(live, toWire(live, resource), cfg, options);
        undo = table.commit(resource.kind, key, live.metadata.uid, plan.entries);
        return storedFromPatched(plan.merged, live, c);
      },
      { ...(scope === 'status' ? { subresource: 'status' as const } : { statusSubresource: resource.statusSubresource }), ...(precondition !== undefined ? { resourceVersion: precondition } : {}) },
    );
    return jsonResponse(toWire(result, resource, table));
  } catch (err) {
    undo?.();
    throw err;
  }
}
