/**
 * Trace hashes and verdicts of every run of every hunt target matching --only, for one seed:
 * one line per target (a digest of the runs' hashes, verdicts and grown/stamped counts) and a
 * total. Compare the output of the base and the branch.
 *   npx tsx scratch/speed/hashes.ts <runs> <seed> <only,...>
 */
import { createHash } from 'node:crypto';
import { check, type RunRecord } from '../../src/index.js';
import { recording } from '../../bench/recording-property.js';
import { huntTargets, faultsFor, propertiesFor } from '../../bench/hunt-targets.js';

const runs = Number(process.argv[2] ?? 6);
const seed = Number(process.argv[3] ?? 880);
const only = (process.argv[4] ?? 'corpus:,zoo:,prop:,fault:').split(',');
const total = createHash('sha256');
let n = 0;
for (const t of huntTargets.filter((t) => only.some((o) => t.name.includes(o)))) {
  const h = createHash('sha256');
  const seen = new Map<RunRecord, string[]>();
  const order: RunRecord[] = [];
  const properties = propertiesFor(t, []).map((p) =>
    recording(p, (run, v) => {
      if (!seen.has(run)) { seen.set(run, []); order.push(run); }
      seen.get(run)!.push(`${p.name}:${v.ok}`);
    }),
  );
  await check(t.controllers, { ...t.options, faults: faultsFor(t, []), properties, runs, seed, shrink: false, determinism: false, coverage: false });
  for (const run of order) {
    const w = run;
    h.update(`${w.hash} ${w.writes.length} ${w.stamped?.join(".")} ${w.grown?.join(".")} ${seen.get(run)!.join(',')}\n`);
    n++;
  }
  const d = h.digest('hex').slice(0, 16);
  total.update(`${t.name} ${d}\n`);
  console.log(`${d}  ${t.name} (${order.length} runs)`);
}
console.log(`TOTAL ${total.digest('hex').slice(0, 16)} over ${n} runs`);
