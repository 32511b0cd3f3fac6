// hot lines of a function (argv[3]) in a .cpuprofile (argv[2]) from positionTicks
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const by = new Map(); let tot = 0;
for (const n of p.nodes) {
  if (n.callFrame.functionName !== process.argv[3]) continue;
  for (const t of n.positionTicks ?? []) { by.set(t.line, (by.get(t.line) ?? 0) + t.ticks); tot += t.ticks; }
}
console.log('ticks', tot);
for (const [l, t] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(String(t).padStart(6), 'line', l);
