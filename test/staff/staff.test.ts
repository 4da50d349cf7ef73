import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { client, TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";
import { listen } from "../helpers/sockets";

let server: TestServer;
let org: Org;
let member: Person;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  base = `/api/v1/organizations/${org.id}/service-accounts`;
  member = await addMember(org);
});
afterAll(() => server.stop());

describe("POST .../service-accounts", () => {
  it("creates a modelrouter staff member with the default model and shows its sa_ token once", async () => {
    const res = await org.owner.api.post(base, { name: "Ada" });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^sa_/);
    const account = res.body.service_account;
    expect(Object.keys(account).sort()).toEqual([
      "agent_default_ref",
      "agent_default_repo_url",
      "created_at",
      "created_by",
      "id",
      "instructions",
      "modelrouter_model",
      "name",
      "organization_id",
      "provider",
      "user_id",
    ]);
    expect(account).toMatchObject({
      name: "Ada",
      organization_id: org.id,
      created_by: org.owner.id,
      provider: "modelrouter",
      modelrouter_model: "meta-llama/llama-3.3-70b-instruct:free",
      agent_default_repo_url: null,
      agent_default_ref: null,
      instructions: "",
    });
    expect(account.id).toMatch(UUID);
    expect(account.created_at).toMatch(TIMESTAMP);
    const list = await org.owner.api.get(base);
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
  });

  it("gives the staff member the AI Staff role and lists it as a service-account member", async () => {
    const { account } = await addStaff(org);
    const members = await org.owner.api.get(`/api/v1/organizations/${org.id}/members`);
    const row = members.body.members.find((m: { user_id: string }) => m.user_id === account.user_id);
    expect(row).toMatchObject({
      is_service_account: true,
      service_account_id: account.id,
      role_ids: [org.roles["AI Staff"]],
      display_name: account.name,
    });
  });

  it("honours role_ids", async () => {
    const { api } = await addStaff(org, { role_ids: [org.roles.Viewer] });
    expect((await api.get(`/api/v1/organizations/${org.id}/me/permissions`)).body).toEqual({
      permissions: ["files.read"],
    });
  });

  it("creates an agent staff member with an empty model and its repo defaults", async () => {
    const res = await org.owner.api.post(base, {
      name: "Coder",
      provider: "agent",
      agent_default_repo_url: "https://git.example.com/acme/app",
      agent_default_ref: "main",
    });
    expect(res.status).toBe(201);
    expect(res.body.service_account).toMatchObject({
      provider: "agent",
      modelrouter_model: "",
      agent_default_repo_url: "https://git.example.com/acme/app",
      agent_default_ref: "main",
    });
  });

  it("answers 400 for an unknown provider and a missing name, 409 for a taken name", async () => {
    const provider = await org.owner.api.post(base, { name: "X", provider: "other" });
    expect(provider.status).toBe(400);
    expect(provider.body).toEqual({ error: 'provider: must be one of "modelrouter", "agent"' });
    const name = await org.owner.api.post(base, {});
    expect(name.body).toEqual({ error: "name: required" });
    const taken = await org.owner.api.post(base, { name: "ada" });
    expect(taken.status).toBe(409);
  });

  it("needs org.members.manage", async () => {
    const res = await member.api.post(base, { name: "Sneaky" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: org.members.manage" });
    expect((await member.api.get(base)).status).toBe(403);
  });
});

describe("sa_ tokens", () => {
  it("authenticate with exactly the staff member's permissions", async () => {
    const { account, api } = await addStaff(org);
    const me = await api.get("/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      id: account.user_id,
      service_account_id: account.id,
      display_name: account.name,
    });
    expect((await api.get(`/api/v1/organizations/${org.id}/members`)).status).toBe(200);
    const manage = await api.patch(`/api/v1/organizations/${org.id}`, { name: "Staff org" });
    expect(manage.status).toBe(403);
    expect(manage.body).toEqual({ error: "missing permission: org.manage" });
  });

  it("cannot log in with a password", async () => {
    const { account } = await addStaff(org);
    const members = await org.owner.api.get(`/api/v1/organizations/${org.id}/members`);
    const email = members.body.members.find((m: { user_id: string }) => m.user_id === account.user_id).email;
    const res = await org.anon.post("/api/v1/auth/login", { email, password: "anything-at-all" });
    expect(res.status).toBe(401);
  });
});

