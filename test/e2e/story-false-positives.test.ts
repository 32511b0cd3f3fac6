import { describe, expect, it } from 'vitest';
import { faultsFor, propertiesFor } from '../../bench/hunt-targets.js';
import { falsePositiveStories, storyOptions } from '../../examples/stories/false-positive-stories.js';
import { check } from '../../src/index.js';

/**
 * Controllers of the false-positive corpus checked through a story (issue 13): exact objects and
 * timed user actions, every fault kind generated around them, every property. A failure here is a
 * false alarm: a bug of the harness, or of the controller (`bench/hunt-false-positives.ts --only
 * story: --runs 1000` hunts them harder).
 */
describe('false-positive corpus through stories: quiet on every property', () => {
  it('checks at least five controllers through a story', () => expect(falsePositiveStories.length).toBeGreaterThanOrEqual(5));
  for (const c of falsePositiveStories) {
    it(`${c.case.name}: 40 runs around its story`, async () => {
      const r = await check(c.case.controllers, { ...storyOptions(c), faults: faultsFor(c.case, []), properties: propertiesFor(c.case, []), runs: 40, seed: 1 });
      expect(r.ok, r.ok ? '' : `${r.property} at run ${r.failedAtRun}: ${r.summary}\n${r.explanation}\n${JSON.stringify(r.scenario)}`).toBe(true);
      expect(r.scenario).toBeNull();
      // the story ran: its objects by their names, faults around them
      expect(r.coverage.filter((k) => k.injected > 0).length).toBeGreaterThan(5);
    });
  }
});
