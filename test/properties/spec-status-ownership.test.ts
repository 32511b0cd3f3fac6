import { describe, expect, it } from 'vitest';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import { clampSpecBuggy, clampStatusCorrect } from '../../examples/property-targets/widget-controllers.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, expectQuiet, judgeScenario, propertyLaws } from '../helpers/property-laws.js';
import { defineController, type Scenario } from '../../src/index.js';

const scenario = widgetScenario(['widget'], createAll([widget('big', 8), widget('small', 2)]));

propertyLaws({
  property: specStatusOwnership(),
  buggy: { controllers: [clampSpecBuggy], scenario },
  correct: {
    controllers: [clampStatusCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 0 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: [/update Widget default\/big by controller widget\/0 at t=0\.\d+ s \(changed spec\.size\): spec\.size belong to the user/, 'write observations to status'],
});

describe('specStatusOwnership', () => {
  it('allows configured spec paths', async () => {
    const { verdict } = await judgeScenario(specStatusOwnership({ allowSpecPaths: ['spec.size'] }), scenario, { controllers: [clampSpecBuggy] });
    expect(verdict.ok).toBe(true);
  });
  it('flags a user writing status', async () => {
    const { run } = await judgeScenario(specStatusOwnership(), scenario, { controllers: [clampStatusCorrect] });
    const userStatusWrite = { t: 3000, type: 'store:write' as const, actor: 'user', verb: 'patchStatus', kind: 'Widget', key: 'default/small', uid: 'uid-2', rv: 99, changed: ['status.size'], noop: false };
    const tampered = { ...run, trace: [...run.trace, userStatusWrite] };
    const v = expectFailure(specStatusOwnership().judge(tampered, undefined));
    expect(v.summary).toBe('user wrote status: patchStatus Widget default/small by the user at t=3.0 s (changed status.size)');
    expect(v.explanation).toContain('status is observed state, owned by the controller');
  });

  it("does not blame the user for the status the API server changed on the user's main-resource write of a built-in kind (a Service leaving LoadBalancer loses its load balancer status); a custom kind's still counts", async () => {
    const { run } = await judgeScenario(specStatusOwnership(), scenario, { controllers: [clampStatusCorrect] });
    const write = (kind: string) => ({ t: 3000, type: 'store:write' as const, actor: 'user', verb: 'update', kind, key: 'default/web', uid: 'uid-9', rv: 99, changed: ['spec.type', 'status.loadBalancer.ingress'], noop: false });
    expectQuiet(specStatusOwnership().judge({ ...run, trace: [...run.trace, write('Service')] }, undefined));
    expectFailure(specStatusOwnership().judge({ ...run, trace: [...run.trace, write('Widget')] }, undefined));
  });
});

describe('specStatusOwnership: only what the user declared', () => {
  // a secret copier: for Secret, copies the data of each user Secret labelled copy=yes into <name>-copy, which it owns
  const copier = (writesUserSecret: boolean) =>
    defineController({
      name: writesUserSecret ? 'copier-bug' : 'copier',
      for: 'Secret',
      async reconcile(ctx) {
        const s = await ctx.client.tryGet<Record<string, unknown>>('Secret', ctx.key);
        if (!s || s.metadata.labels['copy'] !== 'yes') return;
        const name = `${s.metadata.name}-copy`;
        const copy = await ctx.client.tryGet<Record<string, unknown>>('Secret', `default/${name}`);
        if (!copy) await ctx.client.create({ kind: 'Secret', metadata: { name, namespace: 'default' }, spec: { note: 'copy' } });
        else if (copy.spec['note'] !== 'copied') await ctx.client.update({ ...copy, spec: { note: 'copied' } });
        // BUG variant: stamps the user's own Secret
        if (writesUserSecret && s.spec['note'] !== 'seen') await ctx.client.update({ ...s, spec: { ...s.spec, note: 'seen' } });
      },
    });
  const s: Scenario = { seed: 1, controllers: [{ name: 'copier' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Secret', metadata: { name: 'db', namespace: 'default', labels: { copy: 'yes' } }, spec: { note: 'user' } } }], faults: { events: [], background: [] } };

  it('lets a controller write the objects of its primary kind it created itself (a secret copier writes its copies)', async () => {
    expectQuiet((await judgeScenario(specStatusOwnership(), s, { controllers: [copier(false)] })).verdict);
  });
  it('still flags a write to the spec of the Secret the user declared', async () => {
    const v = expectFailure((await judgeScenario(specStatusOwnership(), { ...s, controllers: [{ name: 'copier-bug' }] }, { controllers: [copier(true)] })).verdict);
    expect(v.summary).toContain('controller wrote spec: update Secret default/db by controller copier-bug/0');
  });
});
