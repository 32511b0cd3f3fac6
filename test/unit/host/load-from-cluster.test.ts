import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check, defineProgram, simulate, type Scenario } from '../../../src/index.js';

/**
 * A hosted program configured the in-pod way, `kc.loadFromCluster()`: the API server's service in
 * its environment, and its service account (its replica's token, a CA, its namespace) readable at
 * /var/run/secrets/kubernetes.io/serviceaccount, for its own code only, never on the host's disk.
 */
const DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const fixture = fileURLToPath(new URL('./programs/service-account.cjs', import.meta.url));
const esmFixture = fileURLToPath(new URL('./programs/service-account-esm.ts', import.meta.url));

function scenario(controllers: Scenario['controllers']): Scenario {
  return { seed: 3, controllers, initialObjects: [], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 2_000, settleMs: 2_000 } };
}

type Run = Awaited<ReturnType<typeof simulate>>['run'];
const recorded = (run: Run, replica: number, name = 'p') => run.finalObjects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === `sa-${name}-${replica}`)?.data as Record<string, string> | undefined;
const writerOf = (run: Run, replica: number, name = 'p') => run.trace.find((e) => e.type === 'store:write' && e['kind'] === 'ConfigMap' && e['key'] === `default/sa-${name}-${replica}`)?.['actor'];

