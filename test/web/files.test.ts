/**
 * The files screen in a real browser against the compiled binary: the tree (create, rename inline, move by
 * drag, delete, search), upload and download, two people editing one text file in the collaborative editor
 * until both editors and the API agree (with each other's cursors and names), and a staff member's proposal
 * reviewed as a diff and accepted (and a stale one refused in words).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { editorText, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org, OWNER, type Person } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let member: Person;
let spaceId: string;

const filesApi = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/files`;
const filesUrl = (id?: string) => `/spaces/${spaceId}/files${id ? `/${id}` : ""}`;

async function tree(): Promise<{ id: string; name: string; parent_id: string | null; kind: string }[]> {
  const res = await org.owner.api.get(`${filesApi()}/tree`);
  expect(res.status).toBe(200);
  return res.body.nodes;
}

async function textFile(name: string, content: string, parentId: string | null = null): Promise<{ id: string }> {
  const res = await org.owner.api.post(`${filesApi()}/text`, { name, content, parent_id: parentId });
  expect(res.status).toBe(201);
  return res.body.node;
}

async function served(id: string): Promise<string> {
  const res = await fetch(`${server.url}${filesApi()}/${id}/content`, {
    headers: { authorization: `Bearer ${org.owner.token}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

const item = (page: Page, name: string) => page.getByRole("treeitem", { name, exact: true });
/** A tree item at a depth (1: the top level), to wait for a move to show. */
const atLevel = (page: Page, name: string, level: number) =>
  page.locator(`[role="treeitem"][aria-label="${name}"][aria-level="${level}"]`);
/** The top level of the tree (a drop target and a way back to the root). */
const root = (page: Page) =>
  page.getByRole("complementary", { name: "Files of the space" }).getByRole("button", { name: "All files" });

