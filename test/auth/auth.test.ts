import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { addMember, addStaff, type Org, OWNER, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import { ON_POSTGRES } from "../helpers/postgres";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "../helpers/server";
import { collabBase, listen, openEditor } from "../helpers/sockets";

let server: TestServer;
let org: Org;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
});
afterAll(() => server.stop());

const login = (email: string, password: string) => org.anon.post("/api/v1/auth/login", { email, password });

function expectTokenPair(body: Record<string, unknown>) {
  expect(typeof body.access_token).toBe("string");
  expect(typeof body.refresh_token).toBe("string");
  expect(body.token_type).toBe("Bearer");
  expect(body.expires_in).toBe(900);
}

/** Signs a JWT with the server's real secret and whatever header and claims a test wants. */
function forge(header: Record<string, unknown>, claims: Record<string, unknown>, alg: "sha256" | "sha512" = "sha256") {
  // On PostgreSQL every node is given the secret (the test servers' shared one); on SQLite it is the data dir's.
  const secret = ON_POSTGRES ? TEST_JWT_SECRET : readFileSync(join(server.dataDir, "jwt_secret"), "utf8").trim();
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const input = `${enc(header)}.${enc(claims)}`;
  return `${input}.${createHmac(alg, secret).update(input).digest("base64url")}`;
}

describe("POST /api/v1/auth/login", () => {
  it("answers the token pair, without signup_pending for a member", async () => {
    const res = await login(OWNER.email, OWNER.password);
    expect(res.status).toBe(200);
    expectTokenPair(res.body);
    expect("signup_pending" in res.body).toBe(false);
  });

  it("matches the email case-insensitively", async () => {
    const res = await login(OWNER.email.toUpperCase(), OWNER.password);
    expect(res.status).toBe(200);
  });

  it("answers 401 invalid credentials for a wrong password or an unknown email", async () => {
    for (const [email, password] of [
      [OWNER.email, "wrong-password"],
      ["nobody@acme.test", OWNER.password],
    ] as const) {
      const res = await login(email, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "invalid credentials" });
    }
  });

  it("issues an access token that works for 900 s", async () => {
    const res = await login(OWNER.email, OWNER.password);
    const payload = JSON.parse(Buffer.from(res.body.access_token.split(".")[1], "base64url").toString());
    expect(payload.exp - payload.iat).toBe(900);
    expect(Object.keys(payload).sort()).toEqual(["exp", "iat", "sid", "sub", "typ"]);
    expect(payload.sid).toMatch(UUID);
    const me = await client(server.url, res.body.access_token).get("/api/v1/me");
    expect(me.status).toBe(200);
  });
});

