/**
 * A text file's history and the markdown editor in a real browser against the compiled binary: an older version
 * compared with the current text and restored from the History panel while another person types in the same
 * file (both editors and the API end with the same text, the typing kept); lists typed the way markdown editors
 * type them, with the live preview beside the text; on a phone, the preview a toggle rather than a split.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { editorText, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org, OWNER, type Person } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
/** Mia, who types in the file while it is restored. */
let member: Person;
let spaceId: string;
const filesApi = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/files`;
const fileUrl = (id: string) => `/spaces/${spaceId}/files/${id}`;

async function textFile(name: string, content: string): Promise<{ id: string }> {
  const res = await org.owner.api.post(`${filesApi()}/text`, { name, content });
  expect(res.status).toBe(201);
  return res.body.node;
}

async function put(id: string, text: string): Promise<void> {
  const res = await org.owner.api.put(`${filesApi()}/${id}/content`, undefined, {
    raw: text,
    contentType: "text/plain",
  });
  expect(res.status).toBe(200);
}

async function served(id: string): Promise<string> {
  const res = await org.owner.api.get(`${filesApi()}/${id}/content`);
  expect(res.status).toBe(200);
  return res.text;
}

/** Polls until `check` holds (or fails after `ms`, saying `what`). */
async function until(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

async function openEditor(page: Page, name: string): Promise<void> {
  await page.getByRole("textbox", { name: `Content of ${name}` }).waitFor();
  await page.getByText("Live: changes save as you type").waitFor();
}

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
  const [person, space] = await Promise.all([
    addMember(org, ["Member"], "Mia Member"),
    org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" }),
  ]);
  member = person;
  spaceId = space.body.id;
});
afterAll(() => Promise.all([browser?.close(), server?.stop()]));

describe("a text file's history", () => {
  it("a file restored while another browser edits it: both converge, and the typing is kept", async () => {
    const lines = ["# Launch plan", "", "- book the venue", "- print the flyers", "- invite the press", ""];
    const original = lines.join("\n");
    const file = await textFile("plan.md", original);
    const modified = original.replace("print the flyers", "skip the flyers").replace("the press", "nobody");
    await put(file.id, modified);

    const owner = await signedInPage(browser, server, OWNER, fileUrl(file.id));
    const other = await signedInPage(browser, server, member, fileUrl(file.id));
    await openEditor(owner.page, "plan.md");
    await openEditor(other.page, "plan.md");

    // The history lists both versions with who made them; the older one shows what changed since.
    await owner.page.getByRole("button", { name: "History" }).click();
    const history = owner.page.getByRole("dialog", { name: "History of plan.md" });
    const versions = history.getByRole("list", { name: "Versions" }).getByRole("button");
    await until(async () => (await versions.count()) === 2, "two versions");
    await expect(versions.nth(0).textContent()).resolves.toContain("Olivia Owner");
    await expect(versions.nth(0).textContent()).resolves.toContain("current text");
    await versions.nth(1).click();
    await history.locator(".diff-del", { hasText: "- print the flyers" }).waitFor();
    await history.locator(".diff-add", { hasText: "- skip the flyers" }).waitFor();
    await history.getByRole("button", { name: "In this version" }).click();
    await history.getByText("The oldest version kept: all of its text.").waitFor();
    await history.getByRole("button", { name: "Since then" }).click();
    await screenshot(owner.page, "file-history");

    // Mia types at the end of the text all through the restore.
    await other.page.locator(".cm-content").click();
    await other.page.keyboard.press("Control+End");
    const typing = other.page.keyboard.type(" Mia was here, typing along.", { delay: 40 });
    await Bun.sleep(200);
    await history.getByRole("button", { name: "Restore this version" }).click();
    const confirm = owner.page.getByRole("dialog", { name: "Restore this version?" });
    await confirm.getByRole("button", { name: "Restore" }).click();
    await owner.page.getByText(/Restored: plan.md has its text of/).waitFor();
    await history.waitFor({ state: "detached" });
    await typing;

    // Both editors and the API agree: the restored lines, and every word Mia typed.
    await until(async () => {
      const [a, b, api] = await Promise.all([editorText(owner.page), editorText(other.page), served(file.id)]);
      return a === b && b === api;
    }, "both editors and the API to converge");
    // The restored text, then what Mia typed once it had landed; what she typed before is in the text kept
    // just before the restore: nothing is lost.
    const text = await served(file.id);
    expect(text.startsWith(original)).toBe(true);
    const after = text.slice(original.length);
    expect(after.length).toBeGreaterThan(0);
    const list = (await org.owner.api.get(`${filesApi()}/${file.id}/versions`)).body.versions;
    const kept = await Promise.all(
      list.map(
        async (v: { id: string }) =>
          (await org.owner.api.get(`${filesApi()}/${file.id}/versions/${v.id}/content`)).text,
      ),
    );
    const replaced = kept.find((t) => t.includes("skip the flyers") && t.length > modified.length) ?? modified;
    expect(replaced.startsWith(modified)).toBe(true);
    expect(replaced.slice(modified.length) + after).toBe(" Mia was here, typing along.");

    // The restore is in the history too: the text it replaced can be brought back.
    await owner.page.getByRole("button", { name: "History" }).click();
    await until(async () => (await versions.count()) >= 3, "the restore's versions");
    await owner.context.close();
    await other.context.close();
  });
});

describe("lists in the markdown editor", () => {
  it("Enter on an empty bullet leaves the list, and a heading typed after it stays a heading", async () => {
    const file = await textFile("notes.md", "");
    const { context, page } = await signedInPage(browser, server, OWNER, fileUrl(file.id));
    await openEditor(page, "notes.md");
    await page.locator(".cm-content").click();
    await page.keyboard.type("- one");
    await page.keyboard.press("Enter");
    await page.keyboard.type("two");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.type("## Open questions");
    await page.keyboard.press("Enter");
    await page.keyboard.type("1. first");
    await page.keyboard.press("Enter");
    await page.keyboard.type("second");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    await page.keyboard.type("nested");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.type("third");
    const want = "- one\n- two\n## Open questions\n1. first\n2. second\n   1. nested\n3. third";
    await until(async () => (await served(file.id)) === want, "the list typed as markdown");
    expect(await editorText(page)).toBe(want);

    // The preview beside the text renders it with the app's markdown.
    const preview = page.getByRole("region", { name: "Preview" });
    await preview.getByRole("heading", { name: "Open questions" }).waitFor();
    expect(await preview.locator("ul > li").allTextContents()).toEqual(["one", "two"]);
    expect(await preview.locator("ol > li > ol > li").allTextContents()).toEqual(["nested"]);
    await context.close();
  });

  it("a heading typed on a new, empty bullet makes the line that heading", async () => {
    const file = await textFile("agenda.md", "");
    const { context, page } = await signedInPage(browser, server, OWNER, fileUrl(file.id));
    await openEditor(page, "agenda.md");
    await page.locator(".cm-content").click();
    await page.keyboard.type("- coffee");
    await page.keyboard.press("Enter");
    await page.keyboard.type("## Decisions");
    await until(async () => (await served(file.id)) === "- coffee\n## Decisions", "the heading");
    await context.close();
  });
});

describe("the preview on a phone", () => {
  it("is a toggle: Edit or Preview, no split", async () => {
    const file = await textFile("phone.md", "# Title\n\nSome *text*.\n");
    const { context, page } = await signedInPage(browser, server, OWNER, fileUrl(file.id), { viewport: PHONE });
    await openEditor(page, "phone.md");
    const view = page.getByRole("group", { name: "View" });
    expect(await view.getByRole("button").allTextContents()).toEqual(["Edit", "Preview"]);
    // A split remembered from a wide window shows the text alone here.
    await page.getByRole("region", { name: "Preview" }).waitFor({ state: "detached" });
    await view.getByRole("button", { name: "Preview" }).click();
    await page.getByRole("region", { name: "Preview" }).getByRole("heading", { name: "Title" }).waitFor();
    expect(await page.locator(".editor-text").isVisible()).toBe(false);
    await view.getByRole("button", { name: "Edit" }).click();
    await page.getByRole("region", { name: "Preview" }).waitFor({ state: "detached" });
    expect(await page.locator(".editor-text").isVisible()).toBe(true);
    await context.close();
  });
});
