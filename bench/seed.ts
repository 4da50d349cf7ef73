/** Seeding benchmark servers through the public API, the way users fill them. */
import type { Server } from "./harness";

/** One JSON API call as the bench admin; throws on anything but 2xx. */
export async function api<T = any>(server: Server, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await server.token()}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Runs `fn(0..n-1)` with at most `concurrency` calls in flight. */
export async function times(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** The organization of the bench admin. */
export async function orgOf(server: Server): Promise<string> {
  const { organizations } = await api<{ organizations: { id: string }[] }>(server, "GET", "/api/v1/organizations");
  return organizations[0]!.id;
}

/** A new space: its base path, its board's columns and its `general` room. */
export async function space(server: Server, name: string) {
  const org = await orgOf(server);
  const created = await api<{ id: string }>(server, "POST", `/api/v1/organizations/${org}/spaces`, { name });
  const base = `/api/v1/organizations/${org}/spaces/${created.id}`;
  const board = await api<{ columns: { id: string }[] }>(server, "GET", `${base}/board`);
  const rooms = await api<{ chat_rooms: { id: string }[] }>(server, "GET", `${base}/chat-rooms`);
  return { org, id: created.id, base, columns: board.columns.map((c) => c.id), room: rooms.chat_rooms[0]!.id };
}

/**
 * `n` more members of the bench admin's organization, invited and signed in through the API: their access
 * tokens. A person may hold at most 50 live-event and 100 editing sockets, so probes that open more spread
 * them over several people, as real sockets are.
 */
export async function members(server: Server, n: number): Promise<string[]> {
  return (await memberAccounts(server, n)).map((m) => m.token);
}

/** As `members`, with each one's email and password, to sign in again once the token (900 s) grows old. */
export async function memberAccounts(server: Server, n: number) {
  const org = await orgOf(server);
  const accounts: { email: string; password: string; token: string }[] = [];
  for (let i = 0; i < n; i++) {
    const { token } = await api<{ token: string }>(server, "POST", `/api/v1/organizations/${org}/invites`, {});
    const email = `bench-${i}-${crypto.randomUUID()}@bench.test`;
    const password = "bench-password";
    const res = await fetch(`${server.url}/api/v1/auth/accept-invite`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, email, password, display_name: `Bench ${i}` }),
    });
    if (!res.ok) throw new Error(`accept-invite: ${res.status} ${await res.text()}`);
    accounts.push({ email, password, token: ((await res.json()) as { access_token: string }).access_token });
  }
  return accounts;
}
