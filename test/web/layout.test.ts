/**
 * The frame around every screen in a real browser against the compiled binary: toasts stay clear of what is
 * worked on (the chat composer, on a desktop and on a phone, and inside the task panel), and can be dismissed;
 * on a phone the header is short and every space tab, Settings included, can be reached; the keyboard shortcuts
 * open in a "?" popover (its button, or the "?" key outside text fields) instead of hint lines on the screens.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { DESKTOP, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import type { Org } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let spaceId: string;
const contexts: BrowserContext[] = [];

type Box = { x: number; y: number; width: number; height: number };

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error("not on screen");
  return found;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function open(path: string, viewport = DESKTOP, colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const { context, page } = await signedInPage(browser, server, org.owner, path, { viewport, colorScheme });
  contexts.push(context);
  return page;
}

/** Makes the next mute request fail, then presses the visible Mute button: an error toast says so. */
async function failedMute(page: Page, what: "room" | "space"): Promise<Locator> {
  await page.route("**/me/notifications**", (route) =>
    route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"internal error"}' }),
  );
  await page.getByRole("button", { name: `Mute ${what}` }).click();
  const notice = page.getByRole("alert").filter({ hasText: "was not muted: internal error" });
  await notice.waitFor();
  await page.unroute("**/me/notifications**");
  return page.locator(".toast", { has: notice });
}

const composer = (page: Page) => page.locator(".composer");
const spaceTabs = (page: Page) => page.getByRole("navigation", { name: "Space" });
const help = (page: Page) => page.getByRole("dialog", { name: "Keyboard shortcuts" });

beforeAll(async () => {
  let ws: { server: TestServer; org: Org };
  [browser, ws] = await Promise.all([launchBrowser(), startWorkspace()]);
  server = ws.server;
  org = ws.org;
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch plan for Q3" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  spaceId = space.body.id;
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await server?.stop();
});

