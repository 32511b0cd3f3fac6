import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createConsumerProject, packPackage, RegistryUnavailable, repoRoot, runCommand, type CommandResult } from './consumer-project.js';

/**
 * steadystate as users get it (issue 7): `npm pack`, then a fresh project outside the repository
 * installs the tarball (plus vitest and TypeScript) from the npm registry and runs the README's
 * "In your project" snippets verbatim: the vitest suite on a correct and on a buggy controller,
 * the CLI's `check` and `replay`, and `tsc --noEmit` against the published types. When npm cannot
 * reach its registry, the consumer tests are skipped with that reason (never silently).
 */

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The body of the fenced block right after `<!-- snippet: name -->` in README.md. */
function snippet(name: string): string {
  const m = readme.match(new RegExp(`<!-- snippet: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``));
  if (!m) throw new Error(`README.md has no "<!-- snippet: ${name} -->" block; the package test runs it as a user's file`);
  return m[1]!;
}

/**
 * The README's controller with the classic bug: it acts only when an event arrives (no resync,
 * no requeue), so one lost notification leaves the object unreconciled for good.
 */
/**
 * A controller module of a CommonJS project written the way such projects write JavaScript:
 * `require('steadystate')` and `exports.x = …`, no ESM syntax anywhere. The three holes make the
 * level-triggered (correct) and the edge-triggered (buggy) twins of the README's controller.
 */
function plainCommonJs(resync: string, done: string, after: string): string {
  return `'use strict';
const { defineController } = require('steadystate');

exports.replicas = defineController({
  name: 'replicas',
  for: 'ReplicaSet',
  ${resync},
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet('ReplicaSet', ctx.key);
    if (!rs) return;
    const actual = rs.status.replicas ?? 0;
    const desired = rs.spec.replicas;
    ${done}
    const next = actual + Math.sign(desired - actual);
    await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === desired ? { observedGeneration: rs.metadata.generation } : {}) } });
    ${after}
  },
});

exports.checkOptions = {
  objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }, { replicas: 1 }], status: { replicas: 0 } },
};
`;
}

const buggyController = `import { defineController, type CheckOptions } from 'steadystate';

interface Spec {
  replicas: number;
}
interface Status {
  replicas?: number;
  observedGeneration?: number;
}

// Edge-triggered: one step per event, never a requeue or a resync.
export const replicas = defineController({
  name: 'replicas',
  for: 'ReplicaSet',
  resyncPeriodMs: 0,
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<Spec, Status>('ReplicaSet', ctx.key);
    if (!rs) return;
    const actual = rs.status.replicas ?? 0;
    const desired = rs.spec.replicas;
    if (actual === desired) return;
    const next = actual + Math.sign(desired - actual);
    await ctx.client.updateStatus({ ...rs, status: { replicas: next, ...(next === desired ? { observedGeneration: rs.metadata.generation } : {}) } });
  },
});

export const checkOptions: CheckOptions = {
  objects: { kind: 'ReplicaSet', spec: [{ replicas: 3 }, { replicas: 1 }], status: { replicas: 0 } },
};
`;

/**
 * Compiled by the consumer's `tsc`: the published types are precise (the marked misuses must
 * be errors, or `@ts-expect-error` itself fails), and the matcher types exist (the plain calls
 * compile only if `steadystate/vitest` augments vitest's `expect`).
 */
const typeUsage = `import { check, type CheckResult, type Scenario } from 'steadystate';
import { expect } from 'vitest';
import { replicas } from './good/controller.js';

export async function typed(scenario: Scenario): Promise<void> {
  const result: CheckResult = await check(replicas, { runs: 1 });
  if (!result.ok) console.log(result.property, result.explanation, scenario.seed);
  expect(result).toHold();
  await expect(replicas).toPassReproduction('reports/replicas-convergence-1.json');
  // @ts-expect-error runs is a number
  await expect(replicas).toPassCheck({ runs: 'many' });
  // @ts-expect-error not an option of check
  await check(replicas, { rnus: 1 });
}
`;

/**
 * The CLI's copy of steadystate and the user's module's must be one (tsx is registered lazily
 * in the installed CLI): the store's NotFoundError is an instance of the class this imports.
 */
const sharedCopy = `import { defineController, NotFoundError, type CheckOptions } from 'steadystate';

export const sharedCopy = defineController({
  name: 'shared-copy',
  for: 'ReplicaSet',
  resyncPeriodMs: 2_000,
  async reconcile(ctx) {
    try {
      await ctx.client.get('ReplicaSet', 'default/does-not-exist', { live: true });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw new Error('two copies of steadystate: the store threw a NotFoundError of another copy');
    }
    const rs = await ctx.client.tryGet<{ replicas: number }, { observedGeneration?: number }>('ReplicaSet', ctx.key);
    if (!rs || rs.status.observedGeneration === rs.metadata.generation) return;
    await ctx.client.updateStatus({ ...rs, status: { observedGeneration: rs.metadata.generation } });
  },
});

export const checkOptions: CheckOptions = { objects: { kind: 'ReplicaSet', spec: [{ replicas: 2 }], status: {} } };
`;

let packDir: string | undefined;
let tarball: string | undefined;
let project: string | undefined;
let cjsProject: string | undefined;
let unavailable: string | undefined;
const timings: [string, number][] = [];

async function timed<T>(label: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    timings.push([label, performance.now() - t0]);
  }
}

/** The consumer project, or a visible skip when npm's registry could not be reached. */
function consumer(ctx: TestContext): string {
  if (unavailable !== undefined) ctx.skip(`npm registry unreachable, consumer project not installed: ${unavailable}`);
  if (project === undefined) throw new Error('the consumer project was not set up (see the beforeAll error)');
  return project;
}

function npx(args: readonly string[], cwd: string): Promise<CommandResult> {
  return timed(`npx ${args.join(' ')}`, () => runCommand('npx', args, { cwd, timeoutMs: 180_000 }));
}

/**
 * `npx vitest run buggy/` in the consumer project, run once: the first vitest test reads its
 * failure, and the regression test takes the report it wrote (a second run of the same failing
 * test would only find the same failure again, in the corpus).
 */
let buggyVitest: Promise<CommandResult> | undefined;
function buggyVitestRun(dir: string): Promise<CommandResult> {
  buggyVitest ??= npx(['vitest', 'run', 'buggy/'], dir);
  return buggyVitest;
}

beforeAll(async () => {
  packDir = mkdtempSync(join(tmpdir(), 'steadystate-pack-'));
  tarball = await timed('npm pack (build included)', () => packPackage(packDir!));
  try {
    project = (await timed('npm install into a fresh project', () => createConsumerProject(tarball!))).dir;
  } catch (err) {
    if (!(err instanceof RegistryUnavailable)) throw err;
    unavailable = err.message;
    console.warn(`SKIPPING the consumer-project tests: ${err.message}`);
    return;
  }
  const write = (rel: string, text: string): void => {
    mkdirSync(join(project!, rel, '..'), { recursive: true });
    writeFileSync(join(project!, rel), text);
  };
  write('vitest.config.ts', snippet('consumer-vitest-config'));
  write('tsconfig.json', snippet('consumer-tsconfig'));
  write('good/controller.ts', snippet('consumer-controller'));
  write('good/controller.test.ts', snippet('consumer-test'));
  write('buggy/controller.ts', buggyController);
  write('buggy/controller.test.ts', snippet('consumer-test'));
  write('type-usage.ts', typeUsage);
  write('shared/shared-copy.ts', sharedCopy);
  // a CommonJS project (npm's default: no "type") beside it, sharing its node_modules, whose
  // controller module is ESM TypeScript (outside the ESM project, so its tsc does not see it)
  cjsProject = `${project}-cjs`;
  mkdirSync(cjsProject);
  symlinkSync(join(project, 'node_modules'), join(cjsProject, 'node_modules'), 'dir');
  writeFileSync(join(cjsProject, 'package.json'), `${JSON.stringify({ name: 'cjs-controllers', version: '1.0.0', private: true }, null, 2)}\n`);
  writeFileSync(join(cjsProject, 'controller.ts'), snippet('consumer-controller'));
  writeFileSync(join(cjsProject, 'plain.js'), plainCommonJs('resyncPeriodMs: 5_000', 'if (actual === desired && rs.status.observedGeneration === rs.metadata.generation) return;', 'return next === desired ? undefined : { requeueAfter: 1_000 };'));
  writeFileSync(join(cjsProject, 'plain-buggy.js'), plainCommonJs('resyncPeriodMs: 0', 'if (actual === desired) return;', 'return undefined;'));
}, 600_000);

afterAll(() => {
  if (timings.length) console.log(`package e2e timings: ${timings.map(([l, ms]) => `${l} ${(ms / 1000).toFixed(1)} s`).join('; ')}`);
  for (const d of [packDir, project, cjsProject]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the build, the types and the docs, and no tests, reports, sources or source maps', () => {
    const files = execFileSync('tar', ['-tzf', tarball!], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const f of ['package.json', 'README.md', 'bin/steadystate.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/vitest/index.js', 'dist/src/vitest/index.d.ts', 'dist/src/cli/bin.js', 'dist/examples/demo.js']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /(^|\/)(test|tests|__tests__|reports)\//.test(f) || /\.(test|spec)\.[cm]?[jt]s$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map') || f.endsWith('.tgz'))).toEqual([]);
    expect(files.filter((f) => /\.[cm]?ts$/.test(f) && !/\.d\.[cm]?ts$/.test(f))).toEqual([]);

    // every target the manifest names is in the tarball, and the bin is built JavaScript
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball!, 'package/package.json'], { encoding: 'utf8' })) as {
      bin: Record<string, string>;
      main: string;
      types: string;
      exports: Record<string, string | Record<string, string>>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin), ...Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)))];
    for (const t of targets) expect(files, `package.json names ${t}`).toContain(t.replace(/^\.\//, ''));
    // one bin for a checkout and the package: it runs the sources when src/ is there, else the build
    expect(manifest.bin).toEqual({ steadystate: './bin/steadystate.js' });
    expect(files.filter((f) => f.startsWith('src/'))).toEqual([]);
    expect(manifest.exports['./vitest']).toMatchObject({ types: './dist/src/vitest/index.d.ts', import: './dist/src/vitest/index.js' });
    expect(manifest.peerDependenciesMeta).toMatchObject({ vitest: { optional: true }, '@kubernetes/client-node': { optional: true } });
  });
});

