import { InvalidError } from './errors.js';

/** A parsed label selector requirement. @internal */
export interface Requirement {
  key: string;
  op: 'in' | 'notin' | 'exists' | '!exists' | 'gt' | 'lt';
  values: string[];
}

/** A label selector as a string (`app=web,tier in (a, b),!legacy`) or matchLabels map. @public */
export type LabelSelector = string | { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[] };

const OPERATORS: Record<string, Requirement['op']> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!exists' };

// a label key or value: no whitespace and none of the selector's own punctuation
const KEY = String.raw`[^\s!=(),<>]+`;
const VALUE = String.raw`[^\s!=(),<>]*`;
const SET_RE = new RegExp(String.raw`^(${KEY})\s+(in|notin)\s*\(([^()]*)\)$`);
const EQ_RE = new RegExp(String.raw`^(${KEY})\s*(==|=|!=)\s*(${VALUE})$`);
const CMP_RE = new RegExp(String.raw`^(${KEY})\s*(<|>)\s*(-?\d+)$`);
const NOT_EXISTS_RE = new RegExp(String.raw`^!\s*(${KEY})$`);
const EXISTS_RE = new RegExp(String.raw`^(${KEY})$`);
const SET_VALUE_RE = new RegExp(String.raw`^${VALUE}$`);

/** Parsed string selectors (read-only: shared by every list that names the selector). */
const parsedSelectors = new Map<string, readonly Requirement[]>();
const MAX_PARSED_SELECTORS = 256;
const NO_REQUIREMENTS: readonly Requirement[] = Object.freeze([]);

/**
 * {@link parseSelector} for the list paths, which only read the requirements: a string selector
 * is parsed once (a controller lists by the same selector on every reconcile). The result must
 * not be changed. A malformed selector throws every time, as parseSelector does.
 * @internal
 */
export function selectorRequirements(sel: LabelSelector | undefined): readonly Requirement[] {
  if (sel === undefined) return NO_REQUIREMENTS;
  if (typeof sel !== 'string') return parseSelector(sel);
  let reqs = parsedSelectors.get(sel);
  if (reqs === undefined) {
    reqs = parseSelector(sel);
    if (parsedSelectors.size >= MAX_PARSED_SELECTORS) parsedSelectors.clear();
    parsedSelectors.set(sel, reqs);
  }
  return reqs;
}

/**
 * Parses a label selector: the Kubernetes string syntax (`a=b`, `a==b`, `a!=b`, `a in (x, y)`,
 * `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma-separated, spaces allowed) or the object form
 * (matchLabels + matchExpressions). An empty selector matches everything.
 * @throws InvalidError on a malformed selector
 * @public
 */
export function parseSelector(sel: LabelSelector | undefined): Requirement[] {
  if (sel === undefined) return [];
  if (typeof sel !== 'string') {
    const out: Requirement[] = [];
    for (const [k, v] of Object.entries(sel.matchLabels ?? {})) out.push({ key: k, op: 'in', values: [v] });
    for (const e of sel.matchExpressions ?? []) {
      const op = Object.hasOwn(OPERATORS, e.operator) ? OPERATORS[e.operator] : undefined;
      if (op === undefined) throw new InvalidError(`"${String(e.operator)}" is not a valid label selector operator`);
      const values = e.values ?? [];
      if ((op === 'in' || op === 'notin') && values.length === 0) {
        throw new InvalidError(`label selector requirement on "${e.key}": values must be non-empty for ${e.operator}`);
      }
      if ((op === 'exists' || op === '!exists') && values.length > 0) {
        throw new InvalidError(`label selector requirement on "${e.key}": values must be empty for ${e.operator}`);
      }
      out.push({ key: e.key, op, values: [...values] });
    }
    return out;
  }
  const out: Requirement[] = [];
  for (const part of splitTopLevel(sel)) {
    const p = part.trim();
    if (p === '') continue;
    let m: RegExpMatchArray | null;
    if ((m = p.match(SET_RE))) {
      const values = m[3]!.split(',').map((v) => v.trim());
      if (values.length === 1 && values[0] === '') {
        throw new InvalidError(`unable to parse label selector requirement "${p}" in "${sel}": empty value set`);
      }
      if (!values.every((v) => SET_VALUE_RE.test(v))) {
        throw new InvalidError(`unable to parse label selector requirement "${p}" in "${sel}"`);
      }
      out.push({ key: m[1]!, op: m[2] as 'in' | 'notin', values });
    } else if ((m = p.match(EQ_RE))) {
      out.push({ key: m[1]!, op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]!] });
    } else if ((m = p.match(CMP_RE))) {
      out.push({ key: m[1]!, op: m[2] === '>' ? 'gt' : 'lt', values: [m[3]!] });
    } else if ((m = p.match(NOT_EXISTS_RE))) {
      out.push({ key: m[1]!, op: '!exists', values: [] });
    } else if ((m = p.match(EXISTS_RE))) {
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
    if (depth < 0 || depth > 1) throw new InvalidError(`unable to parse label selector "${s}": unbalanced parentheses`);
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (depth !== 0) throw new InvalidError(`unable to parse label selector "${s}": unbalanced parentheses`);
  parts.push(cur);
  return parts;
}

/** True when the labels satisfy every requirement. @public */
export function matchesSelector(reqs: readonly Requirement[], labels: Record<string, string> | undefined): boolean {
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
      case 'gt':
      case 'lt': {
        // as in Kubernetes: the label must exist and parse as an integer
        if (v === undefined || !/^-?\d+$/.test(v)) return false;
        const n = Number(v);
        const bound = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}
