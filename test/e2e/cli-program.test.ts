import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, runCli, runCliInProcess, tempDir } from './cli-helpers.js';

/**
 * `steadystate check --program FILE`: a program (an operator's entry module, unchanged) checked
 * from the command line with no wrapper code, its failure reproduced by `steadystate replay`.
 */
const annotator = (variant: string) => join(root, 'examples/operators/template-hash', `${variant}.ts`);
const deployment = (image: string, replicas: number) => JSON.stringify({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } });
const samples = ['--for', 'Deployment', '--sample', deployment('nginx:1.27', 1), '--sample', deployment('nginx:1.28', 2)];
const properties = ['--properties', 'never-exits,same-end-state,idempotence,no-hot-loop'];

describe('steadystate check --program', () => {
  it('catches the annotator that never restarts its informer, says what happened on the wire, and replays it', async () => {
    const dir = tempDir();
    const r = await runCli(['check', '--program', annotator('buggy'), ...samples, ...properties, '--runs', '40', '--seed', '1'], { cwd: dir, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/FAIL buggy fails same-end-state/);
    // the informer stopped for good: its watch was cut, or its list failed (whichever fault the search met first)
    expect(r.stdout).toMatch(/On the wire: (after the watch on \/apis\/apps\/v1\/deployments .*buggy\/0 never opened another watch or list of it|GET \/apis\/apps\/v1\/deployments by buggy\/0 answered 5\d\d at t=[\d.]+ s and was never retried)/);
    const report = readdirSync(join(dir, 'reports')).find((f) => f.endsWith('.json'));
    expect(report).toBeDefined();
    // the report's regression test hosts the program again from the recorded spec
    const md = readFileSync(join(dir, 'reports', report!.replace(/\.json$/, '.md')), 'utf8');
    expect(md).toMatch(/const buggy = defineProgram\(\{"entry":"[^"]*examples\/operators\/template-hash\/buggy\.ts","for":"Deployment"/);
    // the timeline shows it on the wire: the stream the fault cut, or the list answered 5xx
    expect(md).toMatch(/watch:close controller=buggy replica=0 path=\/apis\/apps\/v1\/deployments\S* openedAt=\d+ by=server how=cut|http:request controller=buggy replica=0 method=GET path=\/apis\/apps\/v1\/deployments status=5\d\d/);
    const again = await runCli(['replay', join('reports', report!)], { cwd: dir, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stdout).toMatch(/identical trace/);
    expect(again.stdout).toMatch(/still fails same-end-state/);
  });

  it('passes the annotator that restarts its informer', async () => {
    const r = await runCli(['check', '--program', annotator('correct'), ...samples, ...properties, '--runs', '12', '--seed', '2'], { timeoutMs: 240_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/PASS correct: 12 runs/);
  });

  // what the command line says, not the process: the CLI's code in this thread (no child process per case)
  it('names what is missing or contradictory as a usage error', async () => {
    const usage = (args: readonly string[]) => runCliInProcess(args, tempDir());
    const noKind = await usage(['check', '--program', annotator('correct')]);
    expect(noKind.code).toBe(2);
    expect(noKind.stderr).toMatch(/--program .* needs --for KIND/);
    const both = await usage(['check', 'x.ts', '--program', annotator('correct'), '--for', 'Deployment']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either a module \(x\.ts\) or --program/);
    const stray = await usage(['check', 'x.ts', '--sample', '{}']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--sample goes with --program FILE/);
    const missing = await usage(['check', '--program', 'nope.ts', '--for', 'Deployment']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot find the program "nope\.ts"/);
    expect(existsSync(annotator('correct'))).toBe(true);
  });
});