beforeAll(async () => {
  const [launched, workspace] = await Promise.all([launchBrowser(), startWorkspace()]);
  browser = launched;
  ({ server, org } = workspace);
  member = await addMember(org, ["Member"], "Mia Member");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Handbook" });
  expect(space.status).toBe(201);
  spaceId = space.body.id;
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the file tree", () => {
  it("creates a folder and a text file, renames inline, moves by drag, searches, and deletes", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl());
    await page.getByText("This space has no files yet.").waitFor();

    await page.getByRole("button", { name: "New folder" }).click();
    await page.getByLabel("Name of the new folder").fill("Guides");
    await page.keyboard.press("Enter");
    await item(page, "Guides").waitFor();
    await page.waitForURL(/\/files\/[0-9a-f-]+$/);
    // The keyboard lands on the new folder's row, not on the page.
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Guides");

    // Back at the top level, a new text file goes to the root and opens in the editor.
    await root(page).click();
    await page.getByRole("button", { name: "New file" }).click();
    await page.getByLabel("Name of the new file").fill("draft.md");
    await page.keyboard.press("Enter");
    await page.getByRole("textbox", { name: "Content of draft.md" }).waitFor();
    // The new file's editor has the cursor: typing goes straight into it.
    await page.getByText("Live: changes save as you type").waitFor();
    await page.keyboard.type("Welcome aboard");
    await page.locator(".cm-line", { hasText: "Welcome aboard" }).waitFor();

    // Rename in place from the keyboard (F2).
    await item(page, "draft.md").focus();
    await page.keyboard.press("F2");
    const rename = page.getByLabel("New name for draft.md");
    await rename.fill("onboarding.md");
    await rename.press("Enter");
    await item(page, "onboarding.md").waitFor();
    // The keyboard stays on the renamed row.
    await page.waitForFunction(() => document.activeElement?.textContent?.includes("onboarding.md"));
    expect(await item(page, "onboarding.md").evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByRole("heading", { name: "onboarding.md" }).waitFor();

    // A second file and a duplicate name: the API's 409 shows in words.
    await root(page).click();
    await page.getByRole("button", { name: "New file" }).click();
    await page.getByLabel("Name of the new file").fill("ONBOARDING.md");
    await page.keyboard.press("Enter");
    await page.getByRole("alert").filter({ hasText: "name already exists" }).waitFor();
    await page.getByLabel("Name of the new file").press("Escape");

    // Drag the file onto the folder: it moves there.
    await item(page, "onboarding.md").dragTo(item(page, "Guides"));
    const guides = (await tree()).find((n) => n.name === "Guides");
    let moved = false;
    for (let i = 0; i < 50 && !moved; i++) {
      moved = (await tree()).some((n) => n.name === "onboarding.md" && n.parent_id === guides?.id);
      if (!moved) await Bun.sleep(100);
    }
    expect(moved).toBe(true);
    const onboarding = (await tree()).find((n) => n.name === "onboarding.md")?.id as string;
    expect(await served(onboarding)).toBe("Welcome aboard");
    await atLevel(page, "onboarding.md", 2).waitFor();

    // A folder dragged into its own subfolder: the API refuses and says why.
    await root(page).click();
    await item(page, "Guides").click();
    await page.getByRole("button", { name: "New folder" }).click();
    await page.getByLabel("Name of the new folder").fill("Archive");
    await page.keyboard.press("Enter");
    await item(page, "Archive").waitFor();
    await item(page, "Guides").dragTo(item(page, "Archive"));
    await page.getByRole("alert").filter({ hasText: "cannot move a folder into itself" }).waitFor();

    // Arrow keys walk the tree.
    await item(page, "Guides").focus();
    await page.keyboard.press("ArrowDown");
    await page.locator('[role="treeitem"][aria-label="Archive"]:focus').waitFor();

    // Search across the space by name, with where each result lives.
    await page.getByLabel("Search files").fill("boarding");
    const results = page.getByRole("list", { name: "Search results" });
    await results.getByRole("button", { name: /onboarding\.md/ }).waitFor();
    await expect(results.getByRole("button", { name: /onboarding\.md/ }).textContent()).resolves.toContain("Guides");
    await results.getByRole("button", { name: /onboarding\.md/ }).click();
    await page.getByRole("heading", { name: "onboarding.md" }).waitFor();
    await page.getByLabel("Search files").fill("");

    // Dragged onto "All files", a folder moves to the top level.
    await item(page, "Archive").dragTo(root(page));
    await atLevel(page, "Archive", 1).waitFor();
    expect((await tree()).find((n) => n.name === "Archive")?.parent_id).toBeNull();

    // Delete a folder (confirmed): everything inside goes with it.
    await item(page, "Guides").focus();
    await page.keyboard.press("Delete");
    const dialog = page.getByRole("dialog", { name: "Delete Guides?" });
    await dialog.getByText("and the 1 item inside it").waitFor();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await item(page, "Guides").waitFor({ state: "detached" });
    expect((await tree()).map((n) => n.name)).toEqual(["Archive"]);
    // The keyboard moves to a row that is still there, not to the page (once the dialog has gone).
    await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "treeitem");

    // The ⋯ of a row (a pointer shortcut, hidden from assistive technology) opens the same menu: each node has
    // one menu button by name, the one in the header of the open folder or file.
    await item(page, "Archive").hover();
    expect(await page.getByRole("button", { name: /actions for Archive/i }).count()).toBe(0);
    await page.locator(".tree-more").click();
    await page.getByRole("menuitem", { name: "Delete…" }).click();
    await page.getByRole("dialog", { name: "Delete Archive?" }).getByRole("button", { name: "Delete" }).click();
    await item(page, "Archive").waitFor({ state: "detached" });
    expect(await tree()).toEqual([]);
    await context.close();
  });

  it("shows another browser's changes live", async () => {
    const a = await signedInPage(browser, server, OWNER, filesUrl());
    const b = await signedInPage(browser, server, member, filesUrl());
    await root(a.page).waitFor();
    await root(b.page).waitFor();
    await a.page.getByRole("button", { name: "New folder" }).click();
    await a.page.getByLabel("Name of the new folder").fill("Shared live");
    await a.page.keyboard.press("Enter");
    await item(b.page, "Shared live").waitFor();
    const id = (await tree()).find((n) => n.name === "Shared live")?.id as string;
    expect((await org.owner.api.patch(`${filesApi()}/${id}`, { name: "Renamed live" })).status).toBe(200);
    await item(b.page, "Renamed live").waitFor();
    expect((await org.owner.api.delete(`${filesApi()}/${id}`)).status).toBe(204);
    await item(b.page, "Renamed live").waitFor({ state: "detached" });
    await a.context.close();
    await b.context.close();
  });

  it("keeps the keyboard on the tree: a cancelled dialog gives it back, a move leaves it on the moved row", async () => {
    const dest = await org.owner.api.post(`${filesApi()}/folders`, { name: "Keyboard dest" });
    expect(dest.status).toBe(201);
    await textFile("keyboard-mover.md", "moves\n");
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl());
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? "");
    await item(page, "keyboard-mover.md").focus();

    await page.keyboard.press("Delete");
    const confirm = page.getByRole("dialog", { name: "Delete keyboard-mover.md?" });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(await focused()).toContain("keyboard-mover.md");

    await page.keyboard.press("Shift+F10");
    await page.getByRole("menuitem", { name: "Move to…" }).click();
    const move = page.getByRole("dialog", { name: "Move keyboard-mover.md" });
    await move.getByLabel("Destination folder").selectOption({ label: "Keyboard dest" });
    await move.getByRole("button", { name: "Move" }).click();
    await move.waitFor({ state: "detached" });
    await atLevel(page, "keyboard-mover.md", 2).waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent?.includes("keyboard-mover.md"));
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("treeitem");
    await context.close();
  });
});

