import { InvalidError, StoreError } from '../store/errors.js';
import { RequestTooLargeError } from '../store/storage-size.js';
import type { JsonObject } from '../store/object.js';
import type { ResolvedResource } from './resource-definition.js';
import { TextResponse } from './json-response.js';

/** The `reason` values kube-apiserver puts in `kind: Status` errors. @public */
export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

const CODES: Record<StatusReason, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

/** A failure the API answers with a `kind: Status` body. @internal */
export class KubeStatusError extends Error {
  readonly code: number;
  constructor(
    readonly reason: StatusReason,
    message: string,
    readonly details: JsonObject | undefined = undefined,
    readonly retryAfterSeconds: number | undefined = undefined,
  ) {
    super(message);
    this.code = CODES[reason];
  }
}

/**
 * A 500 whose Status has no reason: an error kube-apiserver got from storage that is no API
 * status (apimachinery's ErrorToAPIStatus: `StatusReasonUnknown`, the error's own text), such as
 * etcd's "etcdserver: request is too large". @internal
 */
export class UnknownStatusError extends KubeStatusError {
  constructor(message: string) {
    super('InternalError', message);
  }
}

/** kube-apiserver's limit of a write's request body (`MaxRequestBodyBytes`: 3 MiB, twice etcd's 1.5 MiB, as JSON is larger than the protobuf stored). @internal */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** 413 for a request body over {@link MAX_REQUEST_BODY_BYTES}, as kube-apiserver's handlers read bodies (limitedReadBody), before decoding; undefined otherwise. @internal */
export function bodyTooLarge(body: string): KubeStatusError | undefined {
  // a character is at most 3 bytes of UTF-8 (a surrogate pair 4 for 2): most bodies need no count
  if (body.length * 3 <= MAX_REQUEST_BODY_BYTES) return undefined;
  let bytes = body.length;
  for (let i = 0; i < body.length && bytes <= MAX_REQUEST_BODY_BYTES; i++) {
    const c = body.charCodeAt(i);
    if (c >= 0x80) bytes += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return bytes > MAX_REQUEST_BODY_BYTES ? new KubeStatusError('RequestEntityTooLarge', `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`) : undefined;
}

/**
 * The `kind: Status` object of a failure, shaped as kube-apiserver writes it (client-node and
 * kubectl parse `reason`, `code` and `details`).
 * @public
 */
export function kubeStatus(reason: StatusReason, message: string, details?: JsonObject): JsonObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code: CODES[reason] };
}

/** A successful `kind: Status` (delete of an object that was removed at once, for some clients). @internal */
export function successStatus(details: JsonObject): JsonObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/** JSON response helper with kube-apiserver's content type (its body a string until someone wants a stream). @internal */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new TextResponse(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** The response for a failure. @internal */
export function statusResponse(err: KubeStatusError): Response {
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(err.retryAfterSeconds);
  if (err instanceof UnknownStatusError) return jsonResponse({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, code: err.code }, err.code, headers);
  return jsonResponse(kubeStatus(err.reason, err.message, err.details), err.code, headers);
}

/**
 * Maps an error thrown by the object store to the Status kube-apiserver would send for the same
 * failure on `resource`/`name` (messages in its words, `details.kind` the plural resource).
 * @internal
 */
export function statusFromError(err: unknown, resource: ResolvedResource, name: string | undefined): KubeStatusError {
  if (err instanceof KubeStatusError) return err;
  if (err instanceof RequestTooLargeError) return new UnknownStatusError(err.message);
  if (!(err instanceof StoreError)) {
    const message = err instanceof Error ? err.message : String(err);
    return new KubeStatusError('InternalError', `Internal error occurred: ${message}`);
  }
  const details: JsonObject = { ...(name !== undefined ? { name } : {}), ...(resource.group !== '' ? { group: resource.group } : {}), kind: resource.plural };
  const what = `${resource.plural}${resource.group !== '' ? `.${resource.group}` : ''} "${name ?? ''}"`;
  switch (err.reason) {
    case 'NotFound': {
      // NamespaceLifecycle admission names the namespace, not the object
      const ns = /^namespaces "([^"]*)" not found$/.exec(err.message)?.[1];
      if (ns !== undefined) return new KubeStatusError('NotFound', err.message, { name: ns, kind: 'namespaces' });
      return new KubeStatusError('NotFound', `${what} not found`, details);
    }
    case 'AlreadyExists':
      return new KubeStatusError('AlreadyExists', `${what} already exists`, details);
    case 'Conflict':
      return new KubeStatusError('Conflict', conflictMessage(err.message, what), details);
    case 'Gone':
      return new KubeStatusError('Expired', err.message);
    case 'Invalid': {
      const text = err.message.replace(/^[^:]*: /, '');
      // a field of the wrong JSON type fails decoding before validation: kube-apiserver answers 400
      if (/^\w+ in version "[^"]*" cannot be handled as a \w+: (?:json: |quantities must match|unable to parse quantity)/.test(text)) return new KubeStatusError('BadRequest', text);
      const field = /^([a-zA-Z.[\]0-9]+): /.exec(text)?.[1];
      // field errors as kube-apiserver reports them: the reason, the error without its field, the field
      const known = err instanceof InvalidError ? err.causes : [];
      const causes = known.length > 0 ? known.map((c) => ({ reason: c.type, message: c.body, field: c.field })) : [{ reason: 'FieldValueInvalid', message: text, ...(field ? { field } : {}) }];
      // the qualified kind, as apimachinery's NewInvalid names it: `Deployment.apps "web" is invalid`
      return new KubeStatusError('Invalid', `${resource.kind}${resource.group !== '' ? `.${resource.group}` : ''} "${name ?? ''}" is invalid: ${text}`, {
        ...(name !== undefined ? { name } : {}),
        ...(resource.group !== '' ? { group: resource.group } : {}),
        kind: resource.kind,
        causes,
      });
    }
    case 'TooManyRequests':
      return new KubeStatusError('TooManyRequests', 'the server has received too many requests and has asked us to try again later', { ...details, retryAfterSeconds: err.retryAfterSeconds ?? 1 }, err.retryAfterSeconds ?? 1);
    case 'ServiceUnavailable':
      return new KubeStatusError('ServiceUnavailable', 'the server is currently unable to handle the request', details, err.retryAfterSeconds);
    case 'Timeout':
      return new KubeStatusError('Timeout', 'Timeout: request did not complete within the allotted timeout', details);
    case 'Forbidden':
      return new KubeStatusError('Forbidden', `${what} is forbidden: ${err.message}`, details);
    case 'InternalError':
      return new KubeStatusError('InternalError', `Internal error occurred: ${err.message}`, details);
  }
}

function conflictMessage(storeMessage: string, what: string): string {
  const precondition = /Precondition failed: .*$|precondition failed: .*$/.exec(storeMessage)?.[0];
  if (precondition) return `Operation cannot be fulfilled on ${what}: ${precondition.replace(/^precondition failed/, 'Precondition failed')}`;
  return `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`;
}
