/**
 * Never miss what needs you (contract §10), measured from outside: chat posts into a room of 200 members, each
 * of whom has read the room (a read state row) and a tenth of whom muted it, while one post in ten names one
 * of them (`BENCH_INBOX_EVERY=n`: one in n; an inbox item written after the post in a batch, and an `inbox.item`
 * to their socket). Target: at least 0.18 of a bare `Bun.serve` in the same run, as the plain post (0.2) nearly
 * is. `bun bench/ab.ts A B inbox` compares two builds on the same request.
 */
import { type LoadScenario, luaWith, type Server, startTandem, type WrkRequest } from "./harness";
import { api, members, orgOf, space } from "./seed";

const MEMBERS = 200;

/** Seeds the room of 200 members on `server`; returns wrk's request posting into it. */
export async function seedInboxRoom(server: Server): Promise<() => Promise<WrkRequest>> {
  const s = await space(server, "inbox fan-out");
  const roomPath = `${s.base}/chat-rooms/${s.room}`;
  const org = await orgOf(server);
  const first = await api<{ message: { id: string } }>(server, "POST", `${roomPath}/messages`, { content: "hi" });
  const tokens = await members(server, MEMBERS);
  for (const [i, token] of tokens.entries()) {
    const as = (method: string, path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (res) => {
        if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      });
    await as("POST", `${roomPath}/read`, { message_id: first.message.id });
    if (i % 10 === 0) await as("PUT", `/api/v1/me/notifications?org_id=${org}`, { muted_room_ids: [s.room] });
  }
  const lua = luaWith("post-mentions.lua", { EVERY: Number(process.env.BENCH_INBOX_EVERY ?? 10), MEMBERS });
  return async () => ({
    path: `${roomPath}/messages`,
    headers: { Authorization: `Bearer ${await server.token()}` },
    lua,
  });
}

let request: (() => Promise<WrkRequest>) | undefined;

export const inboxPost: LoadScenario = {
  kind: "load",
  name: "POST chat message, room of 200 members with read state and inbox items",
  async start() {
    const server = await startTandem();
    request = await seedInboxRoom(server);
    return server;
  },
  request: () => (request as () => Promise<WrkRequest>)(),
  minRatio: 0.18,
};
