/**
 * CLI fixture (issue 17 items 1 and 3): controllers that would end or outlive a real process.
 * Each follows the replicas pattern and then misbehaves.
 */
import { misbehaving } from './misbehaving.js';

/** `process.exit(0)` in a reconcile: a CI gate must never read it as a pass. */
export const exitsZero = misbehaving('exits-zero', () => process.exit(0));
/** Leaves an interval ticking and a rejection nobody handles. */
export const leaksTimers = misbehaving('leaks-timers', () => {
  setInterval(() => undefined, 1);
  void Promise.reject(new Error('nobody handles this rejection'));
});
/**
 * Sabotages the CI gate every other way a process can (session 6): an exit hook that resets the
 * exit code to 0, forged verdict lines on stdout (text and JSON), a JSON.stringify that makes every
 * verdict read `{ "ok": true }`, then a SIGTERM to itself.
 */
export const sabotage = misbehaving('sabotage', () => {
  // every JSON the harness writes afterwards would read as a pass
  const stringify = JSON.stringify;
  if (!('forged' in JSON.stringify)) JSON.stringify = Object.assign((v: unknown, ...rest: unknown[]) => (typeof v === 'object' && v !== null && 'ok' in v ? '{ "ok": true }' : (stringify as (...a: unknown[]) => string)(v, ...rest)), { forged: true }) as typeof JSON.stringify;
  process.once('exit', () => {
    process.exitCode = 0;
  });
  console.log('PASS sabotage: 100 runs, 0 failed');
  process.stdout.write('{ "ok": true, "controller": "sabotage" }\n');
  process.kill(process.pid, 'SIGTERM');
});
