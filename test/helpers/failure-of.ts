/** The message an expected failure (a rejected matcher or promise) carries; throws when it does not fail. */
export async function failureOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected the assertion to fail');
}
