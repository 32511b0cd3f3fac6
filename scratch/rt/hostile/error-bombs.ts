// Hostile: reconciles that throw values the harness must format: a Proxy whose every property read
// throws, and an Error whose `message`/`stack` getters replace JSON.stringify when read.
// CLI (each must exit 1, never 0 or a hang):
//   npx steadystate check scratch/rt/hostile/error-bombs.ts --controller proxy-bomb --runs 10 --seed 1
//   npx steadystate check scratch/rt/hostile/error-bombs.ts --controller getter-bomb --runs 10 --seed 1
import { defineController, type CheckOptions } from 'steadystate';

export const proxyBomb = defineController({
  name: 'proxy-bomb',
  for: 'Widget',
  resyncPeriodMs: 10_000,
  async reconcile() {
    throw new Proxy({}, { get() { throw new Error('read me and die'); }, has() { throw new Error('has'); }, ownKeys() { throw new Error('keys'); }, getPrototypeOf() { throw new Error('proto'); } });
  },
});

const realStringify = JSON.stringify;
export const getterBomb = defineController({
  name: 'getter-bomb',
  for: 'Widget',
  resyncPeriodMs: 10_000,
  async reconcile() {
    const err = new Error('x');
    const arm = () => { JSON.stringify = (() => '{"ok":true}') as typeof JSON.stringify; return 'armed'; };
    Object.defineProperty(err, 'message', { get: arm });
    Object.defineProperty(err, 'stack', { get: arm });
    void realStringify;
    throw err;
  },
});
export const checkOptions: CheckOptions = { objects: { kind: 'Widget', spec: [{ size: 1 }] } };
