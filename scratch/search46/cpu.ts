// CPU cost of aiming: the same checks (correct controllers, every fault kind), aimFaults on and off, A/B alternated 3 times
import { check } from '../../src/index.js';
import { huntTargets, faultsFor, propertiesFor } from '../../bench/hunt-targets.js';
const names = ['zoo:stuck-deletion', 'zoo:lost-event', 'fault:list-order', 'fault:reordering', 'corpus:secret-copier', 'prop:pods'];
const targets = huntTargets.filter((t) => names.includes(t.name));
const res: Record<string, number[]> = { on: [], off: [] };
for (let rep = 0; rep < 3; rep++) {
  for (const aim of [true, false]) {
    const c0 = process.cpuUsage();
    let sims = 0;
    for (const t of targets) {
      const r = await check(t.controllers, { ...t.options, faults: faultsFor(t, []), properties: propertiesFor(t, []), runs: 40, seed: 11, aimFaults: aim, determinism: false, shrink: false });
      sims += r.simulations;
    }
    const c = process.cpuUsage(c0);
    res[aim ? 'on' : 'off']!.push((c.user + c.system) / 1000);
    console.log(aim ? 'aim on ' : 'aim off', Math.round((c.user + c.system) / 1000), 'ms CPU', sims, 'simulations');
  }
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[1]!;
console.log('median CPU ms: on', Math.round(med(res.on!)), 'off', Math.round(med(res.off!)), 'ratio', (med(res.on!) / med(res.off!)).toFixed(2));
