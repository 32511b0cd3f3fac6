/**
 * Words for whatever user code threw. JavaScript lets code throw any value; a plain object
 * printed with String() says "[object Object]", so objects and lists are printed as JSON.
 */

/** `Name: message` for an Error, the value as JSON for an object or list, else the value as text. @internal */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) return `${value.name}: ${value.message}`;
    return thrownText(value);
  } catch (err) {
    return uninspectable(err);
  }
}

/** The message of an Error, else {@link describeThrown} of the value. @internal */
export function thrownMessage(value: unknown): string {
  try {
    return value instanceof Error ? value.message : thrownText(value);
  } catch (err) {
    return uninspectable(err);
  }
}

/** Words for a thrown value that threw when looked at (`err` is what looking threw). */
function uninspectable(err: unknown): string {
  let why: string;
  try {
    why = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === 'string' ? err : typeof err;
  } catch {
    why = 'and so did looking at that error';
  }
  return `a value that cannot be looked at: reading it threw (${why}); a Proxy whose traps throw, or an object whose getters or toString throw. Throw an Error (new Error('what went wrong')) instead`;
}

function thrownText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  try {
    const json = JSON.stringify(value);
    if (json !== undefined && json !== '{}') return json;
  } catch {
    // a cycle or a bigint: fall back to what the value says of itself
  }
  const text = String(value);
  return text === '[object Object]' ? `an object (${Object.prototype.toString.call(value)}, not JSON)` : text;
}

/**
 * The value a task threw, safe for the harness to look at: a thrown Proxy whose traps throw (or
 * an Error whose `name` or `message` getter throws) would make the harness's own `instanceof` and
 * messages throw, far from the reconcile that threw it. Such a value becomes an Error saying
 * what was thrown; any other value is returned as it is.
 * @internal
 */
export function inspectableThrown(value: unknown): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value;
  try {
    if (value instanceof Error) void `${value.name}${value.message}`;
    else void thrownText(value);
    return value;
  } catch (err) {
    return new Error(`the code threw ${uninspectable(err)}`);
  }
}
