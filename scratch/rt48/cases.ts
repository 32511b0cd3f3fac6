// rt48: the shapes under test (correct + twin), as corpus-style cases, for hunt.ts
import { defineProgram, type CheckOptions, type ControllerDefinition, type Property, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';

export interface Case {
  name: string;
  controllers: readonly ControllerDefinition[];
  buggy: readonly ControllerDefinition[];
  options: Omit<CheckOptions, 'properties' | 'faults' | 'runs' | 'seed'>;
  properties?: readonly Property[];
  withoutProperties?: Record<string, string>;
}

const bundleResource = { kind: 'Bundle', plural: 'bundles', group: 'example.com', version: 'v1', namespaced: true };
const bundleSample = [{ entries: { a: '1', b: '2' } }, { entries: { a: '1' } }, { entries: { c: '3', a: '2' } }];
const bundleProgram = (variant: string) => defineProgram({ entry: `scratch/rt48/programs/bundle-ssa/${variant}.ts`, for: 'Bundle', name: 'bundle-operator', resources: [bundleResource], sample: bundleSample });

/** Converged: every Bundle's ConfigMap holds exactly its entries. */
export function bundled(v: WorldView): true | string {
  for (const b of v.list('Bundle')) {
    if (b.metadata.deletionTimestamp !== undefined) continue;
    const cm = v.get('ConfigMap', `${b.metadata.namespace}/${b.metadata.name}-bundle`) as unknown as { data?: Record<string, string> } | undefined;
    const want = JSON.stringify(Object.entries((b.spec['entries'] ?? {}) as Record<string, string>).sort());
    const have = JSON.stringify(Object.entries(cm?.data ?? {}).sort());
    if (want !== have) return `Bundle ${b.metadata.name} wants ${want}, its ConfigMap has ${have}`;
  }
  return true;
}

const censusResource = { kind: 'Census', plural: 'censuses', group: 'example.com', version: 'v1', namespaced: true };
const censusProgram = (variant: string, ext = 'cjs') => defineProgram({ entry: `scratch/rt48/programs/census-pager/census.${ext}`, args: [variant], for: 'Census', name: 'census', resources: [censusResource], sample: [{ selector: 'app=web' }, { selector: 'tier=db' }] });
const pod = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } });

/** Converged: every Census counts the live Pods its selector matches. */
export function counted(v: WorldView): true | string {
  for (const c of v.list('Census')) {
    if (c.metadata.deletionTimestamp !== undefined) continue;
    const [k, val] = String(c.spec['selector'] ?? '').split('=');
    const n = v.list('Pod').filter((p) => p.metadata.namespace === c.metadata.namespace && p.metadata.deletionTimestamp === undefined && k !== undefined && p.metadata.labels?.[k] === val).length;
    if (c.status['count'] !== n) return `Census ${c.metadata.name} says ${String(c.status['count'])}, ${n} Pods match`;
  }
  return true;
}

const exposureResource = { kind: 'Exposure', plural: 'exposures', group: 'example.com', version: 'v1', namespaced: true };
const dryProgram = (variant: string) => defineProgram({ entry: `scratch/rt48/programs/dryrun-diff/${variant}.ts`, for: 'Exposure', name: 'exposure-operator', resources: [exposureResource], sample: [{ app: 'web', port: 80, targetPort: 8080 }, { app: 'api', port: 443, targetPort: 8443 }] });

/** Converged: every Exposure's Service selects its app on its port. */
export function exposed(v: WorldView): true | string {
  for (const e of v.list('Exposure')) {
    if (e.metadata.deletionTimestamp !== undefined) continue;
    const s = v.get('Service', `${e.metadata.namespace}/${e.metadata.name}`);
    const ports = (s?.spec['ports'] ?? []) as { port?: number }[];
    if ((s?.spec['selector'] as Record<string, string> | undefined)?.['app'] !== e.spec['app'] || ports[0]?.port !== e.spec['port']) return `Exposure ${e.metadata.name}: its Service is ${JSON.stringify(s?.spec ?? null)}`;
  }
  return true;
}

import { fleetFanout } from './fixtures/fleet-fanout.js';

import { exportChain } from './fixtures/export-chain.js';

const mirrorResource = { kind: 'Mirror', plural: 'mirrors', group: 'example.com', version: 'v1', namespaced: true };
const mirrorProgram = (variant: string) => defineProgram({ entry: `scratch/rt48/programs/bookmark-watcher/${variant}.ts`, for: 'Mirror', name: 'mirror', resources: [mirrorResource], sample: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
/** Converged: every Mirror's ConfigMap holds its value. */
export function mirrored(v: WorldView): true | string {
  for (const m of v.list('Mirror')) {
    if (m.metadata.deletionTimestamp !== undefined) continue;
    const cm = v.get('ConfigMap', `${m.metadata.namespace}/${m.metadata.name}-mirror`) as unknown as { data?: Record<string, string> } | undefined;
    if (cm?.data?.['value'] !== m.spec['value']) return `Mirror ${m.metadata.name} is ${String(m.spec['value'])}, its ConfigMap ${String(cm?.data?.['value'])}`;
  }
  return true;
}

export const cases: Case[] = [
  { name: 'bookmark-watcher', controllers: [mirrorProgram('correct')], buggy: [mirrorProgram('buggy')], options: {}, properties: [convergence({ converged: mirrored })] },
  fleetFanout,
  exportChain,
  { name: 'dryrun-diff', controllers: [dryProgram('correct')], buggy: [dryProgram('buggy')], options: {}, properties: [convergence({ converged: exposed })] },
  {
    name: 'census-pager',
    controllers: [censusProgram('paged')],
    buggy: [censusProgram('first-page')],
    options: {
      story: {
        objects: [
          { apiVersion: 'example.com/v1', kind: 'Census', metadata: { name: 'web', namespace: 'default' }, spec: { selector: 'app=web' } },
          pod('web-1', { app: 'web' }), pod('web-2', { app: 'web' }), pod('web-3', { app: 'web', tier: 'db' }), pod('db-1', { tier: 'db' }), pod('db-2', { tier: 'db' }),
        ],
        actions: [
          { at: 2_000, type: 'create', object: pod('web-4', { app: 'web' }) },
          { at: 4_000, type: 'delete', kind: 'Pod', key: 'default/web-1' },
          { at: 6_000, type: 'patch', kind: 'Census', key: 'default/web', patch: { spec: { selector: 'tier=db' } } },
        ],
      },
    } as never,
    properties: [convergence({ converged: counted })],
  },
  { name: 'bundle-ssa', controllers: [bundleProgram('correct')], buggy: [bundleProgram('buggy')], options: {}, properties: [convergence({ converged: bundled })] },
];

// the same program as an ES module (census.mjs): tells a CommonJS-hosting difference from the program's
const census = cases.find((c) => c.name === 'census-pager')!;
cases.push({ ...census, name: 'census-esm', controllers: [censusProgram('paged', 'mjs')], buggy: [censusProgram('first-page', 'mjs')] });
