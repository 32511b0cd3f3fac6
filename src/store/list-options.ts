import { matchesFields, parseFieldSelector } from './field-selector.js';
import type { StoredObject } from './object.js';
import { matchesSelector, selectorRequirements, type LabelSelector } from './selector.js';

/** Which objects a list returns. @public */
export interface ListOptions {
  // `| undefined` on purpose: users with exactOptionalPropertyTypes can pass `namespace: ctx.namespace`
  namespace?: string | undefined;
  labelSelector?: LabelSelector | undefined;
  /**
   * `=`, `==` or `!=` on the field labels kube-apiserver serves for the kind: `metadata.name` and
   * `metadata.namespace` for every kind, and e.g. `spec.nodeName` and `status.phase` for Pods.
   */
  fieldSelector?: string;
}

/**
 * The objects that match a list's options, in the order given (`selectable`: the CRD's selectable
 * fields of a custom kind). No copies.
 * @throws InvalidError on a malformed label or field selector
 * @internal
 */
export function selectObjects(kind: string, objects: Iterable<StoredObject>, options: ListOptions, selectable: readonly string[] = []): StoredObject[] {
  const reqs = selectorRequirements(options.labelSelector);
  const fields = parseFieldSelector(kind, options.fieldSelector, selectable);
  const out: StoredObject[] = [];
  for (const o of objects) {
    if (options.namespace && o.metadata.namespace !== options.namespace) continue;
    if (reqs.length > 0 && !matchesSelector(reqs, o.metadata.labels)) continue;
    if (fields.length > 0 && !matchesFields(fields, o)) continue;
    out.push(o);
  }
  return out;
}