describe("toasts", () => {
  it("stay clear of the chat composer on a desktop, and go when dismissed", async () => {
    const page = await open(`/spaces/${spaceId}/chat`);
    await page.getByRole("combobox", { name: "Message #general" }).waitFor();
    const toast = await failedMute(page, "room");
    expect(overlaps(await box(toast), await box(composer(page)))).toBe(false);
    // Over the sidebar's foot, not over the page.
    const main = await box(page.locator("main"));
    expect((await box(toast)).x + (await box(toast)).width).toBeLessThanOrEqual(main.x);
    await screenshot(page, "layout-toast-desktop");
    await toast.getByRole("button", { name: "Dismiss" }).click();
    await toast.waitFor({ state: "detached" });
  });

  it("show at the top on a phone, full width, clear of the composer, and go by themselves", async () => {
    const page = await open(`/spaces/${spaceId}/chat`, PHONE, "dark");
    await page.getByRole("combobox", { name: "Message #general" }).waitFor();
    const toast = await failedMute(page, "space");
    const shown = await box(toast);
    expect(shown.y).toBeGreaterThanOrEqual((await box(page.locator(".topbar"))).height - 1);
    expect(shown.width).toBeGreaterThan(PHONE.width - 40);
    expect(overlaps(shown, await box(composer(page)))).toBe(false);
    await screenshot(page, "layout-toast-phone-dark");
    // An error stays 8 seconds (held while the pointer is on it: it moves away).
    await page.mouse.move(PHONE.width / 2, PHONE.height / 2);
    await toast.waitFor({ state: "detached", timeout: 12_000 });
  });

  it("show above the task panel's backdrop, and can be dismissed there", async () => {
    const tasks = `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
    const board = await org.owner.api.get(`${tasks}/board`);
    const column = (board.body.columns as { id: string }[])[0]?.id;
    const task = await org.owner.api.post(`${tasks}/tasks`, { title: "Book the venue", column_id: column });
    const page = await open(`/spaces/${spaceId}/board?task=${task.body.id}`);
    const panel = page.getByRole("dialog", { name: "Book the venue" });
    await panel.getByRole("button", { name: "Copy link" }).click();
    // Copied or refused by the headless browser: either way a notice, inside the panel (a modal dialog).
    const toast = panel.locator(".toast");
    await toast.waitFor();
    await toast.getByRole("button", { name: "Dismiss" }).click();
    await toast.waitFor({ state: "detached" });
    expect(await panel.isVisible()).toBe(true);
  });
});

describe("the header on a phone", () => {
  for (const [width, height] of [
    [390, 844],
    [360, 740],
  ] as const)
    for (const scheme of ["light", "dark"] as const)
      it(`is at most 15% of a ${width}×${height} screen (${scheme}) and reaches every space tab`, async () => {
        const page = await open(`/spaces/${spaceId}/board`, { width, height }, scheme);
        const tabs = spaceTabs(page);
        await tabs.waitFor();
        const bottom = (await box(tabs)).y + (await box(tabs)).height;
        expect(bottom).toBeLessThanOrEqual(height * 0.15);
        // The space is named in the top bar, its Mute button there too.
        await page.locator(".topbar").getByRole("link", { name: "Launch plan for Q3" }).waitFor();
        await page.locator(".topbar").getByRole("button", { name: "Mute space" }).waitFor();
        await screenshot(page, `layout-phone-${width}-${scheme}`);
        for (const [name, path] of [
          ["Chat", "chat"],
          ["Files", "files"],
          ["Automations", "automations"],
          ["Settings", "settings"],
          ["Board", "board"],
        ]) {
          const tab = tabs.getByRole("link", { name, exact: true });
          await tab.click();
          await page.waitForURL(new RegExp(`/spaces/${spaceId}/${path}`));
          const shown = await box(tab);
          expect(shown.x).toBeGreaterThanOrEqual(0);
          expect(shown.x + shown.width).toBeLessThanOrEqual(width);
        }
      });

  it("opened on a space's Settings, shows the Settings tab", async () => {
    const page = await open(`/spaces/${spaceId}/settings`, { width: 360, height: 740 });
    const tab = spaceTabs(page).getByRole("link", { name: "Settings" });
    await tab.waitFor();
    const shown = await box(tab);
    expect(shown.x + shown.width).toBeLessThanOrEqual(360);
    expect(await tab.getAttribute("aria-current")).toBe("page");
  });
});

describe("keyboard shortcuts", () => {
  it("open from the ? button with the page's shortcuts first, and Escape closes them", async () => {
    const page = await open(`/spaces/${spaceId}/chat`);
    await page.getByRole("combobox", { name: "Message #general" }).waitFor();
    // No hint line under the composer any more.
    expect(await page.getByText("to send").count()).toBe(0);
    const button = page.getByRole("button", { name: "Keyboard shortcuts" });
    await button.click();
    await help(page).waitFor();
    expect(await help(page).getByRole("heading").first().textContent()).toBe("Keyboard shortcuts");
    expect(await help(page).getByRole("heading", { level: 3 }).first().textContent()).toBe("Chat (this page)");
    for (const what of [
      "Send the message",
      "Search and jump to a space, room, person, task or file",
      "Filter the tasks",
    ])
      await help(page).getByText(what, { exact: true }).waitFor();
    await screenshot(page, "layout-help-desktop");
    await page.keyboard.press("Escape");
    await help(page).waitFor({ state: "hidden" });
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it("open with the ? key outside text fields, not while typing", async () => {
    const page = await open(`/spaces/${spaceId}/board`);
    const filter = page.getByRole("searchbox", { name: "Filter tasks by title or description" });
    await filter.waitFor();
    // The board's moves are no line on the board any more: only screen readers hear them, with each card.
    expect((await box(page.getByText("Drag tasks to move them"))).width).toBeLessThanOrEqual(1);
    await page.locator("body").press("?");
    await help(page).waitFor();
    expect(await help(page).getByRole("heading", { level: 3 }).first().textContent()).toBe("Board (this page)");
    await page.keyboard.press("Escape");
    await help(page).waitFor({ state: "hidden" });
    // In the filter box "?" is a character.
    await filter.click();
    await page.keyboard.press("?");
    expect(await filter.inputValue()).toBe("?");
    expect(await help(page).isVisible()).toBe(false);
  });

  it("fit a phone's screen under its top bar", async () => {
    const page = await open(`/spaces/${spaceId}/files`, PHONE, "dark");
    await page.locator(".topbar").getByRole("button", { name: "Keyboard shortcuts" }).click();
    await help(page).waitFor();
    const shown = await box(help(page));
    expect(shown.y).toBeGreaterThanOrEqual((await box(page.locator(".topbar"))).height - 1);
    expect(shown.x).toBeGreaterThanOrEqual(0);
    expect(shown.x + shown.width).toBeLessThanOrEqual(PHONE.width);
    expect(shown.y + shown.height).toBeLessThanOrEqual(PHONE.height);
    expect(await help(page).getByRole("heading", { level: 3 }).first().textContent()).toBe("Files (this page)");
    await screenshot(page, "layout-help-phone-dark");
    await help(page).getByRole("button", { name: "Close" }).click();
    await help(page).waitFor({ state: "hidden" });
  });
});
