import { parseFieldSelector } from './field-selector.js';
import type { StoredObject } from './object.js';
import { matchesSelector, selectorRequirements, type LabelSelector } from './selector.js';

/** Which objects a list returns. @public */
export interface ListOptions {
  // `| undefined` on purpose: users with exactOptionalPropertyTypes can pass `namespace: ctx.namespace`
  namespace?: string | undefined;
  labelSelector?: LabelSelector | undefined;
  /** Only `metadata.name=` and `metadata.namespace=` are supported, as most clients need. */
  fieldSelector?: string;
}

/**
 * The objects that match a list's options, in the order given. No copies.
 * @throws InvalidError on a malformed label or field selector
 * @internal
 */
export function selectObjects(objects: Iterable<StoredObject>, options: ListOptions): StoredObject[] {
  const reqs = selectorRequirements(options.labelSelector);
  const fields = parseFieldSelector(options.fieldSelector);
  const out: StoredObject[] = [];
  for (const o of objects) {
    if (options.namespace && o.metadata.namespace !== options.namespace) continue;
    if (reqs.length > 0 && !matchesSelector(reqs, o.metadata.labels)) continue;
    if (fields.name !== undefined && o.metadata.name !== fields.name) continue;
    if (fields.namespace !== undefined && o.metadata.namespace !== fields.namespace) continue;
    out.push(o);
  }
  return out;
}