describe('kc.loadFromCluster() in a hosted program', () => {
  it('finds the simulated cluster: a correct in-cluster operator passes a check, its twin that never looks at a Deployment again fails', async () => {
    const deployment = (app: string, image: string, replicas: number, port: number) => ({ replicas, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: app, image, ports: [{ containerPort: port }] }] } } });
    const exposer = (v: 'correct' | 'buggy') => defineProgram({ entry: `examples/client-node/in-cluster/${v}.ts`, for: 'Deployment', name: 'in-cluster-exposer', sample: [deployment('web', 'nginx:1.27', 1, 8080), deployment('api', 'api:2', 2, 9090)] });
    const correct = await check(exposer('correct'), { runs: 20, seed: 2 });
    expect(correct.ok ? 'passed' : `${correct.property}: ${correct.summary}`).toBe('passed');
    expect(correct.runs).toBe(20);
    const buggy = await check(exposer('buggy'), { runs: 20, seed: 2, shrink: false });
    expect(buggy.ok).toBe(false);
    if (buggy.ok) return;
    // a finding about what it did to the world, not a program that never reached the API server
    expect(buggy.property).not.toBe('program-acts');
    expect(buggy.summary).toMatch(/Service default\/deployment-\d/);
  });

  it('gives each replica its own token (the requests it authenticates are its own), the CA and the namespace, through every fs read', async () => {
    const p = defineProgram({ entry: fixture, for: 'ConfigMap', name: 'p' });
    const q = defineProgram({ entry: esmFixture, for: 'ConfigMap', name: 'q' });
    const { run } = await simulate(scenario([{ name: 'p', replicas: 2 }, { name: 'q' }]), { controllers: [p, q], tailMs: 0 });
    expect(run.trace.filter((e) => e.type === 'process:exit')).toEqual([]);
    const a = recorded(run, 0);
    const b = recorded(run, 1);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    for (const data of [a!, b!]) {
      expect(data).toMatchObject({
        namespace: 'default',
        contextNamespace: 'default',
        server: 'https://steadystate.invalid:443',
        caSubject: 'O=steadystate, CN=steadystate.invalid in-process CA',
        dirExists: 'true',
        // read-only, as the volume kubelet mounts
        tokenWritable: 'EROFS',
        other: 'false',
      });
      expect(data['token']).toMatch(/^steadystate-\S+$/);
    }
    // an ESM program reading with named imports (node:fs, node:fs/promises) gets its own too
    const c = recorded(run, 0, 'q');
    expect(c).toMatchObject({ namespace: 'default', tokenExists: 'true' });
    expect(c!['token']).toMatch(/^steadystate-\S+$/);
    expect(new Set([a!['token'], b!['token'], c!['token']]).size).toBe(3);
    // each write went out with the token in its own replica's file: the API names its replica
    expect([writerOf(run, 0), writerOf(run, 1), writerOf(run, 0, 'q')]).toEqual(['controller:p/0', 'controller:p/1', 'controller:q/0']);
  });

  it('gives a restarted incarnation the token it is issued (the dead one\'s is never answered again)', async () => {
    const p = defineProgram({ entry: fixture, for: 'ConfigMap', name: 'p', env: { EXIT_AFTER: '1' } });
    const s = scenario([{ name: 'p' }]);
    const { run } = await simulate({ ...s, options: { faultWindowMs: 15_000, settleMs: 2_000 } }, { controllers: [p], tailMs: 0 });
    const exits = run.trace.filter((e) => e.type === 'process:exit');
    expect(exits.length).toBeGreaterThanOrEqual(1);
    const records = run.finalObjects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('sa-p-0-at-'));
    // the first incarnation at t=0, the second after the 10 s CrashLoopBackOff, each with its own token
    expect(records.map((o) => o.metadata.name)).toEqual(['sa-p-0-at-0', 'sa-p-0-at-10']);
    const tokens = records.map((o) => (o.data as Record<string, string>)['token']);
    expect(tokens[0]).not.toBe(tokens[1]);
    expect(run.trace.filter((e) => e.type === 'store:write' && e['kind'] === 'ConfigMap').map((e) => e['actor'])).toEqual(['controller:p/0', 'controller:p/0']);
  });

  it('writes nothing under /var/run, code outside the program never sees its files, and fs is the host\'s again after the run', async () => {
    const fs = createRequire(import.meta.url)('node:fs') as Record<string, unknown> & { promises: Record<string, unknown> };
    const hostBefore = hostRead(`${DIR}/token`);
    const reads = () => [fs['readFileSync'], fs['existsSync'], fs['accessSync'], fs['readFile'], fs['access'], fs.promises['readFile'], fs.promises['access']];
    const readsBefore = reads();
    const touched: string[] = [];
    const undo: (() => void)[] = [];
    const watch = (target: Record<string, unknown>, name: string): void => {
      const real = target[name] as (...args: unknown[]) => unknown;
      if (typeof real !== 'function') return;
      target[name] = function (this: unknown, ...args: unknown[]): unknown {
        for (const a of args.slice(0, 2)) if (String(a).startsWith('/var/run') || String(a).startsWith('/run/secrets')) touched.push(`${name} ${String(a)}`);
        return real.apply(this, args);
      };
      undo.push(() => (target[name] = real));
    };
    for (const name of ['writeFileSync', 'appendFileSync', 'mkdirSync', 'mkdtempSync', 'openSync', 'copyFileSync', 'cpSync', 'symlinkSync', 'linkSync', 'renameSync', 'createWriteStream', 'writeFile', 'appendFile', 'mkdir', 'open', 'copyFile', 'symlink', 'rename']) watch(fs, name);
    for (const name of ['writeFile', 'appendFile', 'mkdir', 'open', 'copyFile', 'cp', 'symlink', 'rename']) watch(fs.promises, name);
    let run: Run;
    try {
      ({ run } = await simulate(scenario([{ name: 'p', replicas: 2 }]), { controllers: [defineProgram({ entry: fixture, for: 'ConfigMap', name: 'p' })], tailMs: 0 }));
    } finally {
      for (const u of undo.reverse()) u();
    }
    // the program read its token (so the files were there for it)…
    const token = recorded(run, 0)?.['token'];
    expect(token).toMatch(/^steadystate-/);
    // …from memory: nothing was created or written under /var/run, and the host's view is unchanged
    expect(touched).toEqual([]);
    const hostAfter = hostRead(`${DIR}/token`);
    expect(hostAfter).toEqual(hostBefore);
    expect(hostAfter).not.toBe(token);
    // and the fs functions that answered it are the host's own again
    expect(reads()).toEqual(readsBefore);
    expect(reads().every((f, i) => f === readsBefore[i])).toBe(true);
  });
});

/** What the host (no program's code) reads at `path`: its text, or the error code. */
function hostRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return String((err as { code?: unknown }).code);
  }
}
