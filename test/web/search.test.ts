/**
 * Search in real browsers against the compiled binary: the command palette (Ctrl+K finds a message by a word
 * inside it and Enter opens its room at that message, loading older pages until it is there; "/" only outside
 * text fields; jumping to a space, room and person by name; a private space's message kept from a non-member;
 * HTML in a message shown as text with the word marked; a full-screen sheet on a phone) and the results page
 * (filtered by kind, reloadable).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org, OWNER, type Person } from "../helpers/factories";
import type { Client } from "../helpers/http";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let maya: Person;
let launchId: string;
let designId: string;
const contexts: BrowserContext[] = [];

const orgPath = () => `/api/v1/organizations/${org.id}`;

async function post(path: string, body: unknown, as: Client = org.owner.api): Promise<any> {
  const res = await as.post(`${orgPath()}${path}`, body);
  if (res.status !== 201) throw new Error(`POST ${path} failed: ${res.status} ${res.text}`);
  return res.body;
}

async function say(spaceId: string, roomId: string, content: string): Promise<any> {
  return (await post(`/spaces/${spaceId}/chat-rooms/${roomId}/messages`, { content })).message;
}

async function generalOf(spaceId: string): Promise<string> {
  const rooms = await org.owner.api.get(`${orgPath()}/spaces/${spaceId}/chat-rooms`);
  return rooms.body.chat_rooms.find((r: { name: string }) => r.name === "general").id;
}

/** Chat messages are indexed just after they commit: waits until `q` finds `count` results for `as`. */
async function indexed(q: string, count: number, as: Client = org.owner.api): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await as.get(`${orgPath()}/search?limit=200&q=${encodeURIComponent(q)}`);
    if (res.status === 200 && res.body.results.length >= count) return;
    if (Date.now() > deadline) throw new Error(`"${q}" not indexed: ${res.status} ${res.text.slice(0, 300)}`);
    await Bun.sleep(100);
  }
}

async function open(
  who: { email: string; password: string },
  path: string,
  phone = false,
  colorScheme: "light" | "dark" = phone ? "dark" : "light",
): Promise<Page> {
  const options = { colorScheme, ...(phone ? { viewport: PHONE } : {}) };
  const { context, page } = await signedInPage(browser, server, who, path, options);
  contexts.push(context);
  return page;
}

const palette = (page: Page) => page.getByRole("dialog", { name: "Search and jump to" });
const field = (page: Page) => palette(page).getByRole("combobox", { name: "Jump to or search" });
const option = (page: Page, text: string | RegExp) => palette(page).getByRole("option").filter({ hasText: text });

