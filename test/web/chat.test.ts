/**
 * The chat screen in real browsers against the compiled binary: two people in one room see each other's
 * messages and reactions live; editing and deleting one's own messages; markdown rendered with raw HTML shown
 * as text; mentions highlighted; history loaded while scrolling up, and a room of many unread messages opened
 * at its first; attachments by URL; `@` autocomplete; rooms created, deleted (by whom the UI offers it) and
 * marked unread live, as the server counts it (in the room list, and on the space's Chat tab and sidebar entry
 * from other screens); a
 * message's actions on a phone; a staff member mentioned in the UI answering through a
 * loopback fake model gateway (💭 first, then "thinking", then its reply); and how a room of 1,000 loaded
 * messages scrolls.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { contrast, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org, OWNER, type Person, readEverything } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import type { Client } from "../helpers/http";
import type { TestServer } from "../helpers/server";

const STAFF_REPLY = "Ada here: the launch moves to Tuesday.";
/** The fake gateway waits this long before answering, so the "thinking" state can be seen. */
/** The gateway answers once the test has seen the staff member thinking (however slow the machine). */
const answer = Promise.withResolvers<void>();

let browser: Browser;
let server: TestServer;
let org: Org;
let fake: FakeProvider;
let member: Person;
let spaceId: string;
let generalId: string;
const contexts: BrowserContext[] = [];

const spacePath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;

async function newRoom(name: string): Promise<string> {
  const res = await org.owner.api.post(`${spacePath()}/chat-rooms`, { name });
  if (res.status !== 201) throw new Error(`room create failed: ${res.status} ${res.text}`);
  return res.body.id;
}

