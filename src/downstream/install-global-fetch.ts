import { inProcessFetch } from '../kube-rest/in-process-fetch.js';
import type { Downstream } from './intercept.js';

/**
 * The host's `fetch`, saved when this module loads, before any run can patch it. A leftover
 * patch from a run that never restored (a crashed harness) is replaced by this, never chained.
 * @internal
 */
export const originalFetch: typeof fetch = globalThis.fetch;

/** Every fetch this module installed, to recognise our own leftovers. */
const ours = new WeakSet<object>();

/** The routed fetch of each run in progress, newest last: what the pinned fetch calls. */
const running: (typeof fetch)[] = [];
let pinned: typeof fetch | undefined;

/**
 * Installs, once and for good, a `globalThis.fetch` that calls the fetch of the run in progress
 * (or the host's fetch between runs). The CLI pins it before it imports a user's module, so a
 * module that saves `globalThis.fetch` at load saves this one and its calls still reach the
 * simulation instead of the network.
 * @internal
 */
export function pinGlobalFetch(): void {
  if (pinned !== undefined) return;
  const host = globalThis.fetch;
  pinned = ((input: string | URL | Request, init?: RequestInit) => (running[running.length - 1] ?? host)(input, init)) as typeof fetch;
  globalThis.fetch = pinned;
}

/**
 * Routes `globalThis.fetch` to `downstream` for the duration of a run, for reconcilers (and
 * libraries) that call the global `fetch` instead of `ctx.fetch`; calls to a simulated cluster's
 * in-process API server go to that API instead. Such calls have no task
 * (`task` undefined); the kernel counts them as anonymous parks.
 *
 * Always call the returned function in a `finally` block: the global must be restored even when
 * the run throws, or the next test would talk to a dead simulation. It restores the `fetch`
 * that was installed before (or {@link originalFetch}, when that was a leftover of ours) and is
 * safe to call twice.
 * @param downstream - the run's downstream
 * @param actorOf - names the actor of each call (e.g. the controller whose reconcile is running)
 * @returns restore
 * @example
 * const restore = installGlobalFetch(downstream, () => currentActor);
 * try { await runScenario(); } finally { restore(); }
 * @public
 */
export function installGlobalFetch(downstream: Downstream, actorOf: () => string): () => void {
  const current = globalThis.fetch;
  const previous = ours.has(current) ? originalFetch : current;
  // the simulated API server (`https://steadystate.invalid`) answers in-process, as it does node's
  // http: same bearer-token routing, recording and HTTP-layer faults (kube-rest/in-process-fetch.ts)
  const patched = ((input: string | URL | Request, init?: RequestInit) => inProcessFetch(input, init) ?? downstream.fetch(undefined, actorOf(), input, init)) as typeof fetch;
  ours.add(patched);
  running.push(patched);
  globalThis.fetch = patched;
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    running.splice(running.indexOf(patched), 1);
    globalThis.fetch = previous;
  };
}