describe("PATCH .../service-accounts/{id}", () => {
  it("switches provider and clears fields with empty strings", async () => {
    const { account } = await addStaff(org, {
      agent_default_repo_url: "https://git.example.com/r",
      agent_default_ref: "dev",
    });
    const res = await org.owner.api.patch(`${base}/${account.id}`, {
      provider: "agent",
      modelrouter_model: "",
      agent_default_ref: "",
    });
    expect(res.status).toBe(200);
    expect(res.body.service_account).toMatchObject({
      provider: "agent",
      modelrouter_model: "",
      agent_default_repo_url: "https://git.example.com/r",
      agent_default_ref: null,
    });
  });

  it("refuses a model or a ref with a control character, or one that shows nothing, naming the field", async () => {
    const { account } = await addStaff(org);
    for (const [body, error] of [
      [{ modelrouter_model: "m\tx" }, "modelrouter_model: must not contain control characters"],
      [{ agent_default_ref: "bad\nref\u0007" }, "agent_default_ref: must not contain control characters"],
      [{ modelrouter_model: "\u200b\u200b" }, "modelrouter_model: must contain a visible character"],
      [{ agent_default_ref: "\u2060" }, "agent_default_ref: must contain a visible character"],
    ] as const) {
      const res = await org.owner.api.patch(`${base}/${account.id}`, body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
    }
  });

  it("refuses clearing the model of a modelrouter staff member", async () => {
    const { account } = await addStaff(org);
    const res = await org.owner.api.patch(`${base}/${account.id}`, { modelrouter_model: "" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "modelrouter_model: required when provider is modelrouter" });
  });

  it('takes an agent_default_repo_url only as an http(s) or git@ URL, like a space\'s git link, or "" to clear', async () => {
    for (const url of ["not a url", "ftp://git.example.com/r", "https://"]) {
      const res = await org.owner.api.post(base, { name: "Repo", provider: "agent", agent_default_repo_url: url });
      expect({ url, status: res.status, body: res.body }).toEqual({
        url,
        status: 400,
        body: { error: "agent_default_repo_url: must be an http(s) or git@ repository URL" },
      });
    }
    const made = await org.owner.api.post(base, {
      name: "Repo",
      provider: "agent",
      agent_default_repo_url: "git@git.example.com:acme/app.git",
    });
    expect(made.status).toBe(201);
    const id = made.body.service_account.id;
    const cleared = await org.owner.api.patch(`${base}/${id}`, { agent_default_repo_url: "" });
    expect(cleared.body.service_account.agent_default_repo_url).toBeNull();
  });

  it("gives an agent staff member switched to modelrouter without a model the default model, as on create", async () => {
    const made = await org.owner.api.post(base, { name: "Switcher", provider: "agent" });
    expect(made.status).toBe(201);
    const id = made.body.service_account.id;
    const cleared = await org.owner.api.patch(`${base}/${id}`, { provider: "modelrouter", modelrouter_model: "" });
    expect(cleared.status).toBe(400);
    expect(cleared.body).toEqual({ error: "modelrouter_model: required when provider is modelrouter" });
    const res = await org.owner.api.patch(`${base}/${id}`, { provider: "modelrouter" });
    expect(res.status).toBe(200);
    expect(res.body.service_account).toMatchObject({
      provider: "modelrouter",
      modelrouter_model: "meta-llama/llama-3.3-70b-instruct:free",
    });
  });

  it("renames the staff member and its display name", async () => {
    const { account, api } = await addStaff(org);
    const res = await org.owner.api.patch(`${base}/${account.id}`, { name: "Grace" });
    expect(res.body.service_account.name).toBe("Grace");
    expect((await api.get("/api/v1/me")).body.user.display_name).toBe("Grace");
  });

  it("answers 404 service account not found", async () => {
    const res = await org.owner.api.patch(`${base}/01a1fdb9-0000-7000-8000-000000000000`, { name: "x" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "service account not found" });
  });
});

describe("instructions (contract §11)", () => {
  const RELEASE = "You are our release manager; answer briefly.\n\n- Dates in UTC\n- No emojis";

  it("are set at create, in every answer, changed and cleared by PATCH", async () => {
    const created = await org.owner.api.post(base, { name: "Rel", instructions: RELEASE });
    expect(created.status).toBe(201);
    const id = created.body.service_account.id;
    expect(created.body.service_account.instructions).toBe(RELEASE);
    const listed = (await org.owner.api.get(base)).body.service_accounts.find((a: { id: string }) => a.id === id);
    expect(listed.instructions).toBe(RELEASE);
    const changed = await org.owner.api.patch(`${base}/${id}`, { instructions: "Answer in French." });
    expect(changed.status).toBe(200);
    expect(changed.body.service_account).toMatchObject({ name: "Rel", instructions: "Answer in French." });
    // A PATCH without the field leaves them as they are.
    const renamed = await org.owner.api.patch(`${base}/${id}`, { name: "Release" });
    expect(renamed.body.service_account.instructions).toBe("Answer in French.");
    const cleared = await org.owner.api.patch(`${base}/${id}`, { instructions: "" });
    expect(cleared.body.service_account.instructions).toBe("");
  });

  it("take up to 8,000 characters, counted as code points, and refuse more naming the field", async () => {
    const { account } = await addStaff(org);
    const path = `${base}/${account.id}`;
    // 8,000 emoji are 16,000 UTF-16 units: still 8,000 characters.
    const full = await org.owner.api.patch(path, { instructions: "🚀".repeat(8000) });
    expect(full.status).toBe(200);
    expect([...full.body.service_account.instructions]).toHaveLength(8000);
    for (const [body, where] of [
      [{ instructions: "x".repeat(8001) }, "PATCH"],
      [{ name: "Verbose", instructions: "x".repeat(8001) }, "POST"],
    ] as const) {
      const res = where === "PATCH" ? await org.owner.api.patch(path, body) : await org.owner.api.post(base, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "instructions: must be at most 8000 characters" });
    }
    const wrongType = await org.owner.api.patch(path, { instructions: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ error: "instructions: must be a string" });
    expect(
      (await org.owner.api.get(base)).body.service_accounts.some((a: { name: string }) => a.name === "Verbose"),
    ).toBe(false);
  });
});

