/**
 * Typed store errors with the reasons and codes kube-apiserver uses, so a reconciler can branch
 * on `err.reason === 'Conflict'` exactly as it would on a real `Status`.
 */
export type StoreErrorReason = 'Conflict' | 'NotFound' | 'AlreadyExists' | 'Gone' | 'Invalid' | 'InternalError' | 'ServiceUnavailable' | 'TooManyRequests' | 'Timeout' | 'Forbidden';

/** Base class of every error the simulated API returns. @public */
export class StoreError extends Error {
  readonly reason: StoreErrorReason;
  readonly code: number;
  /** Seconds to wait before retrying (429/503), when the server said so. */
  readonly retryAfterSeconds: number | undefined;
  constructor(reason: StoreErrorReason, code: number, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = `${reason}Error`;
    this.reason = reason;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 409: the caller's resourceVersion (or a precondition) is not current. @public */
export class ConflictError extends StoreError {
  constructor(message: string) {
    super('Conflict', 409, message);
  }
}
/** 404 @public */
export class NotFoundError extends StoreError {
  constructor(message: string) {
    super('NotFound', 404, message);
  }
}
/** 409 on create of an existing name. @public */
export class AlreadyExistsError extends StoreError {
  constructor(message: string) {
    super('AlreadyExists', 409, message);
  }
}
/** 410: a watch asked for a resourceVersion older than the retained history. @public */
export class GoneError extends StoreError {
  constructor(message: string) {
    super('Gone', 410, message);
  }
}
/** 422: the request is malformed; `causes` name the fields, as kube-apiserver's `Status.details.causes` do. @public */
export class InvalidError extends StoreError {
  readonly causes: readonly { field: string; type: string; body: string }[];
  constructor(message: string, causes: readonly { field: string; type: string; body: string }[] = []) {
    super('Invalid', 422, message);
    this.causes = causes;
  }
}
/**
 * 429 from the API server itself, with the causes kube-apiserver puts in `details.causes`: the
 * eviction subresource refusing to evict a Pod its PodDisruptionBudget protects (a cause of type
 * `DisruptionBudget`). A client retries it, as `kubectl drain` does.
 * @public
 */
export class TooManyRequestsError extends StoreError {
  readonly causes: readonly { type: string; message: string }[];
  constructor(message: string, causes: readonly { type: string; message: string }[], retryAfterSeconds?: number) {
    super('TooManyRequests', 429, message, retryAfterSeconds);
    this.causes = causes;
  }
}
/** 500/503/429/504 injected by faults. @public */
export class ServerError extends StoreError {}

/** True when `err` is a store error with the given reason. @public */
export function isStoreError(err: unknown, reason?: StoreErrorReason): err is StoreError {
  return err instanceof StoreError && (reason === undefined || err.reason === reason);
}
