/**
 * Automations in a real browser against the compiled binary, as people without the right to list staff accounts
 * see them: a Member on the space's Automations tab and a Viewer on Approvals both read which staff member
 * proposed an automation and why, named through the member list that everyone can read.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let spaceId: string;

const automationsPath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/automations`;

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Operations" });
  expect(space.status).toBe(201);
  spaceId = space.body.id;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("who proposed an automation", () => {
  it("names the proposing staff member to a Member and to a Viewer", async () => {
    const [member, viewer, staff] = await Promise.all([
      addMember(org, ["Member"], "Tina Teammate"),
      addMember(org, ["Viewer"], "Victor Viewer"),
      addStaff(org, { name: "Ada" }),
    ]);
    const res = await staff.api.post(automationsPath(), {
      name: "Morning digest",
      kind: "scheduled",
      config: { cron: "0 9 * * *" },
      description: "So the team starts the day knowing what changed.",
    });
    expect(res.status).toBe(201);
    // Neither may list the staff accounts themselves.
    expect((await member.api.get(`/api/v1/organizations/${org.id}/service-accounts`)).status).toBe(403);

    for (const [who, path] of [
      [member, `/spaces/${spaceId}/automations`],
      [viewer, "/approvals"],
    ] as const) {
      const { context, page } = await signedInPage(browser, server, who, path);
      const card = page.getByRole("article", { name: "Morning digest" });
      await card.getByText("So the team starts the day knowing what changed.").waitFor();
      await card.getByText("Why Ada proposes it").waitFor();
      expect(await card.locator("p", { hasText: "proposed by" }).textContent()).toContain("proposed by Ada AI staff");
      await context.close();
    }
  });
});
