import { randomBytes, randomUUID } from 'node:crypto';
import * as crypto from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAttack, type Attack } from './hostile.js';

/**
 * Issue 17 item 17: the determinism check names every host source of nondeterminism it can see,
 * not just Math.random and the clock. Each row makes reconciles depend on one source (the value
 * lands in status, so two runs of one scenario differ) and the verdict must name that source.
 */
/** Logs the value: log lines are in the trace, so a value that differs between runs shows. */
const stamp = (use: () => unknown) => (ctx: Parameters<NonNullable<Attack['reconcile']>>[0]) => ctx.log.info(`stamp ${String(use())}`);

const counter = join(mkdtempSync(join(tmpdir(), 'steadystate-fs-')), 'counter');
writeFileSync(counter, '0');

const rows: { source: string; use: () => unknown }[] = [
  { source: 'crypto.randomUUID()', use: () => randomUUID() },
  { source: 'crypto.randomUUID()', use: () => globalThis.crypto.randomUUID() },
  { source: 'crypto.getRandomValues()', use: () => globalThis.crypto.getRandomValues(new Uint32Array(1))[0] },
  { source: 'crypto.randomBytes()', use: () => randomBytes(4).toString('hex') },
  { source: 'crypto.randomInt()', use: () => crypto.randomInt(1_000_000) },
  { source: 'new Date()', use: () => new Date().toISOString() },
  { source: 'process.hrtime()', use: () => process.hrtime.bigint() },
  { source: 'performance.now()', use: () => performance.now() },
  // a file that changes between the two runs (each read bumps it): what a config file may do
  { source: 'fs.readFileSync()', use: () => { const n = Number(readFileSync(counter, 'utf8')); writeFileSync(counter, String(n + 1)); return n; } },
];

describe('the determinism check names the source (item 17)', () => {
  for (const r of rows) {
    it(`${r.source} (${r.use.toString().replace(/^\(\) => /, '').slice(0, 60)})`, async () => {
      const res = await runAttack({ attack: r.source, reconcile: stamp(r.use), property: 'determinism', says: [], options: { runs: 1, properties: [] } });
      expect(res.ok).toBe(false);
      if (res.ok) return;
      expect(res.property).toBe('determinism');
      expect(res.explanation).toContain(`${r.source} was called`);
    });
  }
});

describe('the probe restores what it watched', () => {
  it('after a determinism failure, every patched function and Date are the host originals again', async () => {
    const before = { uuid: crypto.randomUUID, web: globalThis.crypto.randomUUID, Date: globalThis.Date, now: Date.now, hrtime: process.hrtime, bigint: process.hrtime.bigint, read: readFileSync, setImmediate: globalThis.setImmediate };
    await runAttack({ attack: 'uuid', reconcile: stamp(() => randomUUID()), property: 'determinism', says: [], options: { runs: 1, properties: [] } });
    expect({ uuid: crypto.randomUUID, web: globalThis.crypto.randomUUID, Date: globalThis.Date, now: Date.now, hrtime: process.hrtime, bigint: process.hrtime.bigint, read: readFileSync, setImmediate: globalThis.setImmediate }).toEqual(before);
    expect(randomUUID).toBe(crypto.randomUUID);
  });
});
