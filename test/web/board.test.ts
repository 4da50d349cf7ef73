/**
 * The board in a real browser against the compiled binary: adding a task, dragging it to Done and within a
 * column, moving it by keyboard, a second browser seeing moves live, a refused move rolled back with the API's
 * error, the task detail (title, description, assignee, due date, deliverables, comments, delete), a stale edit
 * shown as a conflict, and My tasks with an overdue task marked. Checks land on the API, not only on the page.
 * The board's state functions are checked on their own first.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { Column, Task } from "../../src/api-types";
import { dropPosition, find, lanesOf, place, remove, upsert } from "../../web/src/features/board/board-state";
import { type BoardFilter, filterLanes, filterOf, fullSlot, withFilter } from "../../web/src/features/board/filter";
import { dueText } from "../../web/src/features/board/model";
import { renderMarkdown } from "../../web/src/lib/markdown";
import { formatSize } from "../../web/src/lib/size";
import { eventually, launchBrowser, PHONE, screenshot, signedInPage, startWorkspace } from "../helpers/browser";
import { addMember, addStaff, type Org, type Person } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;
let member: Person;
let spaceId: string;
let columns: Record<string, string>;

const spaces = () => `/api/v1/organizations/${org.id}/spaces`;
const tasks = () => `${spaces()}/${spaceId}/tasks`;

async function createTask(title: string, column = "To do", extra: Record<string, unknown> = {}): Promise<Task> {
  const res = await org.owner.api.post(tasks(), { title, column_id: columns[column], ...extra });
  if (res.status !== 201) throw new Error(`task create failed: ${res.status} ${res.text}`);
  return res.body;
}

async function taskById(id: string): Promise<Task> {
  const res = await org.owner.api.get(tasks());
  const task = (res.body.tasks as Task[]).find((t) => t.id === id);
  if (!task) throw new Error(`task ${id} is gone`);
  return task;
}

const lane = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const card = (page: Page, title: string) => page.locator(".task-card", { hasText: title });

async function openBoard(who = org.owner as { email: string; password: string }, options = {}) {
  const opened = await signedInPage(browser, server, who, `/spaces/${spaceId}/board`, options);
  await opened.page.getByRole("heading", { name: "To do", exact: true }).waitFor();
  return opened;
}

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
  member = await addMember(org, ["Member"], "Mia Member");
  const space = await org.owner.api.post(spaces(), { name: "Launch" });
  spaceId = space.body.id;
  const board = await org.owner.api.get(`${spaces()}/${spaceId}/board`);
  columns = Object.fromEntries(board.body.columns.map((c: Column) => [c.name, c.id]));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("board state", () => {
  const cols: Column[] = ["a", "b"].map((id, position) => ({ id, board_id: "x", name: id, position, wip_limit: null }));
  const t = (id: string, column_id: string, position: number, version = 1) =>
    ({ id, column_id, position, version, title: id }) as Task;
  const ids = (lanes: ReturnType<typeof lanesOf>, column: string) => lanes[column]?.map((x) => x.id);

  it("orders each column by position and moves a task to its index after the move", () => {
    const lanes = lanesOf(cols, [t("2", "a", 1), t("1", "a", 0), t("3", "b", 0)]);
    expect(ids(lanes, "a")).toEqual(["1", "2"]);
    const moved = place(lanes, find(lanes, "1")?.task as Task, "b", 1);
    expect(ids(moved, "a")).toEqual(["2"]);
    expect(ids(moved, "b")).toEqual(["3", "1"]);
    expect(moved.b?.[1]?.column_id).toBe("b");
    // Untouched tasks keep their objects, so their cards do not re-render.
    expect(moved.b?.[0]).toBe(lanes.b?.[0] as Task);
  });

  it("ignores an answer that is not newer than what it holds, and a drop below itself lands one higher", () => {
    const lanes = lanesOf(cols, [t("1", "a", 0, 2), t("2", "a", 1), t("3", "a", 2)]);
    expect(upsert(lanes, t("1", "b", 0, 2))).toBe(lanes);
    expect(ids(upsert(lanes, t("1", "a", 2, 3)), "a")).toEqual(["2", "3", "1"]);
    expect(dropPosition(lanes, "1", "a", 3)).toBe(2);
    expect(dropPosition(lanes, "3", "a", 0)).toBe(0);
    expect(dropPosition(lanes, "3", "b", 0)).toBe(0);
    expect(ids(remove(lanes, "2"), "a")).toEqual(["1", "3"]);
  });
});

describe("filter, dates, sizes and markdown", () => {
  const cols: Column[] = ["a", "done"].map((id, position) => ({
    id,
    board_id: "x",
    name: id,
    position,
    wip_limit: null,
  }));
  const day = 86_400_000;
  const now = Date.now();
  const t = (id: string, column_id: string, extra: Partial<Task> = {}) =>
    ({
      id,
      column_id,
      title: id,
      description: "",
      assignee_user_id: null,
      due_at: null,
      label_ids: [],
      priority: "none",
      ...extra,
    }) as Task;
  /** A filter with only `given` set. */
  const only = (given: Partial<BoardFilter>): BoardFilter => ({
    text: "",
    assignee: "",
    due: "",
    label: "",
    priority: "",
    ...given,
  });
  const lanes = {
    a: [
      t("Write plan", "a", { assignee_user_id: "me", due_at: new Date(now - day).toISOString() }),
      t("Book venue", "a", { description: "near the PLAN", due_at: new Date(now + 2 * day).toISOString() }),
      t("Order food", "a", { label_ids: ["l1", "l2"], priority: "urgent" }),
    ],
    done: [t("Old plan", "done", { due_at: new Date(now - 3 * day).toISOString() })],
  };
  const ids = (l: ReturnType<typeof filterLanes>, c: string) => l[c]?.map((x) => x.id);

  it("filters by words, assignee and due date, kept in the query", () => {
    const f = filterOf(new URLSearchParams("q=plan&task=x"));
    expect(ids(filterLanes(lanes, cols, f, "me", now), "a")).toEqual(["Write plan", "Book venue"]);
    expect(ids(filterLanes(lanes, cols, only({ assignee: "none" }), "me", now), "a")).toEqual([
      "Book venue",
      "Order food",
    ]);
    const overdue = filterLanes(lanes, cols, only({ due: "overdue" }), "me", now);
    expect([ids(overdue, "a"), ids(overdue, "done")]).toEqual([["Write plan"], []]);
    expect(ids(filterLanes(lanes, cols, only({ due: "week" }), "me", now), "a")).toEqual(["Book venue"]);
    expect(ids(filterLanes(lanes, cols, only({ due: "none" }), "me", now), "a")).toEqual(["Order food"]);
    expect(filterLanes(lanes, cols, filterOf(new URLSearchParams()), "me", now)).toBe(lanes);
    expect(withFilter(new URLSearchParams("task=x"), only({ text: "a b", assignee: "me" })).toString()).toBe(
      "task=x&q=a+b&assignee=me",
    );
    // Labels and priority: kept in the query, a label id the task carries, a priority it has.
    const byLabel = filterOf(new URLSearchParams("label=l2&priority=urgent"));
    expect(byLabel).toMatchObject({ label: "l2", priority: "urgent" });
    expect(ids(filterLanes(lanes, cols, byLabel, "me", now), "a")).toEqual(["Order food"]);
    expect(ids(filterLanes(lanes, cols, only({ label: "l3" }), "me", now), "a")).toEqual([]);
    expect(ids(filterLanes(lanes, cols, only({ priority: "none" }), "me", now), "a")).toEqual([
      "Write plan",
      "Book venue",
    ]);
    expect(filterOf(new URLSearchParams("priority=asap")).priority).toBe("");
    expect(withFilter(new URLSearchParams(), only({ label: "l1", priority: "low" })).toString()).toBe(
      "label=l1&priority=low",
    );
    // A slot among the shown cards is a slot in the whole column.
    const shown = { a: [lanes.a[0] as Task, lanes.a[2] as Task], done: lanes.done };
    expect([0, 1, 2].map((slot) => fullSlot(lanes, shown, "a", slot))).toEqual([0, 2, 3]);
  });

  it("writes due dates one way, a passed date of a done task as past, and sizes in decimal units", () => {
    const noon = new Date();
    noon.setHours(12, 0, 0, 0);
    const due = new Date(noon.getTime() - 10 * day);
    due.setHours(5, 23);
    expect(dueText(due.toISOString(), { overdue: true, now: noon.getTime() })).not.toMatch(/\d:\d/);
    expect(dueText(due.toISOString(), { done: true, now: noon.getTime() })).toMatch(/^Was due /);
    expect(dueText(new Date(noon.getTime() + day).toISOString(), { done: true, now: noon.getTime() })).toBe(
      "Due tomorrow",
    );
    expect(formatSize(3_000_000)).toBe("3.0 MB");
  });

  it("renders task lists as read-only checkboxes and tables as tables", () => {
    const html = renderMarkdown("- [ ] open\n- [x] done\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    expect(html).toContain('<li class="task-list-item"><input type="checkbox" class="task-check" disabled> open');
    expect(html).toContain('class="task-check" disabled checked> done');
    expect(html).toContain("<table>");
    expect(renderMarkdown("- [<b>] x")).not.toContain("<b>");
  });
});