describe("bearer tokens", () => {
  const now = () => Math.floor(Date.now() / 1000);
  /** The session of the owner's sign-in: a forged token needs a live one to get past the signature checks. */
  const sid = () => JSON.parse(Buffer.from(org.owner.token.split(".")[1] ?? "", "base64url").toString()).sid;
  const cases: [string, () => string][] = [
    ["no token", () => ""],
    ["garbage", () => "not-a-token"],
    ["an unknown sa_ token", () => "sa_unknown"],
    [
      "alg none",
      () => {
        const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
        return `${enc({ alg: "none", typ: "JWT" })}.${enc({ sub: org.owner.id, typ: "access", exp: now() + 60 })}.`;
      },
    ],
    [
      "HS512 signed with the right secret",
      () =>
        forge(
          { alg: "HS512", typ: "JWT" },
          { sub: org.owner.id, typ: "access", iat: now(), exp: now() + 60 },
          "sha512",
        ),
    ],
    ["no exp", () => forge({ alg: "HS256", typ: "JWT" }, { sub: org.owner.id, typ: "access", iat: now() })],
    [
      "an expired token",
      () =>
        forge({ alg: "HS256", typ: "JWT" }, { sub: org.owner.id, typ: "access", iat: now() - 1000, exp: now() - 100 }),
    ],
    [
      "a token of another type",
      () => forge({ alg: "HS256", typ: "JWT" }, { sub: org.owner.id, typ: "refresh", iat: now(), exp: now() + 60 }),
    ],
    [
      "a token without a session",
      () => forge({ alg: "HS256", typ: "JWT" }, { sub: org.owner.id, typ: "access", iat: now(), exp: now() + 60 }),
    ],
    ["a bad signature", () => `${org.owner.token.slice(0, org.owner.token.lastIndexOf("."))}.${"A".repeat(43)}`],
    ["a refresh token", () => org.owner.refreshToken],
  ];
  for (const [name, token] of cases) {
    it(`answers 401 unauthorized for ${name}`, async () => {
      const res = await org.anon.get("/api/v1/me", { headers: { authorization: `Bearer ${token()}` } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "unauthorized" });
    });
  }

  it("answers 401 unauthorized without an Authorization header or with another scheme", async () => {
    expect((await org.anon.get("/api/v1/organizations")).status).toBe(401);
    const basic = await org.anon.get("/api/v1/me", { headers: { authorization: "Basic YTpi" } });
    expect(basic.status).toBe(401);
    expect(basic.body).toEqual({ error: "unauthorized" });
  });

  it("reads the scheme's name in any case, as HTTP says: bearer and BEARER work too", async () => {
    for (const scheme of ["bearer", "BEARER", "bEaReR"]) {
      const res = await org.anon.get("/api/v1/me", { headers: { authorization: `${scheme} ${org.owner.token}` } });
      expect(res.status).toBe(200);
    }
    const glued = await org.anon.get("/api/v1/me", { headers: { authorization: `bearer${org.owner.token}` } });
    expect(glued.status).toBe(401);
  });

  it("answers 401 unauthorized to a valid token whose user does not exist", async () => {
    const token = forge(
      { alg: "HS256", typ: "JWT" },
      { sub: "01a1ff00-0000-7000-8000-000000000000", typ: "access", iat: now(), exp: now() + 60, sid: sid() },
    );
    const res = await client(server.url, token).get("/api/v1/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("accepts a forged-shape token only when it is exactly a valid HS256 access token", async () => {
    const token = forge(
      { alg: "HS256", typ: "JWT" },
      { sub: org.owner.id, typ: "access", iat: now(), exp: now() + 60, sid: sid() },
    );
    expect((await client(server.url, token).get("/api/v1/me")).status).toBe(200);
  });
});

describe("POST /api/v1/auth/refresh", () => {
  it("rotates: a new pair, and the old refresh token stops working at once", async () => {
    const first = await login(OWNER.email, OWNER.password);
    const second = await org.anon.post("/api/v1/auth/refresh", { refresh_token: first.body.refresh_token });
    expect(second.status).toBe(200);
    expectTokenPair(second.body);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    const reuse = await org.anon.post("/api/v1/auth/refresh", { refresh_token: first.body.refresh_token });
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual({ error: "invalid refresh token" });
  });

  it("revokes the whole family when a used token comes back", async () => {
    const first = await login(OWNER.email, OWNER.password);
    const second = await org.anon.post("/api/v1/auth/refresh", { refresh_token: first.body.refresh_token });
    await org.anon.post("/api/v1/auth/refresh", { refresh_token: first.body.refresh_token });
    const stolen = await org.anon.post("/api/v1/auth/refresh", { refresh_token: second.body.refresh_token });
    expect(stolen.status).toBe(401);
    expect(stolen.body).toEqual({ error: "invalid refresh token" });
    // The access tokens the family handed out end with it.
    expect((await client(org.server.url, second.body.access_token).get("/api/v1/me")).status).toBe(401);
  });

  it("leaves other sessions of the same user alone", async () => {
    const a = await login(OWNER.email, OWNER.password);
    const b = await login(OWNER.email, OWNER.password);
    await org.anon.post("/api/v1/auth/refresh", { refresh_token: a.body.refresh_token });
    await org.anon.post("/api/v1/auth/refresh", { refresh_token: a.body.refresh_token });
    const other = await org.anon.post("/api/v1/auth/refresh", { refresh_token: b.body.refresh_token });
    expect(other.status).toBe(200);
  });

  it("answers 401 invalid refresh token for an unknown token and 400 without one", async () => {
    const unknown = await org.anon.post("/api/v1/auth/refresh", { refresh_token: "rt_nope" });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: "invalid refresh token" });
    const missing = await org.anon.post("/api/v1/auth/refresh", {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "refresh_token: required" });
  });
});

