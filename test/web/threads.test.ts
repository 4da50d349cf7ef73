/**
 * Threads and uploads in chat, in real browsers against the compiled binary: two people talking in a thread
 * live (the count under the root, the side panel, "Also send to #room"), the panel covering the room on a phone
 * with a way back, an inbox item opening its thread; an image pasted in one browser shown in the other, a file
 * picked shown as a chip with its size, an upload removed before sending; and the room's header (its ⋯ menu) and
 * a code block's first line.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org, OWNER, type Person } from "../helpers/factories";
import type { Reply } from "../helpers/http";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let maya: Person;
let spaceId: string;
const contexts: BrowserContext[] = [];

const spacePath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;

/** The body of a 201 answer; anything else fails the test with what was answered. */
async function created(request: Promise<Reply>): Promise<any> {
  const res = await request;
  if (res.status !== 201) throw new Error(`expected 201, got ${res.status} ${res.text}`);
  return res.body;
}

/** A new room of the space; its id. */
const newRoom = async (name: string): Promise<string> =>
  (await created(org.owner.api.post(`${spacePath()}/chat-rooms`, { name }))).id;

/** A message posted in the room (in a thread with `thread_root_id`); the message. */
const say = async (roomId: string, body: Record<string, unknown>, as: Person = org.owner) =>
  (await created(as.api.post(`${spacePath()}/chat-rooms/${roomId}/messages`, body))).message;

async function open(
  who: { email: string; password: string },
  path: string,
  options: { phone?: boolean; dark?: boolean } = {},
): Promise<Page> {
  const { context, page } = await signedInPage(browser, server, who, path, {
    ...(options.phone ? { viewport: PHONE } : {}),
    colorScheme: options.dark ? "dark" : "light",
  });
  contexts.push(context);
  return page;
}

const roomPath = (roomId: string) => `/spaces/${spaceId}/chat/${roomId}`;
const roomLog = (page: Page, room: string) => page.getByRole("log", { name: `Messages in #${room}` });
const panel = (page: Page, room: string) => page.getByRole("complementary", { name: `Thread in #${room}` });
const threadLog = (page: Page, room: string) => panel(page, room).getByRole("log", { name: "Messages in the thread" });
const row = (scope: Page | ReturnType<Page["locator"]>, text: string) =>
  scope.getByRole("article").filter({ hasText: text });

/** Pastes an image drawn in the page (a real PNG, 48×32) into the focused field, as a screenshot pastes. */
async function pasteImage(page: Page, name: string): Promise<void> {
  await page.evaluate(async (fileName) => {
    const canvas = document.createElement("canvas");
    canvas.width = 48;
    canvas.height = 32;
    const g = canvas.getContext("2d") as CanvasRenderingContext2D;
    g.fillStyle = "#4f46e5";
    g.fillRect(0, 0, 48, 32);
    const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b as Blob), "image/png"));
    const data = new DataTransfer();
    data.items.add(new File([blob], fileName, { type: "image/png" }));
    const target = document.activeElement as HTMLElement;
    target.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, name);
}

beforeAll(async () => {
  let ws: { server: TestServer; org: Org };
  [browser, ws] = await Promise.all([launchBrowser(), startWorkspace()]);
  server = ws.server;
  org = ws.org;
  maya = await addMember(org, ["Member"], "Maya Member");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  spaceId = space.body.id;
});

afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close().catch(() => {});
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("threads", () => {
  it("a thread conversation between two people live", async () => {
    const roomId = await newRoom("planning");
    await say(roomId, { content: "Who writes the release notes?" });
    const owner = await open(OWNER, roomPath(roomId));
    const mayaPage = await open(maya, roomPath(roomId));
    await row(roomLog(mayaPage, "planning"), "Who writes the release notes?").waitFor();
    await row(roomLog(owner, "planning"), "Who writes the release notes?").waitFor();

    // Maya answers in a thread: the panel opens beside the room, with the root at its top.
    const root = row(roomLog(mayaPage, "planning"), "Who writes the release notes?");
    await root.hover();
    await root.getByRole("button", { name: "Reply in thread" }).click();
    await threadLog(mayaPage, "planning").waitFor();
    expect(mayaPage.url()).toContain("?thread=");
    await row(threadLog(mayaPage, "planning"), "Who writes the release notes?").waitFor();
    const mayaReply = panel(mayaPage, "planning").getByRole("combobox", { name: "Reply in thread in #planning" });
    await mayaReply.fill("I can take them");
    await mayaReply.press("Enter");
    await row(threadLog(mayaPage, "planning"), "I can take them").waitFor();
    expect(await mayaReply.inputValue()).toBe("");

    // The owner sees the count under the root live, the reply not in the room, and opens the thread from it.
    const count = row(roomLog(owner, "planning"), "Who writes the release notes?").getByRole("button", {
      name: "1 reply",
    });
    await count.waitFor();
    expect(await row(roomLog(owner, "planning"), "I can take them").count()).toBe(0);
    await row(roomLog(owner, "planning"), "Who writes the release notes?").getByText("· just now").waitFor();
    await count.click();
    await row(threadLog(owner, "planning"), "I can take them").waitFor();

    // The owner answers in the thread and to the room too: Maya sees it in both, live.
    const ownerReply = panel(owner, "planning").getByRole("combobox", { name: "Reply in thread in #planning" });
    await ownerReply.fill("Great, thanks **Maya**");
    await panel(owner, "planning").getByLabel("Also send to #planning").check();
    await ownerReply.press("Enter");
    await row(threadLog(mayaPage, "planning"), "Great, thanks Maya").waitFor();
    const inRoom = row(roomLog(mayaPage, "planning"), "Great, thanks Maya");
    await inRoom.waitFor();
    await inRoom.getByRole("button", { name: "↳ replied in a thread" }).waitFor();
    await row(roomLog(mayaPage, "planning"), "Who writes the release notes?")
      .getByRole("button", { name: "2 replies" })
      .waitFor();
    // The checkbox is for one reply: it is off again.
    expect(await panel(owner, "planning").getByLabel("Also send to #planning").isChecked()).toBe(false);
    await screenshot(mayaPage, "chat-thread");

    // A reaction in the thread, live in the other browser's panel.
    const replyRow = row(threadLog(owner, "planning"), "I can take them");
    await replyRow.hover();
    await replyRow.getByRole("button", { name: "Add reaction" }).click();
    const picker = owner.getByRole("dialog", { name: "Add a reaction" });
    await picker.getByRole("searchbox", { name: "Search emoji" }).fill("thumbs up");
    await picker.getByRole("searchbox", { name: "Search emoji" }).press("Enter");
    await row(threadLog(mayaPage, "planning"), "I can take them")
      .getByRole("button", { name: /^👍 1: Olivia Owner/ })
      .waitFor();

    // Closing the thread leaves the room.
    await panel(mayaPage, "planning").getByRole("button", { name: "Close thread" }).click();
    await panel(mayaPage, "planning").waitFor({ state: "detached" });
    expect(mayaPage.url()).not.toContain("thread=");
  });

  it("covers the room with the thread on a phone (dark mode), with a way back", async () => {
    const roomId = await newRoom("phone-threads");
    const root = await say(roomId, { content: "Phone root message" });
    await say(roomId, { content: "A reply from Maya", thread_root_id: root.id }, maya);
    const page = await open(OWNER, roomPath(roomId), { phone: true, dark: true });
    const count = row(roomLog(page, "phone-threads"), "Phone root message").getByRole("button", { name: "1 reply" });
    await count.click();
    await row(threadLog(page, "phone-threads"), "A reply from Maya").waitFor();
    const box = await panel(page, "phone-threads").boundingBox();
    const viewport = page.viewportSize();
    expect(box && viewport && box.width >= viewport.width - 1).toBe(true);
    // The panel is drawn on the dark theme's card, not a light one.
    const background = await panel(page, "phone-threads").evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe("rgb(27, 27, 32)");
    await screenshot(page, "chat-thread-phone");
    await panel(page, "phone-threads").getByRole("button", { name: "Back to #phone-threads" }).click();
    await panel(page, "phone-threads").waitFor({ state: "detached" });
    await count.waitFor();
  });

  it("opens the thread of a thread_reply from the inbox, at the reply", async () => {
    const roomId = await newRoom("inbox-threads");
    const root = await say(roomId, { content: "Maya's question about the launch" }, maya);
    await say(roomId, { content: "The owner's answer in the thread", thread_root_id: root.id });
    const page = await open(maya, "/inbox");
    await page.getByRole("link", { name: /Olivia Owner replied in a thread.*The owner.s answer/ }).click();
    await page.waitForURL(new RegExp(`/chat/${roomId}\\?message=`));
    const reply = row(threadLog(page, "inbox-threads"), "The owner's answer in the thread");
    await reply.waitFor();
    await page.waitForFunction(() => document.querySelector("article.message.jumped") !== null);
    expect(await reply.getAttribute("class")).toContain("jumped");
    await row(roomLog(page, "inbox-threads"), "Maya's question about the launch").waitFor();
  });
});