describe("the board", () => {
  it("adds a task at the bottom of a column and drags it to Done", async () => {
    const day = 86_400_000;
    await createTask("Send the invoices", "To do", {
      assignee_user_id: org.owner.id,
      due_at: new Date(Date.now() - day).toISOString(),
      deliverable_required: true,
    });
    await createTask("Confirm the speakers", "To do", {
      assignee_user_id: member.id,
      due_at: new Date(Date.now() + 2 * day).toISOString(),
    });
    await createTask("Pick the caterer", "Done", { assignee_user_id: member.id });
    await createTask("Book the venue");
    const { context, page } = await openBoard();
    await page.getByRole("button", { name: "Add task to To do" }).click();
    await page.getByLabel("Title of the new task in To do").fill("Write the launch plan");
    await page.keyboard.press("Enter");
    await card(page, "Write the launch plan").waitFor();
    // The form stays open for the next task, emptied once the task is stored (the card may show first, from
    // the live event).
    await page.waitForFunction(
      (label) => document.querySelector<HTMLInputElement>(`input[aria-label="${label}"]`)?.value === "",
      "Title of the new task in To do",
    );
    const titles = await lane(page, "To do").locator(".task-card-title").allTextContents();
    expect(titles.slice(-2)).toEqual(["Book the venue", "Write the launch plan"]);

    await card(page, "Write the launch plan").dragTo(lane(page, "Done"));
    await lane(page, "Done").locator(".task-card", { hasText: "Write the launch plan" }).waitFor();
    const created = (await org.owner.api.get(tasks())).body.tasks.find(
      (x: Task) => x.title === "Write the launch plan",
    ) as Task;
    await eventually(async () => expect((await taskById(created.id)).column_id).toBe(columns.Done as string));
    await screenshot(page, "board");
    await context.close();
  });

  it("reorders within a column by drag and drop, showing where the task will land", async () => {
    const [a, , c] = [
      await createTask("R1", "Review"),
      await createTask("R2", "Review"),
      await createTask("R3", "Review"),
    ];
    const { context, page } = await openBoard();
    const target = card(page, "R1");
    const box = await target.boundingBox();
    if (!box) throw new Error("no box");
    // Drag R3 by hand to the top half of R1, checking the drop line on the way.
    await card(page, "R3").hover();
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + 4, { steps: 8 });
    await lane(page, "Review").locator(".drop-line").waitFor();
    await page.mouse.up();
    await eventually(async () => expect((await taskById((c as Task).id)).position).toBe(0));
    expect((await taskById(a.id)).position).toBe(1);
    expect(await lane(page, "Review").locator(".task-card-title").allTextContents()).toEqual(["R3", "R1", "R2"]);
    expect(await page.locator(".drop-line").count()).toBe(0);
    await context.close();
  });

  it("moves the focused task with Alt + arrows and keeps it focused", async () => {
    const k1 = await createTask("K1", "In progress");
    const k2 = await createTask("K2", "In progress");
    const { context, page } = await openBoard();
    // The keys are no line on the board (they are in the "?" popover) but each movable card is described by them.
    await page.locator(`.task-card[aria-describedby="board-keys-hint"]`, { hasText: "K1" }).waitFor();
    expect(await page.locator("#board-keys-hint").textContent()).toContain("Alt + ← / → moves the focused task");
    await card(page, "K1").focus();
    await page.keyboard.press("Alt+ArrowDown");
    await eventually(async () => expect((await taskById(k1.id)).position).toBe(1));
    expect((await taskById(k2.id)).position).toBe(0);
    await page.keyboard.press("Alt+ArrowRight");
    await lane(page, "Review").locator(".task-card", { hasText: "K1" }).waitFor();
    await eventually(async () => expect((await taskById(k1.id)).column_id).toBe(columns.Review as string));
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.taskId)).toBe(k1.id);
    await page.keyboard.press("Alt+ArrowLeft");
    await page.keyboard.press("Alt+ArrowLeft");
    await eventually(async () => expect((await taskById(k1.id)).column_id).toBe(columns["To do"] as string));
    // Alt+Left must not have left the page (it is the browser's Back elsewhere).
    expect(new URL(page.url()).pathname).toBe(`/spaces/${spaceId}/board`);
    // Plain arrows walk between cards.
    await page.keyboard.press("ArrowUp");
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.taskId)).not.toBe(k1.id);
    await page.getByRole("status").filter({ hasText: "Moved “K1” to To do, position" }).waitFor({ state: "attached" });
    await context.close();
  });

  it("says the target column's real size after a keyboard move to another column", async () => {
    // A board of its own, so the columns hold known numbers of tasks: Review none, Done one.
    const space = (await org.owner.api.post(spaces(), { name: "Counting" })).body;
    const board = await org.owner.api.get(`${spaces()}/${space.id}/board`);
    const cols = Object.fromEntries(board.body.columns.map((c: Column) => [c.name, c.id]));
    const add = (title: string, column: string) =>
      org.owner.api.post(`${spaces()}/${space.id}/tasks`, { title, column_id: cols[column] });
    await add("Already done", "Done");
    await add("Investor update", "In progress");
    const { context, page } = await signedInPage(browser, server, org.owner, `/spaces/${space.id}/board`);
    const said = (text: string) => page.getByRole("status").filter({ hasText: text }).waitFor({ state: "attached" });
    await card(page, "Investor update").focus();
    await page.keyboard.press("Alt+ArrowRight");
    await said("Moved “Investor update” to Review, position 1 of 1.");
    await page.keyboard.press("Alt+ArrowRight");
    await said("Moved “Investor update” to Done, position 1 of 2.");
    await page.keyboard.press("Alt+ArrowDown");
    await said("Moved “Investor update” to Done, position 2 of 2.");
    await context.close();
  });

  it("keeps a card where quick keyboard moves put it, and focused, while their answers are on the way", async () => {
    const task = await createTask("Quick");
    const { context, page } = await openBoard();
    // Each answer is held back, so the second move is made before the first answers, and the live event of
    // the first (the card in In progress) arrives while the page shows it in Review.
    await page.route(`**/tasks/${task.id}`, async (route) => {
      if (route.request().method() !== "PATCH") return route.continue();
      const response = await route.fetch();
      await Bun.sleep(300);
      await route.fulfill({ response });
    });
    await card(page, "Quick").focus();
    await page.keyboard.press("Alt+ArrowRight");
    await page.keyboard.press("Alt+ArrowRight");
    const seen = new Set<string>();
    const end = Date.now() + 900;
    while (Date.now() < end) {
      seen.add(
        await page.evaluate((id) => {
          const card = document.querySelector<HTMLElement>(`[data-task-id="${id}"]`);
          const focused = (document.activeElement as HTMLElement | null)?.dataset.taskId === id;
          return `${card?.closest("ol")?.getAttribute("aria-label")} ${focused ? "focused" : "not focused"}`;
        }, task.id),
      );
      await Bun.sleep(20);
    }
    expect([...seen]).toEqual(["Tasks in Review focused"]);
    await eventually(async () => expect((await taskById(task.id)).column_id).toBe(columns.Review as string));
    await Bun.sleep(100);
    expect(await lane(page, "Review").locator(".task-card", { hasText: "Quick" }).count()).toBe(1);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.taskId)).toBe(task.id);
    await context.close();
  });

  it("shows a second browser the moves as they happen", async () => {
    const task = await createTask("Live move");
    const first = await openBoard();
    const second = await openBoard(member);
    await card(second.page, "Live move").waitFor();
    await card(first.page, "Live move").dragTo(lane(first.page, "In progress"));
    await lane(second.page, "In progress").locator(".task-card", { hasText: "Live move" }).waitFor();
    // A change made elsewhere (over the API) shows in both, and so do a new task and a deletion.
    await org.owner.api.patch(`${tasks()}/${task.id}`, { column_id: columns.Done, position: 0 });
    await lane(first.page, "Done").locator(".task-card", { hasText: "Live move" }).first().waitFor();
    await lane(second.page, "Done").locator(".task-card", { hasText: "Live move" }).first().waitFor();
    expect(await lane(second.page, "Done").locator(".task-card-title").first().textContent()).toBe("Live move");
    const extra = await createTask("Appears live");
    await card(second.page, "Appears live").waitFor();
    await org.owner.api.delete(`${tasks()}/${extra.id}`);
    await card(second.page, "Appears live").waitFor({ state: "detached" });
    await first.context.close();
    await second.context.close();
  });

  it("keeps the keyboard on a card that someone else moves, and hands it on when they delete it", async () => {
    const task = await createTask("Followed card", "Review");
    const neighbour = await createTask("Card below it", "Review");
    const { context, page } = await openBoard();
    const activeId = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.taskId ?? null);
    await card(page, "Followed card").focus();

    // Moved elsewhere: the keyboard follows the card into its new column, and a screen reader hears it.
    await org.owner.api.patch(`${tasks()}/${task.id}`, { column_id: columns.Done, position: 0 });
    await lane(page, "Done").locator(".task-card", { hasText: "Followed card" }).waitFor();
    await page
      .getByRole("status")
      .filter({ hasText: "“Followed card” was moved to Done by someone else." })
      .waitFor({ state: "attached" });
    expect(await activeId()).toBe(task.id);

    // Deleted: the keyboard goes to the card that took its place in that column.
    await org.owner.api.patch(`${tasks()}/${neighbour.id}`, { column_id: columns.Done, position: 1 });
    await eventually(async () =>
      expect(await lane(page, "Done").locator(".task-card-title").nth(1).textContent()).toBe("Card below it"),
    );
    expect(await activeId()).toBe(task.id);
    await org.owner.api.delete(`${tasks()}/${task.id}`);
    await card(page, "Followed card").waitFor({ state: "detached" });
    await page
      .getByRole("status")
      .filter({ hasText: "“Followed card” was deleted by someone else." })
      .waitFor({ state: "attached" });
    expect(await activeId()).toBe(neighbour.id);

    // The last card of a column: the keyboard goes to its "+ Add task".
    const alone = await createTask("Alone in Review", "Review");
    await org.owner.api.patch(`${tasks()}/${alone.id}`, { column_id: columns.Review, position: 0 });
    const inReview = (await org.owner.api.get(tasks())).body.tasks.filter(
      (t: Task) => t.column_id === columns.Review && t.id !== alone.id,
    );
    await Promise.all(inReview.map((t: Task) => org.owner.api.delete(`${tasks()}/${t.id}`)));
    await eventually(async () => expect(await lane(page, "Review").locator(".task-card").count()).toBe(1));
    await card(page, "Alone in Review").focus();
    await org.owner.api.delete(`${tasks()}/${alone.id}`);
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Add task to Review");
    await context.close();
  });

  it("names a space that cannot be opened in a heading: a private one, a missing id, a malformed one", async () => {
    const hidden = await org.owner.api.post(spaces(), { name: "Hidden room", private: true });
    expect(hidden.status).toBe(201);
    const { context, page } = await signedInPage(browser, server, member, `/spaces/${hidden.body.id}/board`);
    for (const id of [hidden.body.id, "00000000-0000-0000-0000-000000000000", "not-an-id"]) {
      await page.goto(`${server.url}/spaces/${id}/board`);
      await page.getByRole("heading", { level: 1, name: "Space not found" }).waitFor();
      await page.getByRole("alert").waitFor();
      await page.getByRole("link", { name: "See all spaces" }).waitFor();
    }
    expect(await page.getByRole("alert").textContent()).toContain("not");
    await context.close();
  });

  it("puts a refused move back and says why", async () => {
    const task = await createTask("Refused move");
    // No API changes a board's columns, so the server is made to refuse for real on the way: the move's request
    // names a column of another space's board instead, which the API answers 400 invalid column.
    const elsewhere = (await org.owner.api.post(spaces(), { name: "Elsewhere" })).body;
    const foreign = (await org.owner.api.get(`${spaces()}/${elsewhere.id}/board`)).body.columns[2].id as string;
    const { context, page } = await openBoard();
    const answered: number[] = [];
    await page.route(`**/tasks/${task.id}`, async (route) => {
      const request = route.request();
      if (request.method() !== "PATCH") return route.continue();
      const postData = JSON.stringify({ ...request.postDataJSON(), column_id: foreign });
      const response = await route.fetch({ postData });
      answered.push(response.status());
      await route.fulfill({ response });
    });
    await card(page, "Refused move").dragTo(lane(page, "Review"));
    await page.getByRole("alert").filter({ hasText: "invalid column" }).waitFor();
    await lane(page, "To do").locator(".task-card", { hasText: "Refused move" }).waitFor();
    expect(await lane(page, "Review").locator(".task-card", { hasText: "Refused move" }).count()).toBe(0);
    expect((await taskById(task.id)).column_id).toBe(columns["To do"] as string);
    expect(answered).toEqual([400]);

    // Refused by keyboard: the card comes back focused, and the status line says why instead of "Moved".
    await card(page, "Refused move").focus();
    await page.keyboard.press("Alt+ArrowRight");
    await page
      .getByRole("status")
      .filter({ hasText: "Could not move “Refused move”: invalid column" })
      .waitFor({ state: "attached" });
    await lane(page, "To do").locator(".task-card", { hasText: "Refused move" }).waitFor();
    await page.waitForFunction((id) => (document.activeElement as HTMLElement | null)?.dataset.taskId === id, task.id);
    expect(answered).toEqual([400, 400]);
    expect((await taskById(task.id)).column_id).toBe(columns["To do"] as string);
    await context.close();
  });
});