describe("the keyboard after a cancelled name or dialog", () => {
  it("gives the keyboard back to what started a new name or a move, and keeps the name field inside a tree item", async () => {
    const folder = await org.owner.api.post(`${filesApi()}/folders`, { name: "Returns" });
    expect(folder.status).toBe(201);
    const note = await textFile("returns.md", "back\n", folder.body.node.id);
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(folder.body.node.id));
    const activeName = () =>
      page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent);

    // Escape in a new folder's or file's name goes back to the button that started it.
    for (const [button, field] of [
      ["New folder", "Name of the new folder"],
      ["New file", "Name of the new file"],
    ] as const) {
      await page.getByRole("button", { name: button, exact: true }).focus();
      await page.keyboard.press("Enter");
      const input = page.getByLabel(field);
      await input.waitFor();
      // The field is inside an item of the tree, not loose in it (a tree holds only items).
      expect(
        await input.evaluate((el) => {
          const parent = el.closest("[role=treeitem], [role=tree]");
          return `${parent?.getAttribute("role")} ${parent?.getAttribute("aria-label")}`;
        }),
      ).toBe(`treeitem ${button}`);
      expect(
        await page.evaluate(() =>
          [...document.querySelectorAll("[role=tree] > *")].every(
            (el) => el.getAttribute("role") === "treeitem" || el.getAttribute("role") === "none",
          ),
        ),
      ).toBe(true);
      await page.keyboard.press("Escape");
      await input.waitFor({ state: "detached" });
      expect(await activeName()).toBe(button);
    }
    // Started from a folder's menu, Escape goes back to the folder's row.
    await item(page, "Returns").focus();
    await page.keyboard.press("Shift+F10");
    await page.getByRole("menuitem", { name: "New folder here" }).click();
    await page.getByLabel("Name of the new folder").waitFor();
    await page.keyboard.press("Escape");
    await page.getByLabel("Name of the new folder").waitFor({ state: "detached" });
    expect(await activeName()).toBe("Returns");

    // "Move to…" from the open file's menu, closed with Escape: back to "More actions for …".
    await page.goto(filesUrl(note.id));
    const more = page.getByRole("button", { name: "More actions for returns.md" });
    await more.focus();
    await page.keyboard.press("Enter");
    // The item the keyboard is on has a ring, not only a shade.
    await page.keyboard.press("ArrowDown");
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return {
        role: document.activeElement?.getAttribute("role"),
        width: style.outlineWidth,
        kind: style.outlineStyle,
      };
    });
    expect(ring).toEqual({ role: "menuitem", width: "2px", kind: "solid" });
    await page.getByRole("menuitem", { name: "Move to…" }).focus();
    await page.keyboard.press("Enter");
    const move = page.getByRole("dialog", { name: "Move returns.md" });
    await move.waitFor();
    await page.keyboard.press("Escape");
    await move.waitFor({ state: "detached" });
    await page.waitForFunction(
      () => document.activeElement?.getAttribute("aria-label") === "More actions for returns.md",
    );
    // From a row's menu (Shift+F10), cancelling the dialog goes back to the row.
    await item(page, "returns.md").focus();
    await page.keyboard.press("Shift+F10");
    await page.getByRole("menuitem", { name: "Move to…" }).focus();
    await page.keyboard.press("Enter");
    await move.getByRole("button", { name: "Cancel" }).click();
    await move.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "returns.md");
    await context.close();
  });

  it("rings the menu's focused item in dark mode too", async () => {
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(), { colorScheme: "dark" });
    await textFile("dark-ring.md", "x\n");
    await item(page, "dark-ring.md").focus();
    await page.keyboard.press("Shift+F10");
    await page.keyboard.press("ArrowDown");
    const style = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const s = getComputedStyle(el);
      return { role: el.getAttribute("role"), outline: `${s.outlineWidth} ${s.outlineStyle}`, color: s.outlineColor };
    });
    expect(style.role).toBe("menuitem");
    expect(style.outline).toBe("2px solid");
    // The dark accent (#8b85ff), which stands out against the dark menu.
    expect(style.color).toBe("rgb(139, 133, 255)");
    await screenshot(page, "file-menu-focus-dark");
    await context.close();
  });
});

