/**
 * Settings › Audit log in a real browser against the compiled binary: the records as a table (when, who, what,
 * target, address), filters by person and by action kept in the address, "Load more", the tab hidden from
 * those without `org.manage`, and the same screen in dark mode and at phone width.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contrast, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org, OWNER, type Person } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let manager: Person;
let removedEmail: string;
const contexts: { close(): Promise<void> }[] = [];

const orgPath = () => `/api/v1/organizations/${org.id}`;

beforeAll(async () => {
  const started = await Promise.all([launchBrowser(), startWorkspace()]);
  browser = started[0];
  ({ server, org } = started[1]);
  const role = await org.owner.api.post(`${orgPath()}/roles`, {
    name: "People lead",
    permissions: ["org.members.manage", "files.read"],
  });
  manager = await addMember(org, [], "Max Manager");
  await org.owner.api.put(`${orgPath()}/members/${manager.id}/roles`, { role_ids: [role.body.role.id] });
  const leaving = await addMember(org, ["Viewer"], "Lee Leaving");
  removedEmail = leaving.email;
  await manager.api.delete(`${orgPath()}/members/${leaving.id}`);
  const space = (await org.owner.api.post(`${orgPath()}/spaces`, { name: "Launch" })).body.id;
  const board = (await org.owner.api.get(`${orgPath()}/spaces/${space}/board`)).body;
  const task = (
    await org.owner.api.post(`${orgPath()}/spaces/${space}/tasks`, {
      title: "Old plan",
      column_id: board.columns[0].id,
    })
  ).body;
  await org.owner.api.delete(`${orgPath()}/spaces/${space}/tasks/${task.id}`);
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await server?.stop();
});

async function open(
  who: { email: string; password: string },
  path: string,
  options: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark" } = {},
): Promise<Page> {
  const { context, page } = await signedInPage(browser, server, who, path, options);
  contexts.push(context);
  return page;
}

/** The table's rows as the cells' texts. */
async function rows(page: Page): Promise<string[][]> {
  await page.locator(".audit-table tbody tr").first().waitFor();
  return page.locator(".audit-table tbody tr").evaluateAll((trs) =>
    // biome-ignore lint/performance/useDomNodeTextContent: the text as shown, line breaks included, is what is checked.
    trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim())),
  );
}

