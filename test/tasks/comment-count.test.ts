/**
 * A task's `comment_count` (contract §11, task card data): counted as messages are written, in their
 * transaction, shown wherever the task is, and not an update of the task.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let tasks: string;
let columnId: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server, "Acme Comments");
  member = await addMember(org, ["Member"], "Mia Member");
  const spaceId = (await member.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Talky" })).body.id;
  tasks = `/api/v1/organizations/${org.id}/spaces/${spaceId}/tasks`;
  columnId = (await member.api.get(`/api/v1/organizations/${org.id}/spaces/${spaceId}/board`)).body.columns[0].id;
});
afterAll(() => server.stop());

describe("comment_count", () => {
  it("counts each message of the task, in the listing, the task, /me/tasks, and the next task answer", async () => {
    const task = (await member.api.post(tasks, { title: "Discuss", column_id: columnId, assignee_user_id: member.id }))
      .body;
    const other = (await member.api.post(tasks, { title: "Quiet", column_id: columnId })).body;
    expect(task.comment_count).toBe(0);
    const staff = await addStaff(org, { name: "Ada" });
    expect((await member.api.post(`${tasks}/${task.id}/messages`, { content: "First" })).status).toBe(201);
    expect((await staff.api.post(`${tasks}/${task.id}/messages`, { content: "Second, by staff" })).status).toBe(201);

    const listed = (await member.api.get(tasks)).body.tasks;
    expect(listed.find((t: { id: string }) => t.id === task.id).comment_count).toBe(2);
    expect(listed.find((t: { id: string }) => t.id === other.id).comment_count).toBe(0);
    expect((await member.api.get(`${tasks}/${task.id}`)).body.comment_count).toBe(2);
    const mine = (await member.api.get(`/api/v1/me/tasks?org_id=${org.id}`)).body.tasks;
    expect(mine.find((t: { id: string }) => t.id === task.id).comment_count).toBe(2);
    const patched = await member.api.patch(`${tasks}/${task.id}`, { title: "Discussed" });
    expect(patched.body.comment_count).toBe(2);
  });

  it("is not an update of the task: version and updated_at stay", async () => {
    const task = (await member.api.post(tasks, { title: "Steady", column_id: columnId })).body;
    await member.api.post(`${tasks}/${task.id}/messages`, { content: "A remark" });
    const after = (await member.api.get(`${tasks}/${task.id}`)).body;
    expect(after).toEqual({ ...task, comment_count: 1 });
  });

  it("counts nothing for a refused message", async () => {
    const task = (await member.api.post(tasks, { title: "Refused", column_id: columnId })).body;
    expect((await member.api.post(`${tasks}/${task.id}/messages`, { content: "   " })).status).toBe(400);
    const viewer = await addMember(org, ["Viewer"]);
    expect((await viewer.api.post(`${tasks}/${task.id}/messages`, { content: "hi" })).status).toBe(403);
    expect((await member.api.get(`${tasks}/${task.id}`)).body.comment_count).toBe(0);
  });
});