describe("POST /api/v1/auth/logout", () => {
  it("answers 204 without a body and revokes the refresh token", async () => {
    const session = await login(OWNER.email, OWNER.password);
    const res = await org.anon.post("/api/v1/auth/logout", { refresh_token: session.body.refresh_token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const after = await org.anon.post("/api/v1/auth/refresh", { refresh_token: session.body.refresh_token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "invalid refresh token" });
  });

  it("ends the session's access tokens at once, and only that session's", async () => {
    const session = await login(OWNER.email, OWNER.password);
    const other = await login(OWNER.email, OWNER.password);
    const me = (token: string) => client(org.server.url, token).get("/api/v1/me");
    expect((await me(session.body.access_token)).status).toBe(200);
    expect((await org.anon.post("/api/v1/auth/logout", { refresh_token: session.body.refresh_token })).status).toBe(
      204,
    );
    const after = await me(session.body.access_token);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
    expect((await me(other.body.access_token)).status).toBe(200);
  });

  it("closes the session's live-events and editing sockets with 4401, and only that session's", async () => {
    const session = await login(OWNER.email, OWNER.password);
    const other = await login(OWNER.email, OWNER.password);
    const space = await client(server.url, session.body.access_token).post(`/api/v1/organizations/${org.id}/spaces`, {
      name: "Sockets",
    });
    const file = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces/${space.body.id}/files/text`, {
      name: "notes.md",
      content: "hi",
    });
    const events = await listen(server.url, org.id, session.body.access_token);
    const stays = await listen(server.url, org.id, other.body.access_token);
    const editor = openEditor(
      collabBase(server.url, org.id, space.body.id),
      file.body.node.id,
      session.body.access_token,
    );
    await editor.synced();
    try {
      expect((await org.anon.post("/api/v1/auth/logout", { refresh_token: session.body.refresh_token })).status).toBe(
        204,
      );
      expect(await events.closed).toEqual({ code: 4401, reason: "unauthorized" });
      expect(await editor.closed).toEqual({ code: 4401, reason: "unauthorized" });
      // The other session's socket stays open and keeps hearing events.
      await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces/${space.body.id}/chat-rooms`, { name: "after" });
      await stays.next((e) => e.type === "chat.room.created" && e.payload.name === "after");
    } finally {
      events.close();
      stays.close();
      editor.destroy();
    }
  });

  it("closes the sockets of a session whose refresh token was reused", async () => {
    const session = await login(OWNER.email, OWNER.password);
    const events = await listen(server.url, org.id, session.body.access_token);
    try {
      const first = await org.anon.post("/api/v1/auth/refresh", { refresh_token: session.body.refresh_token });
      expect(first.status).toBe(200);
      const reused = await org.anon.post("/api/v1/auth/refresh", { refresh_token: session.body.refresh_token });
      expect(reused.status).toBe(401);
      expect(await events.closed).toEqual({ code: 4401, reason: "unauthorized" });
    } finally {
      events.close();
    }
  });

  it("is idempotent for an unknown token", async () => {
    const res = await org.anon.post("/api/v1/auth/logout", { refresh_token: "rt_unknown" });
    expect(res.status).toBe(204);
  });
});