describe("grant only what you hold (staff)", () => {
  it("a manager without org.manage cannot change, repoint or delete a staff member holding Owner: 403, nothing changed", async () => {
    const orgBase = `/api/v1/organizations/${org.id}`;
    const role = await org.owner.api.post(`${orgBase}/roles`, {
      name: "Staff ops",
      permissions: ["org.members.manage", "spaces.create", "tasks.write", "chat.write", "files.read", "files.write"],
    });
    const manager = await addMember(org, ["Member"]);
    await org.owner.api.put(`${orgBase}/members/${manager.id}/roles`, { role_ids: [role.body.role.id] });
    const mighty = await addStaff(org, { name: "Mighty", role_ids: [org.roles.Owner] });
    const path = `${base}/${mighty.account.id}`;
    const patched = await manager.api.patch(path, { agent_default_repo_url: "https://git.example.com/elsewhere" });
    expect(patched.status).toBe(403);
    expect(patched.body).toEqual({ error: "missing permission: org.manage" });
    const deleted = await manager.api.delete(path);
    expect(deleted.status).toBe(403);
    expect(deleted.body).toEqual({ error: "missing permission: org.manage" });
    const listed = (await org.owner.api.get(base)).body.service_accounts as {
      id: string;
      agent_default_repo_url: string | null;
    }[];
    expect(listed.find((a) => a.id === mighty.account.id)?.agent_default_repo_url).toBeNull();
    // A staff member whose roles the manager holds is theirs to change.
    const plain = await addStaff(org, { name: "Plain", role_ids: [org.roles.Member] });
    expect((await manager.api.patch(`${base}/${plain.account.id}`, { instructions: "Be brief." })).status).toBe(200);
    expect((await manager.api.delete(`${base}/${plain.account.id}`)).status).toBe(204);
  });
});

