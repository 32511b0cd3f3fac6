// Attempt H3 (rt46): learned masks as a hiding place. The controller makes its ConfigMap once and
// never compares its content again (a real bug: an edited ConfigMap is never repaired). The control
// twin `plain` is caught by same-end-state when drift edits the ConfigMap. `stamped` is the same bug
// with the render time inside the rendered text (a "# generated at" header): the fault-free twin's
// benign variations render at other times, so the whole data.page path is learned as a mask and
// the unrepaired edit is never compared.
import { defineController, type ControllerDefinition } from '../../../src/index.js';
import { controllerRef } from '../../../examples/false-positives/_shared/owner.js';
import { writeStatus } from '../../../examples/false-positives/_shared/status.js';
function make(name: string, stamp: boolean): ControllerDefinition {
  return defineController({
    name,
    for: 'Page',
    owns: ['ConfigMap'],
    resyncPeriodMs: 10_000,
    async reconcile(ctx) {
      const p = await ctx.client.tryGet<{ title: string }, Record<string, unknown>>('Page', ctx.key, { live: true });
      if (!p || p.metadata.deletionTimestamp !== undefined) return;
      const ns = p.metadata.namespace ?? 'default';
      const name = `${p.metadata.name}-page`;
      const cm = await ctx.client.tryGet('ConfigMap', { namespace: ns, name }, { live: true });
      const body = `<h1>${p.spec.title}</h1>`;
      const page = stamp ? `<!-- generated at ${new Date(ctx.clock.now()).toISOString()} -->${body}` : body;
      // BUG: only the ConfigMap's existence and the title it was made for are checked, never its content
      if (!cm) await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ownerReferences: [controllerRef(p)], annotations: { title: p.spec.title } }, data: { page } } as never);
      else if (cm.metadata.annotations['title'] !== p.spec.title) await ctx.client.patch('ConfigMap', { namespace: ns, name }, { metadata: { annotations: { title: p.spec.title } }, data: { page } }, { resourceVersion: cm.metadata.resourceVersion });
      await writeStatus(ctx, p, { observedGeneration: p.metadata.generation });
    },
  });
}
export const plain = make('plain', false);
export const stamped = make('stamped', true);
export const checkOptions = { objects: { kind: 'Page', name: 'home', spec: [{ title: 'Home' }, { title: 'Welcome' }] } };
