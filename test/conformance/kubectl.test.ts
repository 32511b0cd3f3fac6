import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore, type WriteRecord } from '../../src/store/store.js';
import { createKubeApi, type KubeApi } from '../../src/kube-rest/kube-api.js';
import { startLoopback, type LoopbackServer } from '../../src/kube-rest/loopback.js';
import { startWebAppController } from '../../examples/client-node/webapp-controller.js';
import { webAppCrd } from '../../examples/client-node/webapp.js';
import { systemPackagesSettled } from '../helpers/system-packages.js';

/**
 * The real-client arm of the conformance suite: Debian's `kubectl` (package kubernetes-client,
 * installed by .ci/run) against the loopback server, with the client-node example controller
 * running against the same server over a real socket.
 */
await systemPackagesSettled();
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
if (!hasKubectl) console.warn('kubectl.test.ts: SKIPPED — kubectl is not installed (apt-get install kubernetes-client); the loopback server was not tested against a real kubectl.');

let dir: string;
let kubeconfig: string;
let api: KubeApi;
let store: ObjectStore;
const writes: WriteRecord[] = [];
let server: LoopbackServer;
let stopController: (() => Promise<void>) | undefined;

function controllerConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig({ token: api.issueToken('controller:webapp/0') }));
  return kc;
}

function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), '--request-timeout=20s', ...args], { timeout: 40_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return p;
}

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const webapp = { apiVersion: 'example.com/v1', kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2, image: 'nginx:1.27' } };

