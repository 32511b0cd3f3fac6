import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress, isCi, noColor, statusLine } from '../../src/cli/progress.js';

/** Progress display: a bar on an interactive terminal, plain lines on CI or pipes, NO_COLOR honoured. */

function sink(tty: boolean): Writable & { isTTY: boolean; columns: number; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Writable & { isTTY: boolean; columns: number; text: () => string };
  w.isTTY = tty;
  w.columns = 120;
  w.text = () => chunks.join('');
  return w;
}

describe('createProgress', () => {
  it('draws a bar with runs, failures and ETA on a TTY, in color unless NO_COLOR', () => {
    for (const env of [{}, { NO_COLOR: '1' }]) {
      const out = sink(true);
      const p = createProgress({ total: 10, label: 'steadystate check web', stream: out, env });
      p.update(5, 1);
      p.update(10, 1);
      p.stop();
      const text = out.text();
      expect(text).toMatch(/steadystate check web \[[#=-]+\] 10\/10 runs \| .*1 failed.* \| ETA/);
      // colors are SGR sequences ending in "m"; cursor movement may remain
      if ('NO_COLOR' in env) expect(text).not.toMatch(/\u001b\[\d+m/);
      else expect(text).toMatch(/\u001b\[31m1 failed\u001b\[39m/);
    }
  });

  it('paints failures red only when there are some: "0 failed" stays plain', () => {
    const out = sink(true);
    const p = createProgress({ total: 10, label: 'steadystate check web', stream: out, env: {} });
    p.update(5, 0);
    p.update(10, 0);
    p.stop();
    expect(out.text()).toMatch(/10\/10 runs \| 0 failed \|/);
    expect(out.text()).not.toContain('\u001b[31m');
  });

  it('prints plain periodic lines, never control codes, when not a TTY or when CI is set', () => {
    for (const [tty, env] of [
      [false, {}],
      [true, { CI: 'true' }],
    ] as const) {
      let now = 0;
      const out = sink(tty);
      const p = createProgress({ total: 100, label: 'steadystate check web', stream: out, env, now: () => now, plainEveryMs: 1000 });
      for (let i = 1; i <= 100; i++) {
        now += 50;
        p.update(i, 0);
      }
      p.stop();
      const lines = out.text().trimEnd().split('\n');
      expect(out.text()).not.toMatch(/\u001b/);
      expect(lines.length).toBe(6); // every 20 runs (1 s of wall time) plus the final line
      expect(lines[0]).toBe('steadystate check web: 20/100 runs, 0 failed, ETA 4.0s, 1.0s elapsed');
      expect(lines.at(-1)).toBe('steadystate check web: 100 runs, 0 failed, 5.0s');
    }
  });

  it('says when it is shrinking, with no invented ETA, and prints that line at once', () => {
    let now = 0;
    const out = sink(false);
    const p = createProgress({ total: 100, label: 'steadystate check web', stream: out, env: {}, now: () => now, plainEveryMs: 10_000 });
    now = 500;
    p.update(1, 1, { phase: 'shrinking', shrink: { step: 12, faultEvents: 3, actions: 1 } });
    p.stop();
    const lines = out.text().trimEnd().split('\n');
    expect(lines[0]).toBe('steadystate check web: 1/100 runs, 1 failed, shrinking: step 12, 3 fault events and 1 action left, 0.5s elapsed');
    expect(lines.at(-1)).toBe('steadystate check web: 1 run, 1 failed, 0.5s');
  });

  it('bounds the ETA by the time budget', () => {
    expect(statusLine(10, 100, 1_000, { phase: 'runs' })).toBe('ETA 9.0s');
    expect(statusLine(10, 100, 1_000, { phase: 'runs', budgetLeftMs: 2_000 })).toBe('ETA 2.0s (time limit)');
    expect(statusLine(1, 100, 1_000, { phase: 'shrinking', shrink: { step: 2, faultEvents: 1, actions: 0 }, budgetLeftMs: 3_000 })).toBe('shrinking: step 2, 1 fault event and 0 actions left, at most 3.0s more (shrink budget)');
  });

  it('reads NO_COLOR and CI as the conventions define them', () => {
    expect(noColor({ NO_COLOR: '' })).toBe(false);
    expect(noColor({ NO_COLOR: '0' })).toBe(true);
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({})).toBe(false);
  });
});
