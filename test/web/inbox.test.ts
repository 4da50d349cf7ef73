/**
 * What needs a person, in real browsers against the compiled binary (contract §10): Ben, mentioned and given a
 * task while away, finds the counts in the sidebar and the window's title and both items in his Inbox, and
 * reading the room clears them; two tabs of one person clear together, and so do two devices (browser contexts
 * sharing nothing but the server: `inbox.read`); someone who joins (a person, a staff
 * member) is named at once in a tab already open, in their first message and in the @ picker, and a new space
 * shows up; the profile screen renames, sets notifications (email off without SMTP) and unmutes; desktop
 * notifications for items that arrive while the tab is hidden.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org, OWNER, type Person, readEverything } from "../helpers/factories";
import type { Client } from "../helpers/http";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let ben: Person;
let spaceId: string;
let generalId: string;
const contexts: BrowserContext[] = [];

const spacePath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;

async function say(roomId: string, content: string, as: Client = org.owner.api): Promise<{ id: string }> {
  const res = await as.post(`${spacePath()}/chat-rooms/${roomId}/messages`, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

const readAll = (who: Person) => readEverything(org, who);

async function open(
  who: { email: string; password: string },
  path: string,
  options: { phone?: boolean; context?: BrowserContext } = {},
): Promise<Page> {
  if (options.context) {
    const page = await options.context.newPage();
    await page.goto(path);
    return page;
  }
  const { context, page } = await signedInPage(
    browser,
    server,
    who,
    path,
    options.phone ? { viewport: PHONE, colorScheme: "dark" } : {},
  );
  contexts.push(context);
  return page;
}

const sidebar = (page: Page) => page.getByRole("navigation", { name: "Workspace" });
/** Waits until the page's events socket is open: events sent before it would be missed. */
const live = (page: Page) => page.getByRole("img", { name: "Live updates: live" }).first().waitFor();
const titleOf = (page: Page) => page.evaluate(() => document.title);