describe("GET /api/v1/me", () => {
  it("answers the caller", async () => {
    const res = await org.owner.api.get("/api/v1/me");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.user).sort()).toEqual([
      "created_at",
      "display_name",
      "email",
      "id",
      "service_account_id",
    ]);
    expect(res.body.user.id).toMatch(UUID);
    expect(res.body.user.email).toBe(OWNER.email);
    expect(res.body.user.created_at).toMatch(TIMESTAMP);
    expect(res.body.user.service_account_id).toBeNull();
  });

  it("PATCH changes the display name, trimmed, and refuses an empty one", async () => {
    const res = await org.owner.api.patch("/api/v1/me", { display_name: "  Liv  " });
    expect(res.status).toBe(200);
    expect(res.body.user.display_name).toBe("Liv");
    const empty = await org.owner.api.patch("/api/v1/me", { display_name: "   " });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: "display_name: must not be empty" });
    await org.owner.api.patch("/api/v1/me", { display_name: OWNER.name });
  });

  it("PATCH refuses a service account: staff are renamed where their unique names are kept", async () => {
    const staff = await addStaff(org, { name: "Bea" });
    const res = await staff.api.patch("/api/v1/me", { display_name: "Boss" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "service accounts are renamed with PATCH /service-accounts/{id}" });
    expect((await staff.api.get("/api/v1/me")).body.user.display_name).toBe("Bea");
  });
});

