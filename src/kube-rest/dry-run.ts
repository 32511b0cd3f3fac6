import type { ServeContext } from './serve-context.js';
import { KubeStatusError } from './status.js';

/** The only value kube-apiserver takes (metav1.DryRunAll). */
const ALL = 'All';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The body's `dryRun` list where one can be sent: a DELETE's DeleteOptions, an Eviction's deleteOptions. */
function bodyValues(c: ServeContext): unknown[] {
  const eviction = c.info.verb === 'create' && c.info.kind === 'Eviction';
  if (!eviction && c.info.verb !== 'delete' && c.info.verb !== 'deletecollection') return [];
  if (c.body.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(c.body);
  } catch {
    return []; // the verb's own parsing answers 400
  }
  const options = eviction ? (isRecord(parsed) ? parsed['deleteOptions'] : undefined) : parsed;
  const values = isRecord(options) ? options['dryRun'] : undefined;
  return Array.isArray(values) ? values : [];
}

/**
 * Whether a write is a dry run: `?dryRun=All` on POST, PUT, PATCH (apply too) and DELETE, or
 * `dryRun: ["All"]` in a DELETE's DeleteOptions or an Eviction's deleteOptions. Any other value
 * is refused with 422, as kube-apiserver's ValidateDryRun answers (`dryRun: Unsupported value`).
 * Reads take no dry run.
 * @internal
 */
export function isDryRun(c: ServeContext): boolean {
  const verb = c.info.verb;
  if (verb === 'get' || verb === 'list' || verb === 'watch') return false;
  const values = [...c.url.searchParams.getAll('dryRun'), ...bodyValues(c)];
  if (values.length === 0) return false;
  if (values.every((v) => v === ALL)) return true;
  const kind = verb === 'create' && c.info.kind !== 'Eviction' ? 'CreateOptions' : verb === 'update' ? 'UpdateOptions' : verb === 'patch' ? 'PatchOptions' : 'DeleteOptions';
  const message = `Unsupported value: ${JSON.stringify(values)}: supported values: "${ALL}"`;
  throw new KubeStatusError('Invalid', `${kind}.meta.k8s.io "" is invalid: dryRun: ${message}`, {
    group: 'meta.k8s.io',
    kind,
    causes: [{ reason: 'FieldValueNotSupported', message, field: 'dryRun' }],
  });
}
