import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { convergence } from '../../properties/convergence.js';
import type { JsonObject, NewObject } from '../../src/store/object.js';
import { gadgetCrd } from '../helpers/gadget-crd.js';

/**
 * The CRD a world holds prunes what a controller writes (store/prune.ts): a controller whose CRD
 * forgot `status.size` never reports it on a cluster, and a check with the real
 * CRD in its story now says so; the same controller with the CRD fixed passes.
 */
const gadgets = defineController({
  name: 'gadgets',
  for: 'Gadget',
  async reconcile(ctx) {
    const g = await ctx.client.tryGet<{ size: number }, { size?: number }>('Gadget', ctx.key);
    if (!g || g.status.size === g.spec.size) return;
    await ctx.client.updateStatus({ ...g, status: { size: g.spec.size } });
  },
});

function crd(statusFields: JsonObject): NewObject {
  return gadgetCrd({ type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: statusFields } } });
}

const gadget: NewObject = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { size: 2 } };
// converged: the Gadget's status reports its size
const reported = convergence({ converged: (w) => w.list('Gadget').every((g) => g.status['size'] === g.spec['size']) || 'status.size differs from spec.size' });
const options = { runs: 3, seed: 1, faults: [], properties: [reported], determinism: false } as const;

describe('a CRD in the world prunes what the controller writes', () => {
  it('status.size missing from the CRD: the status never reports the size, as on a cluster', async () => {
    const r = await check(gadgets, { ...options, story: { objects: [crd({ ready: { type: 'boolean' } }), gadget] } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe('convergence');
  });

  it('with the field in the CRD it passes', async () => {
    const r = await check(gadgets, { ...options, story: { objects: [crd({ ready: { type: 'boolean' }, size: { type: 'integer' } }), gadget] } });
    expect(r.ok, r.ok ? '' : r.summary).toBe(true);
  });
});
