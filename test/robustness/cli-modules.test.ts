import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectUsageError, root, runCli, tempDir } from '../e2e/cli-helpers.js';

/**
 * The attack list, hostile or broken controller modules (issue 17 items 9, 10, 16, 17): each row
 * is a small project written to a temp dir and the command run in it. Every row must end: with a
 * verdict (a module that loads), or with exit 2 and a message saying what the module did.
 */
const index = JSON.stringify(join(root, 'src/index.ts'));
const controller = `import { defineController } from ${index};
export const c = defineController({
  name: 'c',
  for: 'Thing',
  sample: [{}],
  async reconcile(ctx) {
    const t = await ctx.client.tryGet('Thing', ctx.key);
    if (t && t.status['observedGeneration'] !== t.metadata.generation) await ctx.client.updateStatus({ ...t, status: { observedGeneration: t.metadata.generation } });
  },
});
`;

interface ModuleAttack {
  attack: string;
  /** Files of the project (relative path → text). */
  files: Record<string, string>;
  /** Arguments after `check <entry>`. */
  args?: string[];
  entry?: string;
  env?: NodeJS.ProcessEnv;
  /** Exit code 0 (a verdict that passed), or a usage error's paragraph patterns. */
  expect: 'pass' | RegExp[];
  /** For syntax errors: the code frame printed after the paragraph. */
  frame?: RegExp;
}

const rows: ModuleAttack[] = [
  { attack: 'a .ts module with export in a project without "type": "module" (item 10)', files: { 'package.json': '{ "name": "cjs-project", "version": "1.0.0" }', 'controller.ts': controller }, expect: 'pass' },
  { attack: 'a .ts module with export and no package.json at all (item 10)', files: { 'controller.ts': controller }, expect: 'pass' },
  { attack: 'an ESM .ts module importing a helper .ts, CommonJS project (item 10)', files: { 'package.json': '{}', 'helper.ts': 'export const kind = "Thing";\n', 'controller.ts': controller.replace("for: 'Thing'", 'for: kind').replace('\nexport const c', `\nimport { kind } from './helper.ts';\nexport const c`) }, expect: 'pass' },
  { attack: 'a top-level await on a long real timer (item 9)', files: { 'controller.ts': `await new Promise((r) => setTimeout(r, 3_600_000));\n${controller}` }, env: { STEADYSTATE_LOAD_TIMEOUT_MS: '1500' }, expect: [/loading "controller\.ts" did not finish within 1\.5 s: its top level still waits/, /STEADYSTATE_LOAD_TIMEOUT_MS/] },
  // the module loads in the check's worker thread, whose top level the main thread watches: this hung the CLI for good when the main thread loaded it
  { attack: 'a top-level synchronous loop (stop 35)', files: { 'controller.ts': `while (Date.now() > 0) {}\n${controller}` }, env: { STEADYSTATE_LOAD_TIMEOUT_MS: '4000' }, expect: [/loading "controller\.ts" did not return control within 6 s: its top level runs a synchronous loop or blocks/, /STEADYSTATE_LOAD_TIMEOUT_MS/] },
  { attack: 'a top-level await that never settles (item 17)', files: { 'controller.ts': `await new Promise(() => {});\n${controller}` }, expect: [/loading "controller\.ts" never finished: its top level awaits a promise that nothing can settle/] },
  { attack: 'process.exit(3) at import (item 17)', files: { 'controller.ts': `process.exit(3);\n${controller}` }, expect: [/its top level called process\.exit\(3\), which would have ended the check with no verdict/] },
  { attack: "process.kill(process.pid, 'SIGTERM') at import (session 6)", files: { 'controller.ts': `process.kill(process.pid, 'SIGTERM');\n${controller}` }, expect: [/its top level called process\.kill\(process\.pid, 'SIGTERM'\), which would have ended the check with no verdict/] },
  { attack: 'a thrown plain object at import (item 17)', files: { 'controller.ts': `throw { code: 42, reason: 'no config' };\n` }, expect: [/failed: it threw \{"code":42,"reason":"no config"\}/] },
  { attack: 'a forged export { __steadystate: "controller" } (item 16)', files: { 'controller.ts': `export const c = { __steadystate: 'controller' };\n` }, expect: [/exports c, which carries steadystate's controller mark but was not made by defineController: it lacks a name/] },
  {
    attack: 'a TypeScript syntax error (item 17)',
    files: { 'controller.ts': controller.replace('sample: [{}],', 'sample: [{}],\n  oops: (,') },
    expect: [/loading "controller\.ts" failed: .* at controller\.ts:6:\d+\. Fix the syntax error/],
    frame: /> 6 \|\s+oops: \(,\n\s+\|\s+\^/,
  },
  { attack: 'a JavaScript syntax error (item 17)', files: { 'package.json': '{ "type": "module" }', 'controller.js': 'export const x = 1;\nconst y = ;\n' }, entry: 'controller.js', expect: [/failed: Unexpected token ';' at controller\.js:2:11/], frame: /> 2 \| const y = ;\n\s+\|\s+\^/ },
  { attack: 'a syntax error in an imported helper (item 17)', files: { 'package.json': '{}', 'helper.ts': 'export const h = (;\n', 'controller.ts': `import './helper.ts';\n${controller}` }, expect: [/at helper\.ts:1:19/], frame: /> 1 \| export const h = \(;/ },
];

/**
 * The CLI runs from the suite's JavaScript build, as installed (tsx registered only to load the
 * module: test/cli-build/global-setup.ts); the richest module-format row (item 10: a .ts module
 * importing a .ts helper in a CommonJS project) runs from the checkout's bin on the sources too,
 * where tsx is registered before the CLI loads (one row: each costs ~12 s of the suite's CI time).
 */
const fromSources = (r: (typeof rows)[number]): boolean => r.attack.includes('(item 10)') && r.attack.includes('importing a helper');
const runs = [...rows.map((r) => ({ ...r, sources: false })), ...rows.filter(fromSources).map((r) => ({ ...r, attack: `${r.attack}, from the sources`, sources: true }))];

describe.concurrent('controller modules that attack the loader', () => {
  for (const r of runs) {
    it(r.attack, async () => {
      const dir = tempDir();
      for (const [rel, text] of Object.entries(r.files)) {
        mkdirSync(dirname(join(dir, rel)), { recursive: true });
        writeFileSync(join(dir, rel), text);
      }
      const run = await runCli(['check', r.entry ?? 'controller.ts', '--runs', '2', '--seed', '1', ...(r.args ?? [])], { cwd: dir, ...(r.env ? { env: r.env } : {}), timeoutMs: 60_000, sources: r.sources });
      if (r.expect === 'pass') {
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(/^PASS c: 2 runs/);
        return;
      }
      if (!r.frame) {
        expectUsageError(run, ...r.expect);
        return;
      }
      expect(run.code, run.stderr).toBe(2);
      const [paragraph, frame] = run.stderr.split('\n\n');
      for (const re of r.expect) expect(paragraph).toMatch(re);
      expect(frame).toMatch(r.frame);
    });
  }
});
