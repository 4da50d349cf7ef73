/** Minimal JSON client for the plain pages: every API error is shown in words. */

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  signup_pending?: boolean;
}

const KEY = "tandem.session";

/** Calls the API and returns its JSON, or throws an Error carrying the API's `error` message. */
export async function api<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const data = text ? JSON.parse(text) : {};
  if (!res.ok) throw new Error(typeof data.error === "string" ? data.error : `request failed (${res.status})`);
  return data as T;
}

export function saveSession(pair: TokenPair): void {
  localStorage.setItem(KEY, JSON.stringify({ access_token: pair.access_token, refresh_token: pair.refresh_token }));
}

export function loadSession(): TokenPair | null {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "null") as TokenPair | null;
  } catch {
    return null;
  }
}

export function clearSession(): void {
  localStorage.removeItem(KEY);
}

/** Wires a form: disables it while `submit` runs and shows any error under it. */
export function onSubmit(form: HTMLFormElement, submit: (data: FormData) => Promise<void>): void {
  const error = form.querySelector<HTMLElement>(".error");
  const button = form.querySelector<HTMLButtonElement>("button");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (error) error.textContent = "";
    if (button) button.disabled = true;
    try {
      await submit(new FormData(form));
    } catch (err) {
      if (error) error.textContent = err instanceof Error ? err.message : String(err);
    } finally {
      if (button) button.disabled = false;
    }
  });
}