/** Opens the palette with Ctrl+K from wherever the keyboard is, and types `q`. */
async function search(page: Page, q: string): Promise<void> {
  await page.keyboard.press("Control+k");
  await field(page).waitFor();
  await field(page).fill(q);
}

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
  maya = await addMember(org, ["Member"], "Maya Member");
  launchId = (await post("/spaces", { name: "Launch" })).id;
  designId = (await post(`/spaces/${launchId}/chat-rooms`, { name: "design" })).id;
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => {});
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the command palette", () => {
  it("finds a message by a word inside it with Ctrl+K, and Enter opens its room at the message", async () => {
    // The message is far above the newest page the room loads first.
    const found = await say(launchId, designId, "The zirconium samples arrive on Thursday");
    for (let i = 1; i <= 130; i++) await say(launchId, designId, `Design note ${i}`);
    await indexed("zirconium", 1);

    const page = await open(OWNER, "/spaces");
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await search(page, "Zirconium");
    const result = option(page, "The zirconium samples arrive");
    await result.waitFor();
    expect(await result.locator("mark").allTextContents()).toEqual(["zirconium"]);
    expect(await result.textContent()).toContain("#design");
    expect(await result.getAttribute("aria-selected")).toBe("true");
    await screenshot(page, "palette-message");

    await field(page).press("Enter");
    await page.waitForURL(new RegExp(`/spaces/${launchId}/chat/${designId}\\?message=${found.id}$`));
    await palette(page).waitFor({ state: "detached" });
    const row = page.locator(`article[data-id="${found.id}"]`);
    await row.waitFor();
    await page.waitForFunction((id) => document.activeElement?.getAttribute("data-id") === id, found.id);
    expect(await row.getAttribute("aria-current")).toBe("true");
    expect(await row.getAttribute("class")).toContain("jumped");
    // In view in the list, which did not jump back to the bottom.
    const list = await page.locator(".chat-scroll").boundingBox();
    const box = await row.boundingBox();
    expect(box && list && box.y >= list.y && box.y + box.height <= list.y + list.height).toBe(true);
    await screenshot(page, "palette-jumped");
  });

  it('opens with "/" only when the keyboard is not in a text field, and the board keeps "/" for its filter', async () => {
    const page = await open(OWNER, `/spaces/${launchId}/chat/${designId}`);
    const composer = page.getByRole("combobox", { name: "Message #design" });
    await composer.click();
    await page.keyboard.press("/");
    expect(await composer.textContent()).toContain("/");
    expect(await palette(page).count()).toBe(0);

    await page.locator("#main").focus();
    await page.keyboard.press("/");
    await field(page).waitFor();
    expect(await field(page).evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Escape");
    await palette(page).waitFor({ state: "detached" });

    await page.getByRole("link", { name: "Board" }).click();
    await page.getByRole("heading", { name: "To do", exact: true }).waitFor();
    await page.locator("#main").focus();
    await page.keyboard.press("/");
    const filter = page.getByRole("searchbox", { name: "Filter tasks by title or description" });
    expect(await filter.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await palette(page).count()).toBe(0);
    // Ctrl+K still opens it there.
    await page.keyboard.press("Control+k");
    await field(page).waitFor();
  });

  it("jumps to a space, a room and a person by a part of their name", async () => {
    const page = await open(OWNER, "/my-tasks");
    await page.getByRole("heading", { name: "My tasks" }).waitFor();

    await search(page, "laun");
    await option(page, "Launch").first().waitFor();
    expect(await option(page, "Launch").first().textContent()).toContain("Space");
    await field(page).press("Enter");
    await page.waitForURL(new RegExp(`/spaces/${launchId}$|/spaces/${launchId}/board$`));

    await search(page, "desi");
    await option(page, "#design").waitFor();
    await field(page).press("Enter");
    await page.waitForURL(new RegExp(`/spaces/${launchId}/chat/${designId}$`));
    await page.getByRole("log", { name: "Messages in #design" }).waitFor();

    // With the arrows: the person is below anything else matching.
    await search(page, "maya");
    await option(page, "Maya Member").waitFor();
    const options = palette(page).getByRole("option");
    const at = (await options.allTextContents()).findIndex((t) => t.includes("Maya Member"));
    for (let i = 0; i < at; i++) await field(page).press("ArrowDown");
    expect(await option(page, "Maya Member").getAttribute("aria-selected")).toBe("true");
    await field(page).press("Enter");
    await page.waitForURL(new RegExp(`/spaces/${launchId}/board\\?assignee=${maya.id}$`));
  });

  it("never shows a private space's message to someone outside it", async () => {
    const vault = (await post("/spaces", { name: "Vault", private: true })).id;
    await say(vault, await generalOf(vault), "The obsidian budget stays between us");
    await say(launchId, await generalOf(launchId), "Obsidian tiles for the lobby");
    await indexed("obsidian", 2);
    await indexed("obsidian", 1, maya.api);

    const page = await open(maya, "/spaces");
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await search(page, "obsidian");
    await option(page, "Obsidian tiles for the lobby").waitFor();
    await palette(page).getByRole("status").filter({ hasText: "1 result" }).waitFor();
    expect(await option(page, "obsidian budget").count()).toBe(0);
    expect(await option(page, "Vault").count()).toBe(0);

    // The owner, a member of the space, finds both.
    const owner = await open(OWNER, "/spaces");
    await owner.getByRole("heading", { name: "Spaces" }).waitFor();
    await search(owner, "obsidian");
    await option(owner, "The obsidian budget stays between us").waitFor();
    await option(owner, "Obsidian tiles for the lobby").waitFor();
  });

  it("shows HTML in a message as text, with the word marked", async () => {
    await say(launchId, designId, "<b>bold</b> <script>alert(1)</script> tungsten & \"quotes\" 'too'");
    await indexed("tungsten", 1);
    const page = await open(OWNER, "/spaces", false, "dark");
    await page.getByRole("heading", { name: "Spaces" }).waitFor();
    await search(page, "tungsten");
    const result = option(page, "tungsten");
    await result.waitFor();
    const snippet = result.locator(".palette-snippet");
    expect(await snippet.textContent()).toBe("<b>bold</b> <script>alert(1)</script> tungsten & \"quotes\" 'too'");
    expect(await snippet.locator("b, script").count()).toBe(0);
    expect(await snippet.locator("mark").allTextContents()).toEqual(["tungsten"]);
    await screenshot(page, "palette-dark");
  });

  it("is a full-screen sheet on a phone, opened from the header's Search button", async () => {
    const page = await open(OWNER, `/spaces/${launchId}/board`, true);
    await page.getByRole("heading", { name: "To do", exact: true }).waitFor();
    await screenshot(page, "palette-phone-header");
    await page.getByRole("banner").getByRole("button", { name: "Search" }).click();
    await field(page).waitFor();
    await field(page).fill("zirconium");
    await option(page, "The zirconium samples").waitFor();
    const box = await palette(page).boundingBox();
    expect(box?.x).toBe(0);
    expect(box?.y).toBe(0);
    expect(box?.width).toBe(PHONE.width);
    expect(box?.height).toBe(PHONE.height);
    await screenshot(page, "palette-phone");
    await palette(page).getByRole("button", { name: "Cancel" }).click();
    await palette(page).waitFor({ state: "detached" });
    expect(
      await page
        .getByRole("banner")
        .getByRole("button", { name: "Search" })
        .evaluate((el) => el === document.activeElement),
    ).toBe(true);

    // "See all results" opens the results page, which fits the phone too.
    await page.getByRole("banner").getByRole("button", { name: "Search" }).click();
    await field(page).fill("zirconium");
    await option(page, "See all results").click();
    await page.waitForURL(/\/search\?q=zirconium$/);
    await page.getByRole("list", { name: "Results" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(PHONE.width);
    await screenshot(page, "search-page-phone");
  });
});

describe("the results page", () => {
  it("lists every kind found, filters by kind and space, and reloads at its address", async () => {
    const board = await org.owner.api.get(`${orgPath()}/spaces/${launchId}/board`);
    const todo = board.body.columns[0].id;
    const task = await post(`/spaces/${launchId}/tasks`, {
      title: "Quartz rollout",
      description: "Order the samples",
      column_id: todo,
    });
    await post(`/spaces/${launchId}/files/text`, { name: "quartz-notes.md", content: "# Notes" });
    await say(launchId, designId, "The quartz samples look great");
    await indexed("quartz", 3);

    const page = await open(OWNER, "/search?q=quartz");
    const results = page.getByRole("list", { name: "Results" }).getByRole("listitem");
    await results.first().waitFor();
    expect(await results.count()).toBe(3);
    expect(await page.getByRole("status").textContent()).toBe("3 results");
    await screenshot(page, "search-page");

    await page.getByRole("navigation", { name: "Kind" }).getByRole("link", { name: "Tasks" }).click();
    await page.waitForURL(/\/search\?q=quartz&types=task$/);
    await page.getByRole("status").filter({ hasText: "1 result" }).waitFor();
    expect(await results.count()).toBe(1);
    const link = results.first().getByRole("link", { name: "Quartz rollout" });
    expect(await link.getAttribute("href")).toBe(`/spaces/${launchId}/board?task=${task.id}`);
    expect(await results.first().locator("mark").first().textContent()).toBe("Quartz");

    // The address is the page: a reload shows the same filtered results.
    await page.reload();
    await page.getByRole("status").filter({ hasText: "1 result" }).waitFor();
    expect(await page.getByRole("link", { name: "Tasks", exact: true }).getAttribute("aria-current")).toBe("page");

    await page.getByRole("navigation", { name: "Kind" }).getByRole("link", { name: "Files" }).click();
    await page.waitForURL(/types=file$/);
    await page.getByRole("link", { name: "quartz-notes.md" }).click();
    await page.waitForURL(new RegExp(`/spaces/${launchId}/files/`));
  });

  it("shows 50 results, then more with Show more", async () => {
    for (let i = 1; i <= 60; i++) await say(launchId, designId, `Ledger entry ${i}`);
    await indexed("ledger", 60);
    const page = await open(OWNER, "/search?q=ledger&types=message", false, "dark");
    const results = page.getByRole("list", { name: "Results" }).getByRole("listitem");
    await page.getByRole("status").filter({ hasText: "50+ results" }).waitFor();
    await screenshot(page, "search-page-dark");
    await page.getByRole("button", { name: "Show more" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /^60 results$/ })
      .waitFor();
    expect(await results.count()).toBe(60);
    expect(await page.getByRole("button", { name: "Show more" }).count()).toBe(0);
  });
});
