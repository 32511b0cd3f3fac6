import { yaml } from './yaml.js';
import { z } from 'zod';
import { USER_ACTION_TYPES, type WorkloadAction } from '../harness/scenario.js';
import { MAX_SCENARIO_MS } from '../harness/schema-parts.js';
import { issueMessage, issueText, shown } from '../harness/schema-problem.js';
import type { Story } from '../harness/story.js';
import { keyOf, type JsonObject, type NewObject } from '../store/object.js';
import { lineOf, withNamespace } from './parse-manifests.js';
import { place, StoryFileError } from './story-file-error.js';

/** Reads the objects of the manifests a story names (a file or glob, relative to the story file). @internal */
export type ManifestReader = (pattern: string) => NewObject[];

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `2s`, `500ms`, `1.5m`, `1h`, or a number of milliseconds → ms; undefined when it is none of those. @internal */
export function durationMs(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 && v <= MAX_SCENARIO_MS ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = DURATION.exec(v.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms <= MAX_SCENARIO_MS ? ms : undefined;
}

const duration = z.unknown().check((ctx) => {
  if (durationMs(ctx.value) === undefined) ctx.issues.push({ code: 'custom', message: `must be a time such as 2s, 500ms or 1m (or a number of milliseconds), at most 7 days; got ${shown(ctx.value)}`, input: ctx.value });
});

const ref = z.strictObject({ kind: z.string().min(1), name: z.string().min(1), namespace: z.string().exactOptional() });

/** What each verb takes: a manifest file only (its objects' contents matter), or a file or an object reference. */
const VERBS: Record<WorkloadAction['type'], 'file' | 'target' | 'kind'> = {
  create: 'file',
  apply: 'file',
  update: 'file',
  patch: 'target',
  delete: 'target',
  reapply: 'target',
  recreate: 'target',
  deleteOwned: 'kind',
  removeFinalizer: 'target',
};
/** Fields a step may have besides its verb, and the verb each belongs to. */
const EXTRAS: Record<string, WorkloadAction['type'] | undefined> = { at: undefined, retry: undefined, with: 'patch', finalizer: 'removeFinalizer', owner: 'deleteOwned', cascade: 'delete' };
/** A delete step's `cascade`, as kubectl's `--cascade` flag names it, and the propagation policy it asks for. */
const CASCADES = { background: 'Background', foreground: 'Foreground', orphan: 'Orphan' } as const;
const VERB_LIST = USER_ACTION_TYPES.join(', ');

const step = z.record(z.string(), z.unknown(), { error: (i) => `must be a step { at, <action>: … }; got ${shown(i.input)}` }).check((ctx) => {
  const s = ctx.value;
  const verbs = Object.keys(s).filter((k) => k in VERBS);
  for (const k of Object.keys(s)) {
    if (k in VERBS || k in EXTRAS) continue;
    ctx.issues.push({ code: 'custom', path: [k], message: `is an unknown step ${JSON.stringify(k)}; a step is { at, <action>: …, retry? } with one action of ${VERB_LIST}`, input: s[k] });
  }
  if (verbs.length !== 1 && Object.keys(s).every((k) => k in VERBS || k in EXTRAS)) ctx.issues.push({ code: 'custom', path: [], message: verbs.length === 0 ? `has no action; a step is { at, <action>: …, retry? } with one action of ${VERB_LIST}` : `has ${verbs.length} actions (${verbs.join(', ')}); give each action its own step`, input: s });
  if (!('at' in s)) ctx.issues.push({ code: 'custom', path: ['at'], message: 'is required: when the step happens (e.g. at: 2s)', input: undefined });
  else if (durationMs(s['at']) === undefined) ctx.issues.push({ code: 'custom', path: ['at'], message: `must be a time such as 2s, 500ms or 1m (or a number of milliseconds), at most 7 days; got ${shown(s['at'])}`, input: s['at'] });
  for (const [k, verb] of Object.entries(EXTRAS)) if (verb !== undefined && k in s && verbs[0] !== verb) ctx.issues.push({ code: 'custom', path: [k], message: `belongs to a ${verb} step`, input: s[k] });
  const verb = verbs[0] as WorkloadAction['type'] | undefined;
  if (verb === 'patch' && !('with' in s)) ctx.issues.push({ code: 'custom', path: ['with'], message: 'is required: the merge patch to apply, e.g. with: { spec: { replicas: 2 } }', input: undefined });
  if (verb === 'removeFinalizer' && !('finalizer' in s)) ctx.issues.push({ code: 'custom', path: ['finalizer'], message: 'is required: the finalizer to remove by hand', input: undefined });
  if ('cascade' in s && !(typeof s['cascade'] === 'string' && Object.hasOwn(CASCADES, s['cascade']))) ctx.issues.push({ code: 'custom', path: ['cascade'], message: `must be background, foreground or orphan (as kubectl delete --cascade); got ${shown(s['cascade'])}`, input: s['cascade'] });
  if (verb === 'deleteOwned' && !('owner' in s)) ctx.issues.push({ code: 'custom', path: ['owner'], message: 'is required: the owner whose objects are deleted (a manifest file or { kind, name, namespace? })', input: undefined });
});

const storyFile = z.strictObject(
  {
    manifests: z.union([z.string().min(1), z.array(z.string().min(1))], { error: (i) => `must be a manifest file or glob, or a list of them; got ${shown(i.input)}` }).exactOptional(),
    jitter: duration.exactOptional(),
    steps: z.array(step, { error: (i) => `must be a list of steps; got ${shown(i.input)}` }).exactOptional(),
  },
  { error: (i) => (i.code === 'invalid_type' ? `must be a story { manifests?, steps?, jitter? }; got ${shown(i.input)}` : undefined) },
);

/**
 * Parses a story file (YAML or JSON): the manifests created at t=0 and timed steps that refer to
 * manifests (or name objects), each step one user action:
 * ```yaml
 * manifests: config/samples/*.yaml        # created at t=0
 * jitter: 200ms                           # optional: each step's time varies by ± this
 * steps:
 *   - { at: 2s, apply: web-v2.yaml }      # every object of the file
 *   - { at: 4s, patch: { kind: WebApp, name: web }, with: { spec: { replicas: 1 } } }
 *   - { at: 6s, deleteOwned: Pod, owner: web.yaml }
 *   - { at: 8s, delete: web.yaml, retry: false }
 *   - { at: 9s, delete: db.yaml, cascade: foreground }   # or background (the default), orphan
 * ```
 * Actions: create, apply, update (the file's spec), patch (`with`), delete (`cascade`), reapply, recreate,
 * deleteOwned (`owner`), removeFinalizer (`finalizer`). Files are relative to the story file.
 * @param read - the manifests of a file or glob named in the story
 * @param afterManifests - called once the manifests created at t=0 are read, before the steps
 * @throws StoryFileError naming the file, the step and the line
 * @public
 */
export function parseStory(text: string, file: string, read: ManifestReader, afterManifests?: () => void): Story {
  const { LineCounter, parseAllDocuments } = yaml();
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines });
  const list = (Array.isArray(docs) ? docs : [docs]).filter((d) => d.contents !== null || d.errors.length > 0);
  const doc = list[0];
  if (!doc) throw new StoryFileError(`steadystate: ${file} is empty. A story file holds { manifests?, steps?, jitter? }; see the README section "Testing a story".`, file);
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line;
    throw new StoryFileError(`steadystate: ${place(file, { line })} is not valid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}. Fix the YAML (indentation, an unclosed bracket or quote).`, file, line !== undefined ? { line } : {});
  }
  if (list.length > 1) throw new StoryFileError(`steadystate: ${place(file, { document: 2, line: lineOf(list[1]!, lines, []) })}: a story file is one YAML document, this one has ${list.length}. Put the objects in manifest files and name them under \`manifests:\`.`, file, { document: 2 });
  const raw: unknown = doc.toJS({ maxAliasCount: 100 });
  const r = storyFile.safeParse(raw, { reportInput: true });
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const line = lineOf(doc, lines, issue.path);
    const stepIndex = issue.path[0] === 'steps' && typeof issue.path[1] === 'number' ? issue.path[1] + 1 : undefined;
    const shownPath = stepIndex !== undefined ? issue.path.slice(2) : issue.path;
    const what = shownPath.length === 0 && stepIndex === undefined ? issueMessage(issue) : issueText({ ...issue, path: shownPath } as typeof issue, stepIndex !== undefined ? 'the step' : '');
    throw new StoryFileError(`steadystate: ${place(file, { step: stepIndex, line })}: ${what}.${stepIndex === undefined ? ' A story file holds { manifests?, steps?, jitter? }.' : ''}`, file, line !== undefined ? { line } : {});
  }
  const data = r.data;
  const objects = [data.manifests ?? []].flat().flatMap((pattern) => read(pattern));
  afterManifests?.();
  const actions: WorkloadAction[] = [];
  (data.steps ?? []).forEach((s, i) => {
    const where = { step: i + 1, line: lineOf(doc, lines, ['steps', i]) };
    try {
      actions.push(...stepActions(s, read));
    } catch (e) {
      if (!(e instanceof StoryFileError) && !(e instanceof StepProblem)) throw e;
      const inner = e instanceof StoryFileError ? e.message.replace(/^steadystate: /, '') : e.message;
      throw new StoryFileError(`steadystate: ${place(file, where)}: ${inner}`, e instanceof StoryFileError ? e.file : file, e instanceof StoryFileError ? { ...(e.document !== undefined ? { document: e.document } : {}), ...(e.line !== undefined ? { line: e.line } : {}) } : where.line !== undefined ? { line: where.line } : {});
    }
  });
  return { objects, actions, ...(data.jitter !== undefined ? { jitterMs: durationMs(data.jitter)! } : {}) };
}

