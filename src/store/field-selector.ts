import { InvalidError } from './errors.js';
import type { Json } from './object.js';

/** One term of a field selector: `label=value`, `label==value` or `label!=value`. @internal */
export interface FieldRequirement {
  label: string;
  path: string[];
  value: string;
  equal: boolean;
}

/**
 * The field labels kube-apiserver serves for a kind (its registry's `GetAttrs` /
 * field label conversion): every kind takes `metadata.name` and `metadata.namespace`; these
 * built-ins take more (`kubectl drain` and the kubelet list Pods by `spec.nodeName`). A custom
 * resource takes only the two (CRD `selectableFields` are not modelled).
 */
const FIELD_LABELS: Record<string, readonly string[]> = {
  Pod: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  Event: ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  Secret: ['type'],
  Node: ['spec.unschedulable'],
  Namespace: ['status.phase'],
  ReplicaSet: ['status.replicas'],
  ReplicationController: ['status.replicas'],
  Job: ['status.successful'],
  CertificateSigningRequest: ['spec.signerName'],
};
const COMMON = ['metadata.name', 'metadata.namespace'];

/**
 * Parses a field selector for `kind`: comma-separated terms with `=`, `==` or `!=` (kube's `\,`
 * and `\=` escapes) on the field labels the kind supports; an empty selector matches everything.
 * @throws InvalidError on a malformed term or a field label the kind does not support (a real
 * API server answers 400 "field label not supported")
 * @internal
 */
export function parseFieldSelector(kind: string, sel: string | undefined): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  if (!sel) return out;
  for (const term of splitUnescaped(sel, ',')) {
    if (term.trim() === '') continue;
    const m = /^\s*([A-Za-z0-9_.\-/]+)\s*(==|!=|=)\s*(.*?)\s*$/s.exec(term);
    if (!m) throw new InvalidError(`invalid field selector: "${term}": expected <field>=<value>, <field>==<value> or <field>!=<value>`);
    const label = m[1]!;
    if (!COMMON.includes(label) && !(FIELD_LABELS[kind] ?? []).includes(label)) {
      throw new InvalidError(`field label not supported: ${label} (${kind} takes ${[...COMMON, ...(FIELD_LABELS[kind] ?? [])].join(', ')})`);
    }
    out.push({ label, path: label.split('.'), value: m[3]!.replace(/\\(.)/g, '$1'), equal: m[2] !== '!=' });
  }
  return out;
}

/** Whether an object (stored or served) meets every term; an absent field compares as "". @internal */
export function matchesFields(reqs: readonly FieldRequirement[], obj: { [k: string]: unknown }): boolean {
  for (const r of reqs) if ((fieldValue(obj, r.path) === r.value) !== r.equal) return false;
  return true;
}

function fieldValue(obj: { [k: string]: unknown }, path: readonly string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return '';
    cur = (cur as { [k: string]: Json | undefined })[p];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
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
