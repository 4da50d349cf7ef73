/**
 * Staff and the board in a real browser against the compiled binary, with a loopback fake model gateway: a staff
 * member asked about the board in chat calls `list_tasks`, gets the board, and answers with a task's title; a
 * staff member that creates a task links it, and the link opens the task in place; a failed reply is retried
 * from its Retry button and its answer takes the failure's place.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "bun:test";
import type { Page } from "playwright-core";
import { screenshot } from "../helpers/browser";
import { addStaff, type Org } from "../helpers/factories";
import { completion, type FakeHandler, type FakeProvider } from "../helpers/fake-providers";
import { type BrowserGatewayWorld, browserGatewayWorld } from "../helpers/gateway-world";

let w: BrowserGatewayWorld;
let org: Org;
let fake: FakeProvider;
let spaceId: string;
let generalId: string;

const spacePath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}`;
const composer = (page: Page) => page.getByRole("combobox", { name: "Message #general" });
const message = (page: Page, text: string | RegExp) => page.getByRole("article").filter({ hasText: text });

/** One tool call; once its result came back, `answer(result)`. */
function callThenAnswer(name: string, args: unknown, answer: (result: string) => string): FakeHandler {
  return (req) => {
    const last = req.body.messages.at(-1);
    return last.role === "tool" ? completion(answer(last.content)) : completion(null, [{ name, arguments: args }]);
  };
}

async function openGeneral(): Promise<Page> {
  const page = await w.open(`/spaces/${spaceId}/chat/${generalId}`);
  await composer(page).waitFor();
  return page;
}

async function ask(page: Page, text: string): Promise<void> {
  const box = composer(page);
  await box.click();
  await box.fill(text);
  await box.press("Enter");
}

beforeAll(async () => {
  w = await browserGatewayWorld();
  ({ org, fake } = w);
  const key = await org.owner.api.put(`/api/v1/organizations/${org.id}/integrations/modelrouter`, {
    api_key: "sk-or-v1-test-key-for-the-fake",
  });
  if (key.status !== 200) throw new Error(`key not set: ${key.status} ${key.text}`);
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  spaceId = space.body.id;
  generalId = (await org.owner.api.get(`${spacePath()}/chat-rooms`)).body.chat_rooms[0].id;
  await addStaff(org, { name: "Ada" });
});
afterEach(() => w.closePages());
afterAll(() => w.stop());

describe("a staff member and the board", () => {
  it("asked about the board, answers from it (list_tasks through the fake gateway)", async () => {
    const board = (await org.owner.api.get(`${spacePath()}/board`)).body;
    const todo = board.columns.find((c: { name: string }) => c.name === "To do").id;
    const created = await org.owner.api.post(`${spacePath()}/tasks`, {
      title: "Record the demo video",
      column_id: todo,
    });
    expect(created.status).toBe(201);
    // The gateway asks for the board, then answers with the title of the task it found in To do.
    fake.handle(
      callThenAnswer("list_tasks", {}, (result) => {
        const title = /Column "To do" \(1 task\):\n- "([^"]+)"/.exec(result)?.[1] ?? "nothing found";
        return `Still to do: **${title}**.`;
      }),
    );
    const page = await openGeneral();
    await ask(page, "@Ada what is left on the board?");
    const reply = message(page, "Still to do: Record the demo video.");
    await reply.waitFor({ timeout: 15_000 });
    expect(await reply.locator("strong").textContent()).toBe("Record the demo video");
    // The 💭 gave way to the answer.
    const asked = message(page, "@Ada what is left on the board?");
    await asked.getByRole("button", { name: /^💭/ }).waitFor({ state: "detached" });
    // The gateway got the board as the tool's result.
    const toolMessage = fake.requests.at(-1)?.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(toolMessage?.content).toContain(`- "Record the demo video" (id ${created.body.id}; 0 comments)`);
    await page.mouse.move(1, 1);
    await screenshot(page, "staff-board");
  });

  it("links a task it created, and the link opens the task in place", async () => {
    fake.handle(
      callThenAnswer("create_task", { title: "Book the launch venue", column: "In progress" }, () => "Done."),
    );
    const page = await openGeneral();
    await ask(page, "@Ada add a task to book the venue");
    const reply = message(page, "Done.");
    const link = reply.getByRole("link", { name: "Task “Book the launch venue”" });
    await link.waitFor({ timeout: 15_000 });
    expect(await link.getAttribute("target")).toBeNull();
    await link.click();
    await page.waitForURL(/\/board\?task=/);
    await page.getByRole("dialog", { name: "Book the launch venue" }).waitFor();
    expect(page.context().pages()).toHaveLength(1);
  });

  it("retries a failed reply from its Retry button: the answer takes the failure's place", async () => {
    fake.handle(() => Response.json({ error: { message: "invalid key" } }, { status: 401 }));
    const page = await openGeneral();
    await ask(page, "@Ada when is the launch?");
    const failure = message(page, "Sorry, I couldn't answer: the model gateway answered 401: invalid key.");
    await failure.waitFor({ timeout: 15_000 });
    const answer = Promise.withResolvers<void>();
    fake.handle(async () => {
      await answer.promise;
      return completion("The launch is on Tuesday.");
    });
    await failure.getByRole("button", { name: "Retry" }).click();
    await failure.getByRole("button", { name: "Retrying…" }).waitFor();
    // The 💭 is back on the question while Ada works on it.
    await message(page, "@Ada when is the launch?")
      .getByRole("button", { name: /^💭 1: Ada/ })
      .waitFor();
    answer.resolve();
    const answered = message(page, "The launch is on Tuesday.");
    await answered.waitFor({ timeout: 15_000 });
    await answered.getByText("(edited)").waitFor();
    expect(await answered.getByRole("button", { name: "Retry" }).count()).toBe(0);
    expect(await message(page, "Sorry, I couldn't answer").count()).toBe(0);
    await message(page, "@Ada when is the launch?").getByRole("button", { name: /^💭/ }).waitFor({ state: "detached" });
  });
});