describe.skipIf(!hasKubectl)('kubectl against the loopback API server', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'steadystate-kubectl-'));
    store = new ObjectStore({ clock: new VirtualClock(), onWrite: (w) => writes.push(w) });
    api = createKubeApi({ store });
    server = await startLoopback(api);
    kubeconfig = await server.writeKubeconfig(join(dir, 'kubeconfig'));
  });

  afterAll(async () => {
    await stopController?.();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('create -f, then get -o json', async () => {
    const cm = file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  labels:\n    app: demo\ndata:\n  v: "1"\n');
    expect(await ok('create', '-f', cm)).toContain('configmap/demo created');
    const got = JSON.parse(await ok('get', 'configmap', 'demo', '-o', 'json'));
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo', namespace: 'default', labels: { app: 'demo' } }, data: { v: '1' } });
    expect(got.metadata.uid).toBe(store.peek('ConfigMap', 'default/demo')!.metadata.uid);
    expect((await kubectl('create', '-f', cm)).stderr).toContain('AlreadyExists');
    expect(await ok('get', 'configmaps', '-l', 'app in (demo)', '-o', 'name')).toBe('configmap/demo\n');
  });

  it('apply twice: created, then unchanged', async () => {
    const cm = file('applied.json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } });
    expect(await ok('apply', '-f', cm)).toContain('configmap/applied created');
    expect(await ok('apply', '-f', cm)).toContain('configmap/applied unchanged');
    file('applied.json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '2' } });
    expect(await ok('apply', '-f', cm)).toContain('configmap/applied configured');
    expect(store.peek('ConfigMap', 'default/applied')!.data).toMatchObject({ a: '2' });
  });

  it('apply --server-side: created, configured, a conflict with another manager, then --force-conflicts', async () => {
    const cm = (a: string): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a, b: '1' } });
    expect(await ok('apply', '--server-side', '-f', file('ssa.json', cm('1')))).toContain('configmap/ssa serverside-applied');
    const got = JSON.parse(await ok('get', 'configmap', 'ssa', '-o', 'json', '--show-managed-fields'));
    expect(got.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } })]);
    expect(await ok('apply', '--server-side', '--field-manager=deployer', '-f', file('ssa.json', cm('1')))).toContain('serverside-applied');
    const conflict = await kubectl('apply', '--server-side', '--field-manager=deployer', '-f', file('ssa.json', cm('2')));
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    expect(store.peek('ConfigMap', 'default/ssa')!.data).toEqual({ a: '1', b: '1' });
    expect(await ok('apply', '--server-side', '--field-manager=deployer', '--force-conflicts', '-f', file('ssa.json', cm('2')))).toContain('serverside-applied');
    expect(store.peek('ConfigMap', 'default/ssa')!.data).toEqual({ a: '2', b: '1' });
    // an object applied client-side first, then server-side (kubectl's migration path)
    const csa = file('csa.json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa' }, data: { a: '1' } });
    expect(await ok('apply', '-f', csa)).toContain('configmap/csa created');
    file('csa.json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa' }, data: { a: '2' } });
    expect(await ok('apply', '--server-side', '-f', csa)).toContain('configmap/csa serverside-applied');
    expect(store.peek('ConfigMap', 'default/csa')!.data).toEqual({ a: '2' });
  });

  it('--dry-run=server: create, apply (client- and server-side) and delete are answered, and nothing changes', async () => {
    const before = writes.length;
    const cm = file('dry.json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: '1' } });
    expect(await ok('create', '-f', cm, '--dry-run=server')).toContain('configmap/dry created (server dry run)');
    expect(await ok('apply', '-f', cm, '--dry-run=server')).toContain('configmap/dry created (server dry run)');
    expect(await ok('apply', '--server-side', '-f', cm, '--dry-run=server')).toContain('configmap/dry serverside-applied (server dry run)');
    expect((await kubectl('get', 'configmap', 'dry')).stderr).toContain('NotFound');
    expect(await ok('delete', 'configmap', 'demo', '--dry-run=server')).toContain('configmap "demo" deleted (server dry run)');
    expect(store.peek('ConfigMap', 'default/demo')).toBeDefined();
    expect(writes.length).toBe(before);
  });

  it('scale: a merge patch of deployments/scale, then --current-replicas (a GET and a conditional PUT of the Scale)', async () => {
    // red team round 10 S-1: the scale subresource was 404, so kubectl scale failed
    store.create('user', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'app:1' }] } } } });
    expect(await ok('scale', 'deployment/web', '--replicas=3')).toContain('deployment.apps/web scaled');
    expect(store.peek('Deployment', 'default/web')!.spec['replicas']).toBe(3);
    expect(await ok('scale', 'deployment/web', '--current-replicas=3', '--replicas=2')).toContain('deployment.apps/web scaled');
    expect(store.peek('Deployment', 'default/web')!.spec['replicas']).toBe(2);
    expect(writes.filter((w) => w.kind === 'Deployment' && w.verb !== 'create').map((w) => `${w.actor} ${w.verb} ${w.changed.join(',')}`)).toEqual(['user patch spec.replicas', 'user update spec.replicas']);
  });

  it('get -w sees a change made with patch --type=merge', async () => {
    const watcher = spawn('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), 'get', 'configmap', 'demo', '-w', '-o', 'jsonpath={.data.v}{"\\n"}']);
    let out = '';
    watcher.stdout.on('data', (d) => (out += String(d)));
    try {
      await until(() => out.includes('1\n') && api.openWatches() > 0, 'kubectl get -w to print the current value and watch');
      expect(await ok('patch', 'configmap', 'demo', '--type=merge', '-p', '{"data":{"v":"2"}}')).toContain('configmap/demo patched');
      await until(() => out.includes('2\n'), 'kubectl get -w to print the patched value');
      expect(store.peek('ConfigMap', 'default/demo')!.data).toEqual({ v: '2' });
    } finally {
      watcher.kill();
    }
    await until(() => api.openWatches() === 0, 'the watch to end when kubectl exits');
  });

  it('wait --for=condition=Ready after the client-node controller sets the condition', async () => {
    expect(await ok('apply', '-f', file('crd.json', webAppCrd))).toContain('created');
    await ok('wait', '--for=condition=Established', 'crd/webapps.example.com', '--timeout=20s');
    stopController = startWebAppController(controllerConfig());
    expect(await ok('create', '-f', file('webapp.json', webapp))).toContain('webapp.example.com/web created');
    expect(await ok('wait', '--for=condition=Ready', 'webapp/web', '--timeout=30s')).toContain('condition met');
    const got = JSON.parse(await ok('get', 'webapp', 'web', '-o', 'json'));
    expect(got.metadata.finalizers).toEqual(['example.com/cleanup']);
    expect(got.status.observedGeneration).toBe(got.metadata.generation);
    const cm = JSON.parse(await ok('get', 'configmap', 'web-web', '-o', 'json'));
    expect(cm.data).toEqual({ replicas: '2', image: 'nginx:1.27' });
    expect(writes.filter((w) => w.kind === 'WebApp' && w.verb === 'create').map((w) => w.actor)).toEqual(['user']);
    expect(writes.some((w) => w.kind === 'WebApp' && w.verb === 'patchStatus' && w.actor === 'controller:webapp/0')).toBe(true);
  });

  it('delete: the finalizer holds the object until the controller removes it', async () => {
    await stopController?.();
    stopController = undefined;
    expect(await ok('delete', 'webapp', 'web', '--wait=false')).toContain('deleted');
    const held = JSON.parse(await ok('get', 'webapp', 'web', '-o', 'json'));
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.metadata.finalizers).toEqual(['example.com/cleanup']);
    stopController = startWebAppController(controllerConfig());
    await ok('wait', '--for=delete', 'webapp/web', '--timeout=30s');
    expect(store.peek('WebApp', 'default/web')).toBeUndefined();
    expect((await kubectl('get', 'configmap', 'web-web')).stderr).toContain('NotFound');
  });

  it('delete --cascade=foreground: the owner stays, terminating with foregroundDeletion, until its blocking dependent is gone', async () => {
    await ok('create', '-f', file('parent.json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'parent', namespace: 'default' }, data: { a: '1' } }));
    const parent = JSON.parse(await ok('get', 'configmap', 'parent', '-o', 'json'));
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true };
    await ok('create', '-f', file('child.json', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'child', namespace: 'default', finalizers: ['example.com/hold'], ownerReferences: [owner] }, stringData: { b: '2' } }));
    expect(await ok('delete', 'configmap', 'parent', '--cascade=foreground', '--wait=false')).toContain('deleted');
    const held = JSON.parse(await ok('get', 'configmap', 'parent', '-o', 'json'));
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.metadata.finalizers).toEqual(['foregroundDeletion']);
    // the collector deleted the dependent first; its own finalizer holds it, and it holds the owner
    expect(JSON.parse(await ok('get', 'secret', 'child', '-o', 'json')).metadata.deletionTimestamp).toBeDefined();
    await ok('patch', 'secret', 'child', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    await ok('wait', '--for=delete', 'configmap/parent', '--timeout=30s');
    expect(store.peek('ConfigMap', 'default/parent')).toBeUndefined();
  });
});