describe("a fresh project following the README's 'In your project' section", () => {
  it('vitest: the correct controller passes; the buggy one fails with the replay command and the explanation', async (ctx) => {
    const dir = consumer(ctx);
    const good = await npx(['vitest', 'run', 'good/'], dir);
    expect(good.code, good.output).toBe(0);
    expect(good.output).toMatch(/1 passed/);

    const buggy = await buggyVitestRun(dir);
    expect(buggy.code, buggy.output).toBe(1);
    expect(buggy.output).toMatch(/Replay: await expect\(replicas\)\.toPassReproduction\("reports\/replicas-[\w-]+\.json", checkOptions\);/);
    expect(buggy.output).toMatch(/npx steadystate replay reports\/replicas-[\w-]+\.json/);
    expect(buggy.output).toMatch(/replicas fails [\w-]+ \(run \d+ of \d+, seed 1,/);
    expect(buggy.output).toMatch(/Let: [\s\S]*Then: /);
    const json = /reports\/(replicas-[\w-]+\.json)/.exec(buggy.output)![1]!;
    expect(existsSync(join(dir, 'reports', json))).toBe(true);
  }, 240_000);

  it('vitest: the regression test of the report runs as pasted: it fails on the buggy controller with the recorded failure and passes once fixed', async (ctx) => {
    const dir = consumer(ctx);
    // the failing run of the test above (buggy/ holds only controller.test.ts), and the reports it wrote
    const buggy = await buggyVitestRun(dir);
    expect(buggy.code, buggy.output).toBe(1);
    const json = /reports\/(replicas-[\w-]+)\.json/.exec(buggy.output)![1]!;
    // a failure found in the corpus says so
    const property = /replicas fails ([\w-]+) \((?:run \d+ of|corpus entry \d+ of)/.exec(buggy.output)![1]!;
    const md = readFileSync(join(dir, 'reports', `${json}.md`), 'utf8');
    const pasted = /As a regression test, saved as `([^`]+)`[^\n]*\n\n```ts\n([\s\S]*?)```/.exec(md);
    expect(pasted, md).not.toBeNull();
    const [, file, code] = pasted!;
    expect(file).toBe(`buggy/${json}.test.ts`);
    // the failure message carries the same test
    expect(buggy.output).toContain(code!.trimEnd().split('\n').at(-2)!);
    writeFileSync(join(dir, file!), code!);
    const original = readFileSync(join(dir, 'buggy/controller.ts'), 'utf8');
    try {
      const fails = await npx(['vitest', 'run', file!], dir);
      expect(fails.code, fails.output).toBe(1);
      expect(fails.output).toContain(`replicas still fails ${property} on the reproduction (identical trace`);
      // the fix: the correct controller (same name, same checkOptions) in the buggy one's place
      writeFileSync(join(dir, 'buggy/controller.ts'), readFileSync(join(dir, 'good/controller.ts'), 'utf8'));
      const passes = await npx(['vitest', 'run', file!], dir);
      expect(passes.code, passes.output).toBe(0);
      expect(passes.output).toMatch(/1 passed/);
    } finally {
      writeFileSync(join(dir, 'buggy/controller.ts'), original);
      rmSync(join(dir, file!), { force: true });
    }
  }, 300_000);

  it('CLI: `steadystate check` exits 1 on the buggy controller and writes reports; `replay` shows the same failure', async (ctx) => {
    const dir = join(consumer(ctx), 'buggy');
    const [checkLine, replayLine] = snippet('consumer-cli').trim().split('\n');
    expect(checkLine).toBe('npx steadystate check controller.ts');
    expect(replayLine).toMatch(/^npx steadystate replay reports\/\S+\.json$/);

    rmSync(join(dir, 'reports'), { recursive: true, force: true });
    const check = await npx(checkLine!.split(' ').slice(1), dir);
    expect(check.code, check.output).toBe(1);
    const failed = /FAIL replicas fails ([\w-]+)/.exec(check.output);
    expect(failed, check.output).not.toBeNull();
    const property = failed![1]!;
    expect(check.output).toMatch(/Let: [\s\S]*Then: /);
    const report = /Replay: npx steadystate replay (reports\/\S+\.json)/.exec(check.output)?.[1];
    expect(report, check.output).toBeDefined();
    const written = readdirSync(join(dir, 'reports'));
    const base = report!.slice('reports/'.length, -'.json'.length);
    for (const ext of ['.json', '.md', '.html', '.junit.xml']) expect(written).toContain(`${base}${ext}`);

    const replay = await npx([...replayLine!.split(' ').slice(1, -1), report!], dir);
    expect(replay.code, replay.output).toBe(1);
    expect(replay.output).toContain(`Replayed ${report}: identical trace`);
    expect(replay.output).toContain(`replicas still fails ${property}`);
  }, 240_000);

  it("CLI: the installed CLI and the user's module share one copy of steadystate", async (ctx) => {
    const dir = join(consumer(ctx), 'shared');
    const r = await npx(['steadystate', 'check', 'shared-copy.ts', '--runs', '10', '--seed', '1', '--faults', 'event-loss', '--properties', 'convergence'], dir);
    expect(r.output).not.toMatch(/two copies of steadystate/);
    expect(r.code, r.output).toBe(0);
  }, 120_000);

  it('CLI: an ESM .ts controller loads in a CommonJS project (no "type": "module") as in an ESM one', async (ctx) => {
    consumer(ctx);
    const dir = cjsProject!;
    const r = await npx(['steadystate', 'check', 'controller.ts', '--runs', '5', '--seed', '1'], dir);
    expect(r.output).not.toMatch(/Cannot require\(\) ES Module|loading .* failed/);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/^PASS /m);
  }, 120_000);

  it("CLI: a plain CommonJS module (require('steadystate'), exports.x) loads; the correct one passes, its buggy twin fails", async (ctx) => {
    consumer(ctx);
    const dir = cjsProject!;
    const good = await npx(['steadystate', 'check', 'plain.js', '--runs', '5', '--seed', '1'], dir);
    expect(good.output).not.toMatch(/Cannot require\(\) ES Module|ERR_REQUIRE|loading .* failed/);
    expect(good.code, good.output).toBe(0);
    expect(good.output).toMatch(/^PASS /m);
    const buggy = await npx(['steadystate', 'check', 'plain-buggy.js', '--runs', '100', '--seed', '1', '--faults', 'event-loss', '--properties', 'convergence'], dir);
    expect(buggy.code, buggy.output).toBe(1);
    expect(buggy.output).toMatch(/^FAIL replicas fails convergence/m);
  }, 120_000);

  it('CLI: `steadystate demo` runs the bundled examples from the build', async (ctx) => {
    // few trials and runs: the build running every bundled example is the point here (npm run demo runs the full sizes)
    const r = await npx(['steadystate', 'demo', '--trials', '20', '--zoo-runs', '4'], consumer(ctx));
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/level-triggered: converged 20\/20/);
    expect(r.output).toMatch(/edge-triggered: converged \d+\/20/);
    // every exhibit caught, every fixed twin passing its (here 4) runs
    expect(r.output).not.toMatch(/NOT FOUND|FAILED/);
    expect(r.output.match(/fixed twin: 4 runs, every property holds/g)?.length).toBeGreaterThanOrEqual(12);
  }, 120_000);

  it('tsc --noEmit: the published types and the matcher types type-check a user project', async (ctx) => {
    const dir = consumer(ctx);
    const tsc = await npx(['tsc', '--noEmit', '-p', '.'], dir);
    expect(tsc.output).toBe('');
    expect(tsc.code).toBe(0);
  }, 240_000);
});
