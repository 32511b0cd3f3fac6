import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/main.js';
import { withDefaultCatalogues } from '../../../src/check.js';
import { loadManifests, loadStory } from '../../../src/story/load-story.js';
import { parseManifests } from '../../../src/story/parse-manifests.js';
import { StoryFileError } from '../../../src/story/story-file-error.js';
import { fixture, runCli } from '../../e2e/cli-helpers.js';

/** A temp dir with these files (paths relative to it). */
function files(tree: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ss-story-'));
  for (const [name, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The CLI in this process: exit code and stderr. */
async function cli(args: string[], cwd: string): Promise<{ code: number; stderr: string; stdout: string }> {
  let stderr = '';
  let stdout = '';
  const sink = (f: (s: string) => void) => new Writable({ write: (c, _e, cb) => (f(String(c)), cb()) });
  const code = await run(args, { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), cwd, env: { NO_COLOR: '1', CI: 'true' } });
  return { code, stderr, stdout };
}

const WEB = `apiVersion: example.dev/v1
kind: WebApp
metadata:
  name: web
spec:
  replicas: 3
`;

describe('manifests: multi-document Kubernetes YAML', () => {
  it('reads every document (empty ones skipped, a List expanded), namespaced kinds land in default', () => {
    const text = `${WEB}---\n# a comment only\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\napiVersion: v1\nkind: List\nitems:\n  - kind: ConfigMap\n    apiVersion: v1\n    metadata: { name: cfg, namespace: shop }\n    data: { color: blue }\n`;
    const objects = parseManifests(text, 'all.yaml');
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`)).toEqual(['WebApp default/web', 'Namespace -/shop', 'ConfigMap shop/cfg']);
    expect((objects[2] as unknown as { data: unknown }).data).toEqual({ color: 'blue' });
    expect(objects[0]!.spec).toEqual({ replicas: 3 });
  });

  it('globs expand in name order, relative to the working directory', () => {
    const dir = files({ 'config/samples/b.yaml': WEB.replace('name: web', 'name: b'), 'config/samples/a.yaml': WEB.replace('name: web', 'name: a'), 'config/other.txt': 'x' });
    expect(loadManifests(['config/samples/*.yaml'], { cwd: dir }).map((o) => o.metadata.name)).toEqual(['a', 'b']);
  });
});


describe('story files', () => {
  it('the public check reads a story file or manifests named in its options (as a module\'s checkOptions may), relative to the working directory', () => {
    const dir = files({ 'web.yaml': WEB, 'story.yaml': 'steps:\n  - { at: 1s, apply: web.yaml }\n' });
    const o = withDefaultCatalogues({ story: join(dir, 'story.yaml'), manifests: [join(dir, 'web.yaml')] });
    expect(o.manifests).toBeUndefined();
    expect(o.story).toMatchObject({ objects: [{ kind: 'WebApp', metadata: { name: 'web', namespace: 'default' } }], actions: [{ at: 1000, type: 'apply' }] });
  });

  it('steps refer to manifests (every object of a file) or name objects; times in s/ms; jitter', () => {
    const dir = files({
      'web.yaml': WEB,
      'web-v2.yaml': WEB.replace('replicas: 3', 'replicas: 5'),
      'story.yaml': [
        'manifests: web.yaml',
        'jitter: 200ms',
        'steps:',
        '  - { at: 2s, apply: web-v2.yaml }',
        '  - { at: 2500ms, patch: { kind: WebApp, name: web }, with: { metadata: { labels: { team: shop } } } }',
        '  - { at: 3s, deleteOwned: Pod, owner: web.yaml }',
        '  - { at: 4s, removeFinalizer: { kind: WebApp, name: web }, finalizer: example.dev/cleanup, retry: false }',
        '  - { at: 5s, update: web.yaml }',
        '  - { at: 6s, recreate: web.yaml }',
        '  - { at: 1m, delete: { kind: WebApp, name: web, namespace: default } }',
      ].join('\n'),
    });
    const story = loadStory('story.yaml', { cwd: dir });
    expect(story.objects!.map((o) => o.metadata.name)).toEqual(['web']);
    expect(story.jitterMs).toBe(200);
    expect(story.actions!.map((a) => [a.at, a.type, 'key' in a ? a.key : 'object' in a ? a.object.metadata.name : a.owner.key])).toEqual([
      [2000, 'apply', 'web'],
      [2500, 'patch', 'default/web'],
      [3000, 'deleteOwned', 'default/web'],
      [4000, 'removeFinalizer', 'default/web'],
      [5000, 'update', 'default/web'],
      [6000, 'recreate', 'default/web'],
      [60_000, 'delete', 'default/web'],
    ]);
    expect(story.actions![3]).toMatchObject({ retry: false, finalizer: 'example.dev/cleanup' });
    expect(story.actions![4]).toMatchObject({ spec: { replicas: 3 } });
  });
});

/**
 * Bad input: each case is a clear one-paragraph message naming the file (and the document or
 * step, and the line where there is one), and `steadystate check` exits 2 before loading the module.
 */
const bad: { name: string; tree: Record<string, string>; args: string[]; message: RegExp }[] = [
  { name: 'malformed YAML', tree: { 'web.yaml': 'kind: WebApp\nmetadata:\n  name: [web\n' }, args: ['--manifests', 'web.yaml'], message: /web\.yaml, document 1 \(line \d\) is not valid YAML/ },
  { name: 'a document without kind', tree: { 'web.yaml': `${WEB}---\napiVersion: v1\nmetadata:\n  name: cfg\n` }, args: ['--manifests', 'web.yaml'], message: /web\.yaml, document 2 \(line 8\): kind is required: the object kind.*add e\.g\. `kind: WebApp`/ },
  { name: 'a document without a name', tree: { 'web.yaml': 'kind: WebApp\nmetadata:\n  namespace: shop\nspec: {}\n' }, args: ['--manifests', 'web.yaml'], message: /web\.yaml, document 1 \(line 2\): metadata\.name is required/ },
  { name: 'a document that is a list', tree: { 'web.yaml': '- kind: WebApp\n' }, args: ['--manifests', 'web.yaml'], message: /web\.yaml, document 1 \(line 1\) is a list, not an object/ },
  { name: 'a label that is not a string', tree: { 'web.yaml': 'kind: WebApp\nmetadata:\n  name: web\n  labels:\n    replicas: 3\n' }, args: ['--manifests', 'web.yaml'], message: /web\.yaml, document 1 \(line 5\): metadata\.labels\.replicas must be a string/ },
  { name: 'the same object twice', tree: { 'a.yaml': WEB, 'b.yaml': WEB }, args: ['--manifests', 'a.yaml,b.yaml'], message: /b\.yaml, document 1 \(line 1\): WebApp default\/web is declared again \(first in a\.yaml, document 1 \(line 1\)\)/ },
  { name: 'a glob that matches nothing', tree: {}, args: ['--manifests', 'config/*.yaml'], message: /no file matches "config\/\*\.yaml"/ },
  { name: 'a manifest file that is not there', tree: {}, args: ['--manifests', 'web.yaml'], message: /cannot read the manifest web\.yaml \(no such file\)/ },
  { name: 'an unknown step', tree: { 'web.yaml': WEB, 's.yaml': 'manifests: web.yaml\nsteps:\n  - { at: 1s, apply: web.yaml }\n  - at: 2s\n    scale: web.yaml\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 2 \(line 5\): the step\.scale is an unknown step "scale"; a step is \{ at, <action>: …, retry\? \} with one action of create, apply/ },
  { name: 'a time that is not a time', tree: { 'web.yaml': WEB, 's.yaml': 'steps:\n  - { at: soon, apply: web.yaml }\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 1 \(line 2\): the step\.at must be a time such as 2s, 500ms or 1m .*got "soon"/ },
  { name: 'a step without a time', tree: { 'web.yaml': WEB, 's.yaml': 'steps:\n  - apply: web.yaml\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 1 \(line 2\): the step\.at is required/ },
  { name: 'two actions in one step', tree: { 'web.yaml': WEB, 's.yaml': 'steps:\n  - { at: 1s, apply: web.yaml, delete: web.yaml }\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 1 \(line 2\): the step has 2 actions \(apply, delete\); give each action its own step/ },
  { name: 'a patch without its patch', tree: { 's.yaml': 'steps:\n  - { at: 1s, patch: { kind: WebApp, name: web } }\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 1 \(line 2\): the step\.with is required: the merge patch/ },
  { name: 'apply of an object reference (it needs a manifest)', tree: { 's.yaml': 'steps:\n  - { at: 1s, apply: { kind: WebApp, name: web } }\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 1 \(line 2\): apply needs a manifest file \(apply: web\.yaml\)/ },
  { name: 'a step whose manifest is malformed (names that file, document and line)', tree: { 'v2.yaml': `${WEB}---\nkind: WebApp\nmetadata: {}\n`, 's.yaml': 'steps:\n  - { at: 1s, apply: v2.yaml }\n' }, args: ['--story', 's.yaml'], message: /s\.yaml, step 1 \(line 2\): v2\.yaml, document 2 \(line 9\): metadata\.name is required/ },
  { name: 'an unknown top-level field', tree: { 's.yaml': 'manifest: web.yaml\n' }, args: ['--story', 's.yaml'], message: /s\.yaml \(line 1\): has unknown field "manifest" .*A story file holds \{ manifests\?, steps\?, jitter\? \}/ },
  { name: 'a story file that is not valid YAML', tree: { 's.yaml': 'steps:\n  - { at: 1s, apply: web.yaml\n' }, args: ['--story', 's.yaml'], message: /s\.yaml \(line \d\) is not valid YAML/ },
  { name: 'a story with nothing in it', tree: { 's.yaml': 'steps: []\n' }, args: ['--story', 's.yaml'], message: /s\.yaml: story has neither objects nor actions/ },
];

describe('bad story and manifest files: one paragraph naming the file, document or step, and line; exit 2', () => {
  it(`has ${bad.length} malformed cases`, () => expect(bad.length).toBeGreaterThanOrEqual(10));
  for (const c of bad) {
    it(c.name, async () => {
      const dir = files(c.tree);
      const r = await cli(['check', fixture('level.ts'), ...c.args], dir);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      const text = r.stderr.trimEnd();
      expect(text.split('\n'), 'one paragraph').toHaveLength(1);
      expect(text).not.toMatch(/^\s+at /m);
      expect(text).toMatch(c.message);
    });
  }

  it('the library throws the same message as a StoryFileError (a TypeError) with the file, document and line', () => {
    const dir = files({ 'web.yaml': `${WEB}---\napiVersion: v1\nmetadata:\n  name: cfg\n` });
    let err: unknown;
    try {
      loadManifests(['web.yaml'], { cwd: dir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoryFileError);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toMatchObject({ file: 'web.yaml', document: 2, line: 8 });
  });

  it('the installed CLI exits 2 on a bad story file too (a real process)', async () => {
    const dir = files({ 's.yaml': 'steps:\n  - { at: soon, apply: web.yaml }\n' });
    const r = await runCli(['check', fixture('level.ts'), '--story', 's.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/s\.yaml, step 1 \(line 2\): the step\.at must be a time/);
  });
});

describe('story files: how a delete cascades', () => {
  it('cascade: foreground | background | orphan, as kubectl delete --cascade; anything else names the step and the choices', () => {
    const dir = files({ 'web.yaml': WEB, 'story.yaml': 'manifests: web.yaml\nsteps:\n  - { at: 1s, delete: web.yaml, cascade: foreground }\n  - { at: 2s, delete: web.yaml, cascade: orphan }\n  - { at: 3s, delete: web.yaml }\n' });
    const story = loadStory('story.yaml', { cwd: dir });
    expect((story.actions ?? []).map((a) => (a.type === 'delete' ? (a.propagationPolicy ?? 'default') : a.type))).toEqual(['Foreground', 'Orphan', 'default']);
    const bad = files({ 'web.yaml': WEB, 'story.yaml': 'steps:\n  - { at: 1s, delete: web.yaml, cascade: toString }\n' });
    expect(() => loadStory('story.yaml', { cwd: bad })).toThrow(/cascade.*must be background, foreground or orphan \(as kubectl delete --cascade\); got "toString"/);
    const misplaced = files({ 'web.yaml': WEB, 'story.yaml': 'steps:\n  - { at: 1s, apply: web.yaml, cascade: foreground }\n' });
    expect(() => loadStory('story.yaml', { cwd: misplaced })).toThrow(/cascade.*belongs to a delete step/);
  });
});
