/**
 * Shaping the board in a real browser against the compiled binary (contract §11): a column added and a card
 * dragged into it while another browser watches, a column's menu (rename, move, WIP limit with its warning,
 * delete), labels made in the Labels dialog and given to a task, the label and priority filters, and the cards
 * in dark mode and at phone width. Checks land on the API, not only on the page. The pure state functions of
 * columns, labels and comment counts are checked on their own first.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { Column, Label, Task } from "../../src/api-types";
import {
  commented,
  lanesOf,
  withColumn,
  withLabel,
  withLanes,
  withoutColumn,
} from "../../web/src/features/board/board-state";
import { countText, countTitle, overLimitNotice } from "../../web/src/features/board/model";
import { eventually, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, type Org, type Person } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let member: Person;

const spaces = () => `/api/v1/organizations/${org.id}/spaces`;

/** A new space; its id, paths and columns by name. */
async function newSpace(name: string) {
  const id = (await org.owner.api.post(spaces(), { name })).body.id as string;
  const board = (await org.owner.api.get(`${spaces()}/${id}/board`)).body;
  return {
    id,
    tasks: `${spaces()}/${id}/tasks`,
    board: `${spaces()}/${id}/board`,
    labels: `${spaces()}/${id}/labels`,
    columns: Object.fromEntries(board.columns.map((c: Column) => [c.name, c.id])) as Record<string, string>,
  };
}
type Space = Awaited<ReturnType<typeof newSpace>>;

async function createTask(space: Space, title: string, column: string, extra: Record<string, unknown> = {}) {
  const res = await org.owner.api.post(space.tasks, { title, column_id: space.columns[column], ...extra });
  if (res.status !== 201) throw new Error(`task create failed: ${res.status} ${res.text}`);
  return res.body as Task;
}

async function boardColumns(space: Space): Promise<Column[]> {
  return (await org.owner.api.get(space.board)).body.columns;
}

const lane = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const card = (page: Page, title: string) => page.locator(".task-card", { hasText: title });

async function openBoard(space: Space, who: { email: string; password: string } = org.owner, options = {}) {
  const opened = await signedInPage(browser, server, who, `/spaces/${space.id}/board`, options);
  await opened.page.getByRole("heading", { name: "To do", exact: true }).waitFor();
  return opened;
}

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
  member = await addMember(org, ["Member"], "Mia Member");
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("board shape state", () => {
  const col = (id: string, position: number, wip_limit: number | null = null): Column => ({
    id,
    board_id: "b",
    name: id,
    position,
    wip_limit,
  });

  it("places a column added or moved at its position, and closes the gap of one deleted", () => {
    const columns = [col("a", 0), col("b", 1), col("c", 2)];
    expect(withColumn(columns, col("n", 1)).map((c) => [c.id, c.position])).toEqual([
      ["a", 0],
      ["n", 1],
      ["b", 2],
      ["c", 3],
    ]);
    expect(withColumn(columns, col("a", 9)).map((c) => c.id)).toEqual(["b", "c", "a"]);
    const renamed = withColumn(columns, { ...col("b", 1), name: "B" });
    expect(renamed[1]?.name).toBe("B");
    expect(renamed[0]).toBe(columns[0] as Column);
    expect(withoutColumn(columns, "a").map((c) => [c.id, c.position])).toEqual([
      ["b", 0],
      ["c", 1],
    ]);
    const lanes = lanesOf(columns, []);
    expect(Object.keys(withLanes(lanes, withColumn(columns, col("n", 3))))).toContain("n");
    expect(withLanes(lanes, columns)).toBe(lanes);
  });

  it("keeps labels oldest first, and counts a comment without a new version", () => {
    const label = (id: string, created_at: string): Label => ({
      id,
      space_id: "s",
      name: id,
      color: "#000000",
      created_at,
    });
    const labels = [label("1", "2026-01-01T00:00:00.000Z"), label("3", "2026-01-03T00:00:00.000Z")];
    expect(withLabel(labels, label("2", "2026-01-02T00:00:00.000Z")).map((l) => l.id)).toEqual(["1", "2", "3"]);
    expect(withLabel(labels, { ...label("1", "2026-01-01T00:00:00.000Z"), name: "one" })[0]?.name).toBe("one");
    const task = { id: "t", column_id: "a", position: 0, version: 3, comment_count: 1 } as Task;
    const lanes = lanesOf([col("a", 0)], [task]);
    expect(commented(lanes, "t").a?.[0]).toMatchObject({ comment_count: 2, version: 3 });
    expect(commented(lanes, "gone")).toBe(lanes);
  });

  it("writes a count against its limit, and the notice of a task that goes over it", () => {
    expect(countText(col("a", 0), 4)).toBe("4");
    expect(countText(col("a", 0, 3), 4)).toBe("4/3");
    expect(countTitle(col("a", 0, 3), 4)).toBe("4 tasks, limit 3: over the limit");
    expect(countTitle(col("a", 0, 3), 3)).toBe("3 tasks, limit 3");
    expect(overLimitNotice({ name: "Review", wip_limit: 3 }, 3, "X")).toBeNull();
    expect(overLimitNotice({ name: "Review", wip_limit: 3 }, 4, "X")).toBe(
      "“X” is in Review, which now holds 4 tasks: over its limit of 3.",
    );
  });
});

