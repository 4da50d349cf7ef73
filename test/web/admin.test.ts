/**
 * The admin screens in a real browser against the compiled binary: AI staff (create, token shown once,
 * activity of a reply through a loopback fake gateway, live), provider keys (only the hint), a space's
 * automations (create with a write-only OAuth token, pause, remove the token), the approval inbox (a staff
 * proposal approved, another rejected with a reason, a new one arriving live), and organization settings
 * (invite link accepted in another browser, open signups and approving a request, a custom role).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { avatarBackground } from "../../web/src/lib/ui";
import { DESKTOP, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org, OWNER } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { client } from "../helpers/http";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let fake: FakeProvider;
let spaceId: string;

const orgPath = () => `/api/v1/organizations/${org.id}`;
const automationsPath = () => `${orgPath()}/spaces/${spaceId}/automations`;

/** Polls the API until `check` holds on what `read` answers. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  fake = startFakeProvider(() => completion("Happy to help: the launch is on Tuesday."));
  const started = await Promise.all([
    launchBrowser(),
    startWorkspace({ MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` }),
  ]);
  browser = started[0];
  ({ server, org } = started[1]);
  const space = await org.owner.api.post(`${orgPath()}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space: ${space.status} ${space.text}`);
  spaceId = space.body.id;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  fake?.stop();
});

async function ownerPage(path: string, viewport = DESKTOP): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await signedInPage(browser, server, OWNER, path, { viewport });
  return { page, close: () => context.close() };
}

describe("AI staff", () => {
  it("creates a staff member and shows its token once, in a dialog that does not come back", async () => {
    const { page, close } = await ownerPage("/staff");
    await page.getByRole("heading", { name: "AI staff" }).waitFor();
    await page.getByText("No AI staff yet.").waitFor();
    await page.getByRole("button", { name: "New staff member" }).click();
    const form = page.getByRole("dialog", { name: "New staff member" });
    await form.getByLabel("Name", { exact: true }).fill("Ada");
    // The model field shows the default as a placeholder and may stay empty.
    expect(await form.getByLabel("Model", { exact: true }).getAttribute("placeholder")).toBe(
      "meta-llama/llama-3.3-70b-instruct:free",
    );
    await form.getByRole("button", { name: "Create staff member" }).click();

    const dialog = page.getByRole("dialog", { name: "Ada's token" });
    await dialog.waitFor();
    await dialog.getByText("This is the only time the token is shown").waitFor();
    const token = await dialog.getByLabel("Token").inputValue();
    expect(token).toStartWith("sa_");
    await dialog.getByRole("button", { name: "Copy" }).waitFor();
    // The token works: it is the staff member's.
    const me = await client(server.url, token).get("/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.user.display_name).toBe("Ada");

    await dialog.getByRole("button", { name: "I have saved it" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await page.content()).not.toContain(token);
    const card = page.getByRole("link", { name: "Ada", exact: true });
    await card.waitFor();
    await page.getByText("meta-llama/llama-3.3-70b-instruct:free").waitFor();

    // Its own page: settings (the token is not among them) and the activity, empty for now.
    await card.click();
    await page.getByRole("heading", { name: "Ada", level: 1 }).waitFor();
    await page.getByText("Nothing yet. Mention this staff member").waitFor();
    const settings = page.getByRole("form", { name: "Staff settings" });
    expect(await settings.getByLabel("Model", { exact: true }).inputValue()).toBe(
      "meta-llama/llama-3.3-70b-instruct:free",
    );
    expect(await page.content()).not.toContain(token);
    await close();
  });

  it("edits and deletes a staff member, asking first", async () => {
    const staff = await addStaff(org, { name: "Temp" });
    const { page, close } = await ownerPage(`/staff/${staff.account.user_id}`);
    const settings = page.getByRole("form", { name: "Staff settings" });
    await settings.getByLabel("Name", { exact: true }).fill("Temporary");
    await settings.getByLabel("Model", { exact: true }).fill("test/model-b");
    await settings.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Temporary", level: 1 }).waitFor();
    const listed = await org.owner.api.get(`${orgPath()}/service-accounts`);
    expect(listed.body.service_accounts.find((a: any) => a.id === staff.account.id)).toMatchObject({
      name: "Temporary",
      modelrouter_model: "test/model-b",
    });

    await page.getByRole("button", { name: "Delete Temporary" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete Temporary?" });
    await confirm.getByRole("button", { name: "Delete staff member" }).click();
    await page.waitForURL(/\/staff$/);
    expect((await staff.api.get("/api/v1/me")).status).toBe(401);
    // Its page went away with it: the keyboard lands on the row that took its place (here the one above, Ada).
    await page.waitForFunction(() => document.activeElement?.textContent === "Ada");
    expect(await page.evaluate(() => document.activeElement?.closest(".staff-grid") !== null)).toBe(true);
    await close();
  });
});

describe("provider keys", () => {
  it("saves a key and shows only its hint, never the key", async () => {
    const key = `sk-test-${crypto.randomUUID()}-wxyz`;
    const { page, close } = await ownerPage("/settings/integrations");
    const panel = page.getByRole("region", { name: /Model gateway/ });
    await panel.getByText("Not set").waitFor();
    await panel.getByLabel("Model gateway key").fill(key);
    await panel.getByRole("button", { name: "Save key" }).click();
    await panel.getByText("****wxyz").waitFor();
    await panel.getByText("Configured").waitFor();
    expect(await panel.getByLabel("New model gateway key").inputValue()).toBe("");
    expect(await page.content()).not.toContain(key);
    // After a reload, too: only the hint.
    await page.reload();
    await page
      .getByRole("region", { name: /Model gateway/ })
      .getByText("****wxyz")
      .waitFor();
    expect(await page.content()).not.toContain(key);
    const stored = await org.owner.api.get(`${orgPath()}/integrations/modelrouter`);
    expect(stored.body.integration).toMatchObject({ configured: true, key_hint: "****wxyz" });
    await close();
  });
});

describe("staff activity", () => {
  it("lists what a staff member did, live, linked to the room", async () => {
    const key = await org.owner.api.put(`${orgPath()}/integrations/modelrouter`, { api_key: "sk-test-activity-1234" });
    expect(key.status).toBe(200);
    const staff = await until(
      () => org.owner.api.get(`${orgPath()}/service-accounts`),
      (r) => r.body.service_accounts.some((a: any) => a.name === "Ada"),
      "Ada",
    );
    const ada = staff.body.service_accounts.find((a: any) => a.name === "Ada");
    const { page, close } = await ownerPage(`/staff/${ada.user_id}`);
    await page.getByText("Nothing yet. Mention this staff member").waitFor();

    const rooms = await org.owner.api.get(`${orgPath()}/spaces/${spaceId}/chat-rooms`);
    const roomId = rooms.body.chat_rooms[0].id;
    const posted = await org.owner.api.post(`${orgPath()}/spaces/${spaceId}/chat-rooms/${roomId}/messages`, {
      content: "@Ada when is the launch?",
    });
    expect(posted.status).toBe(201);

    // Arrives without a reload (ai.reply.* events), and names the room it answered in.
    const entry = page.locator(".activity-entry").first();
    await entry.getByText("answered a mention in").waitFor({ timeout: 15_000 });
    const room = entry.getByRole("link", { name: "#general" });
    await room.waitFor();
    expect(await room.getAttribute("href")).toBe(`/spaces/${spaceId}/chat/${roomId}`);
    await entry.getByText("meta-llama/llama-3.3-70b-instruct:free", { exact: false }).waitFor();
    await screenshot(page, "staff");

    // The staff list shows it too, for everyone.
    await page.getByRole("link", { name: "← All staff" }).click();
    await page.locator(".activity-entry").getByRole("link", { name: "Ada" }).first().waitFor();
    await close();
  });
});

describe("AI staff for members", () => {
  it("lists the staff read-only for a member who cannot manage them", async () => {
    const member = await addMember(org, ["Member"], "Mo Member");
    const { context, page } = await signedInPage(browser, server, member, "/staff");
    // The card comes first; the activity below links the name too.
    await page.getByRole("link", { name: "Ada", exact: true }).first().click();
    await page.getByRole("heading", { name: "Ada", level: 1 }).waitFor();
    await page.locator(".activity-entry").first().getByText("answered a mention in").waitFor();
    expect(await page.getByRole("button", { name: "New staff member" }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Staff settings" }).count()).toBe(0);
    await context.close();
  });
});

describe("space members", () => {
  it("asks before removing someone from a space, naming them", async () => {
    const member = await addMember(org, ["Member"], "Rob Removed");
    const created = await org.owner.api.post(`${orgPath()}/spaces`, { name: "Vault", private: true });
    expect(created.status).toBe(201);
    const vault = created.body.id as string;
    const members = `${orgPath()}/spaces/${vault}/members`;
    expect((await org.owner.api.post(members, { user_id: member.id })).status).toBe(201);

    const { page, close } = await ownerPage(`/spaces/${vault}/settings`);
    const remove = page.getByRole("button", { name: "Remove Rob Removed" });
    await remove.click();
    const dialog = page.getByRole("dialog", { name: "Remove Rob Removed from Vault?" });
    await dialog.getByText("Rob Removed loses access").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await remove.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await org.owner.api.get(members)).body.members).toHaveLength(2);

    await remove.click();
    await dialog.getByRole("button", { name: "Remove" }).click();
    await remove.waitFor({ state: "detached" });
    expect((await org.owner.api.get(members)).body.members).toHaveLength(1);
    expect((await member.api.get(`${orgPath()}/spaces/${vault}`)).status).toBe(404);
    // The keyboard lands on adding someone, since the row went away.
    await page.waitForFunction(() => document.activeElement?.tagName === "SELECT");
    await close();
  });

  it("lets a member leave a private space, after asking, and takes them back to the spaces", async () => {
    const member = await addMember(org, ["Member"], "Lea Leaver");
    const created = await org.owner.api.post(`${orgPath()}/spaces`, { name: "Hush", private: true });
    expect(created.status).toBe(201);
    const hush = created.body.id as string;
    expect((await org.owner.api.post(`${orgPath()}/spaces/${hush}/members`, { user_id: member.id })).status).toBe(201);

    const { context, page } = await signedInPage(browser, server, member, `/spaces/${hush}/settings`);
    const nav = page.getByRole("navigation", { name: "Workspace" });
    await nav.getByText("Hush").waitFor();
    const row = page.locator("li.row").filter({ hasText: "Lea Leaver" });
    // A member who does not own the space removes no one else, and may leave.
    expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(0);
    await row.getByRole("button", { name: "Leave" }).click();
    const dialog = page.getByRole("dialog", { name: "Leave Hush?" });
    await dialog.getByText("you will no longer see it").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await org.owner.api.get(`${orgPath()}/spaces/${hush}/members`)).body.members).toHaveLength(2);

    await row.getByRole("button", { name: "Leave" }).click();
    await page.getByRole("dialog", { name: "Leave Hush?" }).getByRole("button", { name: "Leave" }).click();
    await page.waitForURL(/\/spaces$/);
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    expect(await nav.getByText("Hush").count()).toBe(0);
    expect((await member.api.get(`${orgPath()}/spaces/${hush}`)).status).toBe(404);
    await context.close();
  });
});

describe("automations of a space", () => {
  it("creates one with a write-only OAuth token, pauses it, and removes the token", async () => {
    const { page, close } = await ownerPage(`/spaces/${spaceId}/automations`);
    await page.getByRole("button", { name: "New automation" }).click();
    const form = page.getByRole("dialog", { name: "New automation" });
    await form.getByLabel("Name", { exact: true }).fill("Launch post");
    await form.getByLabel("Kind").selectOption("social_post");
    await form.getByLabel("Status").selectOption("active");
    await form.getByLabel("Text to post").fill("We just shipped!");
    await form.getByLabel("OAuth token").fill("oauth-secret-value-1");
    await form.getByRole("button", { name: "Create automation" }).click();
    const card = page.getByRole("article", { name: "Launch post" });
    await card.getByText("Active").waitFor();
    await card.getByText("set (write-only)").waitFor();
    expect(await page.content()).not.toContain("oauth-secret-value-1");
    let listed = (await org.owner.api.get(automationsPath())).body.automations;
    const created = listed.find((a: any) => a.name === "Launch post");
    expect(created).toMatchObject({
      status: "active",
      kind: "social_post",
      config: { text: "We just shipped!" },
      has_oauth_token: true,
      config_problem: null,
    });

    await card.getByRole("button", { name: "Pause" }).click();
    await card.getByText("Paused").waitFor();
    await card.getByRole("button", { name: "Resume" }).waitFor();

    await card.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("dialog", { name: "Edit “Launch post”" });
    await edit.getByLabel("Remove it").check();
    await edit.getByRole("button", { name: "Save" }).click();
    await card.getByText("OAuth token: none").waitFor();
    listed = (await org.owner.api.get(automationsPath())).body.automations;
    expect(listed.find((a: any) => a.id === created.id)).toMatchObject({ status: "paused", has_oauth_token: false });
    await close();
  });
});

describe("approval inbox", () => {
  it("approves one staff proposal and rejects another with a reason; new ones arrive live", async () => {
    const staff = await addStaff(org, { name: "Proposer" });
    const propose = async (name: string, description: string) => {
      const res = await staff.api.post(automationsPath(), {
        name,
        kind: "webhook",
        status: "active",
        config: { url: "https://example.com/hook" },
        description,
      });
      expect(res.status).toBe(201);
      expect(res.body.automation.status).toBe("pending_approval");
      return res.body.automation;
    };
    const first = await propose("Deploy hook", "Deploy **on every merge** to main.");
    const second = await propose("Spam poster", "Post every minute.");

    const { page, close } = await ownerPage("/approvals");
    const one = page.getByRole("article", { name: "Deploy hook" });
    await one.getByText("Deploy on every merge to main.").waitFor();
    await one.getByText("Proposer").first().waitFor();
    await page.getByRole("main").getByText("2 waiting").waitFor();
    await screenshot(page, "approvals");

    await one.getByRole("button", { name: "Approve" }).focus();
    await page.keyboard.press("Enter");
    await one.waitFor({ state: "detached" });
    // The keyboard moves on to the next proposal, not to the page.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null);
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Spam poster");
    const approved = (await org.owner.api.get(automationsPath())).body.automations.find((a: any) => a.id === first.id);
    expect(approved).toMatchObject({ status: "active", reviewed_by_user_id: org.owner.id });

    const two = page.getByRole("article", { name: "Spam poster" });
    await two.getByRole("button", { name: "Reject" }).click();
    const dialog = page.getByRole("dialog", { name: "Reject “Spam poster”" });
    await dialog.getByLabel("Reason").fill("Far too often: once a day at most.");
    await dialog.getByRole("button", { name: "Reject" }).click();
    await two.waitFor({ state: "detached" });
    const rejected = (await org.owner.api.get(automationsPath())).body.automations.find((a: any) => a.id === second.id);
    expect(rejected).toMatchObject({ status: "rejected", rejection_reason: "Far too often: once a day at most." });
    await page.getByText("Nothing waits for approval.").waitFor();
    // The last one gone, the empty state has the keyboard.
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith("Nothing waits for approval."));
    expect(await focused()).toBeNull();

    // A proposal made while the inbox is open shows up without a reload.
    await propose("Weekly report", "Summarise the week on Fridays.");
    await page.getByRole("article", { name: "Weekly report" }).waitFor();
    await close();
  });

  it("shows the API's refusal when a staff token tries to approve", async () => {
    const staff = await addStaff(org, { name: "Self approver" });
    const res = await staff.api.post(automationsPath(), { name: "Own idea", kind: "scheduled" });
    const context = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    // A staff token stored as the session: the app works with it like any token.
    await context.addInitScript((token: string) => {
      localStorage.setItem(
        "tandem.session",
        JSON.stringify({ access_token: token, refresh_token: "none", expires_at: Date.now() + 3_600_000 }),
      );
    }, staff.token);
    const page = await context.newPage();
    await page.goto("/approvals");
    const card = page.getByRole("article", { name: "Own idea" });
    await card.getByRole("button", { name: "Approve" }).click();
    await card.getByRole("alert").getByText("only a person can approve or reject an automation").waitFor();
    const still = (await org.owner.api.get(automationsPath())).body.automations.find(
      (a: any) => a.id === res.body.automation.id,
    );
    expect(still.status).toBe("pending_approval");
    await context.close();
  });
});

describe("organization settings", () => {
  it("creates an invite link that a new person accepts in another browser", async () => {
    const { page, close } = await ownerPage("/settings/invites");
    await page.getByLabel("Email (optional)").fill("newbie@acme.test");
    await page.getByLabel("Email (optional)").press("Enter");
    // The new link takes the keyboard, selected for copying, so a screen reader reads it out.
    const field = page.getByLabel("Invite link");
    await field.waitFor();
    await page.waitForFunction(() => {
      const active = document.activeElement as HTMLInputElement | null;
      return (
        active?.readOnly === true && active.value.includes("/invite?") && active.selectionEnd === active.value.length
      );
    });
    const link = await field.inputValue();
    const url = new URL(link);
    expect(url.origin).toBe(server.url);
    expect(url.pathname).toBe("/invite");
    expect(url.searchParams.get("email")).toBe("newbie@acme.test");
    expect(url.searchParams.get("token")).toBeTruthy();
    await page.locator(".invite-row", { hasText: "newbie@acme.test" }).getByText("Pending").waitFor();
    await screenshot(page, "settings");

    const other = await browser.newContext({ baseURL: server.url, viewport: PHONE });
    const newbie = await other.newPage();
    await newbie.goto(link);
    // The page names the organization the invite is for.
    const orgName = (await org.owner.api.get(orgPath())).body.organization.name as string;
    await newbie.getByRole("heading", { name: `Join ${orgName} on Tandem` }).waitFor();
    expect(await newbie.getByLabel("Email").inputValue()).toBe("newbie@acme.test");
    // The invite is for that address: the field is fixed, with the reason beside it.
    expect(await newbie.getByLabel("Email").evaluate((el) => (el as HTMLInputElement).readOnly)).toBe(true);
    await newbie.getByText("This invite is for this address.").waitFor();
    await newbie.getByLabel("Your name").fill("Nina Newbie");
    await newbie.getByLabel("Password (at least 8 characters)").fill("newbie-password");
    await newbie.getByRole("button", { name: "Join" }).click();
    await newbie.getByRole("heading", { name: "Spaces" }).waitFor();
    await newbie.getByRole("main").getByRole("link", { name: "Launch" }).first().waitFor();
    await other.close();
    // Used once, the link says so before anyone types anything.
    const late = await browser.newContext({ baseURL: server.url, viewport: PHONE });
    const latePage = await late.newPage();
    await latePage.goto(link);
    await latePage.getByRole("alert").filter({ hasText: "invalid or expired invite" }).waitFor();
    expect(await latePage.getByRole("button", { name: "Join" }).count()).toBe(0);
    await late.close();

    await page.reload();
    await page.locator(".invite-row", { hasText: "newbie@acme.test" }).getByText("Accepted").waitFor();
    const members = await org.owner.api.get(`${orgPath()}/members`);
    expect(members.body.members.map((m: any) => m.display_name)).toContain("Nina Newbie");
    await close();
  });

  it("brings a removed member back through an invite link, signed in or signing in from the invite page", async () => {
    const rita = await addMember(org, ["Member"], "Rita Returning");
    const orgName = (await org.owner.api.get(orgPath())).body.organization.name as string;
    const remove = async () => expect((await org.owner.api.delete(`${orgPath()}/members/${rita.id}`)).status).toBe(204);
    const inviteLink = async (email?: string) => {
      const res = await org.owner.api.post(`${orgPath()}/invites`, {
        ...(email ? { email } : {}),
        role_ids: [org.roles.Member],
      });
      expect(res.status).toBe(201);
      return `/invite?token=${encodeURIComponent(res.body.token)}`;
    };
    const isMember = async () =>
      ((await org.owner.api.get(`${orgPath()}/members`)).body.members as any[]).some((m) => m.user_id === rita.id);

    // Signed in with no organization: the invite link is not hidden behind "No organization".
    await remove();
    const { context, page } = await signedInPage(browser, server, rita, "/spaces");
    await page.getByRole("heading", { name: "No organization" }).waitFor();
    await page.goto(await inviteLink(rita.email));
    await page.getByRole("heading", { name: `Join ${orgName} as ${rita.email}` }).waitFor();
    await page.getByLabel("Password").fill("not-her-password");
    await page.getByRole("button", { name: "Join" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: `That is not the password of ${rita.email}.` })
      .waitFor();
    await page.getByLabel("Password").fill(rita.password);
    await page.getByRole("button", { name: "Join" }).click();
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    expect(await isMember()).toBe(true);
    // A member opening an invite link is told so, and the invite stays for whoever it was for.
    const spare = await inviteLink();
    await page.goto(spare);
    await page.getByText(`You are already a member of ${orgName} as ${rita.email}.`).waitFor();
    await context.close();

    // Signed out, "Sign in" on the invite page keeps the invite: back there once signed in, to join.
    await remove();
    const other = await browser.newContext({ baseURL: server.url, viewport: DESKTOP });
    const guest = await other.newPage();
    await guest.goto(spare);
    await guest.getByRole("heading", { name: `Join ${orgName} on Tandem` }).waitFor();
    await guest.getByRole("link", { name: "Sign in" }).click();
    await guest.waitForURL(/\/login\?invite=/);
    await guest.getByLabel("Email").fill(rita.email);
    await guest.getByLabel("Password").fill(rita.password);
    await guest.getByRole("button", { name: "Sign in" }).click();
    await guest.getByRole("heading", { name: `Join ${orgName} as ${rita.email}` }).waitFor();
    expect(new URL(guest.url()).pathname).toBe("/invite");
    await guest.getByLabel("Password").fill(rita.password);
    await guest.getByRole("button", { name: "Join" }).click();
    await guest.getByRole("heading", { name: "Spaces" }).waitFor();
    expect(await isMember()).toBe(true);
    await other.close();
  });

  it("turns open signups on, and approves a request with a role", async () => {
    const { page, close } = await ownerPage("/settings");
    await page.waitForURL(/\/settings\/organization$/);
    const toggle = page.getByRole("switch", { name: /Open signups/ });
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    await until(
      () => org.owner.api.get(orgPath()),
      (r) => r.body.organization.open_signups_enabled === true,
      "open signups",
    );
    await page.getByRole("link", { name: "Sign-up requests" }).first().click();
    await page.getByText("Nobody is waiting for approval.").waitFor();
    const registered = await org.anon.post("/api/v1/auth/register", {
      email: "walkin@acme.test",
      password: "walkin-password",
      display_name: "Walter Walkin",
    });
    expect(registered.status).toBe(201);
    // No live event for requests: the open list asks again when the tab comes back into view (and every 15 s).
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await page.getByRole("button", { name: "Approve Walter Walkin" }).click();
    const dialog = page.getByRole("dialog", { name: "Approve Walter Walkin" });
    await dialog.getByRole("checkbox", { name: "Member" }).waitFor();
    expect(await dialog.getByRole("checkbox", { name: "Member" }).isChecked()).toBe(true);
    await dialog.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Nobody is waiting for approval.").waitFor();
    const login = await org.anon.post("/api/v1/auth/login", { email: "walkin@acme.test", password: "walkin-password" });
    expect(login.body.signup_pending).toBeUndefined();

    await page.getByRole("link", { name: "Organization" }).click();
    await page.getByRole("switch", { name: /Open signups/ }).uncheck();
    await until(
      () => org.owner.api.get(orgPath()),
      (r) => r.body.organization.open_signups_enabled === false,
      "open signups off",
    );
    await close();
  });

  it("creates a custom role with checkboxes and marks system roles", async () => {
    const { page, close } = await ownerPage("/settings/roles");
    await page.getByRole("listitem").filter({ hasText: "Owner" }).getByText("System").waitFor();
    await page.getByRole("button", { name: "New role" }).click();
    const dialog = page.getByRole("dialog", { name: "New role" });
    await dialog.getByLabel("Name", { exact: true }).fill("Reviewer");
    await dialog.getByRole("checkbox", { name: /Read files/ }).check();
    await dialog.getByRole("checkbox", { name: /Write files/ }).check();
    await dialog.getByRole("button", { name: "Create role" }).click();
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Reviewer" }) });
    await card.getByText("files.write").waitFor();
    const roles = await org.owner.api.get(`${orgPath()}/roles`);
    expect(roles.body.roles.find((r: any) => r.name === "Reviewer")).toMatchObject({
      is_system: false,
      permissions: ["files.read", "files.write"],
    });
    await close();
  });

  it("shows a member manager only their tabs, and the refusal in words on another reached by URL", async () => {
    const role = await org.owner.api.post(`${orgPath()}/roles`, {
      name: "People manager",
      permissions: ["org.members.manage"],
    });
    const invite = await org.owner.api.post(`${orgPath()}/invites`, {
      email: "pat@acme.test",
      role_ids: [role.body.role.id],
    });
    const who = { email: "pat@acme.test", password: "pat-password" };
    const accepted = await org.anon.post("/api/v1/auth/accept-invite", {
      token: invite.body.token,
      ...who,
      display_name: "Pat Manager",
    });
    expect(accepted.status).toBe(201);

    const { context, page } = await signedInPage(browser, server, who, "/settings");
    await page.waitForURL(/\/settings\/members$/);
    const tabs = page.getByRole("navigation", { name: "Settings" });
    await tabs.getByRole("link", { name: "Members" }).waitFor();
    expect(await tabs.getByRole("link", { name: "Organization" }).count()).toBe(0);
    expect(await tabs.getByRole("link", { name: "Integrations" }).count()).toBe(0);

    // Roles holding permissions Pat lacks cannot be granted by Pat: the checkbox says so.
    await page.getByRole("button", { name: "Roles for Nina Newbie" }).click();
    const dialog = page.getByRole("dialog", { name: "Roles of Nina Newbie" });
    expect(await dialog.getByRole("checkbox", { name: /Owner/ }).isDisabled()).toBe(true);
    expect(await dialog.getByRole("checkbox", { name: /^Viewer/ }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await page.goto("/settings/integrations");
    await page.getByRole("alert").filter({ hasText: "missing permission: org.manage" }).waitFor();
    await page
      .getByRole("region", { name: /Model gateway/ })
      .getByLabel("New model gateway key")
      .fill("sk-nope-0000");
    await page.getByRole("button", { name: "Replace key" }).first().click();
    await page
      .getByRole("region", { name: /Model gateway/ })
      .getByRole("alert")
      .getByText("missing permission: org.manage")
      .waitFor();
    await context.close();
  });
});

describe("review fixes", () => {
  it("names fields by their label only, not by the button beside them", async () => {
    const { page, close } = await ownerPage("/settings/organization");
    // Exact names: "Name Save" or "Model gateway key Save key" would not match.
    await page.getByRole("textbox", { name: "Name", exact: true }).waitFor();
    await page.getByRole("link", { name: "Integrations" }).click();
    const agent = page.getByRole("region", { name: /Cloud agents/ });
    await agent.getByText("Not set").waitFor();
    expect(await agent.getByLabel("Cloud agents key", { exact: true }).count()).toBe(1);
    // The model gateway's key was set by an earlier test: it is the field for a new one.
    expect(await page.getByLabel("New model gateway key", { exact: true }).count()).toBe(1);
    await close();
  });

  it("says the spaces are loading rather than that there are none", async () => {
    let delayed = 0;
    const { context, page } = await signedInPage(browser, server, OWNER, "/spaces", {
      setup: (p) =>
        p.route(/\/api\/v1\/organizations\/[^/]+\/spaces$/, async (route) => {
          delayed++;
          await Bun.sleep(800);
          await route.continue();
        }),
    });
    await page.getByText("Loading spaces…").waitFor();
    expect(await page.getByText("No spaces yet.").count()).toBe(0);
    await page.getByRole("main").getByRole("link", { name: "Launch" }).first().waitFor();
    expect(await page.getByText("No spaces yet.").count()).toBe(0);
    expect(delayed).toBeGreaterThan(0);
    await page.getByRole("button", { name: "New space" }).waitFor();
    await context.close();
  });

  it("does not offer Leave to a space's only owner, until someone else is made an owner", async () => {
    const member = await addMember(org, ["Member"], "Cora Coowner");
    const created = await org.owner.api.post(`${orgPath()}/spaces`, { name: "Solo" });
    const solo = created.body.id as string;
    const { page, close } = await ownerPage(`/spaces/${solo}/settings`);
    const mine = page.locator("li.row").filter({ hasText: "Olivia Owner" });
    await mine.getByText("Only owner: make someone else an owner before leaving").waitFor();
    expect(await mine.getByRole("button", { name: "Leave" }).count()).toBe(0);

    await page.getByLabel("Person to add").selectOption({ label: "Cora Coowner" });
    await page.getByLabel("Role in the space").selectOption("owner");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.locator("li.row").filter({ hasText: "Cora Coowner" }).getByText("owner").waitFor();
    await mine.getByRole("button", { name: "Leave" }).waitFor();
    const members = (await org.owner.api.get(`${orgPath()}/spaces/${solo}/members`)).body.members;
    expect(members.find((m: any) => m.user_id === member.id)).toMatchObject({ role: "owner" });
    await close();
  });

  it("clears a staff name's refusal once the name is changed", async () => {
    const { page, close } = await ownerPage("/staff");
    await page.getByRole("button", { name: "New staff member" }).click();
    const form = page.getByRole("dialog", { name: "New staff member" });
    await form.getByLabel("Name", { exact: true }).fill("ada");
    await form.getByRole("button", { name: "Create staff member" }).click();
    const refusal = form.getByRole("alert").filter({ hasText: "already exists" });
    await refusal.waitFor();
    await form.getByLabel("Name", { exact: true }).fill("Bob");
    await refusal.waitFor({ state: "detached" });
    await form.getByRole("button", { name: "Cancel" }).click();
    await close();
  });

  it("keeps the automations and sign-up filters in the address, through a reload", async () => {
    const { page, close } = await ownerPage(`/spaces/${spaceId}/automations`);
    await page.getByRole("button", { name: /^Paused/ }).click();
    await page.waitForURL(/\/automations\?status=paused$/);
    await page.reload();
    expect(await page.getByRole("button", { name: /^Paused/ }).getAttribute("aria-pressed")).toBe("true");
    expect(await page.getByRole("button", { name: /^All/ }).getAttribute("aria-pressed")).toBe("false");
    await page.getByRole("button", { name: /^All/ }).click();
    await page.waitForURL(/\/automations$/);

    await page.goto("/settings/signups");
    await page.getByRole("button", { name: "Approved" }).click();
    await page.waitForURL(/\/settings\/signups\?status=approved$/);
    await page.getByText("Walter Walkin").waitFor();
    await page.reload();
    expect(await page.getByRole("button", { name: "Approved" }).getAttribute("aria-pressed")).toBe("true");
    await page.getByText("Walter Walkin").waitFor();
    await page.getByRole("button", { name: "All", exact: true }).click();
    await page.waitForURL(/\/settings\/signups\?status=all$/);
    await page.goBack();
    await page.goForward();
    expect(await page.getByRole("button", { name: "All", exact: true }).getAttribute("aria-pressed")).toBe("true");
    await close();
  });

  it("gives avatar initials at least 4.5:1 contrast on every avatar colour", async () => {
    await addMember(org, ["Viewer"], "Vera Viewer");
    const { page, close } = await ownerPage("/settings/members");
    await page.getByText("Vera Viewer").first().waitFor();
    const hues = Array.from({ length: 360 }, (_, hue) => avatarBackground(hue));
    const worst = await page.evaluate((backgrounds: string[]) => {
      const luminance = (css: string) => {
        const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
          const c = Number(v) / 255;
          return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        }) as [number, number, number];
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ratio = (a: string, b: string) => {
        const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m) as [number, number];
        return (x + 0.05) / (y + 0.05);
      };
      // Every avatar on the page, as rendered, and every colour an avatar can get.
      const shown = [...document.querySelectorAll<HTMLElement>(".avatar")].map((el) => {
        const style = getComputedStyle(el);
        return ratio(style.color, style.backgroundColor);
      });
      const probe = document.createElement("span");
      document.body.append(probe);
      const all = backgrounds.map((background) => {
        probe.style.background = background;
        return ratio("rgb(255, 255, 255)", getComputedStyle(probe).backgroundColor);
      });
      probe.remove();
      return { shown: Math.min(...shown), all: Math.min(...all), count: shown.length };
    }, hues);
    expect(worst.count).toBeGreaterThan(2);
    expect(worst.shown).toBeGreaterThanOrEqual(4.5);
    expect(worst.all).toBeGreaterThanOrEqual(4.5);
    await close();
  });
});

describe("keyboard and screen readers in settings", () => {
  it("keeps the keyboard on Save roles when the last owner's Owner role is refused, and says why", async () => {
    const members = await org.owner.api.get(`${orgPath()}/members`);
    const owners = (members.body.members as { role_ids: string[] }[]).filter((m) =>
      m.role_ids.includes(org.roles.Owner),
    );
    // Olivia is the only owner: taking her Owner role away is refused (and nothing is changed).
    expect(owners.length).toBe(1);
    const { page, close } = await ownerPage("/settings/members");
    // Olivia may have inbox items from earlier tests: the title then starts with their count, "(2) ".
    await page.waitForFunction(() => document.title.replace(/^\(\d+\) /, "") === "Members · Settings · Tandem");
    await page.getByRole("button", { name: "Roles for Olivia Owner" }).click();
    const dialog = page.getByRole("dialog", { name: "Roles of Olivia Owner" });
    await dialog.getByRole("checkbox", { name: /^Owner/ }).focus();
    await page.keyboard.press("Space");
    const save = dialog.getByRole("button", { name: "Save roles" });
    await save.focus();
    await page.keyboard.press("Enter");
    await dialog.getByRole("alert").filter({ hasText: "cannot remove the last owner" }).waitFor();
    expect(await save.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Escape");
    await close();
  });

  it("tells a Viewer of the missing permission on Members once", async () => {
    const viewer = await addMember(org, ["Viewer"], "Vera Viewer");
    const { context, page } = await signedInPage(browser, server, viewer, "/settings/members");
    await page.getByRole("alert").filter({ hasText: "missing permission: org.members.manage" }).first().waitFor();
    // The list's own refusal has had time to come back.
    await page.waitForFunction(() => !document.querySelector('.settings-body [aria-busy="true"]'));
    await page.waitForTimeout(300);
    expect(await page.getByRole("alert").count()).toBe(1);
    await context.close();
  });
});