beforeAll(async () => {
  let ws: { server: TestServer; org: Org };
  [browser, ws] = await Promise.all([launchBrowser(), startWorkspace()]);
  server = ws.server;
  org = ws.org;
  ben = await addMember(org, ["Member"], "Ben Member");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  spaceId = space.body.id;
  const rooms = await org.owner.api.get(`${spacePath()}/chat-rooms`);
  generalId = rooms.body.chat_rooms[0].id;
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => {});
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("Ben was mentioned while away", () => {
  it("finds the counts in the sidebar and the title after reopening, both items in the Inbox, and reading clears them", async () => {
    // Ben looks in once, then closes the tab.
    const first = await open(ben, "/spaces");
    await sidebar(first).getByRole("link", { name: "# Launch", exact: true }).waitFor();
    await first.context().close();

    // While he is away: chatter, a mention, and a task assigned to him.
    await say(generalId, "Morning all, standup notes are in Files");
    await say(generalId, "@Ben Member can you review the launch plan today?");
    const board = await org.owner.api.get(`${spacePath()}/board`);
    const task = await org.owner.api.post(`${spacePath()}/tasks`, {
      title: "Write the release notes",
      column_id: board.body.columns[0].id,
      assignee_user_id: ben.id,
    });
    expect(task.status).toBe(201);

    const page = await open(ben, "/spaces");
    const nav = sidebar(page);
    await nav.getByRole("link", { name: "# Launch 2 unread, 1 mention" }).waitFor();
    await nav.getByRole("link", { name: "Inbox 2 unread" }).waitFor();
    await page.waitForFunction(() => document.title.startsWith("(2) "));
    expect(await titleOf(page)).toBe("(2) Spaces · Tandem");
    await screenshot(page, "inbox-counts");

    await nav.getByRole("link", { name: "Inbox 2 unread" }).click();
    const items = page
      .getByRole("list")
      .filter({ has: page.locator(".inbox-item") })
      .locator(".inbox-item");
    await items.first().waitFor();
    expect(await items.count()).toBe(2);
    // Newest first: the assignment, then the mention, each with who and what.
    expect(await items.nth(0).textContent()).toContain("Olivia Owner assigned you a task");
    expect(await items.nth(0).textContent()).toContain("Write the release notes");
    expect(await items.nth(1).textContent()).toContain("Olivia Owner mentioned you");
    expect(await items.nth(1).textContent()).toContain("can you review the launch plan today?");
    await screenshot(page, "inbox-page");

    // Opening the mention goes to the room, where the divider is above the first message he had not read.
    await page.getByRole("link", { name: /Olivia Owner mentioned you/ }).click();
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/chat/${generalId}$`));
    await page.getByRole("log", { name: "Messages in #general" }).waitFor();
    await page.waitForFunction(() =>
      /Morning all/.test(document.querySelector(".chat-divider.unread + article")?.textContent ?? ""),
    );
    // The room is read: its counts go, on the server too, and only the task waits in the Inbox.
    await nav.getByRole("link", { name: "# Launch", exact: true }).waitFor();
    await nav.getByRole("link", { name: "Inbox 1 unread" }).waitFor();
    await page.waitForFunction(() => document.title.startsWith("(1) "));
    const unread = await ben.api.get(`/api/v1/me/unread?org_id=${org.id}`);
    expect(unread.body.rooms).toEqual([]);

    // The assignment opens the task; the Inbox is then all read, and the title has no count.
    await nav.getByRole("link", { name: "Inbox 1 unread" }).click();
    await page.getByRole("link", { name: /assigned you a task/ }).click();
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board\\?task=${task.body.id}$`));
    await nav.getByRole("link", { name: "Inbox", exact: true }).waitFor();
    await page.waitForFunction(() => !document.title.startsWith("("));
    const inbox = await ben.api.get(`/api/v1/me/inbox?org_id=${org.id}`);
    expect(inbox.body.unread).toBe(0);
  });

  it("lists only unread items with the filter, marks all read, and prepends a new item live", async () => {
    await readAll(ben);
    await say(generalId, "@Ben Member first ping");
    await say(generalId, "@Ben Member second ping");
    const page = await open(ben, "/inbox?unread=1");
    await live(page);
    const items = page.locator(".inbox-item");
    await page.getByText("second ping").waitFor();
    expect(await items.count()).toBe(2);
    expect(await page.getByRole("checkbox", { name: "Unread only" }).isChecked()).toBe(true);

    await page.getByRole("button", { name: "Mark all read" }).click();
    await sidebar(page).getByRole("link", { name: "Inbox", exact: true }).waitFor();
    await page.locator(".inbox-item.unread").first().waitFor({ state: "detached" });

    await say(generalId, "@Ben Member a third, while the Inbox is open");
    await page.getByText("a third, while the Inbox is open").waitFor();
    expect(await items.first().textContent()).toContain("a third");
    await sidebar(page).getByRole("link", { name: "Inbox 1 unread" }).waitFor();
  });
});

describe("two tabs of one person", () => {
  it("clear together when the room is read in one of them", async () => {
    await readAll(ben);
    const board = await open(ben, `/spaces/${spaceId}/board`);
    const other = await open(ben, "/my-tasks", { context: board.context() });
    await live(board);
    await live(other);
    await say(generalId, "@Ben Member the demo moved to 3pm");
    for (const page of [board, other]) {
      await sidebar(page).getByRole("link", { name: "# Launch 1 unread, 1 mention" }).waitFor();
      await page.waitForFunction(() => document.title.startsWith("(1) "));
    }

    // Read in the first tab: the other clears without being touched.
    await board.bringToFront();
    await board.getByRole("navigation", { name: "Space" }).getByRole("link", { name: /^Chat/ }).click();
    await board.getByText("the demo moved to 3pm").waitFor();
    await sidebar(other).getByRole("link", { name: "# Launch", exact: true }).waitFor();
    await other.waitForFunction(() => !document.title.startsWith("("));
    await sidebar(other).getByRole("link", { name: "Inbox", exact: true }).waitFor();
  });

  it("clear together when the Inbox is marked read in one of them", async () => {
    await readAll(ben);
    const inbox = await open(ben, "/inbox");
    const other = await open(ben, "/my-tasks", { context: inbox.context() });
    await live(inbox);
    await live(other);
    await say(generalId, "@Ben Member a question for the inbox");
    await sidebar(other).getByRole("link", { name: "Inbox 1 unread" }).waitFor();
    await inbox.getByText("a question for the inbox").waitFor();
    await inbox.getByRole("button", { name: "Mark all read" }).click();
    await sidebar(other).getByRole("link", { name: "Inbox", exact: true }).waitFor();
    await other.waitForFunction(() => !document.title.startsWith("("));
  });
});