describe("DELETE .../service-accounts/{id}", () => {
  it("removes account, user and membership; the token stops working at once", async () => {
    const { account, token } = await addStaff(org);
    const res = await org.owner.api.delete(`${base}/${account.id}`);
    expect(res.status).toBe(204);
    const me = await client(server.url, token).get("/api/v1/me");
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ error: "unauthorized" });
    const members = await org.owner.api.get(`/api/v1/organizations/${org.id}/members`);
    expect(members.body.members.some((m: { user_id: string }) => m.user_id === account.user_id)).toBe(false);
    const list = await org.owner.api.get(base);
    expect(list.body.service_accounts.some((a: { id: string }) => a.id === account.id)).toBe(false);
    expect((await org.owner.api.delete(`${base}/${account.id}`)).status).toBe(404);
  });

  it("leaves what the staff member made naming it: a file's created_by, a task message's author, a link's added_by", async () => {
    const staff = await addStaff(org);
    const space = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Made by staff" })).body;
    const path = `/api/v1/organizations/${org.id}/spaces/${space.id}`;
    const column = (await org.owner.api.get(`${path}/board`)).body.columns[0].id;
    const task = (
      await org.owner.api.post(`${path}/tasks`, { title: "T", column_id: column, deliverable_required: true })
    ).body;
    const folder = (await org.owner.api.get(`${path}/files`)).body.nodes.find(
      (n: { name: string }) => n.name === "Deliverables",
    );
    const file = await staff.api.post(`${path}/files/text`, { name: "notes.md", content: "x", parent_id: folder.id });
    expect(file.status).toBe(201);
    const message = await staff.api.post(`${path}/tasks/${task.id}/messages`, { content: "on it" });
    expect(message.status).toBe(201);
    const link = await staff.api.post(`${path}/tasks/${task.id}/deliverables`, { file_node_id: file.body.node.id });
    expect(link.status).toBe(204);
    expect((await org.owner.api.delete(`${base}/${staff.account.id}`)).status).toBe(204);

    const node = (await org.owner.api.get(`${path}/files/${file.body.node.id}`)).body.node;
    expect(node.created_by).toBe(staff.account.user_id);
    const messages = (await org.owner.api.get(`${path}/tasks/${task.id}/messages`)).body.messages;
    expect(messages.map((m: { author_user_id: string }) => m.author_user_id)).toEqual([staff.account.user_id]);
    const links = (await org.owner.api.get(`${path}/tasks/${task.id}/deliverables`)).body.deliverables;
    expect(links.map((l: { added_by: string }) => l.added_by)).toEqual([staff.account.user_id]);
  });

  it("shows its chat messages without an author and its reactions gone, in a room's page read before", async () => {
    const staff = await addStaff(org);
    const space = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Chatted" })).body;
    const rooms = `/api/v1/organizations/${org.id}/spaces/${space.id}/chat-rooms`;
    const room = (await org.owner.api.get(rooms)).body.chat_rooms[0].id;
    const messages = `${rooms}/${room}/messages`;
    const said = (await staff.api.post(messages, { content: "from staff" })).body.message;
    expect((await staff.api.post(`${messages}/${said.id}/reactions`, { emoji: "👍" })).status).toBe(201);
    const before = (await org.owner.api.get(messages)).body;
    expect(before.messages[0].author_user_id).toBe(staff.account.user_id);
    expect(before.reactions).toHaveLength(1);
    expect((await org.owner.api.delete(`${base}/${staff.account.id}`)).status).toBe(204);
    const after = (await org.owner.api.get(messages)).body;
    expect(after.messages[0]).toMatchObject({ id: said.id, author_user_id: null, content: "from staff" });
    expect(after.reactions).toEqual([]);
  });

  it("unassigns the staff member's tasks, each as an update: version + 1, updated_at, task.updated", async () => {
    const { account } = await addStaff(org);
    const spaces = `/api/v1/organizations/${org.id}/spaces`;
    const space = await org.owner.api.post(spaces, { name: "Handover" });
    const board = await org.owner.api.get(`${spaces}/${space.body.id}/board`);
    const tasks = `${spaces}/${space.body.id}/tasks`;
    const made = await org.owner.api.post(tasks, { title: "Staff's", column_id: board.body.columns[0].id });
    const assigned = await org.owner.api.patch(`${tasks}/${made.body.id}`, { assignee_user_id: account.user_id });
    expect(assigned.body.version).toBe(2);
    const live = await listen(server.url, org.id, org.owner.token);
    try {
      expect((await org.owner.api.delete(`${base}/${account.id}`)).status).toBe(204);
      const event = await live.next((e) => e.type === "task.updated" && e.payload.id === made.body.id);
      expect(event).toMatchObject({ space_id: space.body.id, payload: { assignee_user_id: null, version: 3 } });
    } finally {
      live.close();
    }
    const task = (await org.owner.api.get(tasks)).body.tasks[0];
    expect(task).toMatchObject({ assignee_user_id: null, version: 3 });
    expect(Date.parse(task.updated_at)).toBeGreaterThan(Date.parse(assigned.body.updated_at));
    const stale = await org.owner.api.patch(`${tasks}/${made.body.id}`, { title: "From an old copy", version: 2 });
    expect(stale.status).toBe(409);
  });

  it("announces its reactions as removed (they go with it), in their spaces", async () => {
    const staff = await addStaff(org);
    const spaces = `/api/v1/organizations/${org.id}/spaces`;
    const space = await org.owner.api.post(spaces, { name: "Reactions" });
    const rooms = await org.owner.api.get(`${spaces}/${space.body.id}/chat-rooms`);
    const messages = `${spaces}/${space.body.id}/chat-rooms/${rooms.body.chat_rooms[0].id}/messages`;
    const posted = await org.owner.api.post(messages, { content: "react to this" });
    const reactions = `${messages}/${posted.body.message.id}/reactions`;
    expect((await staff.api.post(reactions, { emoji: "👍" })).status).toBe(201);
    const live = await listen(server.url, org.id, org.owner.token);
    try {
      expect((await org.owner.api.delete(`${base}/${staff.account.id}`)).status).toBe(204);
      const event = await live.next((e) => e.type === "chat.reaction.removed");
      expect(event).toMatchObject({
        space_id: space.body.id,
        payload: { message_id: posted.body.message.id, user_id: staff.account.user_id, emoji: "👍" },
      });
    } finally {
      live.close();
    }
    const page = await org.owner.api.get(messages);
    expect(page.body.reactions).toEqual([]);
  });

  it("refuses removing staff through the members route", async () => {
    const { account } = await addStaff(org);
    const res = await org.owner.api.delete(`/api/v1/organizations/${org.id}/members/${account.user_id}`);
    expect(res.status).toBe(400);
  });
});