async function say(roomId: string, content: string, as: Client = org.owner.api): Promise<any> {
  const res = await as.post(`${spacePath()}/chat-rooms/${roomId}/messages`, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

/** Posts `count` messages, a few at a time (each room stamps them in order of arrival). */
async function seed(roomId: string, count: number, text: (i: number) => string): Promise<void> {
  for (let i = 1; i <= count; i++) await say(roomId, text(i));
}

async function open(who: { email: string; password: string }, path: string, phone = false): Promise<Page> {
  // The phone runs in dark mode, so the screenshots show both.
  const options = phone ? { viewport: PHONE, colorScheme: "dark" as const } : {};
  const { context, page } = await signedInPage(browser, server, who, path, options);
  contexts.push(context);
  return page;
}

const composer = (page: Page, room = "general") => page.getByRole("combobox", { name: `Message #${room}` });
const messageList = (page: Page, room = "general") => page.getByRole("log", { name: `Messages in #${room}` });
const message = (page: Page, text: string) => page.getByRole("article").filter({ hasText: text });

/** The room's "⋯" menu opened: its entries, by name. */
async function roomMenu(page: Page) {
  await page.getByRole("button", { name: "Room actions" }).click();
  const menu = page.getByRole("menu");
  await menu.waitFor();
  return menu;
}

beforeAll(async () => {
  fake = startFakeProvider(async () => {
    await answer.promise;
    return completion(STAFF_REPLY);
  });
  let ws: { server: TestServer; org: Org };
  [browser, ws] = await Promise.all([
    launchBrowser(),
    startWorkspace({ MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1` }),
  ]);
  server = ws.server;
  org = ws.org;
  const key = await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, {
    api_key: "sk-or-v1-test-key-for-the-fake",
  });
  if (key.status !== 200) throw new Error(`key not set: ${key.status} ${key.text}`);
  member = await addMember(org, ["Member"], "Maya Member");
  // Public, so the staff member created below can see it and answer there.
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  spaceId = space.body.id;
  const rooms = await org.owner.api.get(`${spacePath()}/chat-rooms`);
  generalId = rooms.body.chat_rooms[0].id;
});

/**
 * Each test's pages close when it ends: a page left open goes on receiving (and rendering) every later test's
 * events, which slowed the 1,000-message test six-fold on two cores.
 */
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => {});
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  fake?.stop();
});

describe("chat between two browsers", () => {
  it("opens general, shows a message posted in one browser live in the other, and a reaction both ways", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat`);
    const maya = await open(member, `/spaces/${spaceId}/chat/${generalId}`);
    await owner.waitForURL(new RegExp(`/spaces/${spaceId}/chat/${generalId}$`));
    await messageList(owner).waitFor();
    await messageList(maya).waitFor();

    await composer(owner).fill("Hello **team**, the plan is in the spec");
    await composer(owner).press("Enter");
    const seen = message(maya, "Hello team, the plan is in the spec");
    await seen.waitFor();
    expect(await seen.locator("strong").textContent()).toBe("team");
    expect(await seen.getByText("Olivia Owner").count()).toBe(1);
    expect(await composer(owner).inputValue()).toBe("");

    // Maya reacts through the picker, by keyboard: search, then Enter.
    await seen.hover();
    await seen.getByRole("button", { name: "Add reaction" }).click();
    const picker = maya.getByRole("dialog", { name: "Add a reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("thumbs up");
    await picker.getByRole("searchbox", { name: "Search emoji" }).press("Enter");
    await picker.waitFor({ state: "detached" });
    const ownersChip = message(owner, "Hello team").getByRole("button", { name: /^👍 1: Maya Member/ });
    await ownersChip.waitFor();
    expect(await ownersChip.getAttribute("aria-pressed")).toBe("false");

    // The owner adds theirs by clicking the chip; Maya sees the count go to 2, hers highlighted.
    await ownersChip.click();
    const mayasChip = message(maya, "Hello team").getByRole("button", { name: /^👍 2:/ });
    await mayasChip.waitFor();
    expect(await mayasChip.getAttribute("aria-pressed")).toBe("true");
    // And takes it back.
    await message(owner, "Hello team")
      .getByRole("button", { name: /^👍 2:/ })
      .click();
    await message(maya, "Hello team")
      .getByRole("button", { name: /^👍 1:/ })
      .waitFor();

    await composer(maya).fill("Looks good to me");
    await composer(maya).press("Enter");
    await message(owner, "Looks good to me").waitFor();
  });

  it("edits and deletes one's own message, live in the other browser; Shift+Enter makes a new line", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    const maya = await open(member, `/spaces/${spaceId}/chat/${generalId}`);
    await composer(owner).fill("Draft one");
    await composer(owner).press("Shift+Enter");
    await composer(owner).pressSequentially("second line");
    expect(await composer(owner).inputValue()).toBe("Draft one\nsecond line");
    await composer(owner).press("Enter");
    const mine = message(owner, "Draft one");
    await mine.waitFor();
    await message(maya, "second line").waitFor();
    // Maya cannot edit or delete it.
    expect(await message(maya, "Draft one").getByRole("button", { name: "Edit message" }).count()).toBe(0);
    expect(await message(maya, "Draft one").getByRole("button", { name: "Delete message" }).count()).toBe(0);

    await mine.hover();
    await mine.getByRole("button", { name: "Edit message" }).click();
    const editor = owner.getByRole("textbox", { name: "Edit message" });
    await editor.fill("Final **version**");
    await editor.press("Enter");
    await message(owner, "Final version").getByText("(edited)").waitFor();
    await message(maya, "Final version").getByText("(edited)").waitFor();

    // Up in the empty composer edits one's last message; Escape leaves it as it was.
    await composer(owner).press("ArrowUp");
    await owner.getByRole("textbox", { name: "Edit message" }).press("Escape");
    await owner.getByRole("textbox", { name: "Edit message" }).waitFor({ state: "detached" });
    // The keyboard is back in the composer.
    expect(await composer(owner).evaluate((el) => el === document.activeElement)).toBe(true);

    const edited = message(owner, "Final version");
    await edited.hover();
    await edited.getByRole("button", { name: "Delete message" }).click();
    const confirm = owner.getByRole("dialog", { name: "Delete message" });
    // The message is quoted as it reads, not as the markdown it was typed in.
    expect(await confirm.locator("blockquote strong").textContent()).toBe("version");
    expect(await confirm.locator("blockquote").textContent()).not.toContain("**");
    await confirm.getByRole("button", { name: "Delete" }).click();
    await confirm.waitFor({ state: "detached" });
    await owner.getByText("This message was deleted").waitFor();
    await owner.waitForFunction(() => document.activeElement?.getAttribute("role") === "combobox");
    expect(await composer(owner).evaluate((el) => el === document.activeElement)).toBe(true);
    await maya.getByText("This message was deleted").waitFor();
    expect(await message(maya, "Final version").count()).toBe(0);
  });

  it("highlights mentions of members, those of the viewer more, and <@id> as @Name", async () => {
    await say(
      generalId,
      `Mentions: @maya member, see <@${org.owner.id}> and \`@Maya Member\` and maya@example.com and @Nobody Here`,
    );
    const maya = await open(member, `/spaces/${spaceId}/chat/${generalId}`);
    const row = message(maya, "Mentions:");
    await row.waitFor();
    const mentions = row.locator(".message-text .mention");
    expect(await mentions.allTextContents()).toEqual(["@maya member", "@Olivia Owner"]);
    // Hers stands out more than the owner's.
    expect(await row.locator(".mention.me").allTextContents()).toEqual(["@maya member"]);
    const [mine, theirs] = await mentions.evaluateAll((els) => els.map((el) => getComputedStyle(el).backgroundColor));
    expect(mine).not.toBe(theirs);
    expect(await row.locator(".message-text").textContent()).not.toContain("<@");
    // Code is left as it is.
    expect(await row.locator("code").textContent()).toBe("@Maya Member");

    // The owner sees their own mention (the id form) as the strong one.
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await message(owner, "Mentions:").waitFor();
    expect(await message(owner, "Mentions:").locator(".mention.me").allTextContents()).toEqual(["@Olivia Owner"]);
  });

  it("renders markdown and shows raw HTML as text, never as elements", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await composer(owner).fill(
      "Safe: <img src=x onerror=alert(1)> and <script>alert(2)</script> and [bad](javascript:alert(3)) and *emphasis* and `code`",
    );
    await composer(owner).press("Enter");
    const shown = message(owner, "Safe:");
    await shown.waitFor();
    const text = await shown.locator(".message-text").textContent();
    expect(text).toContain("<img src=x onerror=alert(1)>");
    expect(text).toContain("<script>alert(2)</script>");
    expect(await shown.locator(".message-text img, .message-text script").count()).toBe(0);
    expect(await shown.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await shown.locator("em").textContent()).toBe("emphasis");
    expect(await shown.locator("code").textContent()).toBe("code");
    expect(await owner.evaluate(() => document.querySelectorAll("img[src='x']").length)).toBe(0);
  });

  it("shows a markdown image as a link to it, never loading it", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    const requested: string[] = [];
    owner.on("request", (request) => requested.push(request.url()));
    await composer(owner).fill("Picture: ![the chart](https://images.example/chart.png?who=reads)");
    await composer(owner).press("Enter");
    const shown = message(owner, "Picture:");
    await shown.waitFor();
    const link = shown.getByRole("link", { name: "🖼 the chart" });
    expect(await link.getAttribute("href")).toBe("https://images.example/chart.png?who=reads");
    expect(await shown.locator("img").count()).toBe(0);
    expect(requested.filter((url) => url.includes("images.example"))).toEqual([]);
  });
});

describe("history", () => {
  it("loads older messages while scrolling up, keeping the reading position", async () => {
    const roomId = await newRoom("history");
    await seed(roomId, 120, (i) => `History message ${i}`);
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`);
    await message(owner, "History message 120").waitFor();
    // The newest page only: 71..120.
    expect(await message(owner, "History message 70").count()).toBe(0);
    const scroller = owner.locator(".chat-scroll");
    const atBottom = await scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 48);
    expect(atBottom).toBe(true);

    // Scroll to the top: the next page comes in front and the message that was first stays where it was.
    const first = message(owner, "History message 71");
    const offsetOf = (row: Element) => {
      const list = row.closest(".chat-scroll") as HTMLElement;
      return row.getBoundingClientRect().top - list.getBoundingClientRect().top;
    };
    const before = await first.evaluate((row) => {
      (row.closest(".chat-scroll") as HTMLElement).scrollTop = 0;
      const list = row.closest(".chat-scroll") as HTMLElement;
      return row.getBoundingClientRect().top - list.getBoundingClientRect().top;
    });
    await message(owner, "History message 70").waitFor({ state: "attached" });
    await owner.waitForTimeout(100);
    const after = await first.evaluate(offsetOf);
    expect(Math.abs(after - before)).toBeLessThan(40);
    expect(await scroller.evaluate((el) => el.scrollTop)).toBeGreaterThan(500);

    // And on to the very beginning.
    for (let i = 0; i < 5 && (await owner.getByText("Welcome to #history").count()) === 0; i++) {
      await scroller.evaluate((el) => {
        el.scrollTop = 0;
      });
      await owner.waitForTimeout(300);
    }
    await message(owner, "History message 1").first().waitFor({ state: "attached" });
    await owner.getByRole("heading", { name: "Welcome to #history" }).waitFor({ state: "attached" });
    expect(await owner.getByRole("article").count()).toBe(120);
  });

  it("moves the New messages divider up as older unread messages load", async () => {
    const roomId = await newRoom("backlog");
    // The owner has never read the room: every message of another is new to them.
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(owner).waitFor();
    for (let i = 1; i <= 60; i++) await say(roomId, `Backlog message ${i}`, member.api);
    await owner
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("link", { name: /backlog/ })
      .click();
    await message(owner, "Backlog message 60").waitFor();
    const afterDivider = () =>
      owner.evaluate(() => document.querySelector(".chat-divider.unread + article")?.textContent ?? "");
    // The first page (11-60) is all new; the divider must end above message 1 once the older page is in.
    for (let i = 0; i < 5 && (await message(owner, "Backlog message 1").count()) === 0; i++) {
      await owner.locator(".chat-scroll").evaluate((el) => {
        el.scrollTop = 0;
      });
      await owner.waitForTimeout(300);
    }
    await message(owner, "Backlog message 1").first().waitFor({ state: "attached" });
    await owner.waitForFunction(() =>
      /Backlog message 1\s*$/.test(document.querySelector(".chat-divider.unread + article")?.textContent ?? ""),
    );
    expect(await afterDivider()).toMatch(/Backlog message 1\s*$/);
  });
});

describe("unread on opening", () => {
  it("opens a room with many unread messages at the New messages divider, read ones above it", async () => {
    const roomId = await newRoom("catch-up");
    // The owner's own ten are never unread to them: what Maya writes next is.
    await seed(roomId, 10, (i) => `Read before ${i}`);
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(owner).waitFor();
    for (let i = 1; i <= 60; i++) await say(roomId, `Catch-up ${i}`, member.api);
    await owner
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("link", { name: /catch-up/ })
      .click();
    await messageList(owner, "catch-up").waitFor();
    // The newest page (11-60) is all unread: the older page comes in and the divider ends above message 1.
    await owner.waitForFunction(() =>
      /Catch-up 1\s*$/.test(document.querySelector(".chat-divider.unread + article")?.textContent ?? ""),
    );
    await owner.waitForTimeout(300);
    const where = await owner.evaluate(() => {
      const scroller = document.querySelector(".chat-scroll") as HTMLElement;
      const divider = document.querySelector(".chat-divider.unread") as HTMLElement;
      return {
        divider: divider.getBoundingClientRect().top - scroller.getBoundingClientRect().top,
        scrollTop: scroller.scrollTop,
      };
    });
    // The divider is at the top of the view, and the read messages are above it, a scroll away.
    expect(where.divider).toBeGreaterThanOrEqual(-2);
    expect(where.divider).toBeLessThan(60);
    expect(where.scrollTop).toBeGreaterThan(100);
    const readLast = message(owner, "Read before 10");
    await readLast.waitFor({ state: "attached" });
    expect(await readLast.evaluate((el) => el.getBoundingClientRect().bottom)).toBeLessThanOrEqual(
      await owner.locator(".chat-scroll").evaluate((el) => el.getBoundingClientRect().top + 1),
    );
    expect(await owner.getByRole("button", { name: /new messages? ↓/ }).count()).toBe(0);
  });
});

describe("unread on opening after a tall message", () => {
  it("puts the New messages divider at the top even when the last read message is very tall", async () => {
    const roomId = await newRoom("tall-read");
    await seed(roomId, 60, (i) => `Short read ${i}`);
    // About 950 px tall once rendered: the last message read before the new ones.
    const tall = await say(roomId, `TALL ${"Lorem ipsum dolor sit amet ".repeat(150)}`, member.api);
    const read = await org.owner.api.post(`${spacePath()}/chat-rooms/${roomId}/read`, { message_id: tall.id });
    expect(read.status).toBe(204);
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(owner).waitFor();
    for (let i = 1; i <= 60; i++) await say(roomId, `After tall ${i}`, member.api);
    await owner
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("link", { name: /tall-read/ })
      .click();
    await messageList(owner, "tall-read").waitFor();
    await owner.waitForFunction(() =>
      /After tall 1\s*$/.test(document.querySelector(".chat-divider.unread + article")?.textContent ?? ""),
    );
    await owner.waitForTimeout(500);
    const divider = await owner.evaluate(() => {
      const scroller = document.querySelector(".chat-scroll") as HTMLElement;
      const line = document.querySelector(".chat-divider.unread") as HTMLElement;
      return line.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
    });
    expect(divider).toBeGreaterThanOrEqual(-2);
    expect(divider).toBeLessThan(60);
    // The first new message is in view.
    const first = message(owner, "After tall 1").first();
    expect(await first.evaluate((el) => el.getBoundingClientRect().top < innerHeight)).toBe(true);
  });
});

describe("composing", () => {
  it("attaches a link by URL, and refuses a link that is not http(s) in words before it becomes a chip", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await owner.getByRole("button", { name: "Attach link" }).click();
    // The keyboard is in the URL field at once.
    await owner.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === "url");
    await owner.keyboard.type("javascript:alert(1)");
    await owner.getByRole("button", { name: "Add link" }).click();
    await owner
      .getByRole("form", { name: "Attach a link" })
      .getByRole("alert")
      .filter({ hasText: "Only web links can be attached: the URL must start with http:// or https://." })
      .waitFor();
    // No chip: nothing is left to block the next message.
    expect(await owner.getByRole("list", { name: "Attachments to send" }).count()).toBe(0);
    expect(await owner.getByText("must be an http(s) URL").count()).toBe(0);
    // Typing again clears the refusal.
    await owner.getByLabel("Link URL").fill("ftp://files.example.com/spec.pdf");
    expect(await owner.getByRole("form", { name: "Attach a link" }).getByRole("alert").count()).toBe(0);
    await owner.getByLabel("Link URL").press("Enter");
    await owner.getByRole("form", { name: "Attach a link" }).getByRole("alert").waitFor();
    await owner.getByRole("button", { name: "Cancel link" }).click();

    await owner.getByRole("button", { name: "Attach link" }).click();
    await owner.getByLabel("Link URL").fill("https://example.com/files/spec.pdf");
    await owner.getByLabel("Link name").fill("Launch spec");
    await owner.getByRole("button", { name: "Add link" }).click();
    await composer(owner).fill("The spec, as a link");
    await composer(owner).press("Enter");
    const link = message(owner, "The spec, as a link").getByRole("link", { name: /Launch spec/ });
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe("https://example.com/files/spec.pdf");
    expect(await link.getAttribute("rel")).toContain("noopener");
  });

  it("reacts and inserts emoji with the picker by keyboard alone", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await composer(owner).fill("Pick by keyboard");
    await composer(owner).press("Enter");
    const row = message(owner, "Pick by keyboard");
    await row.waitFor();
    const react = row.getByRole("button", { name: "Add reaction" });
    await react.focus();
    await owner.keyboard.press("Enter");
    const picker = owner.getByRole("dialog", { name: "Add a reaction" });
    await picker.waitFor();
    // Escape closes it and gives the focus back.
    await owner.keyboard.press("Escape");
    await picker.waitFor({ state: "detached" });
    expect(await react.evaluate((el) => el === document.activeElement)).toBe(true);
    // Down from the search field enters the grid; Right moves to the second emoji; Enter picks it.
    await owner.keyboard.press("Enter");
    await owner.keyboard.press("ArrowDown");
    await owner.keyboard.press("ArrowRight");
    expect(
      await picker.getByRole("button", { name: "heart", exact: true }).evaluate((el) => el === document.activeElement),
    ).toBe(true);
    await owner.keyboard.press("Enter");
    await row.getByRole("button", { name: /^❤️ 1: you/ }).waitFor();

    await owner.getByRole("button", { name: "Insert emoji" }).click();
    await owner.getByRole("dialog", { name: "Insert an emoji" }).getByRole("searchbox").fill("rocket");
    await owner.keyboard.press("Enter");
    expect(await composer(owner).inputValue()).toBe("🚀");
  });

  it("completes an @mention from the list of people by keyboard", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    const box = composer(owner);
    await box.click();
    await box.pressSequentially("Thanks @ma");
    const list = owner.getByRole("listbox", { name: "People and staff to mention" });
    await list.getByRole("option", { name: "Maya Member" }).waitFor();
    expect(await box.getAttribute("aria-expanded")).toBe("true");
    await box.press("Enter");
    expect(await box.inputValue()).toBe("Thanks @Maya Member ");
    await list.waitFor({ state: "detached" });
    await box.pressSequentially("for the review");
    await box.press("Enter");
    await message(owner, "Thanks @Maya Member for the review").waitFor();
  });
});

describe("composing, continued", () => {
  it("keeps Enter as a new line inside an unclosed code fence, and never sends a lone fence", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    const box = composer(owner);
    await box.click();
    await box.pressSequentially("```");
    await box.press("Enter");
    await box.pressSequentially("const fenced = 1;");
    await box.press("Enter");
    expect(await box.inputValue()).toBe("```\nconst fenced = 1;\n");
    await box.pressSequentially("```");
    await box.press("Enter");
    const sent = message(owner, "const fenced = 1;");
    await sent.waitFor();
    expect(await sent.locator("pre code").textContent()).toContain("const fenced = 1;");
    expect(await box.inputValue()).toBe("");
    // A fence alone is the start of a code block, not a message: Send leaves it in the composer.
    await box.fill("```");
    await owner.getByRole("button", { name: "Send" }).click();
    await owner.waitForTimeout(300);
    expect(await box.inputValue()).toBe("```");
    const messages = await org.owner.api.get(`${spacePath()}/chat-rooms/${generalId}/messages?limit=5`);
    expect(messages.body.messages.some((m: { content: string }) => m.content.trim() === "```")).toBe(false);
    await box.fill("");
  });

  it("offers to delete a message edited to nothing, in words", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await composer(owner).fill("Soon to be emptied");
    await composer(owner).press("Enter");
    const row = message(owner, "Soon to be emptied");
    await row.waitFor();
    // The post's own answer may come after its live event: edit once nothing is on its way.
    await owner.locator(".message.pending").waitFor({ state: "detached" });
    await composer(owner).press("ArrowUp");
    const editor = owner.getByRole("textbox", { name: "Edit message" });
    await editor.fill("");
    await editor.press("Enter");
    const offer = owner.getByRole("alert").filter({ hasText: "A message cannot be empty. Delete it instead?" });
    await offer.waitFor();
    expect(await owner.getByText("must not be empty").count()).toBe(0);
    await owner.getByRole("button", { name: "Delete message", exact: true }).last().click();
    const confirm = owner.getByRole("dialog", { name: "Delete message" });
    await confirm.getByRole("button", { name: "Delete" }).click();
    await owner.getByText("This message was deleted").first().waitFor();
  });

  it("offers a post that could not reach the server again once the connection is back, sending it once", async () => {
    const sockets: { close: () => Promise<void> }[] = [];
    const { context, page: owner } = await signedInPage(
      browser,
      server,
      OWNER,
      `/spaces/${spaceId}/chat/${generalId}`,
      {
        setup: (page) =>
          page.routeWebSocket(/\/ws\?token=/, (socket) => {
            socket.connectToServer();
            sockets.push(socket);
          }),
      },
    );
    contexts.push(context);
    await messageList(owner).waitFor();
    // The server cannot be reached for posts.
    const down = (route: import("playwright-core").Route) =>
      route.request().method() === "POST" ? route.abort("connectionrefused") : route.fallback();
    await owner.route(/\/chat-rooms\/[^/]+\/messages$/, down);
    await composer(owner).fill("Posted during the outage");
    await composer(owner).press("Enter");
    await owner.getByRole("alert").filter({ hasText: "Not sent: the server cannot be reached" }).waitFor();
    expect(await composer(owner).inputValue()).toBe("Posted during the outage");

    // Back: the live socket reconnects, and the error gives way to an offer to send.
    await owner.unroute(/\/chat-rooms\/[^/]+\/messages$/, down);
    await sockets[0]?.close();
    await owner
      .getByRole("status")
      .filter({ hasText: "The connection is back. Your message was not sent yet." })
      .waitFor();
    expect(await owner.getByRole("alert").filter({ hasText: "cannot be reached" }).count()).toBe(0);
    const retry = owner.getByRole("button", { name: "Retry" });
    await retry.click();
    await message(owner, "Posted during the outage").waitFor();
    await retry.waitFor({ state: "detached" });
    expect(await composer(owner).inputValue()).toBe("");
    const messages = await org.owner.api.get(`${spacePath()}/chat-rooms/${generalId}/messages?limit=10`);
    const copies = messages.body.messages.filter((m: { content: string }) => m.content === "Posted during the outage");
    expect(copies.length).toBe(1);
  });

  it("warns, before sending, that someone mentioned in a private space is not a member of it", async () => {
    const made = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, {
      name: "Leadership",
      private: true,
    });
    expect(made.status).toBe(201);
    const owner = await open(OWNER, `/spaces/${made.body.id}/chat`);
    await messageList(owner).waitFor();
    const box = composer(owner);
    await box.fill("@Maya Member are you there?");
    const hint = owner.getByRole("status").filter({ hasText: "Maya Member is not a member of this private space" });
    await hint.waitFor();
    expect(await hint.textContent()).toContain("will not see this");
    await screenshot(owner, "chat-private-mention-hint");
    await box.fill("Just a note");
    await hint.waitFor({ state: "detached" });
    await box.fill("");
  });
});