describe("two devices of one person", () => {
  it("clear together when Inbox items are marked read on one of them", async () => {
    await readAll(ben);
    // Two browser contexts: nothing is shared between them but the server (no storage, no BroadcastChannel).
    const laptop = await open(ben, "/inbox");
    const phone = await open(ben, "/inbox", { phone: true });
    await live(laptop);
    await live(phone);
    await say(generalId, "@Ben Member the first of two");
    await say(generalId, "@Ben Member the second of two");
    await laptop.getByText("the second of two").waitFor();
    await phone.getByText("the second of two").waitFor();
    await phone.waitForFunction(() => document.title.startsWith("(2) "));
    const unreadOn = (page: Page) => page.locator(".inbox-item.unread");
    expect(await unreadOn(phone).count()).toBe(2);

    // One marked read on the laptop: the phone's count, title and list follow, untouched.
    await laptop
      .getByRole("button", { name: /^Mark read: .*/ })
      .first()
      .click();
    await phone.waitForFunction(() => document.title.startsWith("(1) "));
    await phone.waitForFunction(() => document.querySelectorAll(".inbox-item.unread").length === 1);
    expect(await unreadOn(phone).first().textContent()).toContain("the first of two");

    // All marked read on the phone: the laptop clears.
    await phone.getByRole("button", { name: "Mark all read" }).click();
    await sidebar(laptop).getByRole("link", { name: "Inbox", exact: true }).waitFor();
    await laptop.waitForFunction(() => !document.title.startsWith("("));
    await unreadOn(laptop).first().waitFor({ state: "detached" });
  });

  it("clear the Inbox together when the room is read on one of them", async () => {
    await readAll(ben);
    const laptop = await open(ben, "/my-tasks");
    const phone = await open(ben, "/inbox");
    await live(laptop);
    await live(phone);
    await say(generalId, "@Ben Member read this in the room");
    await phone.getByText("read this in the room").waitFor();
    await phone.locator(".inbox-item.unread").first().waitFor();

    await sidebar(laptop).getByRole("link", { name: "# Launch 1 unread, 1 mention" }).click();
    await laptop.getByRole("navigation", { name: "Space" }).getByRole("link", { name: /^Chat/ }).click();
    await laptop.getByText("read this in the room").waitFor();
    await phone.locator(".inbox-item.unread").first().waitFor({ state: "detached" });
    await sidebar(phone).getByRole("link", { name: "Inbox", exact: true }).waitFor();
    await phone.waitForFunction(() => !document.title.startsWith("("));
  });
});

describe("someone who joins while the app is open", () => {
  it("is named in their first message, found by the @ picker, and a new space shows up", async () => {
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await page.getByRole("log", { name: "Messages in #general" }).waitFor();
    await live(page);

    const nina = await addMember(org, ["Member"], "Nina Newcomer");
    await say(generalId, "Hello everyone, Nina here", nina.api);
    const first = page.getByRole("article").filter({ hasText: "Hello everyone, Nina here" });
    await first.waitFor();
    expect(await first.getByText("Nina Newcomer").count()).toBe(1);
    expect(await first.getByText("Former member").count()).toBe(0);

    // A staff member made meanwhile, and Nina, are offered by the @ picker.
    await addStaff(org, { name: "Quill Writer" });
    const composer = page.getByRole("combobox", { name: "Message #general" });
    await composer.fill("@Ni");
    await page.getByRole("option", { name: /Nina Newcomer/ }).waitFor();
    await composer.fill("@Qui");
    await page.getByRole("option", { name: /Quill Writer/ }).waitFor();
    await composer.fill("");

    // A space Nina creates appears in the owner's sidebar.
    const made = await nina.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Nina's corner" });
    expect(made.status).toBe(201);
    await sidebar(page).getByRole("link", { name: "# Nina's corner" }).waitFor();

    // Renamed: her messages follow.
    await nina.api.patch("/api/v1/me", { display_name: "Nina N." });
    await first.getByText("Nina N.").waitFor();
  });
});

