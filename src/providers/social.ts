/**
 * A social network's post endpoint (X's `POST /2/tweets` by default): `{"text"}` as JSON, with the stored OAuth
 * token as a bearer token. One attempt per call: the automation's run retries, durably, by its own rule. The
 * token never appears in an outcome (nor is anything here logged).
 */

/** How one attempt went. */
export type SocialOutcome =
  | { ok: true; status: number; id: string | null }
  | {
      ok: false;
      /** Worth trying again: a network error, a timeout, a 429 or a 5xx. */
      retryable: boolean;
      /** The pause the network asked for (`Retry-After`), in ms. */
      retryAfterMs: number | null;
      /** Why, in words fit for the run's `error`. */
      message: string;
    };

const ATTEMPT_TIMEOUT_MS = 30_000;

/** The `Retry-After` of an answer, in ms (seconds or an HTTP date), or null. */
export function retryAfterOf(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The reason a refusal gives, from the usual error shapes (X's `detail`/`title`, `errors[0].message`, `error`). */
function reasonOf(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const b = body as Record<string, unknown>;
  const first = Array.isArray(b.errors) ? (b.errors[0] as Record<string, unknown> | undefined) : undefined;
  const nested = b.error && typeof b.error === "object" ? (b.error as Record<string, unknown>).message : b.error;
  const reason = [b.detail, b.title, first?.message, nested, b.message].find((v) => typeof v === "string" && v.trim());
  return typeof reason === "string" ? reason.trim().slice(0, 300) : "";
}

/** Posts `text` to `endpoint` with `token`. */
export async function postSocial(
  endpoint: string,
  token: string,
  text: string,
  signal: AbortSignal,
): Promise<SocialOutcome> {
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ text }),
      redirect: "manual",
      signal: AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return {
      ok: false,
      retryable: true,
      retryAfterMs: null,
      message: timedOut ? "the social network did not answer in time" : "the social network could not be reached",
    };
  }
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // An answer without JSON: its status says enough.
  }
  if (res.ok) {
    const data = body && typeof body === "object" ? (body as { data?: { id?: unknown }; id?: unknown }) : {};
    const id = data.data?.id ?? data.id;
    return { ok: true, status: res.status, id: typeof id === "string" || typeof id === "number" ? String(id) : null };
  }
  const reason = reasonOf(body);
  return {
    ok: false,
    retryable: res.status === 429 || res.status >= 500,
    retryAfterMs: retryAfterOf(res.headers.get("retry-after")),
    message: `the social network refused the post (${res.status}${reason ? `: ${reason}` : ""})`,
  };
}
