/**
 * Words for whatever user code threw. JavaScript lets code throw any value; a plain object
 * printed with String() says "[object Object]", so objects and lists are printed as JSON.
 */

/** `Name: message` for an Error, the value as JSON for an object or list, else the value as text. @internal */
export function describeThrown(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return thrownText(value);
}

/** The message of an Error, else {@link describeThrown} of the value. @internal */
export function thrownMessage(value: unknown): string {
  return value instanceof Error ? value.message : thrownText(value);
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