describe("Settings › Audit log", () => {
  it("lists the records newest first: when, who, what, target and the address", async () => {
    const page = await open(OWNER, "/settings/audit");
    await page.getByRole("link", { name: "Audit log" }).waitFor();
    await page.waitForFunction(() => document.title === "Audit log · Settings · Tandem");
    const headers = await page.locator(".audit-table thead th").allInnerTexts();
    expect(headers.map((h) => h.trim().toLowerCase())).toEqual(["when", "who", "what", "target", "address"]);
    const [deleted, removed] = await rows(page);
    expect(deleted?.slice(1)).toEqual(["Olivia Owner", "Deleted a task", "Old plan\nin Launch", "127.0.0.1"]);
    expect(removed?.slice(1, 4)).toEqual(["Max Manager", "Removed a member", `Lee Leaving\n${removedEmail}`]);
    await screenshot(page, "settings-audit");
  });

  it("filters by action and by person, in the address, and clears them", async () => {
    const page = await open(OWNER, "/settings/audit");
    await rows(page);
    await page.getByLabel("Action").selectOption({ label: "Removed a member" });
    await page.waitForURL(/\/settings\/audit\?action=member\.removed$/);
    await page.waitForFunction(() => document.querySelectorAll(".audit-table tbody tr").length === 1);
    expect((await rows(page))[0]?.[2]).toBe("Removed a member");

    await page.getByLabel("Action").selectOption("");
    await page.getByLabel("Person").selectOption({ label: "Max Manager" });
    await page.waitForURL(new RegExp(`\\?actor=${manager.id}$`));
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".audit-table tbody tr td:nth-child(2)")].every(
        (td) => td.textContent.trim() === "Max Manager",
      ),
    );
    expect((await rows(page)).map((r) => r[2])).toEqual(["Removed a member"]);

    // A reload keeps the filter; "Clear filters" shows everything again.
    await page.reload();
    expect(await page.getByLabel("Person").inputValue()).toBe(manager.id);
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForURL(/\/settings\/audit$/);
    await page.waitForFunction(() => document.querySelectorAll(".audit-table tbody tr").length > 1);
  });

  it("shows what one person did when their name is clicked", async () => {
    const page = await open(OWNER, "/settings/audit");
    await rows(page);
    await page.getByRole("button", { name: "Max Manager: show only what they did" }).first().click();
    await page.waitForURL(new RegExp(`\\?actor=${manager.id}$`));
    expect(await page.getByLabel("Person").inputValue()).toBe(manager.id);
  });

  it("loads older records with Load more, 50 at a time, until there are none", async () => {
    for (let i = 0; i < 60; i++) await org.owner.api.post(`${orgPath()}/invites`, { email: `guest${i}@acme.test` });
    const total = (await org.owner.api.get(`${orgPath()}/audit?limit=200`)).body.events.length;
    expect(total).toBeGreaterThan(60);
    const page = await open(OWNER, "/settings/audit");
    await page.waitForFunction(() => document.querySelectorAll(".audit-table tbody tr").length === 50);
    await page.getByRole("button", { name: "Load more" }).click();
    await page.waitForFunction(
      (n) => document.querySelectorAll(".audit-table tbody tr").length === n,
      Math.min(total, 100),
    );
    if (total > 100) await page.getByRole("button", { name: "Load more" }).click();
    await page.waitForFunction((n) => document.querySelectorAll(".audit-table tbody tr").length === n, total);
    await page.getByRole("button", { name: "Load more" }).waitFor({ state: "detached" });
    // Newest first, no record twice.
    const times = await page
      .locator(".audit-table time")
      .evaluateAll((ts) => ts.map((t) => t.getAttribute("datetime")));
    expect(new Set(times).size).toBe(total);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("is hidden from a member manager without org.manage, whose address shows the API's refusal", async () => {
    const page = await open(manager, "/settings/members");
    await page.getByRole("link", { name: "Members" }).waitFor();
    expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    await page.goto("/settings/audit");
    await page.getByText("missing permission: org.manage", { exact: false }).first().waitFor();
    expect(await page.locator(".audit-table").count()).toBe(0);
  });

  it("reads well in dark mode: every cell's text at 4.5:1 or more on its background", async () => {
    const page = await open(OWNER, "/settings/audit", { colorScheme: "dark" });
    await rows(page);
    const pairs = await page.locator(".audit-table td > *, .audit-table th").evaluateAll((els) =>
      els.map((el) => {
        let bg = "rgba(0, 0, 0, 0)";
        for (let at: Element | null = el; at && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); at = at.parentElement) {
          bg = getComputedStyle(at).backgroundColor;
        }
        return [getComputedStyle(el).color, bg] as [string, string];
      }),
    );
    expect(pairs.length).toBeGreaterThan(10);
    const [, background] = pairs[0] as [string, string];
    // A dark page: the background is dark, not a light panel left over from light mode.
    expect(contrast(background, "rgb(0, 0, 0)")).toBeLessThan(2);
    for (const [fg, bg] of pairs) expect(contrast(fg, bg)).toBeGreaterThanOrEqual(4.5);
    await screenshot(page, "settings-audit-dark");
  });

  it("fits a phone: each record a card of labelled fields, nothing wider than the screen", async () => {
    const page = await open(OWNER, "/settings/audit", { viewport: PHONE, colorScheme: "dark" });
    await rows(page);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide).toBeLessThanOrEqual(PHONE.width);
    const row = page.locator(".audit-table tbody tr").first();
    const box = await row.boundingBox();
    expect(box?.width ?? 0).toBeLessThanOrEqual(PHONE.width);
    const labels = await row
      .locator("td")
      .evaluateAll((tds) => tds.map((td) => getComputedStyle(td, "::before").content.replaceAll('"', "")));
    expect(labels).toEqual(["When", "Who", "What", "Target", "Address"]);
    // The column headers are left to screen readers: each field says what it is.
    expect((await page.locator(".audit-table thead").boundingBox())?.height).toBeLessThanOrEqual(1);
    await screenshot(page, "settings-audit-phone");
  });
});
