import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import type { Client } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

/**
 * docs/api.md "Order of checks": a caller the route refuses gets its 403 whatever the body holds, including
 * where the rule is more than a permission (a person rather than a service account, the space's owner).
 */
let server: TestServer;
let org: Org;
let staff: Client;
let outsider: Client;
let space: string;
let fileId: string;
let automationId: string;
let proposalId: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  staff = (await addStaff(org)).api;
  outsider = (await addMember(org, ["Member"])).api;
  const base = `/api/v1/organizations/${org.id}`;
  space = `${base}/spaces/${(await org.owner.api.post(`${base}/spaces`, { name: "Order" })).body.id}`;
  fileId = (await org.owner.api.post(`${space}/files/text`, { name: "notes.md", content: "x" })).body.node.id;
  const automation = await staff.post(`${space}/automations`, { name: "Nightly", kind: "scheduled" });
  automationId = automation.body.automation.id;
  const proposal = await staff.post(`${space}/files/${fileId}/proposals`, { proposed_content: "y" });
  proposalId = proposal.body.proposal.id;
});
afterAll(() => server.stop());

describe("a caller refused by the route's rule", () => {
  const cases: [string, () => Client, string, () => string, unknown, string][] = [
    [
      "PATCH /me by staff",
      () => staff,
      "PATCH",
      () => "/api/v1/me",
      { display_name: 5 },
      "service accounts are renamed with PATCH /service-accounts/{id}",
    ],
    [
      "POST /me/password by staff",
      () => staff,
      "POST",
      () => "/api/v1/me/password",
      {},
      "service accounts have no password",
    ],
    [
      "a file rename by staff",
      () => staff,
      "PATCH",
      () => `${space}/files/${fileId}`,
      { name: 5 },
      "service accounts cannot change existing files: propose a patch instead",
    ],
    [
      "an automation approval by staff",
      () => staff,
      "POST",
      () => `${space}/automations/${automationId}/approve`,
      { extra: 1 },
      "only a person can approve or reject an automation",
    ],
    [
      "an automation rejection by staff",
      () => staff,
      "POST",
      () => `${space}/automations/${automationId}/reject`,
      { reason: 5 },
      "only a person can approve or reject an automation",
    ],
    [
      "a proposal acceptance by staff",
      () => staff,
      "POST",
      () => `${space}/files/proposals/${proposalId}/accept`,
      { extra: 1 },
      "only a person can accept or reject a proposal",
    ],
    [
      "a proposal rejection by staff",
      () => staff,
      "POST",
      () => `${space}/files/proposals/${proposalId}/reject`,
      { extra: 1 },
      "only a person can accept or reject a proposal",
    ],
    [
      "adding a space member, not its owner",
      () => outsider,
      "POST",
      () => `${space}/members`,
      { user_id: 5 },
      "only a space owner can manage its members",
    ],
    [
      "adding a space member with no body, not its owner",
      () => outsider,
      "POST",
      () => `${space}/members`,
      {},
      "only a space owner can manage its members",
    ],
  ];
  for (const [name, who, method, path, body, error] of cases) {
    it(`answers 403 before the body is read: ${name}`, async () => {
      const caller = who();
      const res = method === "PATCH" ? await caller.patch(path(), body) : await caller.post(path(), body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error });
    });
  }

  it("still gets 404 for a space it cannot see, before the rule", async () => {
    const res = await staff.post(
      `/api/v1/organizations/${org.id}/spaces/00000000-0000-4000-8000-000000000000/members`,
      {},
    );
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "space not found" });
  });
});
