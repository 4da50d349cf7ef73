/**
 * The API client: the session (access + refresh token) in localStorage, silent refresh before the access token
 * expires and once after a 401, and every error thrown as an ApiError carrying the API's own message.
 *
 * Refresh tokens are single-use and a reused one revokes the whole session, so two tabs must never refresh
 * with the same token: refreshing holds a Web Lock, and a tab that finds a newer session stored by another tab
 * takes it instead of refreshing again.
 */

import type { TokenPair } from "../../../src/api-types";

interface Session {
  access_token: string;
  refresh_token: string;
  /** Epoch ms when the access token expires. */
  expires_at: number;
  signup_pending: boolean;
}

/**
 * An answer of the API that was not 2xx: `message` is the API's `error` text, shown to people as is; `body` is
 * the whole answer, for errors that carry more (a task's 409 `version conflict` holds the current `task`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

const KEY = "tandem.session";
/** Why the last session ended when it was not signed out here: shown on the sign-in page, in every tab. */
const ENDED_KEY = "tandem.session-ended";
/** Refresh this long before the access token expires. */
const EARLY_MS = 60_000;

let session: Session | null = read();
const listeners = new Set<() => void>();

function read(): Session | null {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "null") as Session | null;
    return value && typeof value.refresh_token === "string" ? value : null;
  } catch {
    return null;
  }
}

function write(next: Session | null): void {
  session = next;
  if (next) localStorage.setItem(KEY, JSON.stringify(next));
  else localStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

// Another tab signed in, out or refreshed.
addEventListener("storage", (event: StorageEvent) => {
  if (event.key !== KEY) return;
  session = read();
  for (const listener of listeners) listener();
});

/** Stores the tokens of a login-shaped answer. */
export function signIn(login: TokenPair): void {
  localStorage.removeItem(ENDED_KEY);
  write({
    access_token: login.access_token,
    refresh_token: login.refresh_token,
    expires_at: Date.now() + login.expires_in * 1000,
    signup_pending: login.signup_pending === true,
  });
}

/** What must be undone as the person before their session goes (a browser's push subscription). */
const signingOut = new Set<() => Promise<void>>();
/** The longest a sign-out waits for those steps: signing out must not hang on a slow server. */
const SIGNING_OUT_MS = 3000;

/** Runs `step` at each sign-out here, while the session still holds; returns the function that removes it. */
export function onSigningOut(step: () => Promise<void>): () => void {
  signingOut.add(step);
  return () => signingOut.delete(step);
}

/** Revokes the session on the server (best effort) and forgets it here. */
export async function signOut(): Promise<void> {
  const current = session;
  if (current && signingOut.size > 0) {
    const steps = Promise.allSettled([...signingOut].map((step) => step()));
    await Promise.race([steps, new Promise((resolve) => setTimeout(resolve, SIGNING_OUT_MS))]);
  }
  localStorage.removeItem(ENDED_KEY);
  write(null);
  if (current) await request("POST", "/auth/logout", { refresh_token: current.refresh_token }, null).catch(() => {});
}

export function isSignedIn(): boolean {
  return session !== null;
}

export function isSignupPending(): boolean {
  return session?.signup_pending === true;
}

/**
 * The account's signup was approved (it is a member now): the session stops being pending, here and in the
 * other tabs, without signing in again. The tokens stay valid across the approval.
 */
export function clearSignupPending(): void {
  if (session?.signup_pending) write({ ...session, signup_pending: false });
}

/**
 * Why the session ended without signing out here (its refresh token refused: a sign-out in another browser,
 * a password change, a reset by an administrator, or a session that expired), in words; null otherwise.
 */
export function sessionEndedReason(): string | null {
  return localStorage.getItem(ENDED_KEY);
}

/** Calls `listener` whenever the session changes (here or in another tab). */
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let refreshing: Promise<void> | null = null;

/** Trades the refresh token for a new pair, once at a time across tabs; signs out when it is refused. */
function refresh(): Promise<void> {
  refreshing ??= (async () => {
    const used = session?.refresh_token;
    const run = async () => {
      const stored = read();
      if (stored && stored.refresh_token !== used) {
        write(stored);
        return;
      }
      if (!stored) {
        write(null);
        return;
      }
      try {
        signIn(await request<TokenPair>("POST", "/auth/refresh", { refresh_token: stored.refresh_token }, null));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          // Stored before the session goes, so the sign-in page (in this tab and the others) can say why.
          localStorage.setItem(
            ENDED_KEY,
            "You were signed out: your session ended elsewhere (a sign-out or password change on another device, a password reset) or expired. Sign in again to continue.",
          );
          write(null);
        } else throw error;
      }
    };
    if (navigator.locks) await navigator.locks.request("tandem.refresh", run);
    else await run();
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A current access token, refreshed first when it is about to expire; null when signed out. */
export async function accessToken(): Promise<string | null> {
  if (session && session.expires_at - Date.now() < EARLY_MS) await refresh();
  return session?.access_token ?? null;
}

async function request<T>(
  method: string,
  path: string,
  body: unknown,
  token: string | null,
  signal?: AbortSignal,
): Promise<T> {
  const headers: Record<string, string> = {};
  let payload: BodyInit | undefined;
  if (body instanceof FormData || body instanceof Blob) payload = body;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, { method, headers, body: payload, signal });
  } catch (error) {
    // A request its caller gave up (a search superseded by the next keystroke) is not a network failure.
    if (signal?.aborted) throw error;
    throw new ApiError(0, "the server cannot be reached; check your connection");
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const message = (data as { error?: unknown } | null)?.error;
    throw new ApiError(res.status, typeof message === "string" ? message : `request failed (${res.status})`, data);
  }
  return data as T;
}

/**
 * Calls `/api/v1{path}` as the signed-in user. `body` is sent as JSON (or as is for FormData / Blob). A 401
 * refreshes the session once and retries; a second 401 signs out. `signal` cancels it (the promise rejects with
 * the fetch's AbortError).
 */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<T> {
  const token = await accessToken();
  try {
    return await request<T>(method, path, body, token, options.signal);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401 || !session) throw error;
    await refresh();
    if (!session) throw error;
    return request<T>(method, path, body, session.access_token, options.signal);
  }
}