describe("uploads in chat", () => {
  it("a pasted image shown in the other browser", async () => {
    const roomId = await newRoom("screenshots");
    const owner = await open(OWNER, roomPath(roomId));
    const mayaPage = await open(maya, roomPath(roomId));
    await roomLog(mayaPage, "screenshots").waitFor();
    const field = owner.getByRole("combobox", { name: "Message #screenshots" });
    await field.click();
    await pasteImage(owner, "screenshot.png");
    const drafts = owner.getByRole("list", { name: "Attachments to send" });
    // Uploaded: its chip says so with its size, and it can be sent.
    await drafts.getByRole("button", { name: "Remove screenshot.png" }).waitFor();
    await field.fill("The new header");
    await screenshot(owner, "chat-upload-draft");
    await field.press("Enter");

    // Maya sees the picture itself, loaded with her session (a blob: URL), not a link.
    const image = row(roomLog(mayaPage, "screenshots"), "The new header").getByRole("img", { name: "screenshot.png" });
    await image.waitFor();
    await mayaPage.waitForFunction(
      () => (document.querySelector('img[alt="screenshot.png"]') as HTMLImageElement | null)?.naturalWidth === 48,
    );
    expect(await image.getAttribute("src")).toStartWith("blob:");
    await screenshot(mayaPage, "chat-pasted-image");
    // It opens larger.
    await row(roomLog(mayaPage, "screenshots"), "The new header")
      .getByRole("button", { name: "Open screenshot.png" })
      .click();
    const viewer = mayaPage.getByRole("dialog", { name: "screenshot.png" });
    await viewer.getByRole("img", { name: "screenshot.png" }).waitFor();
    await viewer.getByRole("button", { name: "Close" }).click();

    // The file is in the space's Attachments folder.
    const files = await org.owner.api.get(`${spacePath()}/files?q=screenshot&scope=space`);
    expect(files.body.nodes.map((n: any) => n.name)).toContain("screenshot.png");
  });

  it("attaches a picked file as a chip with its name and size, and drops an upload before sending", async () => {
    const roomId = await newRoom("files-room");
    const owner = await open(OWNER, roomPath(roomId), { dark: true });
    const mayaPage = await open(maya, roomPath(roomId));
    await roomLog(mayaPage, "files-room").waitFor();
    const picker = owner.locator('.composer input[type="file"]');
    await picker.setInputFiles([
      { name: "notes.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4 notes ".repeat(200)) },
      { name: "drop-me.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4 gone") },
    ]);
    const drafts = owner.getByRole("list", { name: "Attachments to send" });
    await drafts.getByRole("button", { name: "Remove notes.pdf" }).waitFor();
    await drafts.getByText("3.0 KB").waitFor();
    await drafts.getByRole("button", { name: "Remove drop-me.pdf" }).click();
    await drafts.getByText("drop-me.pdf").waitFor({ state: "detached" });
    // A file dropped anywhere on the room is attached too.
    await owner.evaluate(() => {
      const zone = document.querySelector('section[aria-label="#files-room"]') as HTMLElement;
      const data = new DataTransfer();
      data.items.add(new File(["a,b\n1,2\n"], "numbers.csv", { type: "text/csv" }));
      zone.dispatchEvent(new DragEvent("dragenter", { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await drafts.getByRole("button", { name: "Remove numbers.csv" }).waitFor();
    await owner.getByRole("button", { name: "Send" }).click();

    const chip = row(roomLog(mayaPage, "files-room"), "notes.pdf").getByRole("button", { name: /notes\.pdf/ });
    await chip.waitFor();
    expect(await chip.textContent()).toContain("3.0 KB");
    expect(await row(roomLog(mayaPage, "files-room"), "drop-me.pdf").count()).toBe(0);
    await row(roomLog(mayaPage, "files-room"), "notes.pdf")
      .getByRole("button", { name: /numbers\.csv/ })
      .waitFor();
    // Clicking it downloads the file, with Maya's session.
    const download = mayaPage.waitForEvent("download");
    await chip.click();
    expect((await download).suggestedFilename()).toBe("notes.pdf");
    // The dropped upload is gone from the folder again (the owner may delete files).
    const files = await org.owner.api.get(`${spacePath()}/files?q=drop-me&scope=space`);
    expect(files.body.nodes).toEqual([]);
  });
});

describe("the room's header and messages", () => {
  it("keeps the room's actions in its ⋯ menu and starts a code block's first line where the others start", async () => {
    const roomId = await newRoom("code");
    await say(roomId, { content: "```\nfirst line\nsecond line\n```" });
    const page = await open(OWNER, roomPath(roomId), { dark: true });
    const code = row(roomLog(page, "code"), "first line").locator("pre code");
    await code.waitFor();
    const style = await code.evaluate((el) => {
      const s = getComputedStyle(el);
      return { padding: s.paddingLeft, background: s.backgroundColor };
    });
    expect(style).toEqual({ padding: "0px", background: "rgba(0, 0, 0, 0)" });
    expect(await page.getByRole("button", { name: "Delete room" }).count()).toBe(0);
    await page.getByRole("button", { name: "Room actions" }).click();
    await page.getByRole("menu").getByRole("menuitem", { name: "Delete room" }).waitFor();
    await screenshot(page, "chat-room-menu");
  });
});
