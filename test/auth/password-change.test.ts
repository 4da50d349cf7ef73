/**
 * POST /api/v1/me/password: a person changes their own password; their other sessions end at once, the one
 * asking stays signed in.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import { client } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { listen } from "../helpers/sockets";

let server: TestServer;
let org: Org;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
});
afterAll(() => server.stop());

const login = (email: string, password: string) => org.anon.post("/api/v1/auth/login", { email, password });
const refresh = (token: string) => org.anon.post("/api/v1/auth/refresh", { refresh_token: token });
const change = (token: string, body: unknown) => client(server.url, token).post("/api/v1/me/password", body);

/** A fresh member signed in twice: `session` changes the password, `other` is another device. */
async function twoSessions() {
  const person = await addMember(org);
  const session = await login(person.email, person.password);
  const other = await login(person.email, person.password);
  expect(session.status).toBe(200);
  expect(other.status).toBe(200);
  return { person, session: session.body, other: other.body };
}

describe("POST /api/v1/me/password", () => {
  it("answers 204; the new password logs in and the old one no longer does", async () => {
    const { person, session } = await twoSessions();
    const res = await change(session.access_token, { current_password: person.password, new_password: "new-secret-1" });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await login(person.email, "new-secret-1")).status).toBe(200);
    const old = await login(person.email, person.password);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: "invalid credentials" });
  });

  it("keeps the session that asked: its access token works and its refresh token still refreshes", async () => {
    const { person, session } = await twoSessions();
    expect(
      (await change(session.access_token, { current_password: person.password, new_password: "new-secret-2" })).status,
    ).toBe(204);
    expect((await client(server.url, session.access_token).get("/api/v1/me")).status).toBe(200);
    const next = await refresh(session.refresh_token);
    expect(next.status).toBe(200);
    expect((await client(server.url, next.body.access_token).get("/api/v1/me")).status).toBe(200);
  });

  it("ends every other session at once: refresh 401 invalid refresh token, access token 401", async () => {
    const { person, session, other } = await twoSessions();
    const me = (token: string) => client(server.url, token).get("/api/v1/me");
    expect((await me(other.access_token)).status).toBe(200);
    expect(
      (await change(session.access_token, { current_password: person.password, new_password: "new-secret-3" })).status,
    ).toBe(204);
    const after = await me(other.access_token);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
    const refused = await refresh(other.refresh_token);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: "invalid refresh token" });
  });

  it("closes the live-events sockets of the other sessions with 4401, not the caller's", async () => {
    const { person, session, other } = await twoSessions();
    const ended = await listen(server.url, org.id, other.access_token);
    const stays = await listen(server.url, org.id, session.access_token);
    try {
      expect(
        (await change(session.access_token, { current_password: person.password, new_password: "new-secret-4" }))
          .status,
      ).toBe(204);
      expect(await ended.closed).toEqual({ code: 4401, reason: "unauthorized" });
      // The caller's own socket stays open and keeps hearing events.
      const mine = client(server.url, session.access_token);
      const space = await mine.post(`/api/v1/organizations/${org.id}/spaces`, { name: `Pw ${person.id}` });
      expect(space.status).toBe(201);
      await mine.post(`/api/v1/organizations/${org.id}/spaces/${space.body.id}/chat-rooms`, { name: "after" });
      await stays.next((e) => e.type === "chat.room.created" && e.payload.name === "after");
    } finally {
      ended.close();
      stays.close();
    }
  });

  it("leaves no session to a login with the old password that was under way during the change", async () => {
    // Someone who knows the old password keeps logging in; the owner of the account changes it. A login whose
    // password check began before the change must not hand out a session after it.
    const { person, session } = await twoSessions();
    const sessions: string[] = [];
    let changed = false;
    const attacker = (async () => {
      while (!changed) {
        const res = await login(person.email, person.password);
        if (res.status === 200) sessions.push(res.body.refresh_token);
      }
    })();
    // Let a few logins through first, then change while one is being checked.
    while (sessions.length < 3) await Bun.sleep(5);
    const res = await change(session.access_token, { current_password: person.password, new_password: "new-secret-9" });
    expect(res.status).toBe(204);
    changed = true;
    await attacker;
    for (const token of sessions) expect((await refresh(token)).status).toBe(401);
  });

  it("answers 400 current password is incorrect for a wrong current password, and changes nothing", async () => {
    const { person, session, other } = await twoSessions();
    const res = await change(session.access_token, { current_password: "not-my-password", new_password: "whatever-1" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "current password is incorrect" });
    expect((await login(person.email, person.password)).status).toBe(200);
    expect((await login(person.email, "whatever-1")).status).toBe(401);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it("checks 8 of a burst of wrong guesses (400 each) and refuses the rest at once with 429, as login does", async () => {
    const { session } = await twoSessions();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        change(session.access_token, { current_password: `guess-${i}`, new_password: "new-secret-5" }),
      ),
    );
    const checked = answers.filter((res) => res.status === 400);
    // 8 at once, and never past the 10 wrong ones one client may try on one account.
    expect(checked.length).toBeGreaterThanOrEqual(8);
    expect(checked.length).toBeLessThanOrEqual(10);
    for (const res of checked) expect(res.body).toEqual({ error: "current password is incorrect" });
    for (const res of answers.filter((res) => res.status !== 400)) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 429, body: { error: "too many attempts" } });
      expect(res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    }
  });

  it("answers 400 naming new_password when it is under 8 or over 1,024 characters", async () => {
    const { person, session } = await twoSessions();
    const short = await change(session.access_token, { current_password: person.password, new_password: "1234567" });
    expect(short.status).toBe(400);
    expect(short.body.error).toStartWith("new_password: ");
    const long = await change(session.access_token, {
      current_password: person.password,
      new_password: "x".repeat(1025),
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toStartWith("new_password: ");
    // 8 and 1,024 are allowed.
    const eight = await change(session.access_token, { current_password: person.password, new_password: "12345678" });
    expect(eight.status).toBe(204);
    const max = await change(session.access_token, { current_password: "12345678", new_password: "y".repeat(1024) });
    expect(max.status).toBe(204);
    expect((await login(person.email, "y".repeat(1024))).status).toBe(200);
  });

  it("answers 400 naming the field for missing or invalid fields", async () => {
    const { person, session } = await twoSessions();
    const cases: [unknown, string][] = [
      [{ new_password: "new-secret-6" }, "current_password: required"],
      [{ current_password: person.password }, "new_password: required"],
      [{ current_password: 5, new_password: "new-secret-6" }, "current_password: "],
      [{ current_password: person.password, new_password: null }, "new_password: "],
      [{ current_password: "x".repeat(1025), new_password: "new-secret-6" }, "current_password: "],
    ];
    for (const [body, error] of cases) {
      const res = await change(session.access_token, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toStartWith(error);
    }
    expect((await login(person.email, person.password)).status).toBe(200);
  });

  it("answers 403 service accounts have no password for an sa_ token", async () => {
    const staff = await addStaff(org);
    const res = await staff.api.post("/api/v1/me/password", {
      current_password: "anything-at-all",
      new_password: "new-secret-7",
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "service accounts have no password" });
  });

  it("answers 401 unauthorized without a token, whatever the body", async () => {
    for (const body of [{ current_password: "a", new_password: "b" }, {}]) {
      const res = await org.anon.post("/api/v1/me/password", body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "unauthorized" });
    }
  });

  it("never writes the passwords to the log", async () => {
    const { person, session } = await twoSessions();
    await change(session.access_token, { current_password: "logged-guess-zz", new_password: "logged-new-zz" });
    await change(session.access_token, { current_password: person.password, new_password: "logged-new-yy" });
    const text = server.logs.join("\n");
    for (const secret of ["logged-guess-zz", "logged-new-zz", "logged-new-yy", person.password]) {
      expect(text).not.toContain(secret);
    }
  });

  it("is listed in the OpenAPI document for a person signed in, with its body", async () => {
    const res = await org.anon.get("/api/docs/json");
    const op = res.body.paths["/api/v1/me/password"]?.post;
    expect(op).toBeDefined();
    expect(op.description).toBe("A person (not a service account).");
    const schema = op.requestBody.content["application/json"].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(["current_password", "new_password"]);
    expect(Object.keys(op.responses).sort()).toEqual(["204", "400", "401", "403", "413", "429", "500", "503", "507"]);
  });
});