describe("the keyboard in the tree", () => {
  it("keeps the keyboard in the tree when a file is clicked, and goes into the editor on Enter", async () => {
    const folder = await org.owner.api.post(`${filesApi()}/folders`, { name: "Meetings", parent_id: null });
    expect(folder.status).toBe(201);
    await textFile("agenda.md", "Agenda\n", folder.body.node.id);
    await textFile("notes.md", "Notes of the week\n", folder.body.node.id);
    const { context, page } = await signedInPage(browser, server, member, filesUrl(folder.body.node.id));
    const isActive = (name: string) => item(page, name).evaluate((el) => el === document.activeElement);
    const inEditor = () => page.evaluate(() => document.activeElement?.closest(".cm-content") !== null);

    // A click opens the file and leaves the keyboard on the row: F2 renames it, the document is untouched.
    await item(page, "notes.md").click();
    await page.locator(".cm-line", { hasText: "Notes of the week" }).waitFor();
    await page.getByText("Live: changes save as you type").waitFor();
    expect(await isActive("notes.md")).toBe(true);
    await page.keyboard.press("F2");
    const rename = page.getByLabel("New name for notes.md");
    await rename.waitFor();
    await page.keyboard.press("Escape");
    await item(page, "notes.md").waitFor();
    await page.keyboard.press("ArrowUp");
    expect(await isActive("agenda.md")).toBe(true);

    // A file just created takes the keyboard once; clicked again later, it leaves it in the tree.
    await page.getByRole("button", { name: "New file" }).click();
    await page.getByLabel("Name of the new file").fill("minutes.md");
    await page.keyboard.press("Enter");
    await page.getByRole("textbox", { name: "Content of minutes.md" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.closest(".cm-content") !== null);
    await item(page, "agenda.md").click();
    await page.getByRole("textbox", { name: "Content of agenda.md" }).waitFor();
    await item(page, "minutes.md").click();
    await page.getByRole("textbox", { name: "Content of minutes.md" }).waitFor();
    await page.getByText("Live: changes save as you type").waitFor();
    await Bun.sleep(200);
    expect(await isActive("minutes.md")).toBe(true);

    // Enter on a file opens it and puts the cursor in its text; on the file already open too.
    await page.keyboard.press("ArrowUp");
    expect(await isActive("agenda.md")).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("textbox", { name: "Content of agenda.md" }).waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Content of agenda.md");
    await item(page, "agenda.md").focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Content of agenda.md");
    expect(await inEditor()).toBe(true);
    const names = (await tree()).map((n) => n.name);
    expect(names).toContain("notes.md");
    await context.close();
  });
});

describe("upload and download", () => {
  it("uploads an image with its details and preview, and downloads the same bytes", async () => {
    // A 1x1 PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl());
    await root(page).waitFor();
    // The visible Upload button is the one control: the file field behind it is hidden from assistive technology.
    expect(await page.getByRole("button", { name: "Files to upload" }).count()).toBe(0);
    const [chooser] = await Promise.all([
      page.waitForEvent("filechooser"),
      page.getByRole("button", { name: "Upload", exact: true }).click(),
    ]);
    await chooser.setFiles({ name: "pixel.png", mimeType: "image/png", buffer: png });
    await page.getByRole("heading", { name: "pixel.png" }).waitFor();
    await page.getByText("image/png").first().waitFor();
    await page.getByRole("img", { name: "Preview of pixel.png" }).waitFor();
    const node = (await tree()).find((n) => n.name === "pixel.png");
    expect(node).toBeDefined();
    expect((await org.owner.api.get(`${filesApi()}/${node?.id}`)).body.node.checksum_sha256).toBe(
      new Bun.CryptoHasher("sha256").update(png).digest("hex"),
    );

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download pixel.png" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("pixel.png");
    const saved = await download.path();
    expect(Buffer.from(await Bun.file(saved).arrayBuffer()).equals(png)).toBe(true);

    // A small text upload becomes a text file that opens in the editor.
    await root(page).click();
    await page.locator('input[type="file"]').setInputFiles({
      name: "readme.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Hello from an upload\n"),
    });
    await page.getByRole("textbox", { name: "Content of readme.txt" }).waitFor();
    await page.getByText("Hello from an upload").waitFor();
    await context.close();
  });
});

describe("uploads go to the open folder", () => {
  it("puts files from Upload, from the file field and dropped on the folder's pane into the folder open", async () => {
    const docs = (await org.owner.api.post(`${filesApi()}/folders`, { name: "Uploads here" })).body.node;
    const notes = await textFile("inside.md", "# Inside\n", docs.id);
    const parentOf = async (name: string) => (await tree()).find((n) => n.name === name)?.parent_id;

    // With a file of the folder open, Upload puts the new file beside it.
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(notes.id));
    await page.getByRole("textbox", { name: "Content of inside.md" }).waitFor();
    const button = page.getByRole("button", { name: "Upload", exact: true });
    expect(await button.getAttribute("title")).toBe("Upload into Uploads here");
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), button.click()]);
    await chooser.setFiles({ name: "data.csv", mimeType: "text/csv", buffer: Buffer.from("a,b\n1,2\n") });
    await page.waitForURL(/\/files\/[0-9a-f-]+$/);
    await page.getByRole("heading", { name: "data.csv" }).waitFor();
    expect(await parentOf("data.csv")).toBe(docs.id);

    // With the folder itself open, files given to the file field directly (as assistive tools and scripts do)
    // go there too, and a name of the root does not clash with it.
    await page.goto(filesUrl(docs.id));
    await page.getByRole("heading", { name: "Uploads here" }).waitFor();
    await page.locator('input[type="file"]').setInputFiles({
      name: "other.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("other\n"),
    });
    await page.getByRole("textbox", { name: "Content of other.txt" }).waitFor();
    expect(await parentOf("other.txt")).toBe(docs.id);

    // Files dropped on the open folder's pane land in it.
    await page.goto(filesUrl(docs.id));
    const pane = page.getByRole("region", { name: "Uploads here" });
    await pane.waitFor();
    await pane.evaluate((el) => {
      const data = new DataTransfer();
      data.items.add(new File(["dropped\n"], "dropped.txt", { type: "text/plain" }));
      el.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
      el.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.getByRole("textbox", { name: "Content of dropped.txt" }).waitFor();
    expect(await parentOf("dropped.txt")).toBe(docs.id);
    await context.close();
  });
});

