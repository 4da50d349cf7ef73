/**
 * Calls to the providers, with the retry rule of contract §7: up to 5 attempts on 429, 5xx, connection errors
 * and timeouts, pausing 1, 2, 4 and 8 s (each with at most ±25% jitter) or the `Retry-After` asked for, up to
 * 60 s. Any other answer is final. Nothing here logs a request: its headers carry the organization's key.
 */

/** A provider call that failed for good; `message` is fit to show in a failure reply. */
export class ProviderError extends Error {
  constructor(
    message: string,
    /** The last HTTP status, when an answer came. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export const MAX_ATTEMPTS = 5;
const PAUSES_MS = [1000, 2000, 4000, 8000];
const MAX_RETRY_AFTER_MS = 60_000;

/** How a provider client waits; tests shrink time so a run of retries takes milliseconds. */
export interface Pacing {
  /** Multiplies every pause and poll interval (1 in production). */
  readonly timeScale: number;
}

export interface CallOptions {
  /** Aborts the whole call, retries included (the job's deadline, a lost lease). */
  signal: AbortSignal;
  /** Each attempt's own limit: the tool step timeout. */
  attemptTimeoutMs: number;
  pacing: Pacing;
  /** Names the provider in errors. */
  provider: string;
  /**
   * The provider reports errors inside a 200 answer too (`{"error": {"code", "message"}}`, as OpenAI-compatible
   * gateways do once a response has started): such an answer is read as an answer of that status.
   */
  errorsIn200?: boolean;
  /** Told of each pause before a retry, in milliseconds, so a job can resume no earlier after a restart. */
  onPause?: (ms: number) => void;
  /** How many attempts at most (default `MAX_ATTEMPTS`): a person waiting on a check gets its first answer. */
  attempts?: number;
}

/** What a caller gives a provider client: the signal, the pacing, where pauses are told; the client sets the rest. */
export type ProviderCall = Omit<CallOptions, "attemptTimeoutMs" | "provider">;

/** The pause before attempt `attempt + 1`: `Retry-After` when the answer gave one, else the backoff step. */
export function pauseBefore(attempt: number, retryAfter: string | null, random = Math.random): number {
  const asked = retryAfterMs(retryAfter);
  if (asked !== null) return Math.min(asked, MAX_RETRY_AFTER_MS);
  const base = PAUSES_MS[Math.min(attempt - 1, PAUSES_MS.length - 1)] as number;
  return base * (1 + (random() * 2 - 1) * 0.25);
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(value: string | null): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its weekday and month; anything else (`-5`, `1.5`) is unreadable.
  if (!/[a-z]/i.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

const retryable = (status: number) => status === 429 || status >= 500;

/** Resolves after `ms`, or rejects when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Sends a JSON request with retries; answers the parsed JSON of the first 2xx. */
export async function callJson(url: string, init: RequestInit, options: CallOptions): Promise<unknown> {
  let lastError = "";
  let lastStatus: number | null = null;
  const attempts = options.attempts ?? MAX_ATTEMPTS;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    options.signal.throwIfAborted();
    let retryAfter: string | null = null;
    try {
      const res = await fetch(url, {
        ...init,
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.attemptTimeoutMs)]),
      });
      const text = await res.text();
      let status = res.status;
      if (res.ok) {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : {};
        } catch {
          throw new ProviderError(`${options.provider} answered with something that is not JSON`, res.status);
        }
        status = (options.errorsIn200 && statusInBody(parsed)) || status;
        if (status < 300) return parsed;
      }
      lastStatus = status;
      lastError = `${options.provider} answered ${status}${detail(text, credentials(init))}`;
      if (!retryable(status)) throw new ProviderError(lastError, status);
      retryAfter = res.headers.get("retry-after");
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      options.signal.throwIfAborted();
      lastStatus = null;
      lastError =
        error instanceof DOMException && error.name === "TimeoutError"
          ? `${options.provider} did not answer within ${Math.round(options.attemptTimeoutMs / 1000)} s`
          : `${options.provider} could not be reached`;
    }
    if (attempt < attempts) {
      const pause = pauseBefore(attempt, retryAfter) * options.pacing.timeScale;
      options.onPause?.(pause);
      await sleep(pause, options.signal);
    }
  }
  throw new ProviderError(attempts > 1 ? `${lastError} (after ${attempts} attempts)` : lastError, lastStatus);
}

/** The status an error inside a 2xx answer stands for (its numeric `code`, else 502); null when there is none. */
function statusInBody(parsed: unknown): number | null {
  const error = (parsed as { error?: unknown } | null)?.error;
  if (error === undefined || error === null) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code >= 400 && code <= 599 ? code : 502;
}

/**
 * What the request's `Authorization` header carries, in every form an answer might echo it: the header's
 * credential, and for Basic auth the decoded user and password. Never shown in an error (they reach chat).
 */
function credentials(init: RequestInit): string[] {
  const header = new Headers(init.headers).get("authorization");
  if (!header) return [];
  const credential = header.slice(header.indexOf(" ") + 1).trim();
  const found = [header, credential];
  if (/^basic /i.test(header)) {
    const decoded = Buffer.from(credential, "base64").toString("utf8");
    found.push(decoded, ...decoded.split(":"));
  }
  // Longest first, so a credential is replaced whole before any part of it; short parts are not secrets.
  return found.filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
}

/** The provider's own error message, when its answer carries one, shortened, with any echoed credential hidden. */
function detail(body: string, secrets: readonly string[]): string {
  let message = "";
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    const error = parsed.error as { message?: unknown } | string | undefined;
    message = String(typeof error === "object" && error ? (error.message ?? "") : (error ?? parsed.message ?? ""));
  } catch {
    // Not JSON: the status says enough.
  }
  for (const secret of secrets) message = message.replaceAll(secret, "****");
  message = message.replace(/\s+/g, " ").trim();
  return message ? `: ${message.slice(0, 200)}` : "";
}
