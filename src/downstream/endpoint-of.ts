/**
 * Endpoint names for requests that no fake service routes (msw handlers, unhandled URLs).
 * Per-endpoint QPS must not split one endpoint into one bucket per resource, so path segments
 * that look like ids become `:id`. Fake services name their endpoints exactly instead.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^\d+$/;
const LONG_HEX = /^[0-9a-f]{12,}$/i;
/** API versions (`v1`, `v2beta1`) carry digits but name the endpoint, not a resource. */
const VERSION = /^v\d+((alpha|beta)\d*)?$/i;
const HAS_DIGIT = /\d/;

/**
 * Whether a path segment looks like a resource id: all digits, a UUID, long hex, or a token of
 * six or more characters containing a digit (`ord_1N2x3`, `i-0abc123`), except API versions.
 * @internal
 */
export function isIdSegment(segment: string): boolean {
  if (DIGITS.test(segment) || UUID.test(segment) || LONG_HEX.test(segment)) return true;
  if (VERSION.test(segment)) return false;
  return segment.length >= 6 && HAS_DIGIT.test(segment);
}

/**
 * `'METHOD origin/path'` with id-like segments replaced by `:id`; query and fragment dropped.
 * @param method - upper-case HTTP method
 * @param url - absolute URL
 * @example endpointOf('GET', 'https://dns.example/records/42?x=1') // 'GET https://dns.example/records/:id'
 * @internal
 */
export function endpointOf(method: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${method} ${url}`;
  }
  const path = parsed.pathname
    .split('/')
    .map((s) => (s !== '' && isIdSegment(safeDecode(s)) ? ':id' : s))
    .join('/');
  return `${method} ${parsed.origin}${path}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