describe("previews of active content", () => {
  it("shows an SVG from a data: URL, which cannot be opened as a page of the app, and never runs its script", async () => {
    // Latin-1 (the é is one byte, not UTF-8), so it is stored as a plain file rather than an editable text.
    const svg = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><!-- café --><script>window.ran=1</script><rect width="4" height="4"/></svg>',
      "latin1",
    );
    const form = new FormData();
    form.append("file", new Blob([svg], { type: "image/svg+xml" }), "chart.svg");
    const res = await fetch(`${server.url}${filesApi()}/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.owner.token}` },
      body: form,
    });
    expect(res.status).toBe(201);
    const { node } = (await res.json()) as { node: { id: string; mime_type: string } };
    expect(node.mime_type).toBe("image/svg+xml");
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(node.id));
    const preview = page.getByRole("img", { name: "Preview of chart.svg" });
    await preview.waitFor();
    expect(await preview.getAttribute("src")).toStartWith("data:image/svg+xml");
    expect(await page.evaluate(() => (window as { ran?: number }).ran)).toBeUndefined();
    await context.close();
  });
});

describe("editing together", () => {
  it("two browsers type into one file and converge; each sees the other's cursor and name", async () => {
    const file = await textFile("together.md", "# Together\n\nShared notes for the launch.\n");
    const a = await signedInPage(browser, server, OWNER, filesUrl(file.id));
    const b = await signedInPage(browser, server, member, filesUrl(file.id));
    const editorA = a.page.getByRole("textbox", { name: "Content of together.md" });
    const editorB = b.page.getByRole("textbox", { name: "Content of together.md" });
    await a.page.locator(".cm-line", { hasText: "Shared notes" }).waitFor();
    await b.page.locator(".cm-line", { hasText: "Shared notes" }).waitFor();

    await editorA.click();
    await a.page.keyboard.press("Control+End");
    await editorB.click();
    await b.page.keyboard.press("Control+Home");
    await Promise.all([
      a.page.keyboard.type("Alpha wrote this line.", { delay: 15 }),
      b.page.keyboard.type("Beta was here. ", { delay: 15 }),
    ]);

    let textA = "";
    let textB = "";
    for (let i = 0; i < 100; i++) {
      [textA, textB] = await Promise.all([editorText(a.page), editorText(b.page)]);
      if (textA === textB && textA.includes("Alpha wrote this line.") && textA.includes("Beta was here. ")) break;
      await Bun.sleep(100);
    }
    expect(textA).toBe(textB);
    expect(textA).toContain("Alpha wrote this line.");
    expect(textA.startsWith("Beta was here. # Together")).toBe(true);
    let fromApi = "";
    for (let i = 0; i < 50 && fromApi !== textA; i++) {
      fromApi = await served(file.id);
      if (fromApi !== textA) await Bun.sleep(100);
    }
    expect(fromApi).toBe(textA);

    // Each sees who else is here: the name over the other's cursor and in the list of people editing.
    await a.page.locator(".cm-ySelectionInfo", { hasText: "Mia Member" }).waitFor();
    await a.page.getByRole("list", { name: "Also editing" }).getByText("Mia Member").waitFor();
    await b.page.getByRole("list", { name: "Also editing" }).getByText("Olivia Owner").waitFor();
    await a.page.getByRole("button", { name: "Split" }).click();
    await a.page.getByRole("region", { name: "Preview" }).getByText("Alpha wrote this line.").waitFor();
    await screenshot(a.page, "editor");
    await a.context.close();
    await b.context.close();
  });

  it("says edits are kept while the connection is down, and sends them once it is back", async () => {
    const file = await textFile("outage.md", "Before the outage.\n");
    const { context, page } = await signedInPage(browser, server, member, filesUrl());
    let down = false;
    const open: { close: () => Promise<void> }[] = [];
    await context.routeWebSocket(/\/collab\/ws/, (ws) => {
      if (down) {
        void ws.close();
        return;
      }
      const upstream = ws.connectToServer();
      open.push(ws, upstream);
    });
    await item(page, "outage.md").click();
    await page.locator(".cm-line", { hasText: "Before the outage." }).waitFor();
    await page.getByText("Live: changes save as you type").waitFor();
    down = true;
    await Promise.all(open.splice(0).map((ws) => ws.close().catch(() => {})));
    await page.getByText("Offline: your changes are kept and will be sent when the connection is back").waitFor();
    await page.getByRole("textbox", { name: "Content of outage.md" }).click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("Typed offline.");
    // It keeps saying so while the editor retries, rather than "Connecting…".
    await Bun.sleep(1500);
    expect(await page.getByText("Connecting…").count()).toBe(0);
    await page.getByText("Offline: your changes are kept").waitFor();
    down = false;
    await page.getByText("Live: changes save as you type").waitFor({ timeout: 10_000 });
    for (let i = 0; i < 50 && !(await served(file.id)).includes("Typed offline."); i++) await Bun.sleep(100);
    expect(await served(file.id)).toContain("Typed offline.");
    await context.close();
  });

  it("lists read-only readers apart from editors, and gives each person a cursor colour of their own", async () => {
    const reader = await addMember(org, ["Viewer"], "Rita Reader");
    const file = await textFile("colours.md", "Who is here?\n");
    const pages = await Promise.all(
      [OWNER, member, reader].map((who) => signedInPage(browser, server, who, filesUrl(file.id))),
    );
    const [owner, mia] = pages as [(typeof pages)[0], (typeof pages)[0], (typeof pages)[0]];
    const editing = owner.page.getByRole("list", { name: "Also editing" });
    const viewing = owner.page.getByRole("list", { name: "Also viewing" });
    await editing.getByText("Mia Member").waitFor();
    await viewing.getByText("Rita Reader").waitFor();
    expect(await editing.getByText("Rita Reader").count()).toBe(0);
    await mia.page.getByRole("list", { name: "Also editing" }).getByText("Olivia Owner").waitFor();
    // Everyone's colour as the others see it: three people, three colours.
    const colourOf = async (page: Page, name: string) =>
      page
        .locator(".editor-peers li", { hasText: name })
        .evaluate((el) => (el as HTMLElement).style.getPropertyValue("--peer"));
    let colours: string[] = [];
    for (let i = 0; i < 30; i++) {
      colours = await Promise.all([
        colourOf(mia.page, "Olivia Owner"),
        colourOf(owner.page, "Mia Member"),
        colourOf(owner.page, "Rita Reader"),
      ]);
      if (new Set(colours).size === 3) break;
      await Bun.sleep(100);
    }
    expect(new Set(colours).size).toBe(3);
    await screenshot(owner.page, "editor-viewers");
    for (const p of pages) await p.context.close();
  });

  it("is read-only for a Viewer, who still sees the text", async () => {
    const viewer = await addMember(org, ["Viewer"], "Vic Viewer");
    const file = await textFile("readonly.md", "Look, do not touch.\n");
    const { context, page } = await signedInPage(browser, server, viewer, filesUrl(file.id));
    await page.locator(".cm-line", { hasText: "Look, do not touch." }).waitFor();
    // One status, which says it is read-only, never that changes save as you type.
    await page.getByText("Read-only: you see changes as others make them").waitFor();
    expect(await page.getByText("save as you type").count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "Content of readonly.md" }).getAttribute("contenteditable")).toBe(
      "false",
    );
    expect(await page.getByRole("button", { name: "New file" }).count()).toBe(0);
    await context.close();
  });

  it("turns read-only when the member's role loses files.write, and editable again when it comes back", async () => {
    const changing = await addMember(org, ["Member"], "Cleo Changing");
    const file = await textFile("changing.md", "Roles change.\n");
    const { context, page } = await signedInPage(browser, server, changing, filesUrl(file.id));
    const box = page.getByRole("textbox", { name: "Content of changing.md" });
    await page.locator(".cm-line", { hasText: "Roles change." }).waitFor();
    expect(await box.getAttribute("contenteditable")).toBe("true");
    const roles = `/api/v1/organizations/${org.id}/members/${changing.id}/roles`;
    expect((await org.owner.api.put(roles, { role_ids: [org.roles.Viewer] })).status).toBe(200);
    await page.getByText("Read-only").waitFor();
    expect(await box.getAttribute("contenteditable")).toBe("false");
    expect(await page.getByRole("button", { name: "New file" }).count()).toBe(0);
    expect((await org.owner.api.put(roles, { role_ids: [org.roles.Member] })).status).toBe(200);
    await page.getByRole("button", { name: "New file" }).waitFor();
    await page.waitForFunction(() => document.querySelector(".cm-content")?.getAttribute("contenteditable") === "true");
    await box.click();
    await page.keyboard.type("Again.");
    for (let i = 0; i < 50 && !(await served(file.id)).includes("Again."); i++) await Bun.sleep(100);
    const stored = await served(file.id);
    expect(stored).toContain("Again.");
    expect(stored).toContain("Roles change.");
    await context.close();
  });

  it("shows a member removed from the organization the not-a-member screen at once", async () => {
    const leaving = await addMember(org, ["Member"], "Lou Leaving");
    const { context, page } = await signedInPage(browser, server, leaving, filesUrl());
    await root(page).waitFor();
    expect((await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${leaving.id}`)).status).toBe(204);
    await page.getByText("Your account is not a member of this organization.").waitFor();
    await context.close();
  });

  it("works on a phone-sized screen: the open file takes the screen, with a way back", async () => {
    const file = await textFile("phone.md", "Small screens too.\n");
    const { context, page } = await signedInPage(browser, server, member, filesUrl(file.id), { viewport: PHONE });
    await page.locator(".cm-line", { hasText: "Small screens too." }).waitFor();
    expect(await page.getByRole("tree", { name: "Files" }).isVisible()).toBe(false);
    await page.getByRole("button", { name: "← Files" }).click();
    await item(page, "phone.md").waitFor();
    await context.close();
  });
});

describe("proposals", () => {
  it("shows a staff proposal live, reviews it as a diff, and accepts it into the file", async () => {
    const staff = await addStaff(org, { name: "Ada" });
    const original = "# Guide\n\nLine one\nLine two\nLine four\n";
    const proposed = "# Guide\n\nLine one\nLine 2, clearer\nLine four\nLine five\n";
    const file = await textFile("guide.md", original);
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(file.id));
    await page.locator(".cm-line", { hasText: "Line two" }).waitFor();

    const created = await staff.api.post(`${filesApi()}/${file.id}/proposals`, {
      proposed_content: proposed,
      note: "Clarify **line two** and add a fifth line",
    });
    expect(created.status).toBe(201);

    // It arrives live: a count on the file, in the side list, and in the file's own bar.
    const bar = page.getByRole("region", { name: "Proposed changes" });
    await bar.getByText("proposed change waits for review").waitFor();
    // The button's name starts with its words; the tree row says what waits.
    await page.getByRole("button", { name: "Review proposals (1)", exact: true }).click();
    await page.getByRole("list", { name: "Files with proposed changes" }).getByText("guide.md").waitFor();
    await item(page, "guide.md, 1 proposal waiting for review").waitFor();
    // The note is markdown, in the bar and in the review.
    await bar.locator("strong", { hasText: "line two" }).waitFor();

    await bar.getByRole("button", { name: /Review/ }).click();
    const dialog = page.getByRole("dialog", { name: "Proposed change to guide.md" });
    await dialog.locator(".proposal-text strong", { hasText: "line two" }).waitFor();
    expect(await dialog.locator(".proposal-text").textContent()).toBe("Clarify line two and add a fifth line\n");
    await dialog.getByText("Ada", { exact: true }).waitFor();
    const changes = dialog.getByRole("table", { name: "Changes" });
    await changes.locator("tr.diff-del", { hasText: "Line two" }).waitFor();
    await changes.locator("tr.diff-add", { hasText: "Line 2, clearer" }).waitFor();
    await changes.locator("tr.diff-add", { hasText: "Line five" }).waitFor();
    await screenshot(page, "proposal");

    await dialog.getByRole("button", { name: "Accept change" }).click();
    await dialog.waitFor({ state: "detached" });
    // Nothing else waits: the keyboard goes into the text rather than to the page.
    await page.waitForFunction(() => document.activeElement?.closest(".cm-content") !== null);
    let text = "";
    for (let i = 0; i < 50 && text !== proposed; i++) {
      text = await served(file.id);
      if (text !== proposed) await Bun.sleep(100);
    }
    expect(text).toBe(proposed);
    await page.locator(".cm-line", { hasText: "Line five" }).waitFor();
    await bar.getByText("No proposed changes waiting").waitFor();
    const list = (await org.owner.api.get(`${filesApi()}/${file.id}/proposals`)).body.proposals;
    expect(list[0].status).toBe("accepted");

    // A proposal made before the file changed cannot be accepted: the refusal shows in words; reject works.
    const stale = await staff.api.post(`${filesApi()}/${file.id}/proposals`, { proposed_content: "Too late\n" });
    expect(stale.status).toBe(201);
    await bar.getByText("proposed change waits for review").waitFor();
    const put = await org.owner.api.put(`${filesApi()}/${file.id}/content`, undefined, {
      raw: `${proposed}Edited meanwhile\n`,
      contentType: "text/plain",
    });
    expect(put.status).toBe(200);
    await bar.getByRole("button", { name: /Review/ }).click();
    await dialog.getByText("The file was edited after this proposal was made").waitFor();
    // Accepting can only be refused now: it is not offered, says why, and Reject is the main action.
    const accept = dialog.getByRole("button", { name: "Accept change" });
    expect(await accept.isDisabled()).toBe(true);
    expect(await accept.getAttribute("aria-describedby")).toBeTruthy();
    await screenshot(page, "proposal-stale");
    const why = await accept.evaluate(
      (el) => document.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent,
    );
    expect(why).toContain("can no longer be accepted");
    expect(await dialog.getByRole("button", { name: "Reject" }).getAttribute("class")).toContain("primary");
    await dialog.getByRole("button", { name: "Reject" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.activeElement?.closest(".cm-content") !== null);
    await bar.getByText("No proposed changes waiting").waitFor();
    expect((await org.owner.api.get(`${filesApi()}/${file.id}/proposals`)).body.proposals[0].status).toBe("rejected");
    await context.close();
  });

  it("shows waiting proposals on a folded folder, and after a review the keyboard goes to the next one", async () => {
    const staff = await addStaff(org, { name: "Bea" });
    const folder = (await org.owner.api.post(`${filesApi()}/folders`, { name: "Specs" })).body.node;
    const file = await textFile("spec.md", "One\nTwo\n", folder.id);
    for (const note of ["First idea", "Second idea"]) {
      const made = await staff.api.post(`${filesApi()}/${file.id}/proposals`, { proposed_content: `${note}\n`, note });
      expect(made.status).toBe(201);
    }
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl());
    // Folded, the folder carries the count of what waits inside it; open, the file carries its own.
    await item(page, "Specs, 2 proposals waiting for review inside").waitFor();
    await screenshot(page, "files-folded-proposals");
    await item(page, "Specs, 2 proposals waiting for review inside").click();
    await item(page, "Specs").waitFor();
    await item(page, "spec.md, 2 proposals waiting for review").click();
    const bar = page.getByRole("region", { name: "Proposed changes" });
    await bar.getByText("2 proposed changes wait for review").waitFor();
    await bar.getByRole("button", { name: "Review the change proposed by Bea" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Proposed change to spec.md" });
    await dialog.getByRole("button", { name: "Reject" }).click();
    await dialog.waitFor({ state: "detached" });
    // The reviewed one has gone; the keyboard is on the Review button of the one still waiting.
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith("Review"));
    expect(await page.evaluate(() => document.activeElement?.closest('[aria-label="Proposed changes"]') !== null)).toBe(
      true,
    );
    await item(page, "spec.md, 1 proposal waiting for review").waitFor();
    await context.close();
  });

  it("marks trailing whitespace and a missing final newline in the diff, as git does", async () => {
    const staff = await addStaff(org, { name: "Tidy" });
    const file = await textFile("tidy.md", "Title\nTina was here. \n");
    const made = await staff.api.post(`${filesApi()}/${file.id}/proposals`, {
      proposed_content: "Title\nTina was here.\nAdded",
    });
    expect(made.status).toBe(201);
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(file.id));
    await page
      .getByRole("region", { name: "Proposed changes" })
      .getByRole("button", { name: /Review/ })
      .click();
    const changes = page
      .getByRole("dialog", { name: "Proposed change to tidy.md" })
      .getByRole("table", { name: "Changes" });
    // The removed line differs only by its trailing space: it is drawn, and named for screen readers.
    const removed = changes.locator("tr.diff-del", { hasText: "Tina was here." });
    expect(await removed.locator(".diff-ws").textContent()).toBe("·");
    await removed.getByText("(trailing whitespace)").waitFor({ state: "attached" });
    expect(await changes.locator("tr.diff-add", { hasText: "Tina was here." }).locator(".diff-ws").count()).toBe(0);
    const added = changes.locator("tr.diff-add", { hasText: "Added" });
    await added.waitFor();
    expect(await changes.locator("tr.diff-eol").textContent()).toBe("\\ No newline at end of file");
    await context.close();
  });

  it("keeps Size and Changed on one line beside a long name, which is cut rather than pushing them away", async () => {
    const long = `${"Q4-launch-plan-final-review-notes-".repeat(6)}v3.md`;
    await textFile(long, "Notes\n");
    await textFile("Q4 launch plan - final review notes from the marketing and product offsite (v3).md", "Plan\n");
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl());
    const table = page.getByRole("table");
    await table.getByRole("button", { name: long }).waitFor();
    const layout = await page.evaluate(() => {
      const main = document.querySelector(".files-main") as HTMLElement;
      const box = main.getBoundingClientRect();
      const lines = (el: Element) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      };
      const cells = [...document.querySelectorAll(".folder-table td.folder-meta")];
      return {
        scrolls: main.scrollWidth > main.clientWidth,
        oneLine: cells.every((cell) => lines(cell) === 1),
        inView: cells.every((cell) => cell.getBoundingClientRect().right <= box.right + 1),
      };
    });
    expect(layout).toEqual({ scrolls: false, oneLine: true, inView: true });
    await context.close();
  });

  it("renders the files screen with a few folders and files (screenshot)", async () => {
    const folder = (await org.owner.api.post(`${filesApi()}/folders`, { name: "Design" })).body.node;
    await textFile("brief.md", "# Brief\n", folder.id);
    await textFile("roadmap.md", "# Roadmap\n", folder.id);
    await org.owner.api.post(`${filesApi()}/folders`, { name: "Meeting notes" });
    const { context, page } = await signedInPage(browser, server, OWNER, filesUrl(folder.id));
    await page.getByRole("table").getByText("roadmap.md").waitFor();
    await screenshot(page, "files");
    await context.close();
  });
});