describe("open signups", () => {
  const orgPath = () => `/api/v1/organizations/${org.id}`;
  const register = (email: string, password = "signup-password") =>
    org.anon.post("/api/v1/auth/register", { email, password, display_name: `User ${email}` });

  it("answers 403 signups_disabled while signups are off (the default)", async () => {
    const orgRes = await org.owner.api.get(orgPath());
    expect(orgRes.body.organization.open_signups_enabled).toBe(false);
    const res = await register("early@acme.test");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "signups_disabled" });
    // Whatever the body holds: with signups off, none of it is looked at.
    for (const body of [{}, { email: "early@acme.test", password: "short", display_name: "E" }]) {
      const bad = await org.anon.post("/api/v1/auth/register", body);
      expect(bad.status).toBe(403);
      expect(bad.body).toEqual({ error: "signups_disabled" });
    }
  });

  it("creates a pending account that can log in but reaches nothing until approved", async () => {
    await org.owner.api.patch(orgPath(), { open_signups_enabled: true });
    const res = await register("pending@acme.test");
    expect(res.status).toBe(201);
    expectTokenPair(res.body);
    expect(res.body.signup_pending).toBe(true);

    const again = await login("pending@acme.test", "signup-password");
    expect(again.status).toBe(200);
    expect(again.body.signup_pending).toBe(true);
    const refreshed = await org.anon.post("/api/v1/auth/refresh", { refresh_token: again.body.refresh_token });
    expect(refreshed.body.signup_pending).toBe(true);

    const pending = client(server.url, res.body.access_token);
    expect((await pending.get("/api/v1/me")).status).toBe(200);
    expect((await pending.get("/api/v1/organizations")).body).toEqual({ organizations: [] });
    const orgRes = await pending.get(orgPath());
    expect(orgRes.status).toBe(403);
    expect(orgRes.body).toEqual({ error: "signup pending approval" });
    expect((await pending.get(`${orgPath()}/members`)).body).toEqual({ error: "signup pending approval" });

    const list = await org.owner.api.get(`${orgPath()}/signup-requests?status=pending`);
    const request = list.body.signup_requests.find((r: { email: string }) => r.email === "pending@acme.test");
    expect(Object.keys(request).sort()).toEqual([
      "created_at",
      "display_name",
      "email",
      "id",
      "resolved_at",
      "status",
      "user_id",
    ]);
    expect(request.status).toBe("pending");

    const approve = await org.owner.api.post(`${orgPath()}/signup-requests/${request.id}/approve`);
    expect(approve.status).toBe(204);
    const member = await pending.get(orgPath());
    expect(member.status).toBe(200);
    const perms = await pending.get(`${orgPath()}/me/permissions`);
    expect(perms.body.permissions).toEqual(["chat.write", "files.read", "files.write", "spaces.create", "tasks.write"]);
    const loginAfter = await login("pending@acme.test", "signup-password");
    expect("signup_pending" in loginAfter.body).toBe(false);
  });

  it("answers 409 for a taken email and 400 for a short password", async () => {
    const taken = await register(OWNER.email.toUpperCase());
    expect(taken.status).toBe(409);
    const short = await register("short@acme.test", "1234567");
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ error: "password: must be at least 8 characters" });
  });

  it("denies: the account can no longer log in or refresh, and the request stays listed", async () => {
    const res = await register("denied@acme.test");
    const list = await org.owner.api.get(`${orgPath()}/signup-requests`);
    const request = list.body.signup_requests.find((r: { email: string }) => r.email === "denied@acme.test");
    expect((await org.owner.api.post(`${orgPath()}/signup-requests/${request.id}/deny`, {})).status).toBe(204);
    const denied = await login("denied@acme.test", "signup-password");
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({ error: "invalid credentials" });
    const refresh = await org.anon.post("/api/v1/auth/refresh", { refresh_token: res.body.refresh_token });
    expect(refresh.status).toBe(401);
    const all = await org.owner.api.get(`${orgPath()}/signup-requests`);
    const statuses = all.body.signup_requests.map((r: { status: string }) => r.status).sort();
    expect(statuses).toContain("approved");
    expect(statuses).toContain("denied");
    const onlyDenied = await org.owner.api.get(`${orgPath()}/signup-requests?status=denied`);
    expect(onlyDenied.body.signup_requests.every((r: { status: string }) => r.status === "denied")).toBe(true);
    const again = await org.owner.api.post(`${orgPath()}/signup-requests/${request.id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: "signup request is not pending" });
  });

  it("approves with chosen roles", async () => {
    await register("viewer-signup@acme.test");
    const list = await org.owner.api.get(`${orgPath()}/signup-requests?status=pending`);
    const request = list.body.signup_requests.find((r: { email: string }) => r.email === "viewer-signup@acme.test");
    const res = await org.owner.api.post(`${orgPath()}/signup-requests/${request.id}/approve`, {
      role_ids: [org.roles.Viewer],
    });
    expect(res.status).toBe(204);
    const members = await org.owner.api.get(`${orgPath()}/members`);
    const member = members.body.members.find((m: { email: string }) => m.email === "viewer-signup@acme.test");
    expect(member.role_ids).toEqual([org.roles.Viewer]);
    await org.owner.api.patch(orgPath(), { open_signups_enabled: false });
  });
});

describe("POST /api/v1/auth/invite-info (an extension)", () => {
  it("names the organization, the invited email and the expiry, without a token, until the invite is used", async () => {
    const inv = await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, { email: "info@acme.test" });
    const named = await org.owner.api.get(`/api/v1/organizations/${org.id}`);
    const res = await org.anon.post("/api/v1/auth/invite-info", { token: inv.body.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      organization_name: named.body.organization.name,
      email: "info@acme.test",
      expires_at: inv.body.invite.expires_at,
    });
    const open = await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, {});
    expect((await org.anon.post("/api/v1/auth/invite-info", { token: open.body.token })).body.email).toBeNull();
    const accepted = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: "info@acme.test",
      password: "info-password",
      display_name: "Ines Info",
    });
    expect(accepted.status).toBe(201);
    for (const token of [inv.body.token, "inv_unknown", ""]) {
      const used = await org.anon.post("/api/v1/auth/invite-info", { token });
      expect({ status: used.status, body: used.body }).toEqual({
        status: 400,
        body: { error: "invalid or expired invite" },
      });
    }
    const missing = await org.anon.post("/api/v1/auth/invite-info", {});
    expect(missing.body).toEqual({ error: "token: required" });
  });
});

describe("POST /api/v1/auth/accept-invite", () => {
  const invite = (body: Record<string, unknown> = {}) =>
    org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, body);

  it("creates the account as a member with the invite's roles and answers 201 with the login shape", async () => {
    const inv = await invite({ email: "Viewer@Acme.test", role_ids: [org.roles.Viewer] });
    expect(inv.body.invite.email).toBe("viewer@acme.test");
    const res = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: "viewer@acme.test",
      password: "viewer-password",
      display_name: "Vera",
    });
    expect(res.status).toBe(201);
    expectTokenPair(res.body);
    const perms = await client(server.url, res.body.access_token).get(`/api/v1/organizations/${org.id}/me/permissions`);
    expect(perms.body).toEqual({ permissions: ["files.read"] });
  });

  it("answers 400 email does not match invite", async () => {
    const inv = await invite({ email: "someone@acme.test" });
    const res = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: "other@acme.test",
      password: "password-123",
      display_name: "Other",
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "email does not match invite" });
  });

  it("works once", async () => {
    const inv = await invite();
    const body = { token: inv.body.token, email: "once@acme.test", password: "password-123", display_name: "Once" };
    expect((await org.anon.post("/api/v1/auth/accept-invite", body)).status).toBe(201);
    const second = await org.anon.post("/api/v1/auth/accept-invite", { ...body, email: "twice@acme.test" });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ error: "invalid or expired invite" });
  });

  it("answers 400 for an unknown token and a short password", async () => {
    const unknown = await org.anon.post("/api/v1/auth/accept-invite", {
      token: "inv_nope",
      email: "x@acme.test",
      password: "password-123",
      display_name: "X",
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: "invalid or expired invite" });
    const inv = await invite();
    const short = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: "x@acme.test",
      password: "short",
      display_name: "X",
    });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ error: "password: must be at least 8 characters" });
  });

  it("lets a removed member rejoin with their existing password, and refuses a wrong one with 409", async () => {
    const person = await addMember(org);
    await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${person.id}`);
    const inv = await invite({ email: person.email });
    const wrong = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: person.email,
      password: "not-their-password",
      display_name: "Back",
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body).toEqual({ error: "email already registered" });
    const right = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: person.email,
      password: person.password,
      display_name: "Back",
    });
    expect(right.status).toBe(201);
    expect((await client(server.url, right.body.access_token).get(`/api/v1/organizations/${org.id}`)).status).toBe(200);
  });

  it("answers 409 already a member to a member, and leaves the invite for someone else", async () => {
    const person = await addMember(org);
    const named = await invite({ email: person.email });
    expect(named.status).toBe(409);
    expect(named.body).toEqual({ error: "already a member of the organization" });
    const open = await invite();
    const body = { token: open.body.token, email: person.email, password: person.password, display_name: "Again" };
    const res = await org.anon.post("/api/v1/auth/accept-invite", body);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "already a member of the organization" });
    const fresh = { ...body, email: "newcomer@acme.test", display_name: "Newcomer" };
    expect((await org.anon.post("/api/v1/auth/accept-invite", fresh)).status).toBe(201);
  });

  it("hands out no role deleted since the invite was made", async () => {
    const base = `/api/v1/organizations/${org.id}`;
    const temp = await org.owner.api.post(`${base}/roles`, { name: "Temp", permissions: ["chat.write"] });
    const inv = await invite({ role_ids: [temp.body.role.id, org.roles.Viewer] });
    expect((await org.owner.api.delete(`${base}/roles/${temp.body.role.id}`)).status).toBe(204);
    const listed = (await org.owner.api.get(`${base}/invites`)).body.invites.find(
      (i: { id: string }) => i.id === inv.body.invite.id,
    );
    expect(listed.role_ids).toEqual([org.roles.Viewer]);
    const res = await org.anon.post("/api/v1/auth/accept-invite", {
      token: inv.body.token,
      email: "temp@acme.test",
      password: "password-123",
      display_name: "Temp",
    });
    expect(res.status).toBe(201);
    const perms = await client(server.url, res.body.access_token).get(`${base}/me/permissions`);
    expect(perms.body).toEqual({ permissions: ["files.read"] });
  });
});
