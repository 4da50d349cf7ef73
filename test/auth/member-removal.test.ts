/**
 * Removing a member ends their sessions at once, as denying a signup does: no refresh token of theirs works again
 * (not even once they are invited back), their access tokens answer 401 outside the organization (`/me`) and 404
 * `organization not found` inside it (contract §7), and their sockets close. The account stays: it can sign in
 * again, to accept an invite back.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, setupOrg } from "../helpers/factories";
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

const refresh = (token: string) => org.anon.post("/api/v1/auth/refresh", { refresh_token: token });

describe("DELETE /api/v1/organizations/{orgId}/members/{userId}", () => {
  it("ends every session of the removed member at once", async () => {
    const leaving = await addMember(org);
    const second = await org.anon.post("/api/v1/auth/login", { email: leaving.email, password: leaving.password });
    expect(second.status).toBe(200);
    const socket = await listen(server.url, org.id, leaving.token);
    const me = client(server.url, second.body.access_token);
    expect((await me.get("/api/v1/me")).status).toBe(200);

    expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaving.id}`)).status).toBe(204);

    for (const token of [leaving.refreshToken, second.body.refresh_token]) {
      const res = await refresh(token);
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { error: "invalid refresh token" } });
    }
    for (const api of [leaving.api, me]) {
      for (const res of [
        await api.get("/api/v1/me"),
        await api.patch("/api/v1/me", { display_name: "Still here" }),
        await api.post("/api/v1/me/password", { current_password: leaving.password, new_password: "another-pass" }),
        await api.get("/api/v1/organizations"),
      ]) {
        expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { error: "unauthorized" } });
      }
      const inside = await api.get(`/api/v1/organizations/${org.id}/spaces`);
      expect({ status: inside.status, body: inside.body }).toEqual({
        status: 404,
        body: { error: "organization not found" },
      });
    }
    expect(await socket.closed).toEqual({ code: 4404, reason: "organization not found" });
  });

  it("leaves the old sessions ended when the member is invited back, and the new one works", async () => {
    const leaving = await addMember(org);
    expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaving.id}`)).status).toBe(204);
    const invite = await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, { email: leaving.email });
    const back = await org.anon.post("/api/v1/auth/accept-invite", {
      token: invite.body.token,
      email: leaving.email,
      password: leaving.password,
      display_name: "Back again",
    });
    expect(back.status).toBe(201);
    expect((await refresh(leaving.refreshToken)).status).toBe(401);
    expect((await leaving.api.get("/api/v1/me")).status).toBe(401);
    expect((await client(server.url, back.body.access_token).get("/api/v1/me")).status).toBe(200);
    expect((await refresh(back.body.refresh_token)).status).toBe(200);
  });

  it("lets the removed account sign in again, to an install where it belongs to no organization", async () => {
    const leaving = await addMember(org);
    expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaving.id}`)).status).toBe(204);
    const again = await org.anon.post("/api/v1/auth/login", { email: leaving.email, password: leaving.password });
    expect(again.status).toBe(200);
    const api = client(server.url, again.body.access_token);
    expect((await api.get("/api/v1/me")).status).toBe(200);
    expect((await api.get("/api/v1/organizations")).body).toEqual({ organizations: [] });
    const inside = await api.get(`/api/v1/organizations/${org.id}/spaces`);
    expect({ status: inside.status, body: inside.body }).toEqual({
      status: 404,
      body: { error: "organization not found" },
    });
  });

  it("ends no one else's session", async () => {
    const staying = await addMember(org);
    const leaving = await addMember(org);
    expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaving.id}`)).status).toBe(204);
    expect((await staying.api.get("/api/v1/me")).status).toBe(200);
    expect((await refresh(staying.refreshToken)).status).toBe(200);
    expect((await org.owner.api.get("/api/v1/me")).status).toBe(200);
  });
});
