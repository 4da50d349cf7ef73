/** The one error type of the service, and how each kind maps to an HTTP status. */

/** What went wrong, independent of transport. */
export type ErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "too_large"
  | "too_many"
  /** An upstream the server relays to (a tunnel's connector) is not there or failed. */
  | "bad_gateway"
  | "unavailable"
  | "gateway_timeout";

/** Status per kind. */
export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  too_many: 429,
  bad_gateway: 502,
  unavailable: 503,
  gateway_timeout: 504,
};

/** An error whose message is safe to show: it becomes `{"error": message}` with the kind's status. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Extra top-level fields of the error body (the current task on a version conflict). */
    readonly extra?: Record<string, unknown>,
    /** Headers of the answer (`Retry-After` on a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** Shorthands, so call sites read as the rule they enforce. */
export const invalid = (message: string) => new AppError("invalid", message);
export const unauthenticated = (message = "unauthorized") => new AppError("unauthenticated", message);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const notFound = (message: string) => new AppError("not_found", message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new AppError("conflict", message, extra);
/** A 429 that says when to come back. */
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new AppError("too_many", message, undefined, { "retry-after": String(retryAfterSeconds) });
export const missingPermission = (permission: string) => forbidden(`missing permission: ${permission}`);
