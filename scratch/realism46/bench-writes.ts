/**
 * A/B of the store's write path for a custom kind (what defaulting must not slow): CPU time of
 * 200k writes (update, merge patch, updateStatus) of a Widget, and of a hot-loop simulation.
 * Usage: npx tsx scratch/realism46/bench-writes.ts
 */
import { VirtualClock } from '../../src/sim/clock.js';
import { ObjectStore } from '../../src/store/store.js';
import { simulate } from '../../src/simulate.js';
import { hotLoopBuggy } from '../../examples/property-targets/hot-loop.js';
import { createAll, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';

function cpuMs(fn: () => void): number {
  const t = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

const N = 200_000;
function writes(): number {
  const clock = new VirtualClock();
  const store = new ObjectStore({ clock, onWrite: () => {} });
  store.create('user', { apiVersion: 'example.dev/v1', kind: 'Widget', metadata: { name: 'a', namespace: 'default' }, spec: { size: 1 } });
  return cpuMs(() => {
    for (let i = 0; i < N; i++) {
      const cur = store.peek('Widget', 'default/a')!;
      if (i % 3 === 0) store.update('controller:w/0', { ...cur, spec: { size: i } } as never);
      else if (i % 3 === 1) store.patch('controller:w/0', 'Widget', { namespace: 'default', name: 'a' }, { spec: { size: i } });
      else store.updateStatus('controller:w/0', { ...cur, status: { size: i } } as never);
    }
  });
}

async function hotLoop(): Promise<number> {
  const scenario = widgetScenario(['widget'], createAll([widget('a', 2), widget('b', 3)]), { options: { faultWindowMs: 5_000, settleMs: 60_000 } });
  const t = process.cpuUsage();
  await simulate(scenario, { controllers: [hotLoopBuggy], properties: [noHotLoop()] });
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

writes();
await hotLoop();
const w: number[] = [];
const h: number[] = [];
for (let i = 0; i < 5; i++) {
  w.push(writes());
  h.push(await hotLoop());
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`custom-kind writes: ${N} in ${med(w).toFixed(0)} ms CPU (median of 5: ${w.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`hot-loop simulation: ${med(h).toFixed(0)} ms CPU (median of 5: ${h.map((x) => x.toFixed(0)).join(', ')})`);
