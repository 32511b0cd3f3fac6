import type { RunRecord } from '../../src/harness/property.js';
import type { StoredObject } from '../../src/store/object.js';
import { isRecord } from './json.js';
import { parsePath } from './paths.js';

/**
 * What no-hot-loop and no-fighting say of a fight between two keys of one controller (two
 * Scalers on one Deployment, one wanting 3 replicas, the other 2): the values they alternate and
 * the advice.
 * @internal
 */

/** The two values a fought-over field took at the settle's end and at the run's end, when they differ (from the run's recorded states). */
export function alternatingValues(run: RunRecord, kind: string, key: string, path: string): string[] | undefined {
  const segs = parsePath(path);
  if (segs === undefined) return undefined;
  const at = (objects: readonly StoredObject[]): unknown => {
    const o = objects.find((x) => x.kind === kind && keyOfObject(x) === key);
    let v: unknown = o;
    for (const s of segs) v = isRecord(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[s] : undefined;
    return v;
  };
  const a = at(run.settledObjects);
  const b = at(run.finalObjects);
  if (a === undefined || b === undefined || JSON.stringify(a) === JSON.stringify(b)) return undefined;
  return [JSON.stringify(a), JSON.stringify(b)];
}

function keyOfObject(o: StoredObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

/** The advice for two keys of one controller (of primary kind `kindName`) that fight over a field of a `targetKind`. */
export function keyFightHint(kindName: string, targetKind: string): string {
  return `two ${kindName}s that want different values of one field of one ${targetKind} never agree: detect the conflict and report it instead of writing (as Kubernetes' HPA refuses two autoscalers on one target: AmbiguousSelector), or give the field one owner; if two ${kindName}s sharing one ${targetKind} is not a configuration you support, constrain the generator (\`objects\`: ${kindName} specs that never share one, or \`maxObjects\`)`;
}
