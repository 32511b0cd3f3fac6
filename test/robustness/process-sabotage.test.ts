import { describe, expect, it } from 'vitest';
import { expectVerdict, runAttack, words, type Attack } from './hostile.js';

/**
 * Session 6: a reconcile that signals its own process would end the harness (a vitest worker, the
 * CLI) with no verdict, or stop it (SIGSTOP): the run guard records it as the process ending, as
 * it records `process.exit`, and the calling code stops. A signal to another process, or one that
 * does nothing by default, still goes out.
 */
const attacks: Attack[] = [
  { attack: "process.kill(process.pid, 'SIGTERM')", reconcile: () => process.kill(process.pid, 'SIGTERM'), property: 'never-exits', says: [/the code under test called process\.kill\(process\.pid, 'SIGTERM'\)/] },
  { attack: 'process.kill(process.pid) (SIGTERM by default)', reconcile: () => process.kill(process.pid), property: 'never-exits', says: [/process\.kill\(process\.pid, 'SIGTERM'\)/] },
  { attack: 'process.kill(0, 9): the process group, by number', reconcile: () => process.kill(0, 9), property: 'never-exits', says: [/process\.kill\(0, 'SIGKILL'\)/] },
  { attack: "process.kill(process.pid, 'SIGSTOP') (would hang the harness)", reconcile: () => process.kill(process.pid, 'SIGSTOP'), property: 'never-exits', says: [/process\.kill\(process\.pid, 'SIGSTOP'\)/] },
  // session 7: Node's own ends of process.exit and process.kill, which the guard did not stand in front of
  { attack: 'process.reallyExit(0) (ended `check --workers 0` with exit 0 and no verdict)', reconcile: () => (process as unknown as { reallyExit: (c: number) => void }).reallyExit(0), property: 'never-exits', says: [/the code under test called process\.reallyExit\(0\)/] },
  { attack: 'process._kill(process.pid, 15) (a real SIGTERM: exit 143, no verdict)', reconcile: () => (process as unknown as { _kill: (p: number, s: number) => void })._kill(process.pid, 15), property: 'never-exits', says: [/process\.kill\(process\.pid, 'SIGTERM'\)/] },
  { attack: 'globalThis.process = {} (the harness crashed, blaming itself)', reconcile: () => void ((globalThis as unknown as { process: unknown }).process = {}), property: 'never-exits', says: [/replaced the built-in globalThis\.process/] },
];

describe('a reconcile that signals its own process', () => {
  for (const a of attacks) {
    it(a.attack, () => expectVerdict(a));
  }

  it('signal 0 (is it alive?) and SIGWINCH still reach the process: the run passes', async () => {
    const r = await runAttack({ attack: 'probe', reconcile: () => void (process.kill(process.pid, 0) && process.kill(process.pid, 'SIGWINCH')), property: '', says: [] });
    expect(words(r)).toBe('(passed)');
  });
});
