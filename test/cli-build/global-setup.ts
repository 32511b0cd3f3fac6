import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/**
 * vitest globalSetup: the CLI the end-to-end tests start, compiled to JavaScript once per suite
 * run. From the sources every start of `bin/steadystate.js` loads the engine through tsx, in the
 * launcher's child and again in each worker thread (a 1-run check: 2.5 s of CPU
 * against 1.45 s from the build; h49 speed); the CLI tests start it a few
 * hundred times.
 *
 * The build is laid out as the published package (package.json, bin/steadystate.js, dist/), so
 * the bin runs dist/src/cli/bin.js and registers tsx only to load a user's module, as installed.
 * It lives in test/.tmp-build/<hash>/, where <hash> covers every input (the engine's sources,
 * the bin, package.json, the tsconfigs, this folder): an edit to any makes a new build, and a
 * stale one is never run. The compiler is esbuild, file by file with tsconfig.build.json's
 * options: the very transform tsx applies to the sources (tsx is esbuild), without its loader
 * hooks (`tsc --noCheck` takes 12 s of CPU); the `tsc` build is what the package test packs.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const here = dirname(fileURLToPath(import.meta.url));
/** The engine: what the build compiles (tsconfig.build.json's include). */
const ENGINE_DIRS = ['src', 'faults', 'properties', 'examples'];
const INPUT_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin/steadystate.js'];

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test build of the CLI (see test/cli-build/global-setup.ts). */
    cliBuild: { bin: string; preload: string; dir: string };
  }
}

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) walk(abs, out);
    else out.push(abs);
  }
  return out;
}

/** Every input of the build, sorted, relative to the repository. @internal */
export function inputs(): string[] {
  const files = [...INPUT_FILES.map((f) => join(root, f)), ...walk(here, [])];
  for (const d of ENGINE_DIRS) files.push(...walk(join(root, d), []));
  return files.map((f) => relative(root, f).split('\\').join('/')).sort();
}

/** The build's name: a hash of the inputs' paths and contents (`read` for tests). @internal */
export function hashOf(files: readonly string[], read: (file: string) => Buffer | string = (f) => readFileSync(join(root, f))): string {
  const h = createHash('sha256');
  for (const f of files) {
    h.update(f).update('\0');
    h.update(read(f)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/** Builds into `dir`, which is renamed to `final` once whole. */
async function build(dir: string, final: string, files: readonly string[]): Promise<void> {
  const { build: esbuild } = await import('esbuild');
  const entryPoints = files.filter((f) => ENGINE_DIRS.includes(f.split('/')[0]!) && /\.ts$/.test(f) && !/\.(test|d)\.ts$/.test(f)).map((f) => join(root, f));
  await esbuild({ entryPoints, outdir: join(dir, 'dist'), outbase: root, format: 'esm', platform: 'node', target: 'node20', tsconfig: join(root, 'tsconfig.build.json'), logLevel: 'error' });
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(root, 'bin/steadystate.js'), join(dir, 'bin/steadystate.js'));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'test-hooks'));
  for (const f of ['preload.mjs', 'hooks.mjs']) copyFileSync(join(here, f), join(dir, 'test-hooks', f));
  writeFileSync(join(dir, 'test-hooks/paths.json'), JSON.stringify({ repo: `${root}/`, dist: `${join(final, 'dist')}/` }));
}

export default async function setup(project: TestProject): Promise<void> {
  const files = inputs();
  const hash = hashOf(files);
  const builds = join(root, 'test/.tmp-build');
  const dir = join(builds, hash);
  if (!existsSync(join(dir, 'test-hooks/paths.json'))) {
    // built aside and renamed: a concurrent run sees a whole build or none
    const tmp = join(builds, `.${hash}-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await build(tmp, dir, files);
    try {
      renameSync(tmp, dir);
    } catch {
      // another run built the same inputs first
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  // marked as in use; builds of other inputs unused for an hour are no run's any more
  const now = new Date();
  utimesSync(dir, now, now);
  for (const name of readdirSync(builds)) {
    const abs = join(builds, name);
    if (name !== hash && Date.now() - statSync(abs).mtimeMs > 3_600_000) rmSync(abs, { recursive: true, force: true });
  }
  project.provide('cliBuild', { bin: join(dir, 'bin/steadystate.js'), preload: join(dir, 'test-hooks/preload.mjs'), dir });
}
