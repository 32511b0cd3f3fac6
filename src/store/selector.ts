import { InvalidError } from './errors.js';

/** A parsed label selector requirement. @internal */
export interface Requirement {
  key: string;
  op: 'in' | 'notin' | 'exists' | '!exists';
  values: string[];
}

/** A label selector as a string (`app=web,tier in (a, b),!legacy`) or matchLabels map. @public */
export type LabelSelector = string | { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[] };

/** Parses a label selector (Kubernetes string syntax or object form). @public */
export function parseSelector(sel: LabelSelector | undefined): Requirement[] {
  if (sel === undefined) return [];
  if (typeof sel !== 'string') {
    const out: Requirement[] = [];
    for (const [k, v] of Object.entries(sel.matchLabels ?? {})) out.push({ key: k, op: 'in', values: [v] });
    for (const e of sel.matchExpressions ?? []) {
      const op = e.operator === 'In' ? 'in' : e.operator === 'NotIn' ? 'notin' : e.operator === 'Exists' ? 'exists' : '!exists';
      out.push({ key: e.key, op, values: e.values ?? [] });
    }
    return out;
  }
  const out: Requirement[] = [];
  for (const part of splitTopLevel(sel)) {
    const p = part.trim();
    if (p === '') continue;
    let m: RegExpMatchArray | null;
    if ((m = p.match(/^([^\s!=(),]+)\s+(in|notin)\s*\(([^)]*)\)$/))) {
      out.push({ key: m[1]!, op: m[2] as 'in' | 'notin', values: m[3]!.split(',').map((v) => v.trim()).filter((v) => v !== '') });
    } else if ((m = p.match(/^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/))) {
      out.push({ key: m[1]!, op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]!] });
    } else if ((m = p.match(/^!\s*([^\s!=(),]+)$/))) {
      out.push({ key: m[1]!, op: '!exists', values: [] });
    } else if ((m = p.match(/^([^\s!=(),]+)$/))) {
      out.push({ key: m[1]!, op: 'exists', values: [] });
    } else {
      throw new InvalidError(`unable to parse label selector requirement "${p}" in "${sel}"`);
    }
  }
  return out;
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

/** True when the labels satisfy every requirement. @public */
export function matchesSelector(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  for (const r of reqs) {
    const v = labels?.[r.key];
    switch (r.op) {
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (v === undefined) return false;
        break;
      case '!exists':
        if (v !== undefined) return false;
        break;
    }
  }
  return true;
}