class StepProblem extends Error {}

function stepActions(s: Record<string, unknown>, read: ManifestReader): WorkloadAction[] {
  const verb = Object.keys(s).find((k) => k in VERBS) as WorkloadAction['type'];
  const at = durationMs(s['at'])!;
  const retry = s['retry'];
  if (retry !== undefined && retry !== false) throw new StepProblem(`retry can only be false (one attempt instead of retrying until accepted); got ${shown(retry)}.`);
  const extra = retry === false ? { retry: false as const } : {};
  const value = s[verb];
  if (VERBS[verb] === 'kind') {
    if (typeof value !== 'string' || value === '') throw new StepProblem(`deleteOwned names the kind of the owned objects (deleteOwned: Pod); got ${shown(value)}.`);
    return targets(s['owner'], 'owner', read).map((o) => ({ at, type: 'deleteOwned', kind: value, owner: { kind: o.kind, key: o.key }, ...extra }));
  }
  if (VERBS[verb] === 'file') {
    if (typeof value !== 'string') throw new StepProblem(`${verb} needs a manifest file (${verb}: web.yaml): the object's contents come from it; got ${shown(value)}.`);
    const objects = read(value);
    return objects.map((o): WorkloadAction => {
      const key = keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? '' });
      if (verb === 'update') return { at, type: 'update', kind: o.kind, key, spec: o.spec ?? {}, ...extra };
      return { at, type: verb === 'create' ? 'create' : 'apply', object: o, ...extra };
    });
  }
  return targets(value, verb, read).map((t): WorkloadAction => {
    switch (verb) {
      case 'patch': {
        const patch = s['with'];
        if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw new StepProblem(`with must be a merge patch object, e.g. with: { spec: { replicas: 2 } }; got ${shown(patch)}.`);
        return { at, type: 'patch', kind: t.kind, key: t.key, patch: patch as JsonObject, ...extra };
      }
      case 'removeFinalizer': {
        const finalizer = s['finalizer'];
        if (typeof finalizer !== 'string' || finalizer === '') throw new StepProblem(`finalizer must name the finalizer to remove; got ${shown(finalizer)}.`);
        return { at, type: 'removeFinalizer', kind: t.kind, key: t.key, finalizer, ...extra };
      }
      case 'recreate':
        return t.object ? { at, type: 'recreate', kind: t.kind, key: t.key, object: t.object, ...extra } : { at, type: 'recreate', kind: t.kind, key: t.key, ...extra };
      case 'delete': {
        const cascade = s['cascade'];
        return { at, type: 'delete', kind: t.kind, key: t.key, ...(typeof cascade === 'string' && Object.hasOwn(CASCADES, cascade) ? { propagationPolicy: CASCADES[cascade as keyof typeof CASCADES] } : {}), ...extra };
      }
      default:
        return { at, type: verb as 'reapply', kind: t.kind, key: t.key, ...extra };
    }
  });
}

/** The objects a step's target names: every object of a manifest file, or one `{ kind, name, namespace? }`. */
function targets(value: unknown, field: string, read: ManifestReader): { kind: string; key: string; object?: NewObject }[] {
  if (typeof value === 'string') {
    return read(value).map((o) => ({ kind: o.kind, key: keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? '' }), object: o }));
  }
  const r = ref.safeParse(value);
  if (!r.success) throw new StepProblem(`${field} must name a manifest file (web.yaml) or an object { kind, name, namespace? }; got ${shown(value)}.`);
  const o = withNamespace({ kind: r.data.kind, metadata: { name: r.data.name, ...(r.data.namespace !== undefined ? { namespace: r.data.namespace } : {}) } });
  return [{ kind: o.kind, key: keyOf({ namespace: o.metadata.namespace, name: r.data.name }) }];
}
