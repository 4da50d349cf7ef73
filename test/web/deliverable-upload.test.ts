/**
 * Attaching a deliverable from the task panel, in a real browser against the compiled binary: one request to
 * `POST .../deliverables/upload` puts the file in the Deliverables folder and links it, and the server's two
 * conflicts (a file of that name already there, a root file named Deliverables) are said in words.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, signedInPage, startWorkspace } from "../helpers/browser";
import type { Org } from "../helpers/factories";
import type { TestServer } from "../helpers/server";

let browser: Browser;
let server: TestServer;
let org: Org;

const spaces = () => `/api/v1/organizations/${org.id}/spaces`;

/**
 * A new space with a task in its first column (`required`: it needs a deliverable, which makes the Deliverables
 * folder); the space's id, the task's id and the space's files path.
 */
async function spaceWithTask(
  name: string,
  required = true,
): Promise<{ spaceId: string; taskId: string; files: string }> {
  const space = await org.owner.api.post(spaces(), { name });
  const spaceId = space.body.id as string;
  const board = await org.owner.api.get(`${spaces()}/${spaceId}/board`);
  const task = await org.owner.api.post(`${spaces()}/${spaceId}/tasks`, {
    title: "Send the poster",
    column_id: board.body.columns[0].id,
    deliverable_required: required,
  });
  return { spaceId, taskId: task.body.id, files: `${spaces()}/${spaceId}/files` };
}

/** The task's panel, opened in a new page; `requests` collects the method and path of every API call. */
async function openTask(spaceId: string, taskId: string) {
  const requests: string[] = [];
  const opened = await signedInPage(browser, server, org.owner, `/spaces/${spaceId}/board?task=${taskId}`, {
    setup: (page) => {
      page.on("request", (req) => {
        const url = new URL(req.url());
        if (url.pathname.startsWith("/api/v1/")) requests.push(`${req.method()} ${url.pathname}`);
      });
      return Promise.resolve();
    },
  });
  const panel = opened.page.getByRole("dialog");
  await panel.getByText(/^(Nothing delivered yet|No files linked)\.$/).waitFor();
  const attach = (name: string) =>
    panel.locator('input[type="file"]').setInputFiles({
      name,
      mimeType: "application/pdf",
      buffer: Buffer.from(`%PDF-1.4 ${name}`),
    });
  return { ...opened, panel, requests, attach };
}

beforeAll(async () => {
  [browser, { server, org }] = await Promise.all([launchBrowser(), startWorkspace()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("attaching a deliverable", () => {
  it("uploads and links it in one request, making the Deliverables folder when missing", async () => {
    const { spaceId, taskId, files } = await spaceWithTask("Posters", false);
    expect((await org.owner.api.get(files)).body.nodes).toEqual([]);
    const { context, panel, requests, attach } = await openTask(spaceId, taskId);
    await attach("poster.pdf");
    await panel.getByRole("listitem").filter({ hasText: "poster.pdf" }).waitFor();

    const writes = requests.filter((r) => !r.startsWith("GET "));
    expect(writes).toEqual([`POST ${spaces()}/${spaceId}/tasks/${taskId}/deliverables/upload`]);
    const root = await org.owner.api.get(files);
    const folder = root.body.nodes.find((n: { name: string }) => n.name === "Deliverables");
    expect(folder?.kind).toBe("folder");
    const inside = await org.owner.api.get(`${files}?parentId=${folder.id}`);
    expect(inside.body.nodes.map((n: { name: string }) => n.name)).toEqual(["poster.pdf"]);
    await context.close();
  });

  it("says so when a file of that name is already in Deliverables", async () => {
    const { spaceId, taskId } = await spaceWithTask("Flyers");
    const first = await openTask(spaceId, taskId);
    await first.attach("flyer.pdf");
    await first.panel.getByRole("listitem").filter({ hasText: "flyer.pdf" }).waitFor();
    await first.context.close();

    const board = await org.owner.api.get(`${spaces()}/${spaceId}/board`);
    const other = await org.owner.api.post(`${spaces()}/${spaceId}/tasks`, {
      title: "Send the flyer again",
      column_id: board.body.columns[0].id,
      deliverable_required: true,
    });
    const second = await openTask(spaceId, other.body.id);
    await second.attach("flyer.pdf");
    await second.panel
      .getByText(
        "A file named “flyer.pdf” is already in Deliverables: rename yours, or link that one with “Link an existing file”.",
      )
      .waitFor();
    const linked = await org.owner.api.get(`${spaces()}/${spaceId}/tasks/${other.body.id}/deliverables`);
    expect(linked.body.deliverables).toEqual([]);
    await second.context.close();
  });

  it("says so when a file named Deliverables is where the folder would go", async () => {
    const { spaceId, taskId, files } = await spaceWithTask("Blocked", false);
    const blocker = await org.owner.api.post(`${files}/text`, { name: "Deliverables", content: "not a folder" });
    expect(blocker.status).toBe(201);
    const { context, panel, attach } = await openTask(spaceId, taskId);
    await attach("poster.pdf");
    await panel
      .getByText(
        "A file named “Deliverables” sits in the root of this space's files: rename it so the folder can be made.",
      )
      .waitFor();
    const root = await org.owner.api.get(files);
    expect(root.body.nodes.map((n: { name: string; kind: string }) => `${n.name} ${n.kind}`)).toEqual([
      "Deliverables file",
    ]);
    await context.close();
  });
});