describe("the task detail", () => {
  it("edits title, description (markdown), assignee and due date, each saved", async () => {
    const task = await createTask("Draft the announcement");
    const { context, page } = await openBoard();
    await card(page, "Draft the announcement").click();
    await page.waitForURL(new RegExp(`\\?task=${task.id}$`));
    const panel = page.getByRole("dialog");
    await panel.getByLabel("Title", { exact: true }).fill("Draft the launch announcement");
    await page.keyboard.press("Enter");
    await eventually(async () => expect((await taskById(task.id)).title).toBe("Draft the launch announcement"));
    await card(page, "Draft the launch announcement").waitFor({ state: "attached" });

    await panel.getByRole("button", { name: "Edit description" }).click();
    await panel
      .getByRole("textbox", { name: "Description", exact: true })
      .fill("Mention the **new pricing** and\n\n- the date\n- the venue");
    // Escape in a changed description keeps the editor (and the panel) open.
    await page.keyboard.press("Escape");
    await panel.getByRole("textbox", { name: "Description", exact: true }).waitFor();
    await panel.getByRole("tab", { name: "Preview" }).click();
    await panel.locator(".detail-preview strong", { hasText: "new pricing" }).waitFor();
    await panel.getByRole("button", { name: "Save description" }).click();
    await panel.locator(".detail-description li", { hasText: "the venue" }).waitFor();
    expect((await taskById(task.id)).description).toContain("**new pricing**");

    await panel.getByLabel("Assignee").selectOption({ label: "Mia Member" });
    await eventually(async () => expect((await taskById(task.id)).assignee_user_id).toBe(member.id));

    await panel.getByLabel("Due date").fill("2031-03-14");
    await panel.getByLabel("Due date").blur();
    await eventually(async () => {
      const due = (await taskById(task.id)).due_at as string;
      const local = new Date(due);
      expect([local.getFullYear(), local.getMonth() + 1, local.getDate(), local.getHours()]).toEqual([2031, 3, 14, 23]);
    });
    await panel.getByLabel("Deliverable required").check();
    await panel.getByLabel("Instructions for the deliverable").waitFor();
    await eventually(async () => expect((await taskById(task.id)).deliverable_required).toBe(true));
    await screenshot(page, "task-detail");

    await panel.getByRole("button", { name: "Clear the due date" }).click();
    await eventually(async () => expect((await taskById(task.id)).due_at).toBeNull());
    // The link opens the same task in a fresh page.
    const again = await signedInPage(browser, server, org.owner, `/spaces/${spaceId}/board?task=${task.id}`);
    await again.page.getByRole("dialog").getByLabel("Title", { exact: true }).waitFor();
    expect(await again.page.getByRole("dialog").getByLabel("Title", { exact: true }).inputValue()).toBe(
      "Draft the launch announcement",
    );
    await again.context.close();
    await page.keyboard.press("Escape");
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board$`));
    await context.close();
  });

  it("throws an edit away with Escape (title, instructions), and writes due dates one way", async () => {
    const today = new Date();
    const endOfToday = new Date(today.getFullYear(), today.getMonth(), today.getDate(), 23, 59, 59, 999);
    const task = await createTask("Design pricing page", "To do", {
      due_at: endOfToday.toISOString(),
      deliverable_required: true,
      deliverable_instructions: "A PDF",
    });
    const { context, page } = await openBoard();
    await card(page, "Design pricing page").getByText("Due today", { exact: true }).waitFor();
    await card(page, "Design pricing page").click();
    const panel = page.getByRole("dialog");
    const title = panel.getByLabel("Title", { exact: true });
    await title.click();
    await page.keyboard.press("End");
    await page.keyboard.type(" TYPO");
    await page.keyboard.press("Escape");
    // The saved title is back, the cursor stays in it, the panel stays open, and leaving the field saves nothing.
    expect(await title.inputValue()).toBe("Design pricing page");
    expect(await title.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await panel.isVisible()).toBe(true);
    await panel.getByLabel("Assignee").focus();
    await Bun.sleep(300);
    expect((await taskById(task.id)).title).toBe("Design pricing page");
    expect((await taskById(task.id)).version).toBe(task.version);

    const instructions = panel.getByLabel("Instructions for the deliverable");
    await instructions.click();
    await page.keyboard.type(" and a draft");
    await page.keyboard.press("Escape");
    expect(await instructions.inputValue()).toBe("A PDF");
    await panel.getByLabel("Assignee").focus();
    await Bun.sleep(300);
    expect((await taskById(task.id)).deliverable_instructions).toBe("A PDF");

    // Enter still saves; Escape on an unchanged title closes the panel.
    await title.click();
    await page.keyboard.press("End");
    await page.keyboard.type(" v2");
    await page.keyboard.press("Enter");
    await eventually(async () => expect((await taskById(task.id)).title).toBe("Design pricing page v2"));
    await card(page, "Design pricing page v2").waitFor({ state: "attached" });
    await Bun.sleep(100);
    await page.keyboard.press("Escape");
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board$`));
    await context.close();
  });

  it("shows a stale edit as a conflict with both values, and lets the user keep theirs or apply their own", async () => {
    const task = await createTask("Pick a date");
    const { context, page } = await openBoard();
    await page.goto(`/spaces/${spaceId}/board?task=${task.id}`);
    const panel = page.getByRole("dialog");
    const title = panel.getByLabel("Title", { exact: true });
    await title.click();
    // Someone else renames it while this browser is editing.
    await org.owner.api.patch(`${tasks()}/${task.id}`, { title: "Pick a date in May" });
    await title.fill("Pick a date in June");
    await page.keyboard.press("Enter");
    const alert = panel.getByRole("alert").filter({ hasText: "Someone else changed this task" });
    await alert.waitFor();
    await alert.getByText("Pick a date in May").waitFor();
    await alert.getByText("Pick a date in June").waitFor();
    expect((await taskById(task.id)).title).toBe("Pick a date in May");
    await alert.getByRole("button", { name: "Keep their version" }).click();
    expect(await title.inputValue()).toBe("Pick a date in May");

    // Again, and this time apply the user's own change on top.
    await title.click();
    await org.owner.api.patch(`${tasks()}/${task.id}`, { title: "Pick a date in July" });
    await title.fill("Pick a date in June");
    await page.keyboard.press("Enter");
    await alert.waitFor();
    await alert.getByRole("button", { name: "Apply my change" }).click();
    await eventually(async () => expect((await taskById(task.id)).title).toBe("Pick a date in June"));

    // A change of another field meanwhile is no conflict: the edit is saved on top of it.
    await title.click();
    await org.owner.api.patch(`${tasks()}/${task.id}`, { description: "Asked by the venue" });
    await title.fill("Pick a date in August");
    await page.keyboard.press("Enter");
    await eventually(async () => expect((await taskById(task.id)).title).toBe("Pick a date in August"));
    expect((await taskById(task.id)).description).toBe("Asked by the venue");
    expect(await alert.count()).toBe(0);
    await context.close();
  });

  it("posts a comment that a second browser sees live, and shows AI staff answering an assignment", async () => {
    const task = await createTask("Collect quotes");
    await addStaff(org, { name: "Ada" });
    const first = await signedInPage(browser, server, org.owner, `/spaces/${spaceId}/board?task=${task.id}`);
    const second = await signedInPage(browser, server, member, `/spaces/${spaceId}/board?task=${task.id}`);
    const panel = first.page.getByRole("dialog");
    await panel.getByText("No comments yet.").waitFor();
    await second.page.getByRole("dialog").getByText("No comments yet.").waitFor();
    await panel.getByLabel("Comment", { exact: true }).fill("Three quotes by **Friday**, please.");
    await panel.getByRole("button", { name: "Comment", exact: true }).click();
    await panel.locator(".comment strong", { hasText: "Friday" }).waitFor();
    await second.page.getByRole("dialog").locator(".comment strong", { hasText: "Friday" }).waitFor();
    const messages = await org.owner.api.get(`${tasks()}/${task.id}/messages`);
    expect(messages.body.messages.map((m: { content: string }) => m.content)).toEqual([
      "Three quotes by **Friday**, please.",
    ]);

    // Staff are offered as assignees, marked; assigned, Ada answers in the comments (here: no model key set).
    await panel.getByLabel("Assignee").selectOption({ label: "Ada (AI staff)" });
    await panel.getByText("Ada is AI staff").waitFor();
    await second.page.getByRole("dialog").locator(".comment", { hasText: "Sorry, I couldn't answer" }).waitFor();
    await panel.locator(".comment", { hasText: "AI staff" }).first().waitFor();
    await first.context.close();
    await second.context.close();
  });

  it("uploads a deliverable into the Deliverables folder, links it, and downloads it", async () => {
    const task = await createTask("Send the poster", "To do", { deliverable_required: true });
    const { context, page } = await signedInPage(
      browser,
      server,
      org.owner,
      `/spaces/${spaceId}/board?task=${task.id}`,
    );
    const panel = page.getByRole("dialog");
    await panel.getByText("Nothing delivered yet.").waitFor();
    await panel.locator('input[type="file"]').setInputFiles({
      name: "poster.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from("%PDF-1.4 poster"),
    });
    await panel.getByRole("listitem").filter({ hasText: "poster.pdf" }).waitFor();
    const linked = await org.owner.api.get(`${tasks()}/${task.id}/deliverables`);
    expect(linked.body.deliverables.map((d: { file_name: string }) => d.file_name)).toEqual(["poster.pdf"]);
    const root = await org.owner.api.get(`${spaces()}/${spaceId}/files`);
    expect(root.body.nodes.map((n: { name: string }) => n.name)).toContain("Deliverables");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      panel.getByRole("button", { name: "Download poster.pdf" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("poster.pdf");

    // Delete the task from its detail.
    await panel.getByRole("button", { name: "Delete task" }).click();
    await panel.getByRole("button", { name: "Delete for good" }).click();
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board$`));
    expect((await org.owner.api.get(tasks())).body.tasks.some((x: Task) => x.id === task.id)).toBe(false);
    await context.close();
  });

  it("keeps the keyboard on Delete task's question and around the description editor", async () => {
    const task = await createTask("Focus in the panel");
    const { context, page } = await signedInPage(
      browser,
      server,
      org.owner,
      `/spaces/${spaceId}/board?task=${task.id}`,
    );
    const panel = page.getByRole("dialog", { name: "Focus in the panel" });
    const isActive = (name: string) =>
      panel.getByRole("button", { name, exact: true }).evaluate((el) => el === document.activeElement);

    // "Delete task" asks in place: the question is an alert dialog that takes the keyboard, on the safer answer.
    const deleteTask = panel.getByRole("button", { name: "Delete task" });
    await deleteTask.focus();
    await page.keyboard.press("Enter");
    const question = panel.getByRole("alertdialog", { name: "Delete this task for good?" });
    await question.waitFor();
    expect(await isActive("Keep it")).toBe(true);
    // Escape answers the question only: the panel stays, and the keyboard is back on "Delete task".
    await page.keyboard.press("Escape");
    await question.waitFor({ state: "detached" });
    expect(await panel.isVisible()).toBe(true);
    expect(await isActive("Delete task")).toBe(true);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter"); // "Keep it"
    await question.waitFor({ state: "detached" });
    expect(await isActive("Delete task")).toBe(true);

    // The description editor gives the keyboard back to "Edit description" after Escape, Cancel and Save.
    const edit = panel.getByRole("button", { name: "Edit description" });
    const textbox = panel.getByRole("textbox", { name: "Description", exact: true });
    await edit.focus();
    await page.keyboard.press("Enter");
    await textbox.waitFor();
    await page.keyboard.press("Escape");
    await textbox.waitFor({ state: "detached" });
    expect(await isActive("Edit description")).toBe(true);
    await page.keyboard.press("Enter");
    await panel.getByRole("button", { name: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    await textbox.waitFor({ state: "detached" });
    expect(await isActive("Edit description")).toBe(true);
    await page.keyboard.press("Enter");
    await page.keyboard.type("Saved by keyboard");
    await panel.getByRole("button", { name: "Save description" }).focus();
    await page.keyboard.press("Enter");
    await textbox.waitFor({ state: "detached" });
    expect(await isActive("Edit description")).toBe(true);
    expect((await taskById(task.id)).description).toBe("Saved by keyboard");
    await context.close();
  });

  it("keeps the keyboard in place (due date, link picker), offers @ in comments and renders task lists", async () => {
    const files = `${spaces()}/${spaceId}/files`;
    const root = (await org.owner.api.get(files)).body.nodes as { id: string; name: string }[];
    const folder =
      root.find((n) => n.name === "Deliverables")?.id ??
      (await org.owner.api.post(`${files}/folders`, { name: "Deliverables" })).body.node.id;
    await org.owner.api.post(`${files}/text`, { name: "sizes.txt", parent_id: folder, content: "x".repeat(3000) });
    const task = await createTask("Keyboard task", "To do", {
      due_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      description: "- [ ] draft\n- [x] outline\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    });
    const { context, page } = await signedInPage(
      browser,
      server,
      org.owner,
      `/spaces/${spaceId}/board?task=${task.id}`,
    );
    const panel = page.getByRole("dialog");
    const focused = (name: string) =>
      page.waitForFunction(
        (label) =>
          document.activeElement?.getAttribute("aria-label") === label ||
          (document.activeElement as HTMLSelectElement | null)?.labels?.[0]?.textContent?.trim() === label,
        name,
      );

    // Markdown: task lists are read-only checkboxes, tables have cells.
    const boxes = panel.locator(".detail-description input[type=checkbox]");
    await boxes.first().waitFor();
    expect(await boxes.count()).toBe(2);
    expect(await boxes.nth(1).isChecked()).toBe(true);
    expect(await boxes.first().isDisabled()).toBe(true);
    const cellBorder = await panel
      .locator(".detail-description td")
      .first()
      .evaluate((el) => getComputedStyle(el).borderTopWidth);
    expect(cellBorder).toBe("1px");

    // Clearing the due date leaves the keyboard on the date field.
    await panel.getByRole("button", { name: "Clear the due date" }).focus();
    await page.keyboard.press("Enter");
    await eventually(async () => expect((await taskById(task.id)).due_at).toBeNull());
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`due-${task.id}`);

    // The link picker gets the keyboard; Escape closes only it; Link puts the keyboard on the linked file.
    const linkButton = panel.getByRole("button", { name: "Link an existing file" });
    await linkButton.focus();
    await page.keyboard.press("Enter");
    await focused("File under Deliverables");
    await page.keyboard.press("Escape");
    await panel.getByLabel("File under Deliverables").waitFor({ state: "detached" });
    expect(await panel.isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get("task")).toBe(task.id);
    expect(await linkButton.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await panel.getByLabel("File under Deliverables").selectOption({ label: "sizes.txt" });
    await panel.getByRole("button", { name: "Link", exact: true }).click();
    await focused("Download sizes.txt");
    // Sizes are written as in the file tree.
    await panel.getByRole("listitem").filter({ hasText: "sizes.txt" }).getByText("3.0 KB").waitFor();

    // Comments: "@" offers people and staff; Escape closes the list only; mentions stand out once posted.
    const comment = panel.getByLabel("Comment", { exact: true });
    await comment.click();
    await page.keyboard.type("Over to @Mi");
    const option = panel
      .getByRole("listbox", { name: "People and staff to mention" })
      .getByRole("option", { name: /Mia Member/ });
    await option.waitFor();
    await page.keyboard.press("Escape");
    await option.waitFor({ state: "detached" });
    expect(await panel.isVisible()).toBe(true);
    // Closed until another "@".
    for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
    await page.keyboard.type("@Mi");
    await option.waitFor();
    await page.keyboard.press("Enter");
    expect(await comment.inputValue()).toBe("Over to @Mia Member ");
    await page.keyboard.type("please");
    await page.keyboard.press("Control+Enter");
    await panel.locator(".comment .mention", { hasText: "@Mia Member" }).waitFor();
    await screenshot(page, "task-comment-mention");
    await context.close();
  });

  it("offers a private space's members only as assignees, and still names an assignee who left the space", async () => {
    const insider = await addMember(org, ["Member"], "Ivy Insider");
    const outsider = await addMember(org, ["Member"], "Oscar Outsider");
    const staff = await addStaff(org, { name: "Ada Private" });
    const space = (await org.owner.api.post(spaces(), { name: "Leadership", private: true })).body;
    const spaceMembers = `${spaces()}/${space.id}/members`;
    expect((await org.owner.api.post(spaceMembers, { user_id: insider.id })).status).toBe(201);
    expect((await org.owner.api.post(spaceMembers, { user_id: outsider.id })).status).toBe(201);
    const board = await org.owner.api.get(`${spaces()}/${space.id}/board`);
    const todo = board.body.columns.find((c: Column) => c.name === "To do").id;
    const task = (
      await org.owner.api.post(`${spaces()}/${space.id}/tasks`, {
        title: "Salary review",
        column_id: todo,
        assignee_user_id: outsider.id,
      })
    ).body as Task;
    // Assigned while a member, then taken out of the space.
    expect((await org.owner.api.delete(`${spaceMembers}/${outsider.id}`)).status).toBe(204);

    const { context, page } = await signedInPage(
      browser,
      server,
      org.owner,
      `/spaces/${space.id}/board?task=${task.id}`,
    );
    const labels = (select: ReturnType<Page["getByLabel"]>) =>
      select.locator("option").evaluateAll((list) => list.map((o) => (o.textContent ?? "").trim()));
    const assignee = page.getByRole("dialog").getByLabel("Assignee");
    await assignee.locator("option", { hasText: "Ivy Insider" }).waitFor({ state: "attached" });
    // The current value stays, named, and said to be outside the space.
    expect(await assignee.locator("option:checked").textContent()).toBe("Oscar Outsider (not in this space)");
    const offered = await labels(assignee);
    expect(offered).toContain("Olivia Owner (you)");
    expect(offered).toContain("Ivy Insider");
    expect(offered.some((l) => l.startsWith("Mia Member") || l.startsWith("Ada Private"))).toBe(false);
    await assignee.selectOption({ label: "Ivy Insider" });
    await eventually(async () => {
      const res = await org.owner.api.get(`${spaces()}/${space.id}/tasks`);
      expect(res.body.tasks[0].assignee_user_id).toBe(insider.id);
    });
    // Gone from the choices once it is no longer the value.
    await eventually(async () => expect((await labels(assignee)).some((l) => l.startsWith("Oscar"))).toBe(false));
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });

    // The board's filter offers the same people.
    const filter = page.getByRole("search").getByLabel("Assignee");
    const choices = await labels(filter);
    expect(choices).toContain("Ivy Insider");
    expect(choices.some((l) => /^(Mia Member|Ada Private|Oscar Outsider)/.test(l))).toBe(false);
    // Added to the space, a staff member is offered too (the list is asked again when the tab comes back).
    expect((await org.owner.api.post(spaceMembers, { user_id: staff.account.user_id })).status).toBe(201);
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await filter.locator("option", { hasText: "Ada Private (AI staff)" }).waitFor({ state: "attached" });
    await context.close();
  });

  it("switches the open panel to another task when its card is clicked beside it", async () => {
    const first = await createTask("Switch from here", "To do");
    const second = await createTask("Switch to here", "To do");
    const { context, page } = await openBoard();
    await card(page, "Switch from here").click();
    const panel = page.getByRole("dialog");
    await page.waitForURL(new RegExp(`\\?task=${first.id}$`));
    await panel.getByLabel("Title", { exact: true }).waitFor();
    // The board behind the panel is inert: the click lands on the backdrop, over the card.
    const box = await card(page, "Switch to here").boundingBox();
    if (!box) throw new Error("the card is not on screen");
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(new RegExp(`\\?task=${second.id}$`));
    await page.getByRole("dialog", { name: "Switch to here" }).waitFor();
    expect(await panel.getByLabel("Title", { exact: true }).inputValue()).toBe("Switch to here");
    // The keyboard is on the new panel, Escape closes it and goes back to the card of the task it showed.
    expect(await page.evaluate(() => !!document.activeElement?.closest("dialog"))).toBe(true);
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.taskId)).toBe(second.id);
    // Back goes to the task shown before; a click beside the panel on no card still closes it.
    await page.goBack();
    await page.waitForURL(new RegExp(`\\?task=${second.id}$`));
    await page.goBack();
    await page.getByRole("dialog", { name: "Switch from here" }).waitFor();
    const head = await page.getByRole("heading", { name: "To do", exact: true }).boundingBox();
    if (!head) throw new Error("the column heading is not on screen");
    await page.mouse.click(head.x + 2, head.y + head.height / 2);
    await panel.waitFor({ state: "detached" });
    expect(new URL(page.url()).searchParams.get("task")).toBeNull();
    await context.close();
  });

  it("keeps a comment being typed: Escape leaves the box, and leaving the task asks first", async () => {
    const first = await createTask("Comment draft here", "To do");
    const second = await createTask("Card beside the draft", "To do");
    const { context, page } = await openBoard();
    const asked: string[] = [];
    let answer = false;
    page.on("dialog", (dialog) => {
      asked.push(dialog.message());
      void (answer ? dialog.accept() : dialog.dismiss());
    });
    await card(page, "Comment draft here").click();
    const panel = page.getByRole("dialog", { name: "Comment draft here" });
    const comment = panel.getByRole("combobox", { name: "Comment" });
    await comment.click();
    await page.keyboard.type("A long considered comment draft");
    // The first Escape takes the keyboard out of the box, the text kept and the panel open.
    await page.keyboard.press("Escape");
    expect(await comment.evaluate((el) => el === document.activeElement)).toBe(false);
    expect(await page.evaluate(() => !!document.activeElement?.closest("dialog"))).toBe(true);
    expect(await comment.inputValue()).toBe("A long considered comment draft");
    expect(asked).toEqual([]);
    // The second would close the panel: it asks first, and "Cancel" keeps the panel and the text.
    await page.keyboard.press("Escape");
    await eventually(async () => expect(asked).toEqual(["Discard the comment you are writing?"]));
    expect(await panel.isVisible()).toBe(true);
    expect(await comment.inputValue()).toBe("A long considered comment draft");
    // So does a click on another card beside the panel.
    const box = await card(page, "Card beside the draft").boundingBox();
    if (!box) throw new Error("the card is not on screen");
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await eventually(async () => expect(asked).toHaveLength(2));
    expect(new URL(page.url()).searchParams.get("task")).toBe(first.id);
    expect(await comment.inputValue()).toBe("A long considered comment draft");
    // Agreeing to lose it switches the task.
    answer = true;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(new RegExp(`\\?task=${second.id}$`));
    const next = page.getByRole("dialog", { name: "Card beside the draft" });
    // With nothing typed, Escape in the comment box closes the panel without asking.
    await next.getByRole("combobox", { name: "Comment" }).click();
    await page.keyboard.press("Escape");
    await next.waitFor({ state: "detached" });
    expect(asked).toHaveLength(3);
    await context.close();
  });

  it("filters the board by words, assignee and due date, kept in the address", async () => {
    await createTask("Zebra poster", "To do", { assignee_user_id: member.id });
    await createTask("Zebra banner", "In progress", { description: "for the zebra stand" });
    await createTask("Another zebra", "Done");
    const { context, page } = await openBoard();
    await card(page, "Zebra poster").waitFor();
    // "/" goes to the filter box when the keyboard is not in a field.
    await page.locator("body").press("/");
    const box = page.getByLabel("Filter tasks by title or description");
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("zebra");
    await page
      .getByRole("status")
      .filter({ hasText: /^3 of \d+ tasks$/ })
      .waitFor();
    await page.waitForURL(/\?q=zebra$/);
    expect(await page.locator(".task-card").count()).toBe(3);
    await page.getByLabel("Assignee").selectOption({ label: "Mia Member" });
    await page.waitForURL(/assignee=/);
    await page
      .getByRole("status")
      .filter({ hasText: /^1 of \d+ tasks$/ })
      .waitFor();
    // Reload keeps it; opening and closing a task keeps it too.
    await page.reload();
    await card(page, "Zebra poster").waitFor();
    expect(await page.locator(".task-card").count()).toBe(1);
    expect(await page.getByLabel("Filter tasks by title or description").inputValue()).toBe("zebra");
    await card(page, "Zebra poster").click();
    await page.getByRole("dialog").getByLabel("Title", { exact: true }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect(new URL(page.url()).searchParams.get("q")).toBe("zebra");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board$`));
    expect(await page.getByRole("button", { name: "Clear filters" }).count()).toBe(0);
    // Home / End go to the first / last card of a column.
    const todo = lane(page, "To do").locator(".task-card");
    await todo.nth(1).focus();
    await page.keyboard.press("End");
    expect(await todo.last().evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Home");
    expect(await todo.first().evaluate((el) => el === document.activeElement)).toBe(true);
    await screenshot(page, "board-filter");
    await context.close();
  });

  it("gives the focus back after Add task, says when a title is too long, and clamps long titles", async () => {
    await createTask(`Long ${"word ".repeat(99)}`.trim());
    const { context, page } = await openBoard();
    const add = page.getByRole("button", { name: "Add task to In progress" });
    await add.focus();
    await page.keyboard.press("Enter");
    const input = page.getByLabel("Title of the new task in In progress");
    await input.fill("x".repeat(520));
    await page.getByText("A title can have at most 500 characters; this one has 520").waitFor();
    expect(await input.inputValue()).toHaveLength(520);
    expect(await page.getByRole("button", { name: "Add", exact: true }).isDisabled()).toBe(true);
    await input.press("Escape");
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Add task to In progress");
    const title = card(page, "Long word").locator(".task-card-title");
    const box = await title.evaluate((el) => ({ height: el.clientHeight, full: el.scrollHeight }));
    expect(box.height).toBeLessThan(box.full);
    await context.close();
  });

  it("tells a Viewer who presses Alt+arrow on a card that they can't move tasks", async () => {
    const viewer = await addMember(org, ["Viewer"], "Vera Viewer");
    await createTask("Viewer sees this");
    const { context, page } = await openBoard(viewer);
    await card(page, "Viewer sees this").focus();
    await page.keyboard.press("Alt+ArrowRight");
    await page.getByText("You can't move tasks").waitFor();
    await context.close();
  });

  it("shows a Viewer the deliverable instructions as text, or that there are none, not an empty box", async () => {
    const viewer = await addMember(org, ["Viewer"], "Vi Viewer");
    const bare = await createTask("Deliver without instructions", "To do", { deliverable_required: true });
    const told = await createTask("Deliver with instructions", "To do", {
      deliverable_required: true,
      deliverable_instructions: "A PDF of the slides",
    });
    const { context, page } = await openBoard(viewer);
    await page.goto(`/spaces/${spaceId}/board?task=${bare.id}`);
    const panel = page.getByRole("dialog", { name: "Deliver without instructions" });
    await panel.getByText("No instructions.").waitFor();
    expect(await panel.getByRole("textbox", { name: "Instructions for the deliverable" }).count()).toBe(0);
    await page.goto(`/spaces/${spaceId}/board?task=${told.id}`);
    await page.getByRole("dialog", { name: "Deliver with instructions" }).getByText("A PDF of the slides").waitFor();
    await context.close();
  });

  it("works on a phone-sized screen", async () => {
    const task = await createTask("Phone task");
    const { context, page } = await openBoard(org.owner, { viewport: PHONE });
    await card(page, "Phone task").click();
    await page.waitForURL(new RegExp(`\\?task=${task.id}$`));
    const panel = page.getByRole("dialog");
    await panel.getByLabel("Title", { exact: true }).waitFor();
    const width = await panel.evaluate((el) => el.getBoundingClientRect().width);
    expect(width).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  });
});