describe("the profile screen", () => {
  it("renames, says email is off without SMTP, saves the desktop choice, and unmutes what was muted", async () => {
    await readAll(ben);
    const page = await open(ben, `/spaces/${spaceId}/chat/${generalId}`);
    await page.getByRole("log", { name: "Messages in #general" }).waitFor();

    // Mute the room from its header, and the space from its own.
    await page.getByRole("button", { name: "Mute room" }).click();
    await page.getByRole("button", { name: "Unmute room" }).waitFor();
    await page.getByRole("button", { name: "Mute space" }).click();
    await page.getByRole("button", { name: "Unmute space" }).waitFor();
    const settings = await ben.api.get(`/api/v1/me/notifications?org_id=${org.id}`);
    expect(settings.body.muted_room_ids).toEqual([generalId]);
    expect(settings.body.muted_space_ids).toEqual([spaceId]);

    await sidebar(page).getByRole("link", { name: "Ben Member" }).click();
    await page.waitForURL(/\/profile$/);
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    expect(await titleOf(page)).toBe("Profile · Tandem");

    await page.getByText("Email is off on this server").waitFor();
    expect(await page.getByRole("radio", { name: /Digest/ }).isDisabled()).toBe(true);
    await page.getByRole("radio", { name: "Mentions only" }).check();
    await page.getByText("Notification settings saved").waitFor();
    expect((await ben.api.get(`/api/v1/me/notifications?org_id=${org.id}`)).body.desktop).toBe("mentions");

    const muted = page.getByRole("region", { name: "Muted" });
    await muted.getByRole("link", { name: "#general" }).waitFor();
    await muted.getByRole("link", { name: "# Launch" }).waitFor();
    await screenshot(page, "profile");
    await muted.getByRole("button", { name: "Unmute room" }).click();
    await muted.getByRole("link", { name: "#general" }).waitFor({ state: "detached" });
    await muted.getByRole("button", { name: "Unmute space" }).click();
    await muted.getByText("Nothing is muted.").waitFor();

    await page.getByLabel("Display name").fill("Benjamin Member");
    await page.getByRole("button", { name: "Save" }).click();
    await sidebar(page).getByRole("link", { name: "Benjamin Member" }).waitFor();
    expect((await ben.api.get("/api/v1/me")).body.user.display_name).toBe("Benjamin Member");
    await ben.api.patch("/api/v1/me", { display_name: "Ben Member" });
    await ben.api.put(`/api/v1/me/notifications?org_id=${org.id}`, { desktop: "all" });
  });
});

describe("desktop notifications", () => {
  it("are asked for from a button, then shown for an item that arrives while the tab is hidden, and open it", async () => {
    await readAll(ben);
    const { context, page } = await signedInPage(browser, server, ben, "/inbox", {
      // The page's Notification and visibility are stand-ins the test can read and drive.
      setup: (p) =>
        p.addInitScript(() => {
          const w = window as unknown as Record<string, unknown>;
          w.__shown = [];
          w.__hidden = false;
          Object.defineProperty(document, "visibilityState", { get: () => (w.__hidden ? "hidden" : "visible") });
          class FakeNotification {
            static permission: NotificationPermission = "default";
            static async requestPermission() {
              FakeNotification.permission = "granted";
              return "granted" as const;
            }
            onclick: (() => void) | null = null;
            constructor(title: string, options: NotificationOptions) {
              (w.__shown as unknown[]).push({ title, body: options.body, tag: options.tag, n: this });
            }
            close() {}
          }
          w.Notification = FakeNotification;
        }),
    });
    contexts.push(context);
    await live(page);
    await page.getByRole("button", { name: "Enable desktop notifications" }).click();
    await page.getByRole("button", { name: "Enable desktop notifications" }).waitFor({ state: "detached" });

    // Visible: the Inbox shows it, the desktop does not.
    await say(generalId, "@Ben Member while you look");
    await page.getByText("while you look").waitFor();
    expect(await page.evaluate(() => (window as unknown as { __shown: unknown[] }).__shown.length)).toBe(0);

    // Hidden: a notification, which opens the room when clicked.
    await page.evaluate(() => {
      (window as unknown as { __hidden: boolean }).__hidden = true;
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await say(generalId, "@Ben Member are you there?");
    await page.waitForFunction(() => (window as unknown as { __shown: unknown[] }).__shown.length === 1);
    const shown = await page.evaluate(() => {
      const [first] = (window as unknown as { __shown: { title: string; body: string }[] }).__shown;
      return { title: first?.title, body: first?.body };
    });
    expect(shown.title).toBe("Olivia Owner mentioned you · Launch");
    expect(shown.body).toBe("@Ben Member are you there?");
    await page.evaluate(() => {
      (window as unknown as { __hidden: boolean }).__hidden = false;
      const [first] = (window as unknown as { __shown: { n: { onclick: () => void } }[] }).__shown;
      first?.n.onclick();
    });
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/chat/${generalId}$`));
  });
});
