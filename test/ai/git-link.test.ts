/**
 * A space's git repository link (api-spec §4 "Service accounts": `agent` staff resolve their repo from the space's
 * git links): `GET|PUT|DELETE /api/v1/organizations/{orgId}/spaces/{spaceId}/git-link` with `{repo_url, ref}`.
 * Any space member reads it (`{git_link: {repo_url, ref, updated_at} | null}`); `files.write` changes it.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

const GIT_LINK_KEYS = ["ref", "repo_url", "updated_at"];
const NO_ID = "01a1fdb9-0000-7000-8000-0000000000aa";
const SPACE_NOT_FOUND = { error: "space not found" };

let server: TestServer;
let org: Org;
let member: Person;
let viewer: Person;
let outsider: Person;
let staff: Awaited<ReturnType<typeof addStaff>>;
let spaces: string;

const link = (spaceId: string) => `${spaces}/${spaceId}/git-link`;

async function newSpace(body: Record<string, unknown> = {}, as: Person = org.owner): Promise<string> {
  const res = await as.api.post(spaces, { name: `Space ${crypto.randomUUID().slice(0, 8)}`, ...body });
  if (res.status !== 201) throw new Error(`space create failed: ${res.status} ${res.text}`);
  return res.body.id;
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  spaces = `/api/v1/organizations/${org.id}/spaces`;
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  outsider = await addMember(org, ["Member"], "Otto Outsider");
  staff = await addStaff(org);
});
afterAll(() => server.stop());

describe("GET .../git-link", () => {
  it("answers {git_link: null} for a space without a link, to every member", async () => {
    const space = await newSpace();
    for (const api of [org.owner.api, member.api, viewer.api, staff.api]) {
      const res = await api.get(link(space));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ git_link: null });
    }
  });

  it("answers 401 without a token", async () => {
    const res = await org.anon.get(link(await newSpace()));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});

describe("PUT .../git-link", () => {
  it("links the space: 200 {git_link: {repo_url, ref, updated_at}}, which every member then reads", async () => {
    const space = await newSpace();
    const before = Date.now();
    const res = await member.api.put(link(space), { repo_url: "https://git.example.com/acme/app.git", ref: "main" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["git_link"]);
    expect(Object.keys(res.body.git_link).sort()).toEqual(GIT_LINK_KEYS);
    expect(res.body.git_link).toEqual({
      repo_url: "https://git.example.com/acme/app.git",
      ref: "main",
      updated_at: res.body.git_link.updated_at,
    });
    expect(res.body.git_link.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(res.body.git_link.updated_at)).toBeGreaterThanOrEqual(before - 1000);
    for (const api of [org.owner.api, member.api, viewer.api, staff.api]) {
      const got = await api.get(link(space));
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    }
  });

  it("keeps one link per space: another space still has none", async () => {
    const a = await newSpace();
    const b = await newSpace();
    expect((await member.api.put(link(a), { repo_url: "https://git.example.com/a", ref: "dev" })).status).toBe(200);
    expect((await member.api.get(link(b))).body).toEqual({ git_link: null });
  });

  it("replaces the link on a second PUT", async () => {
    const space = await newSpace();
    const first = await member.api.put(link(space), { repo_url: "https://git.example.com/one", ref: "main" });
    await Bun.sleep(5);
    const second = await org.owner.api.put(link(space), { repo_url: "https://git.example.com/two", ref: "release" });
    expect(second.status).toBe(200);
    expect(second.body.git_link).toMatchObject({ repo_url: "https://git.example.com/two", ref: "release" });
    expect(Date.parse(second.body.git_link.updated_at)).toBeGreaterThan(Date.parse(first.body.git_link.updated_at));
    expect((await viewer.api.get(link(space))).body).toEqual(second.body);
  });

  it("takes ref as optional (stored as an empty string) and strips whitespace", async () => {
    const space = await newSpace();
    const res = await member.api.put(link(space), { repo_url: "  https://git.example.com/acme/web  " });
    expect(res.status).toBe(200);
    expect(res.body.git_link).toMatchObject({ repo_url: "https://git.example.com/acme/web", ref: "" });
    const trimmed = await member.api.put(link(space), { repo_url: "https://git.example.com/acme/web", ref: " v1.2 " });
    expect(trimmed.body.git_link.ref).toBe("v1.2");
  });

  it("accepts http(s) and scp-like git@host:path URLs", async () => {
    const space = await newSpace();
    for (const repo_url of [
      "https://github.com/acme/app",
      "http://git.internal:8080/acme/app.git",
      "git@github.com:acme/app.git",
    ]) {
      const res = await member.api.put(link(space), { repo_url, ref: "main" });
      expect(res.status).toBe(200);
      expect(res.body.git_link.repo_url).toBe(repo_url);
    }
  });

  it("answers 400 naming the field for a missing or invalid repo_url or ref, changing nothing", async () => {
    const space = await newSpace();
    const cases: [unknown, string][] = [
      [{}, "repo_url: required"],
      [{ ref: "main" }, "repo_url: required"],
      [{ repo_url: "" }, "repo_url: must not be empty"],
      [{ repo_url: "   " }, "repo_url: must not be empty"],
      [{ repo_url: 42 }, "repo_url: must be a string"],
      [{ repo_url: null }, "repo_url: must be a string"],
      [{ repo_url: "https://git.example.com/a", ref: 1 }, "ref: must be a string"],
      [{ repo_url: "https://git.example.com/a", ref: "r".repeat(256) }, "ref: must be at most 255 characters"],
      [{ repo_url: "https://git.example.com/a", ref: "bad\nref" }, "ref: must not contain control characters"],
      [{ repo_url: "https://git.example.com/a", ref: "\u200b" }, "ref: must contain a visible character"],
    ];
    for (const [body, error] of cases) {
      const res = await member.api.put(link(space), body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
    for (const repo_url of ["not a url", "ftp://git.example.com/a", "github.com/acme/app", "https://exa mple.com"]) {
      const res = await member.api.put(link(space), { repo_url });
      expect(res.status).toBe(400);
      expect(res.body.error).toStartWith("repo_url:");
    }
    expect((await member.api.get(link(space))).body).toEqual({ git_link: null });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const space = await newSpace();
    const text = await member.api.put(link(space), undefined, {
      raw: JSON.stringify({ repo_url: "https://git.example.com/a" }),
      contentType: "text/plain",
    });
    expect(text.status).toBe(400);
    expect(text.body).toEqual({ error: "content-type must be application/json" });
    const bad = await member.api.put(link(space), undefined, { raw: "{", contentType: "application/json" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid json" });
    expect((await member.api.get(link(space))).body).toEqual({ git_link: null });
  });

  it("is closed to a service account, even holding files.write: 403, the link unchanged (people decide)", async () => {
    const space = await newSpace();
    await member.api.put(link(space), { repo_url: "https://git.example.com/ours", ref: "main" });
    const res = await staff.api.put(link(space), { repo_url: "https://git.example.com/staff", ref: "main" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "only a person can change the space's git link" });
    const removed = await staff.api.delete(link(space));
    expect(removed.status).toBe(403);
    expect(removed.body).toEqual({ error: "only a person can change the space's git link" });
    expect((await member.api.get(link(space))).body.git_link.repo_url).toBe("https://git.example.com/ours");
  });
});

describe("DELETE .../git-link", () => {
  it("removes the link: 204 with no body, then GET answers null; again is still 204", async () => {
    const space = await newSpace();
    await member.api.put(link(space), { repo_url: "https://git.example.com/a", ref: "main" });
    const res = await member.api.delete(link(space));
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await viewer.api.get(link(space))).body).toEqual({ git_link: null });
    expect((await member.api.delete(link(space))).status).toBe(204);
    // It can be linked again.
    const again = await member.api.put(link(space), { repo_url: "https://git.example.com/b" });
    expect(again.status).toBe(200);
    expect(again.body.git_link.repo_url).toBe("https://git.example.com/b");
  });
});

describe("permissions and visibility", () => {
  it("a Viewer (no files.write) reads but gets 403 missing permission: files.write on PUT and DELETE", async () => {
    const space = await newSpace();
    await member.api.put(link(space), { repo_url: "https://git.example.com/a", ref: "main" });
    const before = (await member.api.get(link(space))).body;
    for (const res of [
      await viewer.api.put(link(space), { repo_url: "https://git.example.com/evil", ref: "x" }),
      await viewer.api.delete(link(space)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "missing permission: files.write" });
    }
    expect((await viewer.api.get(link(space))).body).toEqual(before);
  });

  it("a service account without files.write gets 403 too", async () => {
    const space = await newSpace();
    const reader = await addStaff(org, { role_ids: [org.roles.Viewer] });
    expect((await reader.api.get(link(space))).status).toBe(200);
    const res = await reader.api.put(link(space), { repo_url: "https://git.example.com/a" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: files.write" });
  });

  it("a private space answers 404 space not found to someone who cannot see it, even with a bad body", async () => {
    const space = await newSpace({ private: true });
    await org.owner.api.put(link(space), { repo_url: "https://git.example.com/secret", ref: "main" });
    for (const res of [
      await outsider.api.get(link(space)),
      await outsider.api.put(link(space), { repo_url: "https://git.example.com/x" }),
      await outsider.api.put(link(space), {}),
      await outsider.api.delete(link(space)),
      await viewer.api.get(link(space)),
      await staff.api.get(link(space)),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(SPACE_NOT_FOUND);
    }
    // Still linked, and its members see it.
    expect((await org.owner.api.get(link(space))).body.git_link.repo_url).toBe("https://git.example.com/secret");
  });

  it("a member of the private space reads and writes it", async () => {
    const space = await newSpace({ private: true });
    const add = await org.owner.api.post(`${spaces}/${space}/members`, { user_id: member.id });
    expect(add.status).toBe(201);
    expect((await member.api.get(link(space))).body).toEqual({ git_link: null });
    const res = await member.api.put(link(space), { repo_url: "https://git.example.com/inner" });
    expect(res.status).toBe(200);
    expect((await outsider.api.get(link(space))).status).toBe(404);
  });

  it("an unknown or malformed space id answers 404 space not found", async () => {
    for (const id of [NO_ID, "not-a-uuid"]) {
      for (const res of [
        await member.api.get(link(id)),
        await member.api.put(link(id), { repo_url: "https://git.example.com/a" }),
        await member.api.delete(link(id)),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(SPACE_NOT_FOUND);
      }
    }
  });
});