describe("my tasks", () => {
  it("lists my tasks across spaces by due date with the overdue ones marked, live, linking to the board", async () => {
    const other = await org.owner.api.post(spaces(), { name: "Ops" });
    const otherBoard = await org.owner.api.get(`${spaces()}/${other.body.id}/board`);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString();
    const nextWeek = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const late = await createTask("Renew the domain", "To do", { assignee_user_id: org.owner.id, due_at: yesterday });
    await createTask("Print badges", "In progress", { assignee_user_id: org.owner.id, due_at: nextWeek });
    await org.owner.api.post(`${spaces()}/${other.body.id}/tasks`, {
      title: "Rotate the keys",
      column_id: otherBoard.body.columns[0].id,
      assignee_user_id: org.owner.id,
    });
    const { context, page } = await signedInPage(browser, server, org.owner, "/my-tasks");
    await page.getByRole("heading", { name: "My tasks" }).waitFor();
    const overdue = page.getByRole("region", { name: /Overdue/ });
    const item = overdue.getByRole("listitem").filter({ hasText: "Renew the domain" });
    await item.waitFor();
    await item.getByText(/^Overdue since yesterday/).waitFor();
    expect(await item.evaluate((el) => el.className)).toContain("overdue");
    await page
      .getByRole("region", { name: /Due in the next 7 days/ })
      .getByText("Print badges")
      .waitFor();
    await page
      .getByRole("region", { name: /No due date/ })
      .getByText("Rotate the keys")
      .waitFor();
    await page
      .getByRole("region", { name: /No due date/ })
      .getByText("Ops")
      .waitFor();

    // Live: a task assigned to me elsewhere appears, one unassigned goes.
    const fresh = await createTask("Call the caterer");
    await org.owner.api.patch(`${tasks()}/${fresh.id}`, { assignee_user_id: org.owner.id });
    await page.getByText("Call the caterer").waitFor();
    await org.owner.api.patch(`${tasks()}/${fresh.id}`, { assignee_user_id: null });
    await page.getByText("Call the caterer").waitFor({ state: "detached" });
    await screenshot(page, "my-tasks");

    // The same words filter as the board's, kept in the address.
    await page.getByLabel("Filter my tasks by title or description").fill("badges");
    await page.waitForURL(/\/my-tasks\?q=badges$/);
    await page
      .getByRole("status")
      .filter({ hasText: /^1 of \d+ tasks$/ })
      .waitFor();
    expect(await page.getByText("Renew the domain").count()).toBe(0);
    await page.reload();
    await page.getByText("Print badges").waitFor();
    expect(await page.getByText("Renew the domain").count()).toBe(0);
    await page.getByRole("button", { name: "Clear filter" }).click();

    await item.getByRole("link", { name: "Renew the domain" }).click();
    await page.waitForURL(new RegExp(`/spaces/${spaceId}/board\\?task=${late.id}$`));
    await page.getByRole("dialog").getByText("Overdue since").waitFor();
    await context.close();
  });
});
