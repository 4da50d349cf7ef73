/**
 * The live directory (contract §10): `member.joined`, `member.updated`, `member.left` and `space.created` on the
 * organization's live-events sockets, so a new person or staff member is named at once everywhere. The member
 * payload is the member as `GET /members` lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";
import { type Listener, listen } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let member: Person;
let ownerLive: Listener;
let memberLive: Listener;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  ownerLive = await listen(server.url, org.id, org.owner.token);
  memberLive = await listen(server.url, org.id, member.token);
});
afterAll(async () => {
  ownerLive.close();
  memberLive.close();
  await server.stop();
});

const listed = async (userId: string) =>
  (await org.owner.api.get(`/api/v1/organizations/${org.id}/members`)).body.members.find(
    (m: { user_id: string }) => m.user_id === userId,
  );

describe("member.joined", () => {
  it("reaches another member's socket when an invite is accepted, as GET /members lists the new member", async () => {
    const newcomer = await addMember(org, ["Member"], "Nina Newcomer");
    const event = await memberLive.next((e) => e.type === "member.joined" && e.payload.user_id === newcomer.id);
    expect(event as unknown).toEqual({
      type: "member.joined",
      organization_id: org.id,
      space_id: null,
      payload: await listed(newcomer.id),
    });
    expect(event.payload.display_name).toBe("Nina Newcomer");
    expect(event.payload.is_service_account).toBe(false);
  });

  it("reaches members when a staff member is created, named and marked as staff", async () => {
    const staff = await addStaff(org, { name: "Sage" });
    const event = await memberLive.next(
      (e) => e.type === "member.joined" && e.payload.user_id === staff.account.user_id,
    );
    expect(event.payload).toEqual(await listed(staff.account.user_id));
    expect(event.payload).toMatchObject({ display_name: "Sage", is_service_account: true });
    expect(event.payload.service_account_id).toBe(staff.account.id);
  });
});

describe("member.updated", () => {
  it("tells everyone a new display name", async () => {
    const renamer = await addMember(org, ["Member"], "Old Name");
    await renamer.api.patch("/api/v1/me", { display_name: "New Name" });
    const event = await memberLive.next((e) => e.type === "member.updated" && e.payload.user_id === renamer.id);
    expect(event.space_id).toBeNull();
    expect(event.payload).toEqual(await listed(renamer.id));
    expect(event.payload.display_name).toBe("New Name");
  });

  it("tells everyone new roles", async () => {
    const promoted = await addMember(org, ["Viewer"], "Pat Promoted");
    await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${promoted.id}/roles`, {
      role_ids: [org.roles.Member],
    });
    const event = await memberLive.next(
      (e) => e.type === "member.updated" && e.payload.user_id === promoted.id && e.payload.role_ids.length === 1,
    );
    expect(event.payload.role_ids).toEqual([org.roles.Member]);
  });

  it("tells everyone a staff member's new name", async () => {
    const staff = await addStaff(org, { name: "Rex" });
    await org.owner.api.patch(`/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`, {
      name: "Rex Prime",
    });
    const event = await memberLive.next(
      (e) => e.type === "member.updated" && e.payload.user_id === staff.account.user_id,
    );
    expect(event.payload.display_name).toBe("Rex Prime");
  });
});

describe("member.left", () => {
  it("tells everyone a member was removed, with the member as they were", async () => {
    const leaver = await addMember(org, ["Member"], "Lee Leaving");
    const before = await listed(leaver.id);
    await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaver.id}`);
    const event = await memberLive.next((e) => e.type === "member.left" && e.payload.user_id === leaver.id);
    expect(event as unknown).toEqual({ type: "member.left", organization_id: org.id, space_id: null, payload: before });
  });

  it("tells everyone a staff member was deleted", async () => {
    const staff = await addStaff(org, { name: "Temp" });
    await org.owner.api.delete(`/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`);
    const event = await memberLive.next((e) => e.type === "member.left" && e.payload.user_id === staff.account.user_id);
    expect(event.payload.display_name).toBe("Temp");
  });
});

describe("space.created", () => {
  it("a public space reaches every member, with the space as GET /spaces/{spaceId} answers it", async () => {
    const res = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Open plan" });
    const event = await memberLive.next((e) => e.type === "space.created" && e.payload.id === res.body.id);
    expect(event).toEqual({
      type: "space.created",
      organization_id: org.id,
      space_id: res.body.id,
      payload: (await member.api.get(`/api/v1/organizations/${org.id}/spaces/${res.body.id}`)).body,
    });
  });

  it("a private space reaches only those who see it", async () => {
    const res = await member.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Hidden", private: true });
    const outsider = await addMember(org, ["Member"], "Otto Outsider");
    const outsiderLive = await listen(server.url, org.id, outsider.token);
    try {
      const second = await member.api.post(`/api/v1/organizations/${org.id}/spaces`, {
        name: "Hidden 2",
        private: true,
      });
      // Its creator, and the owner (org.manage sees every space), hear it.
      await memberLive.next((e) => e.type === "space.created" && e.payload.id === second.body.id);
      await ownerLive.next((e) => e.type === "space.created" && e.payload.id === res.body.id);
      // A marker the outsider hears afterwards: by then the private space's event would have come.
      const marker = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Marker" });
      await outsiderLive.next((e) => e.type === "space.created" && e.payload.id === marker.body.id);
      expect(outsiderLive.events.some((e) => e.type === "space.created" && e.payload.private)).toBe(false);
    } finally {
      outsiderLive.close();
    }
  });
});
