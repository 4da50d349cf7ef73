import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { type Connection, openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { createLogger } from "../../src/lib/log";
import { createServices } from "../../src/services";
import { tempDir } from "../helpers/server";

/**
 * A full disk, as SQLite meets it: the database may not grow (`max_page_count` at its size). Driven through the
 * real app and database, in process, since only this connection can be held to a size.
 */
let conn: Connection;
let app: ReturnType<typeof buildApp>;
let token: string;
let messages: string;

const call = async (method: string, path: string, body?: unknown) => {
  const res = await app.handle(
    new Request(`http://tandem.test${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  const config = loadConfig({ data: tempDir() });
  conn = openDatabase(join(config.dataDir, "tandem.db"));
  migrate(conn.sqlite);
  const services = createServices(conn, config);
  app = buildApp({ config, log: createLogger("silent"), access: () => undefined, services });
  const { org } = await services.organization.setup({
    orgName: "Full",
    adminEmail: "owner@full.test",
    adminPassword: "owner-password",
  });
  token = "";
  const login = await call("POST", "/api/v1/auth/login", { email: "owner@full.test", password: "owner-password" });
  token = login.body.access_token as string;
  const base = `/api/v1/organizations/${org.id}/spaces`;
  const space = (await call("POST", base, { name: "Notes" })).body as { id: string };
  const rooms = (await call("GET", `${base}/${space.id}/chat-rooms`)).body.chat_rooms as { id: string }[];
  messages = `${base}/${space.id}/chat-rooms/${rooms[0]?.id}/messages`;
});
afterAll(() => conn.sqlite.close());

describe("a full disk", () => {
  it("answers 507 to a write, in words, stores nothing half, and still answers reads", async () => {
    const pages = (conn.sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    conn.sqlite.exec(`PRAGMA max_page_count = ${pages}`);
    let full: { status: number; body: Record<string, unknown> } | undefined;
    let stored = 0;
    for (let i = 0; i < 200 && !full; i++) {
      const res = await call("POST", messages, { content: `${i} ${"x".repeat(30_000)}` });
      if (res.status === 201) stored++;
      else full = res;
    }
    expect(full).toEqual({
      status: 507,
      body: { error: "the server's disk is full: nothing can be stored until space is freed" },
    });
    const page = await call("GET", `${messages}?limit=200`);
    expect(page.status).toBe(200);
    expect((page.body.messages as unknown[]).length).toBe(stored);

    conn.sqlite.exec("PRAGMA max_page_count = 1073741823");
    expect((await call("POST", messages, { content: "space again" })).status).toBe(201);
  });
});
