import { InvalidError } from '../store/errors.js';
import type { JsonObject } from '../store/object.js';
import { matchesSelector, parseSelector } from '../store/selector.js';
import { matchesFields, parseFieldSelector, type FieldRequirement } from '../store/field-selector.js';
import { KubeStatusError } from './status.js';

/** A compiled `labelSelector` + `fieldSelector` pair. @internal */
export type ObjectFilter = (wire: JsonObject) => boolean;

/**
 * Compiles the `labelSelector` and `fieldSelector` query parameters. Label selectors take the
 * full syntax, spaces included (`app in (web, api), tier!=db`); field selectors take `=`, `==`
 * and `!=` on the field labels the kind serves (see store/field-selector.ts: `metadata.name=web`,
 * a Pod's `status.phase=Running`, a custom kind's CRD `selectableFields`), with kube's `\,` and `\=`
 * escapes; any other label is a 400.
 * @throws KubeStatusError (400) on a malformed selector
 * @internal
 */
export function createObjectFilter(kind: string, labelSelector: string | null, fieldSelector: string | null, selectable: readonly string[] = []): ObjectFilter | undefined {
  let labels: ReturnType<typeof parseSelector> = [];
  try {
    labels = parseSelector(labelSelector ?? undefined);
  } catch (err) {
    if (err instanceof InvalidError) throw new KubeStatusError('BadRequest', err.message);
    throw err;
  }
  let fields: FieldRequirement[];
  try {
    fields = parseFieldSelector(kind, fieldSelector ?? undefined, selectable);
  } catch (err) {
    if (err instanceof InvalidError) throw new KubeStatusError('BadRequest', err.message);
    throw err;
  }
  if (labels.length === 0 && fields.length === 0) return undefined;
  return (wire) => {
    const meta = wire['metadata'] as JsonObject | undefined;
    if (labels.length > 0 && !matchesSelector(labels, (meta?.['labels'] ?? {}) as Record<string, string>)) return false;
    return fields.length === 0 || matchesFields(fields, wire);
  };
}
