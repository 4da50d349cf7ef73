/**
 * Automations in a real browser against the compiled binary, as people without the right to list staff accounts
 * see them: a Member on the space's Automations tab and a Viewer on Approvals both read which staff member
 * proposed an automation and why, named through the member list that everyone can read. Once that staff member is
 * deleted, what it made (automations, chat messages, file proposals) reads "Former AI staff". Approving says
 * that this version does not run automations.
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

describe("a deleted staff member's work", () => {
  it("names its automations, chat messages and file proposals as Former AI staff", async () => {
    const [member, staff] = await Promise.all([
      addMember(org, ["Member"], "Mo Member"),
      addStaff(org, { name: "Bob" }),
    ]);
    const space = `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
    const proposed = await staff.api.post(automationsPath(), {
      name: "Weekly digest",
      kind: "scheduled",
      config: { cron: "0 9 * * 1" },
      description: "Every Monday at 9, post a digest of the board.",
    });
    expect(proposed.status).toBe(201);
    const general = (await org.owner.api.get(`${space}/chat-rooms`)).body.chat_rooms[0];
    const said = await staff.api.post(`${space}/chat-rooms/${general.id}/messages`, { content: "Digest is ready." });
    expect(said.status).toBe(201);
    const file = await org.owner.api.post(`${space}/files/text`, { name: "notes.md", content: "Notes\n" });
    expect(file.status).toBe(201);
    const patch = await staff.api.post(`${space}/files/${file.body.node.id}/proposals`, {
      proposed_content: "Notes, tidied\n",
    });
    expect(patch.status).toBe(201);
    const gone = await org.owner.api.delete(`/api/v1/organizations/${org.id}/service-accounts/${staff.account.id}`);
    expect(gone.status).toBe(204);

    const { context, page } = await signedInPage(browser, server, member, "/approvals");
    const card = page.getByRole("article", { name: "Weekly digest" });
    await card.getByText("Every Monday at 9, post a digest of the board.").waitFor();
    expect(await card.locator("p", { hasText: "proposed by" }).textContent()).toContain("proposed by Former AI staff");
    await card.getByText("Why it was proposed").waitFor();
    expect(await card.textContent()).not.toContain("Nobody");

    await page.goto(`/spaces/${spaceId}/chat/${general.id}`);
    const message = page.getByRole("article").filter({ hasText: "Digest is ready." });
    await message.getByText("Former AI staff", { exact: true }).waitFor();

    await page.goto(`/spaces/${spaceId}/files/${file.body.node.id}`);
    const bar = page.getByRole("region", { name: "Proposed changes" });
    await bar.getByText("Former AI staff", { exact: true }).waitFor();
    await bar.getByRole("button", { name: "Review the change proposed by Former AI staff" }).waitFor();
    await context.close();
  });
});

describe("automations do not run in this version", () => {
  it("says so on the Automations tab and in Approvals, and approving does not promise a run", async () => {
    const staff = await addStaff(org, { name: "Cleo" });
    const res = await staff.api.post(automationsPath(), {
      name: "Nightly backup post",
      kind: "scheduled",
      config: { cron: "0 2 * * *" },
    });
    expect(res.status).toBe(201);
    const { context, page } = await signedInPage(browser, server, org.owner, "/approvals");
    const notice = "This version of Tandem stores, reviews and approves automations but does not run them";
    await page.getByText(notice).waitFor();
    const card = page.getByRole("article", { name: "Nightly backup post" });
    await card.getByRole("button", { name: "Approve" }).click();
    await page
      .getByText("Approved “Nightly backup post”: marked Active (this version of Tandem does not run it)")
      .waitFor();
    expect(await page.getByText("it is active now").count()).toBe(0);

    await page.goto(`/spaces/${spaceId}/automations`);
    await page.getByText(notice).waitFor();
    // The API's status name stays, with what it means beside it.
    const pill = page.getByRole("article", { name: "Nightly backup post" }).locator(".status-pill");
    expect(await pill.textContent()).toBe("Active");
    expect(await pill.getAttribute("title")).toContain("does not run automations");
    await context.close();
  });
});
