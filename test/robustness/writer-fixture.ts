import { defineController, type Scenario } from '../../src/index.js';

/** A Widget's size copied to its status once: a correct controller for judging-path tests. */
export const writer = defineController({
  name: 'writer',
  for: 'Widget',
  sample: { size: 1 },
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<{ size: number }, { size?: number }>('Widget', ctx.key);
    if (!w || w.status.size === w.spec.size) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size } });
  },
});

/** The writer's corpus scenario: the Widget `marked` made, then changed twice (3 user actions, so shrinking can move away from it). */
export const markedCorpus: Scenario = {
  seed: 1,
  controllers: [{ name: 'writer' }],
  initialObjects: [],
  workload: [
    { at: 0, type: 'create', object: { kind: 'Widget', metadata: { name: 'marked', namespace: 'default' }, spec: { size: 1 } } },
    { at: 300, type: 'update', kind: 'Widget', key: 'default/marked', spec: { size: 2 } },
    { at: 600, type: 'update', kind: 'Widget', key: 'default/marked', spec: { size: 3 } },
  ],
  faults: { events: [], background: [] },
} as Scenario;