describe("columns on the board", () => {
  it("a column added and a card dragged into it, seen live in another browser", async () => {
    const space = await newSpace("Shaping");
    const task = await createTask(space, "Waiting on legal", "To do");
    // Wide enough for the fifth column beside the others: a drag does not scroll the board sideways.
    const wide = { viewport: { width: 1760, height: 900 } };
    const mine = await openBoard(space, org.owner, wide);
    const theirs = await openBoard(space, member, wide);
    const page = mine.page;

    await page.getByRole("button", { name: "+ Add column" }).click();
    await page.getByLabel("Name of the new column").fill("Blocked");
    await page.getByRole("button", { name: "Add column", exact: true }).click();
    await page.getByRole("heading", { name: "Blocked", exact: true }).waitFor();
    // The keyboard is on the new column's heading, and the form is closed again.
    await page.getByRole("button", { name: "+ Add column" }).waitFor();
    const blocked = (await boardColumns(space)).find((c) => c.name === "Blocked") as Column;
    expect(blocked).toMatchObject({ position: 4, wip_limit: null });
    await theirs.page.getByRole("heading", { name: "Blocked", exact: true }).waitFor();

    await card(page, "Waiting on legal").dragTo(lane(page, "Blocked"));
    await lane(page, "Blocked").locator(".task-card", { hasText: "Waiting on legal" }).waitFor();
    await eventually(async () => {
      expect((await org.owner.api.get(`${space.tasks}/${task.id}`)).body.column_id).toBe(blocked.id);
    });
    await lane(theirs.page, "Blocked").locator(".task-card", { hasText: "Waiting on legal" }).waitFor();

    // A name the board has already is refused in words, and nothing is added.
    await page.getByRole("button", { name: "+ Add column" }).click();
    await page.getByLabel("Name of the new column").fill("blocked");
    await page.getByRole("button", { name: "Add column", exact: true }).click();
    await page.getByText("name already exists").waitFor();
    await page.getByLabel("Name of the new column").press("Escape");
    expect(await boardColumns(space)).toHaveLength(5);
    await mine.context.close();
    await theirs.context.close();
  });

  it("renames, moves, limits and deletes a column from its menu", async () => {
    const space = await newSpace("Column menu");
    await createTask(space, "Check copy", "Review");
    await createTask(space, "Check links", "Review");
    await createTask(space, "Polish icons", "In progress");
    const { context, page } = await openBoard(space);
    const menu = (name: string) => page.getByRole("button", { name: `Column menu of ${name}` });

    // Rename in place: Enter saves.
    await menu("Review").click();
    await page.getByRole("menuitem", { name: "Rename" }).click();
    await page.getByLabel("Name of the column Review").fill("QA");
    await page.getByLabel("Name of the column Review").press("Enter");
    await page.getByRole("heading", { name: "QA", exact: true }).waitFor();
    await eventually(async () => expect((await boardColumns(space))[2]?.name).toBe("QA"));

    // Move left: the keyboard stays on its menu button.
    await menu("QA").click();
    await page.getByRole("menuitem", { name: "Move left" }).click();
    await eventually(async () =>
      expect((await boardColumns(space)).map((c) => c.name)).toEqual(["To do", "QA", "In progress", "Done"]),
    );
    const headings = await page.locator(".lane-head h2").allTextContents();
    expect(headings).toEqual(["To do", "QA", "In progress", "Done"]);
    await eventually(async () => expect(await menu("QA").evaluate((el) => el === document.activeElement)).toBe(true));

    // A WIP limit below what the column holds: "2/1" in the warning colour.
    await menu("QA").click();
    await page.getByRole("menuitem", { name: "Set WIP limit…" }).click();
    await page.getByLabel("Most tasks at once").fill("1");
    await page.getByRole("button", { name: "Save" }).click();
    const count = lane(page, "QA").locator(".lane-count");
    await eventually(async () => expect(await count.textContent()).toContain("2/1"));
    expect(await count.getAttribute("class")).toContain("over");
    expect(await count.getAttribute("title")).toBe("2 tasks, limit 1: over the limit");
    expect((await boardColumns(space))[1]?.wip_limit).toBe(1);

    // A person may drop a card over the limit, and is told so.
    await card(page, "Polish icons").dragTo(lane(page, "QA"));
    await page.getByText("“Polish icons” is in QA, which now holds 3 tasks: over its limit of 1.").waitFor();
    await eventually(async () => expect(await count.textContent()).toContain("3/1"));

    // A column holding tasks is not deleted: the dialog says why.
    await menu("QA").click();
    await page.getByRole("menuitem", { name: "Delete column…" }).click();
    await page.getByText("“QA” still holds 3 tasks.", { exact: false }).waitFor();
    await page.getByRole("button", { name: "OK" }).click();
    expect(await boardColumns(space)).toHaveLength(4);

    // An empty one is, after asking.
    await menu("In progress").click();
    await page.getByRole("menuitem", { name: "Delete column…" }).click();
    await page.getByRole("button", { name: "Delete column" }).click();
    await page.getByRole("heading", { name: "In progress", exact: true }).waitFor({ state: "detached" });
    // The keyboard is on the column that was before it.
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("QA"));
    await eventually(async () =>
      expect((await boardColumns(space)).map((c) => [c.name, c.position])).toEqual([
        ["To do", 0],
        ["QA", 1],
        ["Done", 2],
      ]),
    );
    await context.close();
  });
});

