import { rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../src/sim/kernel.js';

/** Code outside the kernel's tasks (an HTTP client served in-process) reports activity with `external()`. */
describe('Kernel.external', () => {
  it('keeps virtual time still while activity continues on host macrotasks', async () => {
    const k = new Kernel();
    const seen: number[] = [];
    k.at(0, () => {
      let n = 0;
      const step = (): void => {
        k.external();
        seen.push(k.now());
        if (++n < 30) setImmediate(step);
      };
      setImmediate(step);
      k.external();
    });
    k.at(100, () => seen.push(-1));
    await k.run(200);
    expect(seen).toEqual([...Array.from({ length: 30 }, () => 0), -1]);
  });

  it('lets time move once quietAfterMacrotasks pass without activity', async () => {
    const k = new Kernel({ quietAfterMacrotasks: 4 });
    let late = -1;
    k.at(0, () => {
      k.external();
      let idle = 0;
      const wait = (): void => {
        if (++idle < 12) setImmediate(wait);
        else late = k.now();
      };
      setImmediate(wait);
    });
    k.at(100, () => {});
    await k.run(200);
    for (let i = 0; i < 20 && late < 0; i++) await new Promise((r) => setImmediate(r));
    expect(late).toBe(200); // the late reaction landed after time moved on: it was not waited for
  });

  it('keeps virtual time still while real I/O that the reaction started is in flight', async () => {
    const file = join(tmpdir(), `steadystate-kernel-io-${process.pid}.bin`);
    writeFileSync(file, Buffer.alloc(1024 * 1024, 1));
    const k = new Kernel();
    let readAt = -1;
    k.at(0, () => {
      k.external();
      // a client that reads a file between a response and its next request (its bytes arrive
      // many macrotasks later, from the thread pool)
      void readFile(file).then(() => {
        readAt = k.now();
        k.external();
      });
    });
    k.at(100, () => {});
    await k.run(200).finally(() => rmSync(file, { force: true }));
    expect(readAt).toBe(0);
  });

  it('costs nothing when never called (no host macrotask per event)', async () => {
    const k = new Kernel();
    let ran = 0;
    for (let i = 0; i < 1000; i++) k.at(i, () => ran++);
    let macrotasks = 0;
    const count = (): void => {
      macrotasks++;
      if (ran < 1000) setImmediate(count);
    };
    setImmediate(count);
    await k.run(2000);
    expect(ran).toBe(1000);
    expect(macrotasks).toBeLessThan(3);
  });
});
