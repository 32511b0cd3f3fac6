import { InvalidError } from '../store/errors.js';
import type { Json, JsonObject } from '../store/object.js';
import { matchesSelector, parseSelector } from '../store/selector.js';
import { KubeStatusError } from './status.js';

/** A compiled `labelSelector` + `fieldSelector` pair. @internal */
export type ObjectFilter = (wire: JsonObject) => boolean;

interface FieldRequirement {
  path: string[];
  value: string;
  equal: boolean;
}

/**
 * Compiles the `labelSelector` and `fieldSelector` query parameters. Label selectors take the
 * full syntax, spaces included (`app in (web, api), tier!=db`); field selectors take `=`, `==`
 * and `!=` on any dotted field of the served object (`metadata.name=web`, `status.phase=Running`),
 * with kube's `\,` and `\=` escapes. A field that is absent compares as "".
 * @throws KubeStatusError (400) on a malformed selector
 * @internal
 */
export function createObjectFilter(labelSelector: string | null, fieldSelector: string | null): ObjectFilter | undefined {
  let labels: ReturnType<typeof parseSelector> = [];
  try {
    labels = parseSelector(labelSelector ?? undefined);
  } catch (err) {
    if (err instanceof InvalidError) throw new KubeStatusError('BadRequest', err.message);
    throw err;
  }
  const fields = parseFieldSelector(fieldSelector ?? '');
  if (labels.length === 0 && fields.length === 0) return undefined;
  return (wire) => {
    const meta = wire['metadata'] as JsonObject | undefined;
    if (labels.length > 0 && !matchesSelector(labels, (meta?.['labels'] ?? {}) as Record<string, string>)) return false;
    for (const f of fields) if ((fieldValue(wire, f.path) === f.value) !== f.equal) return false;
    return true;
  };
}

function parseFieldSelector(sel: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const term of splitUnescaped(sel, ',')) {
    if (term.trim() === '') continue;
    const m = /^\s*([A-Za-z0-9_.\-/]+)\s*(==|!=|=)\s*(.*?)\s*$/s.exec(term);
    if (!m) throw new KubeStatusError('BadRequest', `invalid field selector: "${term}": expected <field>=<value>, <field>==<value> or <field>!=<value>`);
    out.push({ path: m[1]!.split('.'), value: unescape(m[3]!), equal: m[2] !== '!=' });
  }
  return out;
}

function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '\\' && i + 1 < s.length) {
      cur += ch + s[++i]!;
    } else if (ch === sep) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

function unescape(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}

function fieldValue(obj: JsonObject, path: string[]): string {
  let cur: Json | undefined = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return '';
    cur = cur[p];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}