describe("labels and priority on the board", () => {
  it("a label filter: labels made in the dialog, given to a task in its panel, then filtered by", async () => {
    const space = await newSpace("Labelled board");
    const bugTask = await createTask(space, "Login loops", "To do");
    await createTask(space, "Write the FAQ", "To do");
    await createTask(space, "Ship it", "Done", { priority: "urgent" });
    const { context, page } = await openBoard(space);

    // Two labels from the Labels dialog.
    await page.getByRole("button", { name: "Labels", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Labels" });
    await dialog.getByLabel("Name of the new label").fill("Bug");
    await dialog.getByRole("button", { name: "Colour #e5484d" }).click();
    await dialog.getByRole("button", { name: "Add label" }).click();
    await dialog.getByLabel("Name of Bug").waitFor();
    await dialog.getByLabel("Name of the new label").fill("Docs");
    await dialog.getByRole("button", { name: "Add label" }).click();
    await dialog.getByLabel("Name of Docs").waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();
    const labels = (await org.owner.api.get(space.labels)).body.labels as Label[];
    expect(labels.map((l) => [l.name, l.color])).toEqual([
      ["Bug", "#e5484d"],
      ["Docs", expect.stringMatching(/^#[0-9a-f]{6}$/)],
    ]);
    const bug = labels[0] as Label;

    // The task's panel: a label and a priority, saved at once.
    await card(page, "Login loops").click();
    const panel = page.getByRole("dialog");
    await panel.getByRole("button", { name: "Edit labels" }).click();
    await panel.getByRole("checkbox", { name: "Bug" }).check();
    await panel.getByLabel("Priority").selectOption({ label: "High" });
    await eventually(async () =>
      expect((await org.owner.api.get(`${space.tasks}/${bugTask.id}`)).body).toMatchObject({
        label_ids: [bug.id],
        priority: "high",
      }),
    );
    await panel.getByRole("button", { name: "Close" }).click();
    const loops = card(page, "Login loops");
    await loops.locator(".label-chip", { hasText: "Bug" }).waitFor();
    await loops.getByText("Priority: High").waitFor();

    // The label filter: only the task carrying it, kept in the address.
    await page.getByRole("combobox", { name: /^Label/ }).selectOption({ label: "Bug" });
    await card(page, "Write the FAQ").waitFor({ state: "detached" });
    expect(await page.locator(".task-card-title").allTextContents()).toEqual(["Login loops"]);
    expect(new URL(page.url()).searchParams.get("label")).toBe(bug.id);
    await page.getByText("1 of 3 tasks").waitFor();
    // Reloaded, the filter is still on.
    await page.reload();
    await page.getByRole("heading", { name: "To do", exact: true }).waitFor();
    await page.getByText("1 of 3 tasks").waitFor();

    // The priority filter, and both cleared.
    await page.getByRole("combobox", { name: /^Label/ }).selectOption({ label: "Any label" });
    await page.getByRole("combobox", { name: /^Priority/ }).selectOption({ label: "Urgent" });
    await page.getByText("1 of 3 tasks").waitFor();
    expect(await page.locator(".task-card-title").allTextContents()).toEqual(["Ship it"]);
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByText("3 tasks", { exact: true }).waitFor();

    // A label deleted in the dialog leaves the card.
    await page.getByRole("button", { name: "Labels", exact: true }).click();
    await dialog.getByRole("button", { name: "Delete Bug" }).click();
    const asking = dialog.getByRole("alertdialog", { name: "Delete Bug?" });
    await asking.getByText("Delete? It comes off 1 task.").waitFor();
    // The safe answer has the keyboard.
    expect(await asking.getByRole("button", { name: "Keep it" }).evaluate((el) => el === document.activeElement)).toBe(
      true,
    );
    await asking.getByRole("button", { name: "Delete", exact: true }).click();
    await dialog.getByLabel("Name of Bug").waitFor({ state: "detached" });
    await dialog.getByRole("button", { name: "Close" }).click();
    await loops.locator(".label-chip").waitFor({ state: "detached" });
    expect((await org.owner.api.get(`${space.tasks}/${bugTask.id}`)).body.label_ids).toEqual([]);
    await context.close();
  });

  it("shows the cards' labels, priority, due date, comments and assignee in dark mode and at phone width", async () => {
    const space = await newSpace("Card faces");
    const design = (await org.owner.api.post(space.labels, { name: "Design", color: "#6e56cf" })).body.label;
    const backend = (await org.owner.api.post(space.labels, { name: "Backend", color: "#0090ff" })).body.label;
    const task = await createTask(space, "Fix the login redirect loop", "To do", {
      label_ids: [design.id, backend.id],
      priority: "urgent",
      assignee_user_id: member.id,
      due_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    });
    await createTask(space, "Landing page hero", "In progress", { priority: "medium", label_ids: [design.id] });
    for (const content of ["Seen on Safari too", "Fixed in staging"]) {
      await org.owner.api.post(`${space.tasks}/${task.id}/messages`, { content });
    }
    for (const [name, options] of [
      ["board-shape-dark", { colorScheme: "dark" }],
      ["board-shape-phone", { viewport: PHONE, colorScheme: "dark" }],
    ] as const) {
      const { context, page } = await openBoard(space, org.owner, options);
      const face = card(page, "Fix the login redirect loop");
      await face.locator(".label-chip", { hasText: "Backend" }).waitFor();
      expect(await face.locator(".label-chip").allTextContents()).toEqual(["Design", "Backend"]);
      await face.getByText("Priority: Urgent").waitFor();
      expect(await face.locator(".comment-count").textContent()).toContain("2");
      await face.getByText("Assigned to Mia Member").waitFor();
      await face.getByText(/^Due /).waitFor();
      // The chips read on the dark card: their text is the page's text colour, not the label's.
      const colors = await face
        .locator(".label-chip")
        .first()
        .evaluate((el) => [getComputedStyle(el).color, getComputedStyle(document.body).color]);
      expect(colors[0]).toBe(colors[1] as string);
      // Nothing of the filter spills out sideways.
      expect(await page.evaluate(() => document.querySelector(".board-filter")?.scrollWidth ?? 0)).toBeLessThanOrEqual(
        await page.evaluate(() => document.querySelector(".board-filter")?.clientWidth ?? 0),
      );
      await screenshot(page, name);
      await context.close();
    }
  });

  it("counts a comment on the card live, from another browser's comment", async () => {
    const space = await newSpace("Live comments");
    const task = await createTask(space, "Talk about it", "To do");
    const { context, page } = await openBoard(space);
    const face = card(page, "Talk about it");
    expect(await face.locator(".comment-count").count()).toBe(0);
    await member.api.post(`${space.tasks}/${task.id}/messages`, { content: "First!" });
    await eventually(async () => expect(await face.locator(".comment-count").textContent()).toContain("1"));
    await context.close();
  });
});
