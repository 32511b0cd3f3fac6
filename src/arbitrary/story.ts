import fc, { type Arbitrary } from 'fast-check';
import type { WorkloadAction } from '../harness/scenario.js';
import type { ResolvedStory } from '../harness/story.js';

/**
 * A story's actions with their times varied: each moves by up to ± `jitterMs` (never before 0,
 * never before the story's previous action, so the story keeps its order). Offsets shrink toward
 * 0, so a failure shrinks back to the times as written. Without jitter, the actions as written.
 * @example
 * ```ts
 * fc.sample(storyActions({ objects: [], actions, jitterMs: 500 }), 1);
 * ```
 * @public
 */
export function storyActions(story: ResolvedStory): Arbitrary<WorkloadAction[]> {
  const { actions, jitterMs } = story;
  if (jitterMs <= 0 || actions.length === 0) return fc.constant(actions);
  const j = Math.round(jitterMs);
  return fc.array(fc.integer({ min: -j, max: j }), { minLength: actions.length, maxLength: actions.length }).map((offsets) => {
    let previous = 0;
    return actions.map((a, i) => {
      const at = Math.max(previous, a.at + offsets[i]!, 0);
      previous = at;
      return at === a.at ? a : { ...a, at };
    });
  });
}