describe("rooms", () => {
  it("creates a room seen live by the other browser, marks it unread, and deletes it after confirmation", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    const maya = await open(member, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(maya).waitFor();
    const mayaRooms = maya.getByRole("navigation", { name: "Rooms" });

    await owner.getByRole("button", { name: "New room" }).click();
    await owner.getByLabel("Room name").fill("general");
    await owner.getByRole("button", { name: "Create room" }).click();
    await owner.getByRole("alert").filter({ hasText: "room name already exists" }).waitFor();
    await owner.getByLabel("Room name").fill("design");
    await owner.getByRole("button", { name: "Create room" }).click();
    await messageList(owner, "design").waitFor();
    const designLink = mayaRooms.getByRole("link", { name: /design/ });
    await designLink.waitFor();

    // A message in a room Maya is not looking at: an unread count there, then the divider when she opens it.
    await composer(owner, "design").fill("Mockups are up");
    await composer(owner, "design").press("Enter");
    await designLink.getByText("1 unread").waitFor();
    await designLink.click();
    await message(maya, "Mockups are up").waitFor();
    await maya.getByText("New messages").waitFor();
    expect(await designLink.getByText("unread").count()).toBe(0);

    await (await roomMenu(owner)).getByRole("menuitem", { name: "Delete room" }).click();
    const confirm = owner.getByRole("dialog", { name: "Delete #design" });
    await confirm.getByRole("button", { name: "Delete room" }).click();
    await owner.waitForURL(new RegExp(`/chat/${generalId}$`));
    await designLink.waitFor({ state: "detached" });
    await maya.waitForURL(new RegExp(`/chat/${generalId}$`));
    // Maya is told in the room that opened instead, clear of its composer.
    const notice = maya.getByRole("status").filter({ hasText: "#design was deleted: #general is open instead." });
    await notice.waitFor();
    const noticeBox = await notice.boundingBox();
    const sendBox = await maya.getByRole("button", { name: "Send" }).boundingBox();
    expect(noticeBox && sendBox && noticeBox.y + noticeBox.height <= sendBox.y).toBe(true);
    await notice.getByRole("button", { name: "Dismiss notice" }).click();
    await notice.waitFor({ state: "detached" });
  });

  it("drops a # typed in front of a new room's name, so it does not read ##name", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(owner).waitFor();
    await owner.getByRole("button", { name: "New room" }).click();
    await owner.getByLabel("Room name").fill("##");
    await owner.getByRole("button", { name: "Create room" }).click();
    await owner.getByRole("alert").filter({ hasText: "A room needs a name after the #." }).waitFor();
    await owner.getByLabel("Room name").fill("#random stuff");
    await owner.getByRole("button", { name: "Create room" }).click();
    await messageList(owner, "random stuff").waitFor();
    await composer(owner, "random stuff").waitFor();
    expect(await owner.getByText("##random").count()).toBe(0);
    const rooms = (await org.owner.api.get(`${spacePath()}/chat-rooms`)).body.chat_rooms as {
      id: string;
      name: string;
    }[];
    const made = rooms.find((r) => r.name.includes("random"));
    expect(made?.name).toBe("random stuff");
    await org.owner.api.delete(`${spacePath()}/chat-rooms/${made?.id}`);
  });

  it("marks the Chat tab and the space in the sidebar unread from another screen, until the room is opened", async () => {
    // What earlier tests left unread is read: the counts start from nothing.
    await readEverything(org, member);
    const maya = await open(member, `/spaces/${spaceId}/board`);
    const tabs = maya.getByRole("navigation", { name: "Space" });
    const sidebar = maya.getByRole("navigation", { name: "Workspace" });
    await tabs.getByRole("link", { name: "Chat", exact: true }).waitFor();
    await sidebar.getByRole("link", { name: "# Launch", exact: true }).waitFor();
    // The page's socket must be open before the messages, or their events go unheard.
    await maya.getByRole("img", { name: "Live updates: live" }).first().waitFor();

    // Her own messages never count; two from the owner do.
    await say(generalId, "Mine, read already", member.api);
    await say(generalId, "Standup moved to 10");
    await say(generalId, "Agenda is in Files");
    await tabs.getByRole("link", { name: "Chat 2 unread" }).waitFor();
    await screenshot(maya, "chat-unread-elsewhere");
    // The count's words follow the name (the link lays them out apart, hence the space).
    await sidebar.getByRole("link", { name: "# Launch 2 unread" }).waitFor();

    // Opening the room is seeing it: both marks go, and the chat screen agrees.
    await tabs.getByRole("link", { name: "Chat 2 unread" }).click();
    await message(maya, "Agenda is in Files").waitFor();
    await tabs.getByRole("link", { name: "Chat", exact: true }).waitFor();
    await sidebar.getByRole("link", { name: "# Launch", exact: true }).waitFor();

    // Back on the board, a newer message marks it again; deleting it takes the mark away.
    await tabs.getByRole("link", { name: "Board" }).click();
    await maya.getByRole("button", { name: "Add task to To do" }).waitFor();
    const news = await say(generalId, "Retro on Friday");
    await tabs.getByRole("link", { name: "Chat 1 unread" }).waitFor();
    const gone = await org.owner.api.delete(`${spacePath()}/chat-rooms/${generalId}/messages/${news.id}`);
    expect(gone.status).toBeLessThan(300);
    await tabs.getByRole("link", { name: "Chat", exact: true }).waitFor();
    await sidebar.getByRole("link", { name: "# Launch", exact: true }).waitFor();
  });

  it("offers Delete room in the room's ⋯ menu to org.manage holders and the room's creator, general to org.manage only", async () => {
    const ownersRoom = await newRoom("owners-room");
    const maya = await open(member, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(maya).waitFor();
    // Nothing destructive sits in the header itself.
    expect(await maya.getByRole("button", { name: "Delete room" }).count()).toBe(0);
    let menu = await roomMenu(maya);
    await menu.getByRole("menuitem", { name: "Copy link to room" }).waitFor();
    expect(await menu.getByRole("menuitem", { name: "Delete room" }).count()).toBe(0);
    await maya.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    await maya
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("link", { name: /owners-room/ })
      .click();
    await messageList(maya, "owners-room").waitFor();
    menu = await roomMenu(maya);
    expect(await menu.getByRole("menuitem", { name: "Delete room" }).count()).toBe(0);
    await maya.keyboard.press("Escape");

    // A room Maya creates is hers to delete.
    await maya.getByRole("button", { name: "New room" }).click();
    await maya.getByLabel("Room name").fill("mayas-room");
    await maya.getByRole("button", { name: "Create room" }).click();
    await messageList(maya, "mayas-room").waitFor();
    await (await roomMenu(maya)).getByRole("menuitem", { name: "Delete room" }).click();
    await maya.getByRole("dialog", { name: "Delete #mayas-room" }).getByRole("button", { name: "Delete room" }).click();
    await maya.waitForURL(new RegExp(`/chat/${generalId}$`));

    // The owner (org.manage) may delete any room, general included.
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(owner).waitFor();
    expect(await owner.getByRole("button", { name: "Delete room" }).count()).toBe(0);
    await (await roomMenu(owner)).getByRole("menuitem", { name: "Delete room" }).waitFor();
    await org.owner.api.delete(`${spacePath()}/chat-rooms/${ownersRoom}`);
  });

  it("shows a room and a message made after the page loaded but before its events socket opened", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { context, page: maya } = await signedInPage(
      browser,
      server,
      member,
      `/spaces/${spaceId}/chat/${generalId}`,
      {
        setup: (page) =>
          page.routeWebSocket(/\/ws\?token=/, async (socket) => {
            await held;
            socket.connectToServer();
          }),
      },
    );
    contexts.push(context);
    await messageList(maya).waitFor();
    const roomId = await newRoom("late-news");
    await say(generalId, "Said while the socket was still connecting");
    release();
    await maya
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("link", { name: /late-news/ })
      .waitFor();
    await message(maya, "Said while the socket was still connecting").waitFor();
    await org.owner.api.delete(`${spacePath()}/chat-rooms/${roomId}`);
  });

  it("keeps a live unread count when the counts' answer was made before the message arrived", async () => {
    await readEverything(org, member);
    const maya = await open(member, `/spaces/${spaceId}/chat/${generalId}`);
    await messageList(maya).waitFor();
    await maya.getByRole("img", { name: "Live updates: live" }).first().waitFor();
    const roomId = await newRoom("late-count");
    const link = maya.getByRole("navigation", { name: "Rooms" }).getByRole("link", { name: /late-count/ });
    await link.waitFor();
    // The counts are answered by the server at once, but reach the page only when released: the answer predates
    // the message posted below, whose live event has counted it by then.
    const answered = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    const delivered: Promise<void>[] = [];
    await maya.route(/\/api\/v1\/me\/unread\?/, (route) => {
      const done = (async () => {
        const response = await route.fetch();
        answered.resolve();
        await release.promise;
        await route.fulfill({ response });
      })();
      delivered.push(done);
      return done;
    });
    // The tab coming back into view asks for the counts again.
    await maya.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await answered.promise;
    await say(roomId, "Posted while the counts were on their way");
    await link.getByText("1 unread").waitFor();
    release.resolve();
    await Promise.all(delivered);
    // The late answer is taken in (two frames), and the count still holds the message it did not know of.
    await maya.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    expect(await link.getByText("1 unread").count()).toBe(1);
    await maya.unrouteAll();
    await org.owner.api.delete(`${spacePath()}/chat-rooms/${roomId}`);
  });

  it("on a phone shows a message's actions only once it is tapped, under its text", async () => {
    const roomId = await newRoom("phone-actions");
    await say(roomId, "First of two, long enough to reach the right edge of a phone screen where actions were");
    await say(roomId, "Second of two");
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`, true);
    const first = message(owner, "First of two");
    const second = message(owner, "Second of two");
    await second.waitFor();
    expect(await owner.getByRole("button", { name: "Add reaction" }).count()).toBe(0);
    expect(await owner.getByRole("button", { name: "Delete message" }).count()).toBe(0);

    await first.locator(".message-text").click();
    await first.getByRole("button", { name: "Delete message" }).waitFor();
    expect(await owner.getByRole("button", { name: "Add reaction" }).count()).toBe(1);
    // Below the text, not over it.
    const text = await first.locator(".message-text").boundingBox();
    const actions = await first.locator(".message-actions").boundingBox();
    expect(text && actions && actions.y >= text.y + text.height - 1).toBe(true);
    await screenshot(owner, "chat-phone-actions");

    // Another tap moves the actions to that message; tapping it again puts them away.
    await second.locator(".message-text").click();
    await second.getByRole("button", { name: "Add reaction" }).waitFor();
    expect(await first.getByRole("button", { name: "Add reaction" }).count()).toBe(0);
    await second.locator(".message-text").click();
    await second.getByRole("button", { name: "Add reaction" }).waitFor({ state: "hidden" });
    // The actions work from there: a reaction through the picker.
    await first.locator(".message-text").click();
    await first.getByRole("button", { name: "Add reaction" }).click();
    const picker = owner.getByRole("dialog", { name: "Add a reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("thumbs up");
    await picker.getByRole("searchbox", { name: "Search emoji" }).press("Enter");
    await first.getByRole("button", { name: /^👍 1: you/ }).waitFor();
    await org.owner.api.delete(`${spacePath()}/chat-rooms/${roomId}`);
  });

  it("works on a phone (in dark mode): the room list opens from the room's header", async () => {
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`, true);
    await messageList(owner).waitFor();
    const rooms = owner.getByRole("navigation", { name: "Rooms" });
    expect(await rooms.isVisible()).toBe(false);
    await owner.getByRole("button", { name: /^Rooms/ }).click();
    await rooms.getByRole("link", { name: /history/ }).click();
    await messageList(owner, "history").waitFor();
    expect(await rooms.isVisible()).toBe(false);
    await screenshot(owner, "chat-phone");
  });
});