/** Calls a public route (no token). */
export function publicApi<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  return request<T>(method, path, body, null);
}

/** An upload under way: its answer, and a way to call it off. */
export interface Upload<T> {
  done: Promise<T>;
  /** Cancels it (its promise rejects); nothing once it has finished. */
  abort: () => void;
}

/**
 * POSTs `form` to `/api/v1{path}` as the signed-in user, reporting progress from 0 to 1: through
 * XMLHttpRequest, since fetch cannot report an upload's progress. Rejects with an ApiError carrying the API's
 * message (409 `name already exists`, 413 `file too large`, ...).
 */
export function uploadForm<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Upload<T> {
  let xhr: XMLHttpRequest | null = null;
  let aborted = false;
  const cancelled = () => new ApiError(0, "upload cancelled");
  // accessToken() refreshes the session first when the token is about to expire.
  const done = accessToken().then(
    (token) =>
      new Promise<T>((resolve, reject) => {
        if (aborted) return reject(cancelled());
        const request = new XMLHttpRequest();
        xhr = request;
        request.open("POST", `/api/v1${path}`);
        if (token) request.setRequestHeader("authorization", `Bearer ${token}`);
        request.upload.onprogress = (event) => {
          if (event.lengthComputable) onProgress(event.loaded / event.total);
        };
        request.onerror = () => reject(new ApiError(0, "the server cannot be reached; check your connection"));
        request.onabort = () => reject(cancelled());
        request.onload = () => {
          let data: { error?: string } | null = null;
          try {
            data = JSON.parse(request.responseText);
          } catch {
            data = null;
          }
          if (request.status >= 200 && request.status < 300 && data) resolve(data as T);
          else reject(new ApiError(request.status, data?.error ?? `upload failed (${request.status})`, data));
        };
        request.send(form);
      }),
  );
  return {
    done,
    abort: () => {
      aborted = true;
      xhr?.abort();
    },
  };
}

/** Fetches a binary answer (file content) with the session's token. */
export async function download(path: string): Promise<Blob> {
  const token = await accessToken();
  const res = await fetch(`/api/v1${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!res.ok) {
    const data = (await res.json().catch(() => null)) as { error?: string } | null;
    throw new ApiError(res.status, data?.error ?? `request failed (${res.status})`);
  }
  return res.blob();
}

/**
 * Fetches a file's content and hands it to the browser as a download named `name`. The blob is retyped as
 * plain bytes: a blob: URL of an HTML or SVG file would be a page of this origin if anything opened it.
 */
export async function saveDownload(path: string, name: string): Promise<void> {
  const blob = await download(path);
  const url = URL.createObjectURL(new Blob([blob], { type: "application/octet-stream" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  // The browser reads the blob when the download starts; give it a moment before freeing it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** The message of anything thrown, in words. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
