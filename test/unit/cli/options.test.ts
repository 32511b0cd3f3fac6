import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/cli/options.js';

/** The flag table: short flags for the common options, and the wall-clock budgets. */
describe('parseCommandLine', () => {
  it('takes short flags for the common options', () => {
    expect(parseCommandLine(['check', 'm.ts', '-r', '5', '-s', '7', '-f', 'event-loss', '-p', 'convergence', '-c', 'web', '-o', 'out', '-w', '2', '-t', '3000'])).toEqual({
      command: 'check',
      options: { module: 'm.ts', runs: 5, seed: 7, faults: ['event-loss'], properties: ['convergence'], controller: 'web', reportDir: 'out', workers: 2, timeLimit: 3000, watchdog: 10_000, json: false },
    });
    expect(parseCommandLine(['replay', 'r.json', '-m', 'x.ts'])).toMatchObject({ command: 'replay', options: { report: 'r.json', module: 'x.ts' } });
    expect(parseCommandLine(['demo', '-n', '40'])).toMatchObject({ command: 'demo', options: { trials: 40 } });
  });

  it('parses the time limits and names the flag of a bad one', () => {
    expect(parseCommandLine(['check', 'm.ts', '--time-limit', '5000', '--shrink-time-limit', '2000'])).toMatchObject({ options: { timeLimit: 5000, shrinkTimeLimit: 2000 } });
    expect(() => parseCommandLine(['check', 'm.ts', '--time-limit', '5s'])).toThrow(/--time-limit expects a wall-clock time in milliseconds, got "5s"/);
    expect(() => parseCommandLine(['check', 'm.ts', '-r'])).toThrow(/--runs needs a value/);
  });
});
