/** A small HTTP client for tests: JSON in, status + JSON out. */

/** What a request answered. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Options of one request. */
export interface RequestOptions {
  token?: string;
  /** A value to send as JSON, or a raw string/bytes with `contentType`. */
  body?: unknown;
  raw?: string | Uint8Array;
  contentType?: string | null;
  headers?: Record<string, string>;
  /** Aborts the request (`AbortSignal.timeout(ms)`: a server that hangs fails the test, naming the request). */
  signal?: AbortSignal;
}

/** Sends a request and parses a JSON answer (when there is one). */
export async function request<T = any>(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    if (options.contentType) headers["content-type"] = options.contentType;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (options.contentType !== null) headers["content-type"] = options.contentType ?? "application/json";
  }
  const res = await fetch(base + path, { method, headers, body: body as BodyInit | undefined, signal: options.signal });
  const text = await res.text();
  let parsed: unknown;
  if (text && (res.headers.get("content-type") ?? "").includes("json")) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** A client bound to one server and, optionally, one token. */
export function client(base: string, token?: string) {
  const call = <T = any>(method: string, path: string, options: RequestOptions = {}) =>
    request<T>(base, method, path, { token, ...options });
  return {
    base,
    token,
    get: <T = any>(path: string, options?: RequestOptions) => call<T>("GET", path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
      call<T>("POST", path, { body, ...options }),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
      call<T>("PATCH", path, { body, ...options }),
    put: <T = any>(path: string, body?: unknown, options?: RequestOptions) =>
      call<T>("PUT", path, { body, ...options }),
    delete: <T = any>(path: string, options?: RequestOptions) => call<T>("DELETE", path, options),
    as: (other: string) => client(base, other),
  };
}

export type Client = ReturnType<typeof client>;

/** ISO timestamps as the contract fixes them: three fractional digits and `Z`. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
