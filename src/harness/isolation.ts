import { describeRefused, type RefusedRequest } from '../downstream/net-guard.js';
import type { Kernel, Task } from '../sim/kernel.js';
import type { JsonObject } from '../store/object.js';
import type { Property, RunRecord } from './property.js';

/**
 * The run guard "isolation": no request may leave the process, and a request no simulated
 * service answers is a verdict, not a silent error inside a reconcile. The downstream and the
 * socket guard (downstream/net-guard.ts) record each refused request as a `network:refused`
 * trace entry; this judge, which the harness applies to every run before the properties, turns
 * the first of them into the failure. It is not a property one can leave out: a run whose
 * reconciler talked to the real network says nothing about the simulated one.
 * @public
 */
export const isolation: Property = {
  name: 'isolation',
  description: 'no request leaves the process; every request reaches a simulated service',
  options: {},
  needsTwin: false,
  probes: () => [],
  judge(run: RunRecord) {
    const refused = run.trace.filter((e) => e.type === 'network:refused');
    if (refused.length === 0) return { ok: true };
    const first = refused[0]!;
    const what = describeRefused({ via: first['via'] as RefusedRequest['via'], target: String(first['target']), ...(typeof first['url'] === 'string' ? { method: String(first['method']), url: first['url'] } : {}) });
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more refused request${refused.length === 2 ? '' : 's'})` : '';
    const served = first['via'] === 'fetch' ? ' It went through node\'s own fetch, not the one the run installs: a copy of globalThis.fetch saved before the run (at module load) or undici called directly. Call ctx.fetch, or look globalThis.fetch up when you call it.' : '';
    return {
      ok: false,
      summary: `${first['actor']} ${what}; no simulated service answers it${more}`,
      explanation:
        `Let: every request of a run go to a simulated service (the cluster through ctx.client, fakeRestService or msw handlers through ctx.fetch); nothing may leave the process. ` +
        `Then: at t=${first.t} ms ${first['actor']} ${what}, which none answers, so it was refused${more}.${served} ` +
        `Add a fakeRestService or an msw handler for it to the check's downstream (checkOptions.downstream; for steadystate check --program, pass --service ${serviceUrlOf(first['url'])}), or route the call through ctx.fetch.`,
      evidence: { refused: refused.slice(0, 10).map((e) => ({ t: e.t, actor: String(e['actor']), via: String(e['via']), target: String(e['target']), ...(typeof e['url'] === 'string' ? { method: String(e['method']), url: e['url'] } : {}) })) } as JsonObject,
    };
  },
};

/** The base URL to give `--service` for a refused request: its origin (or a placeholder when it has no http(s) URL). */
function serviceUrlOf(url: unknown): string {
  if (typeof url !== 'string') return 'URL';
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : 'URL';
  } catch {
    return 'URL';
  }
}

/**
 * A task in words: "reconcile of default/a by web", "the watch map of web for Pod".
 * @internal
 */
export function describeTask(label: string): string {
  const r = /^reconcile (.+)\/(\d+) (.+)$/.exec(label);
  if (r) return `reconcile of ${r[3]} by ${r[1]}${r[2] === '0' ? '' : ` (replica ${r[2]})`}`;
  const h = /^handler (.+)\/(\d+) (.*)$/.exec(label);
  if (h) return `the watch map of ${h[1]}${h[3] ? ` for ${h[3]}` : ''}`;
  return label;
}

/**
 * The code running now, as far as the kernel can tell: the tasks not parked on the simulation
 * (the caller is one of them). Undefined when no task of this kernel runs.
 * @internal
 */
export function callerOf(kernel: Kernel, task?: Task): string | undefined {
  if (task) return describeTask(task.label);
  const running = kernel.runnable();
  if (running.length === 0) return undefined;
  if (running.length === 1) return describeTask(running[0]!.label);
  return `one of ${running.map((t) => describeTask(t.label)).join(', ')}`;
}