describe("AI staff in chat", () => {
  it("shows the staff member's 💭, then its thinking, then its reply to a mention typed in the UI", async () => {
    await addStaff(org, { name: "Ada" });
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    const box = composer(owner);
    await box.click();
    await box.pressSequentially("@Ad");
    const option = owner.getByRole("option", { name: /Ada/ });
    await option.waitFor();
    expect(await option.getByText("Staff").count()).toBe(1);
    await box.press("Tab");
    await box.pressSequentially("when is the launch?");
    expect(await box.inputValue()).toBe("@Ada when is the launch?");
    await box.press("Enter");

    const asked = message(owner, "@Ada when is the launch?");
    await asked.getByRole("button", { name: /^💭 1: Ada/ }).waitFor();
    await owner.getByRole("status").filter({ hasText: "Ada is thinking…" }).waitFor();
    answer.resolve();
    const reply = message(owner, STAFF_REPLY);
    await reply.waitFor({ timeout: 15000 });
    expect(await reply.getByText("Staff", { exact: true }).count()).toBe(1);
    await owner.getByText("Ada is thinking…").waitFor({ state: "detached" });
    expect(fake.requests.length).toBe(1);
    await owner.mouse.move(1, 1);
    await screenshot(owner, "chat");
  });
});

describe("a room of 1,000 loaded messages", () => {
  it("loads every message by scrolling back through history", async () => {
    const roomId = await newRoom("busy");
    const bodies = [
      "Short one",
      "A **bold** point with `code` and a [link](https://example.com)",
      "- a list\n- of things\n- to do",
      "A longer paragraph that wraps over a couple of lines on a desktop screen, to give the rows some variety in height as a real conversation would have.",
    ];
    // Posted 20 at a time; the room stamps them in the order they arrive.
    for (let batch = 0; batch < 1000; batch += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => {
          const i = batch + j + 1;
          return say(roomId, `Message ${i}: ${bodies[i % 4]}`, i % 7 === 0 ? member.api : org.owner.api);
        }),
      );
    }
    const owner = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`);
    await owner.getByRole("article").last().waitFor();
    // Load all 20 pages by scrolling up, each time the previous page is in.
    await owner.waitForFunction(
      () => {
        const el = document.querySelector(".chat-scroll") as HTMLElement;
        el.scrollTop = 0;
        return document.querySelectorAll("article.message").length === 1000;
      },
      undefined,
      { polling: 50, timeout: 30_000 },
    );

    // How smoothly it scrolls is measured by bench/ui.ts; here, that every message is there exactly once.
    const numbers = await owner.evaluate(() =>
      [...document.querySelectorAll("article.message")].map((el) =>
        Number(/Message (\d+):/.exec(el.textContent ?? "")?.[1]),
      ),
    );
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  }, 60_000);
});

/** The accessible name (or text) of the element with the keyboard. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el?.getAttribute("aria-label") ?? el?.textContent?.trim() ?? "";
  });

describe("keyboard and screen readers", () => {
  it("below 760 px (a desktop window at 200% zoom) reaches a message's react, edit and delete by keyboard", async () => {
    const roomId = await newRoom("zoomed");
    await say(roomId, "Zoomed first");
    await say(roomId, "Zoomed last");
    const { context, page } = await signedInPage(browser, server, OWNER, `/spaces/${spaceId}/chat/${roomId}`, {
      viewport: { width: 640, height: 400 },
    });
    contexts.push(context);
    const last = message(page, "Zoomed last");
    await last.waitFor();
    expect(await page.getByRole("button", { name: "Add reaction" }).count()).toBe(0);
    // Back from the composer: the newest message is the list's Tab stop, and focusing it selects it and shows
    // its actions.
    await composer(page, "zoomed").focus();
    const onLast = () => last.evaluate((el) => el === document.activeElement);
    for (let i = 0; i < 10 && !(await onLast()); i++) await page.keyboard.press("Shift+Tab");
    expect(await onLast()).toBe(true);
    expect(await last.getAttribute("class")).toContain("selected");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Add reaction");
    await page.keyboard.press("Enter");
    const picker = page.getByRole("dialog", { name: "Add a reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("thumbs up");
    await picker.getByRole("searchbox", { name: "Search emoji" }).press("Enter");
    await last.getByRole("button", { name: /^👍 1: you/ }).waitFor();
    // Its other actions follow it in the Tab order.
    await last.getByRole("button", { name: "Add reaction" }).focus();
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Reply in thread");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Edit message");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Delete message");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Delete message" }).waitFor();
    await page.keyboard.press("Escape");
    // Up moves the keyboard to the message before, and the selection (and the actions) with it.
    const first = message(page, "Zoomed first");
    await last.focus();
    await page.keyboard.press("ArrowUp");
    expect(await first.evaluate((el) => el === document.activeElement)).toBe(true);
    await first.getByRole("button", { name: "Add reaction" }).waitFor();
    expect(await last.getByRole("button", { name: "Add reaction" }).count()).toBe(0);
  });

  it("makes the message list one Tab stop: arrows move between messages, Tab goes into the focused one", async () => {
    const roomId = await newRoom("roving");
    for (const n of [1, 2, 3, 4]) await say(roomId, `Roving ${n} https://example.com/${n}`);
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`);
    await message(page, "Roving 4").waitFor();
    const isOn = (text: string) => message(page, text).evaluate((el) => el === document.activeElement);
    // Back from the composer: one stop, the newest message, not its links and actions nor any other message's.
    await composer(page, "roving").focus();
    await page.keyboard.press("Shift+Tab");
    expect(await isOn("Roving 4")).toBe(true);
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("article") === null)).toBe(true);
    await page.keyboard.press("Tab");
    expect(await isOn("Roving 4")).toBe(true);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    expect(await isOn("Roving 2")).toBe(true);
    // Into the focused message: its link, then its actions, then out of the list.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("href"))).toBe("https://example.com/2");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Add reaction");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Reply in thread");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Edit message");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("Delete message");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("article") === null)).toBe(true);
    // Back again: one stop, where the keyboard left it. Home and End go to the first and last message.
    await page.keyboard.press("Shift+Tab");
    expect(await isOn("Roving 2")).toBe(true);
    await page.keyboard.press("Home");
    expect(await isOn("Roving 1")).toBe(true);
    await page.keyboard.press("End");
    expect(await isOn("Roving 4")).toBe(true);
  });

  it("keeps the keyboard in the composer after the Send button, and says one's message once", async () => {
    const roomId = await newRoom("announce");
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`);
    await composer(page, "announce").fill("Sent with the button");
    // The answer is held back a little, so the "Sending…" row can be looked at.
    await page.route("**/chat-rooms/*/messages", async (route) => {
      if (route.request().method() === "POST") await Bun.sleep(400);
      await route.continue();
    });
    await page.getByRole("button", { name: "Send", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.locator(".message.pending").waitFor();
    // Shown, but not in the log's accessibility tree: the message is read once, when posted.
    expect(await messageList(page, "announce").ariaSnapshot()).not.toContain("Sending");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Message #announce");
    await message(page, "Sent with the button").waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Message #announce");

    // A follow-up from the same author shows no name, but its text (what a screen reader hears) has it.
    await say(roomId, "Maya speaking", member.api);
    await say(roomId, "Maya again", member.api);
    const followUp = message(page, "Maya again");
    await followUp.waitFor();
    expect(await followUp.getAttribute("class")).toContain("compact");
    expect(await followUp.locator(".message-author").count()).toBe(0);
    expect(await followUp.evaluate((el) => el.textContent)).toMatch(/^Maya Member/);
    const box = await followUp.getByText("Maya Member", { exact: true }).boundingBox();
    expect((box?.width ?? 0) <= 1).toBe(true);
  });

  it("keeps an open editor and its text while older messages come in", async () => {
    const roomId = await newRoom("drafts");
    await seed(roomId, 80, (i) => `Draft room ${i}`);
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`);
    await message(page, "Draft room 80").waitFor();
    await page.waitForFunction(() => !document.querySelector('[role="log"][aria-busy="true"]'));
    await composer(page, "drafts").press("ArrowUp");
    const editor = page.getByRole("textbox", { name: "Edit message" });
    await editor.fill("Draft room 80, edited while older ones came in");
    // The 30 older messages go in front, which cuts the rows into blocks anew: every row is drawn again.
    await page.getByRole("button", { name: "Load older messages" }).click();
    await page.getByRole("heading", { name: "Welcome to #drafts" }).waitFor({ state: "attached" });
    expect(await editor.inputValue()).toBe("Draft room 80, edited while older ones came in");
    await editor.press("Enter");
    await message(page, "edited while older ones came in").getByText("(edited)").waitFor();
    expect(await page.getByRole("textbox", { name: "Edit message" }).count()).toBe(0);
  });

  it("keeps the keyboard on Load older messages, and keeps the log busy while a page goes in", async () => {
    const roomId = await newRoom("older");
    await seed(roomId, 105, (i) => `Older message ${i}`);
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`);
    await message(page, "Older message 105").waitFor();
    const log = messageList(page, "older");
    await page.waitForFunction(() => !document.querySelector('[role="log"][aria-busy="true"]'));
    // Records the log's aria-busy each time messages are put in.
    await log.evaluate((el) => {
      const seen: (string | null)[] = [];
      (window as unknown as { busyAtInsert: (string | null)[] }).busyAtInsert = seen;
      new MutationObserver((records) => {
        for (const r of records)
          if ([...r.addedNodes].some((n) => n instanceof Element && n.querySelector("article")))
            seen.push(el.getAttribute("aria-busy"));
      }).observe(el, { childList: true, subtree: true });
    });
    const button = page.getByRole("button", { name: /older messages/ });
    const text = (n: number) => page.locator(".message-text", { hasText: new RegExp(`^Older message ${n}\\s*$`) });
    // Focusing it scrolls it into view, which loads the next page by itself; else Enter does.
    await button.focus();
    await text(6)
      .waitFor({ state: "attached", timeout: 2000 })
      .catch(async () => {
        await page.keyboard.press("Enter");
        await text(6).waitFor({ state: "attached" });
      });
    await page.waitForFunction(() => !document.querySelector('[role="log"][aria-busy="true"]'));
    expect(await button.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Load older messages");
    // The last page takes the button away: the keyboard goes to the oldest message.
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Welcome to #older" }).waitFor({ state: "attached" });
    await page.waitForFunction(() => document.activeElement?.tagName === "ARTICLE");
    expect(await page.evaluate(() => document.activeElement?.querySelector(".message-text")?.textContent?.trim())).toBe(
      "Older message 1",
    );
    const busy = await page.evaluate(() => (window as unknown as { busyAtInsert: (string | null)[] }).busyAtInsert);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((b) => b === "true")).toBe(true);
  });

  it("names the screen in the window title, and updates it on navigation", async () => {
    // Nothing waits in the owner's Inbox, whose count would come first in the title: "(2) #general · …".
    await readEverything(org, org.owner);
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${generalId}`);
    await page.waitForFunction(() => document.title === "#general · Launch · Tandem");
    await newRoom("titled");
    await page
      .getByRole("navigation", { name: "Rooms" })
      .getByRole("link", { name: /titled/ })
      .click();
    await page.waitForFunction(() => document.title === "#titled · Launch · Tandem");
    // The new screen is said in a polite live region, once it settles.
    const announcer = page.locator("[data-route-announcer]");
    await page.waitForFunction(
      () => document.querySelector("[data-route-announcer]")?.textContent === "#titled · Launch",
    );
    expect(await announcer.getAttribute("aria-live")).toBe("polite");
    await page.getByRole("navigation", { name: "Space" }).getByRole("link", { name: "Board" }).click();
    await page.waitForFunction(() => document.title === "Board · Launch · Tandem");
    await page.waitForFunction(
      () => document.querySelector("[data-route-announcer]")?.textContent === "Board · Launch",
    );
    await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "My tasks" }).click();
    await page.waitForFunction(() => document.title === "My tasks · Tandem");
    await page.goto(`/spaces/${crypto.randomUUID()}/board`);
    await page.waitForFunction(() => document.title === "Space not found · Tandem");
  });

  it("gives the destructive confirm button 4.5:1 in dark mode", async () => {
    const roomId = await newRoom("dark-delete");
    await say(roomId, "Delete me in the dark");
    const page = await open(OWNER, `/spaces/${spaceId}/chat/${roomId}`, true);
    const row = message(page, "Delete me in the dark");
    await row.locator(".message-text").click();
    await row.getByRole("button", { name: "Delete message" }).click();
    const button = page.getByRole("dialog", { name: "Delete message" }).getByRole("button", { name: "Delete" });
    const [fg, bg] = await button.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
    expect(contrast(fg as string, bg as string)).toBeGreaterThanOrEqual(4.5);
  });
});
