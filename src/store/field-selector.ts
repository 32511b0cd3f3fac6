import { InvalidError } from './errors.js';

type Obj = { [k: string]: unknown };

/** What a field label reads of an object: Go's formatting of the typed field it names. */
type FieldGetter = (obj: Obj) => string;

/** One term of a field selector: `label=value`, `label==value` or `label!=value`. @internal */
export interface FieldRequirement {
  label: string;
  /** The label's value of an object, as kube-apiserver computes it. */
  get: FieldGetter;
  value: string;
  equal: boolean;
}

function at(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

/** A Go string field: absent is "". */
function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** The field at `path`, formatted as a Go string (absent: ""). */
const str = (...path: string[]): FieldGetter => (o) => text(at(o, ...path));
/** A Go bool (`fmt.Sprint`, `strconv.FormatBool`): absent is "false". */
const bool = (...path: string[]): FieldGetter => (o) => (at(o, ...path) === true ? 'true' : at(o, ...path) === undefined || at(o, ...path) === null ? 'false' : text(at(o, ...path)));
/** A Go int (`strconv.Itoa`): absent is "0". */
const int = (...path: string[]): FieldGetter => (o) => {
  const v = at(o, ...path);
  return v === undefined || v === null ? '0' : text(v);
};

/**
 * The field labels kube-apiserver serves for a kind beyond `metadata.name` and
 * `metadata.namespace`, each computed as its registry's `*ToSelectableFields` computes it
 * (pkg/registry/*): from the typed object, so an absent bool is "false" and an absent count "0"
 * (`spec.unschedulable=false` matches a Node never cordoned: `kubectl uncordon` removes the
 * field), and a label need not be the field's path (a Job's `status.successful` is
 * `status.succeeded`; an Event's `source` is `source.component`, else its reporting controller).
 * A custom resource takes only the two (CRD `selectableFields` are not modelled).
 */
const FIELD_LABELS: Record<string, Readonly<Record<string, FieldGetter>>> = {
  Pod: {
    'spec.nodeName': str('spec', 'nodeName'),
    'spec.restartPolicy': str('spec', 'restartPolicy'),
    'spec.schedulerName': str('spec', 'schedulerName'),
    'spec.serviceAccountName': str('spec', 'serviceAccountName'),
    'spec.hostNetwork': bool('spec', 'hostNetwork'),
    'status.phase': str('status', 'phase'),
    // the first of status.podIPs (the v1 podIP is its first entry)
    'status.podIP': (o) => text(at(o, 'status', 'podIP') ?? at(o, 'status', 'podIPs', '0', 'ip')),
    'status.nominatedNodeName': str('status', 'nominatedNodeName'),
  },
  Event: {
    'involvedObject.kind': str('involvedObject', 'kind'),
    'involvedObject.namespace': str('involvedObject', 'namespace'),
    'involvedObject.name': str('involvedObject', 'name'),
    'involvedObject.uid': str('involvedObject', 'uid'),
    'involvedObject.apiVersion': str('involvedObject', 'apiVersion'),
    'involvedObject.resourceVersion': str('involvedObject', 'resourceVersion'),
    'involvedObject.fieldPath': str('involvedObject', 'fieldPath'),
    reason: str('reason'),
    // core/v1's json name of ReportingController (events.k8s.io/v1 serves it as reportingController)
    reportingComponent: (o) => text(at(o, 'reportingComponent') ?? at(o, 'reportingController')),
    source: (o) => {
      const component = text(at(o, 'source', 'component') ?? at(o, 'deprecatedSource', 'component'));
      return component !== '' ? component : text(at(o, 'reportingComponent') ?? at(o, 'reportingController'));
    },
    type: str('type'),
  },
  Secret: { type: str('type') },
  Node: { 'spec.unschedulable': bool('spec', 'unschedulable') },
  Namespace: { 'status.phase': str('status', 'phase') },
  ReplicaSet: { 'status.replicas': int('status', 'replicas') },
  ReplicationController: { 'status.replicas': int('status', 'replicas') },
  Job: { 'status.successful': int('status', 'succeeded') },
  CertificateSigningRequest: { 'spec.signerName': str('spec', 'signerName') },
};
const COMMON: Readonly<Record<string, FieldGetter>> = { 'metadata.name': str('metadata', 'name'), 'metadata.namespace': str('metadata', 'namespace') };

/**
 * Parses a field selector for `kind`: comma-separated terms with `=`, `==` or `!=` (kube's `\,`
 * and `\=` escapes) on the field labels the kind supports, and for a custom kind the
 * `selectable` fields its CRD declares (their jsonPaths); an empty selector matches everything.
 * @throws InvalidError on a malformed term or a field label the kind does not support (a real
 * API server answers 400 "field label not supported")
 * @internal
 */
export function parseFieldSelector(kind: string, sel: string | undefined, selectable: readonly string[] = []): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  if (!sel) return out;
  const labels = selectable.length === 0 ? (FIELD_LABELS[kind] ?? {}) : { ...FIELD_LABELS[kind], ...selectableLabels(selectable) };
  for (const term of splitUnescaped(sel, ',')) {
    if (term.trim() === '') continue;
    const m = /^\s*([A-Za-z0-9_.\-/]+)\s*(==|!=|=)\s*(.*?)\s*$/s.exec(term);
    if (!m) throw new InvalidError(`invalid field selector: "${term}": expected <field>=<value>, <field>==<value> or <field>!=<value>`);
    const label = m[1]!;
    const get = Object.hasOwn(COMMON, label) ? COMMON[label] : Object.hasOwn(labels, label) ? labels[label] : undefined;
    if (get === undefined) {
      throw new InvalidError(`field label not supported: ${label} (${kind} takes ${[...Object.keys(COMMON), ...Object.keys(labels)].join(', ')})`);
    }
    out.push({ label, get, value: m[3]!.replace(/\\(.)/g, '$1'), equal: m[2] !== '!=' });
  }
  return out;
}

/**
 * The field labels of a custom resource's CRD `selectableFields` (CustomResourceFieldSelectors,
 * GA in 1.32): the jsonPath without its leading dot (`.spec.color` → `spec.color`); the value a
 * string as is, an integer or boolean formatted as Go formats it, "" when the field is absent.
 */
function selectableLabels(paths: readonly string[]): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const p of paths) {
    const label = p.replace(/^\./, '');
    out[label] = str(...label.split('.'));
  }
  return out;
}

/** Whether an object (stored or served) meets every term. @internal */
export function matchesFields(reqs: readonly FieldRequirement[], obj: { [k: string]: unknown }): boolean {
  for (const r of reqs) if ((r.get(obj) === r.value) !== r.equal) return false;
  return true;
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
