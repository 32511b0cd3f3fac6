import { check } from '../../src/check.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
const orig = ScenarioRunner.prototype.simulate;
const b = new Map<string, { n: number; us: number }>();
ScenarioRunner.prototype.simulate = async function (s, props, early, interruptible, observe) {
  const k = interruptible ? 'generated' : props === undefined ? 'default-props' : props.length === 0 ? 'no-props(determinism)' : props.length < 8 ? 'twin' : 'all-props(determinism)';
  const c0 = process.cpuUsage(); const r = await orig.call(this, s, props, early, interruptible, observe); const c = process.cpuUsage(c0);
  const e = b.get(k) ?? { n: 0, us: 0 }; e.n++; e.us += c.user + c.system; b.set(k, e); return r;
};
await check(entry.correct, { ...entry.options, properties, runs: 50, seed: 1, shrink: false });
b.clear();
const noProbe = process.env.NOPROBE ? { hostProbe: { start: () => () => ({}) } } : {};
const r = await check(entry.correct, { ...entry.options, properties, runs: Number(process.argv[2] ?? 500), seed: 2, shrink: false, ...noProbe } as never);
for (const [k, e] of b) console.log(k.padEnd(24), 'n', e.n, 'us/sim', (e.us / e.n).toFixed(0), 'total ms', (e.us / 1000).toFixed(0));
console.log(r.ok, r.runs, r.simulations);
// counted with a temporary `globalThis.__gi++` in guardIntrinsics (src/host/intrinsics.ts), not committed
if ((globalThis as any).__gi !== undefined) console.log("guardIntrinsics calls", (globalThis as any).__gi);
