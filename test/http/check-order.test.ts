import { afterAll, beforeAll, describe } from "bun:test";
import { addMember, addStaff, type Org, setupOrg } from "../helpers/factories";
import type { Client } from "../helpers/http";
import { scenarios } from "../helpers/scenarios";
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

const NOT_OWNER = "a Member, not the space's owner";
const APPROVAL = "only a person can approve or reject an automation";
const REVIEW = "only a person can accept or reject a proposal";
const MEMBERS = "only a space owner can manage its members";

describe("a caller refused by the route's rule, whatever the body holds", () => {
  scenarios(
    {
      url: () => server.url,
      tokens: () => ({ staff: staff.token, [NOT_OWNER]: outsider.token }),
      params: () => ({ orgId: org.id, space, fileId, automationId, proposalId }),
    },
    // biome-ignore format: a table reads in columns
    [
      { method: "PATCH", url: "/api/v1/me",                                  as: "staff",   body: { display_name: 5 }, status: 403, error: "service accounts are renamed with PATCH /service-accounts/{id}" },
      { method: "POST",  url: "/api/v1/me/password",                         as: "staff",   body: {},                  status: 403, error: "service accounts have no password" },
      { method: "PATCH", url: "{space}/files/{fileId}",                      as: "staff",   body: { name: 5 },         status: 403, error: "service accounts cannot change existing files: propose a patch instead" },
      { method: "POST",  url: "{space}/automations/{automationId}/approve",  as: "staff",   body: { extra: 1 },        status: 403, error: APPROVAL },
      { method: "POST",  url: "{space}/automations/{automationId}/reject",   as: "staff",   body: { reason: 5 },       status: 403, error: APPROVAL },
      { method: "POST",  url: "{space}/files/proposals/{proposalId}/accept", as: "staff",   body: { extra: 1 },        status: 403, error: REVIEW },
      { method: "POST",  url: "{space}/files/proposals/{proposalId}/reject", as: "staff",   body: { extra: 1 },        status: 403, error: REVIEW },
      { method: "POST",  url: "{space}/members",                             as: NOT_OWNER, body: { user_id: 5 },      status: 403, error: MEMBERS },
      { method: "POST",  url: "{space}/members",                             as: NOT_OWNER, body: {},                  status: 403, error: MEMBERS },
      // A space the caller cannot see answers its 404 before the rule.
      { method: "POST",  url: "/api/v1/organizations/{orgId}/spaces/00000000-0000-4000-8000-000000000000/members", as: "staff", body: {}, status: 404, error: "space not found" },
    ],
  );
});
