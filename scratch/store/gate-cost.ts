import { check } from '../../src/index.ts';
import { tenantQuotas } from '../../examples/false-positives/tenant-quotas.ts';
import { migrationJob } from '../../examples/false-positives/migration-job.ts';
import { defaultProperties } from '../../properties/index.ts';
import type { FalsePositiveCase } from '../../examples/false-positives/_shared/case.ts';
function propertiesOf(c: FalsePositiveCase) {
  const own = new Map((c.properties ?? []).map((p) => [p.name, p]));
  const all = defaultProperties().filter((p) => c.withoutProperties?.[p.name] === undefined).map((p) => own.get(p.name) ?? p);
  for (const p of c.properties ?? []) if (!all.some((x) => x.name === p.name) && c.withoutProperties?.[p.name] === undefined) all.push(p);
  return all;
}
function gateOptions(c: FalsePositiveCase, runs = 28) {
  return { ...c.options, maxObjects: Math.min(c.options.maxObjects ?? 2, 2), maxActions: 2, properties: propertiesOf(c), runs, seed: 11, coverage: false };
}
for (const c of [tenantQuotas, migrationJob]) {
  const cpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = process.cpuUsage();
    const r = await check(c.controllers, gateOptions(c));
    const d = process.cpuUsage(t0);
    if (!r.ok) throw new Error('failed');
    cpu.push((d.user + d.system) / 1000);
  }
  const twin: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = process.cpuUsage();
    const r = await check(c.buggy!.controllers, { ...gateOptions(c, 100), shrink: false });
    const d = process.cpuUsage(t0);
    if (r.ok) throw new Error('twin passed');
    twin.push((d.user + d.system) / 1000);
  }
  cpu.sort((a, b) => a - b); twin.sort((a, b) => a - b);
  console.log(c.name, 'gate 28 runs CPU ms', cpu.map(Math.round), 'median', Math.round(cpu[1]!), '| twin CPU ms', twin.map(Math.round), 'median', Math.round(twin[1]!));
}
