import type { Document, LineCounter } from 'yaml';
import { yaml } from './yaml.js';
import { newObjectSchema } from '../harness/scenario.js';
import { issueText } from '../harness/schema-problem.js';
import type { NewObject } from '../store/object.js';
import { place, StoryFileError } from './story-file-error.js';

/**
 * Kinds kubectl treats as cluster-scoped: a manifest of any other kind without a namespace lands
 * in `default`, as `kubectl apply` puts it there. (A custom cluster-scoped kind: write
 * `namespace: ""`.)
 * @internal
 */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'StorageClass', 'PriorityClass',
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'APIService', 'IngressClass', 'RuntimeClass', 'CSIDriver', 'CSINode', 'VolumeAttachment',
]);

/** The namespace a manifest's object lands in: its own, `default` for namespaced kinds, none for cluster-scoped ones or `namespace: ""`. @internal */
export function withNamespace(o: NewObject): NewObject {
  const ns = o.metadata.namespace;
  if (ns === '') {
    const { namespace: _drop, ...metadata } = o.metadata;
    return { ...o, metadata };
  }
  if (ns !== undefined || CLUSTER_SCOPED_KINDS.has(o.kind)) return o;
  return { ...o, metadata: { ...o.metadata, namespace: 'default' } };
}

/**
 * The line of the node at `path` in a YAML document: of the key of the deepest map entry on the
 * path that exists (so a missing field points at its parent's key), or of the list item.
 * @internal
 */
export function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | undefined {
  const { isMap, isScalar, isSeq } = yaml();
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      offset = rangeStart(node) ?? offset;
    } else break;
  }
  return offset === undefined ? undefined : lines.linePos(offset).line;
}

function rangeStart(node: unknown): number | undefined {
  return (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
}

const FIX = 'Every manifest is a Kubernetes object: apiVersion, kind, metadata.name (and namespace), spec.';

/**
 * Parses a multi-document Kubernetes YAML file (`---` separated; empty documents skipped; a
 * `kind: List` contributes its items) into the objects it declares, validated with the scenario
 * schema. Objects without a namespace land in `default` unless their kind is cluster-scoped.
 * @param text - the file's contents
 * @param file - the file's name, for messages
 * @throws StoryFileError naming the file, the document and the line
 * @public
 */
export function parseManifests(text: string, file: string): NewObject[] {
  return manifestEntries(text, file).map((e) => e.object);
}

/** One object of a manifest file and where it is. @internal */
export interface ManifestEntry {
  object: NewObject;
  file: string;
  document: number;
  line: number | undefined;
}

/** {@link parseManifests} with each object's place (for messages about duplicates). @internal */
export function manifestEntries(text: string, file: string): ManifestEntry[] {
  const { LineCounter: Lines, parseAllDocuments } = yaml();
  const lines = new Lines();
  const docs = parseAllDocuments(text, { lineCounter: lines });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: ManifestEntry[] = [];
  list.forEach((doc, i) => {
    const document = i + 1;
    const err = doc.errors[0];
    if (err) {
      const line = err.linePos?.[0]?.line;
      throw new StoryFileError(`steadystate: ${place(file, { document, line })} is not valid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}. Fix the YAML (indentation, an unclosed bracket or quote).`, file, { document, ...(line !== undefined ? { line } : {}) });
    }
    if (doc.contents === null) return;
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    const line = lineOf(doc, lines, []);
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new StoryFileError(`steadystate: ${place(file, { document, line })} is ${Array.isArray(value) ? 'a list' : `the ${typeof value} ${JSON.stringify(value)}`}, not an object. ${FIX}`, file, { document, ...(line !== undefined ? { line } : {}) });
    }
    const record = value as Record<string, unknown>;
    const items = record['kind'] === 'List' && Array.isArray(record['items']) ? (record['items'] as unknown[]).map((item, j) => ({ item, path: ['items', j] as PropertyKey[] })) : [{ item: value, path: [] as PropertyKey[] }];
    for (const { item, path } of items) out.push({ object: validated(item, path, doc, lines, file, document), file, document, line: lineOf(doc, lines, path) });
  });
  return out;
}

function validated(item: unknown, path: readonly PropertyKey[], doc: Document, lines: LineCounter, file: string, document: number): NewObject {
  const r = newObjectSchema.safeParse(item, { reportInput: true });
  if (r.success) return withNamespace(r.data);
  const issue = r.error.issues[0]!;
  const full = [...path, ...issue.path];
  const line = lineOf(doc, lines, full);
  const what = issueText({ ...issue, path: full } as typeof issue, '');
  const hint = /^kind /.test(what) ? ' (add e.g. `kind: WebApp`)' : /metadata\.name/.test(what) ? ' (add `metadata: { name: … }`)' : '';
  throw new StoryFileError(`steadystate: ${place(file, { document, line })}: ${what}${hint}. ${FIX}`, file, { document, ...(line !== undefined ? { line } : {}) });
}

/**
 * Refuses an object declared twice (same kind, namespace and name), naming both places: a story
 * creates each object once and changes it with later steps.
 * @internal
 */
export function refuseDuplicates(entries: readonly ManifestEntry[]): void {
  const seen = new Map<string, ManifestEntry>();
  for (const e of entries) {
    const o = e.object;
    const id = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? ''}`;
    const first = seen.get(id);
    if (first) throw new StoryFileError(`steadystate: ${place(e.file, { document: e.document, line: e.line })}: ${id} is declared again (first in ${place(first.file, { document: first.document, line: first.line })}). The objects created at t=0 are each declared once; to change one later, add a step (apply: other-file.yaml).`, e.file, { document: e.document, ...(e.line !== undefined ? { line: e.line } : {}) });
    seen.set(id, e);
  }
}
