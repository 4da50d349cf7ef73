/**
 * Never miss what needs you (contract §10), measured from outside: chat posts into a room of 200 members, each
 * of whom has read the room (a read state row) and a tenth of whom muted it, while one post in four names one
 * of them (an inbox item written in the post's transaction, and an `inbox.item` to their socket). Target: at
 * least 0.18 of a bare `Bun.serve` in the same run, as the plain post (0.2) nearly is.
 */
import { type LoadScenario, luaWith, startTandem } from "./harness";
import { api, members, orgOf, space } from "./seed";

const MEMBERS = 200;
let roomPath = "";

export const inboxPost: LoadScenario = {
  kind: "load",
  name: "POST chat message, room of 200 members with read state and inbox items",
  async start() {
    const server = await startTandem();
    const s = await space(server, "inbox fan-out");
    roomPath = `${s.base}/chat-rooms/${s.room}`;
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
    return server;
  },
  request: async (server) => ({
    path: `${roomPath}/messages`,
    headers: { Authorization: `Bearer ${await server.token()}` },
    lua: luaWith("post-mentions.lua", { EVERY: Number(process.env.BENCH_INBOX_EVERY ?? 10), MEMBERS }),
  }),
  minRatio: 0.18,
};
