import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP, UUID } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let other: Person;
let viewer: Person;
let spaceId: string;
let rooms: string;

const MESSAGE_KEYS = [
  "also_in_room",
  "author_user_id",
  "chat_room_id",
  "content",
  "created_at",
  "deleted_at",
  "edited_at",
  "id",
  "last_reply_at",
  "reply_count",
  "space_id",
  "thread_root_id",
  "updated_at",
];
const ATTACHMENT_KEYS = ["created_at", "id", "message_id", "mime", "name", "size_bytes", "url"];
const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

interface Message {
  id: string;
  content: string;
  created_at: string;
  deleted_at: string | null;
  edited_at: string | null;
}

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  other = await addMember(org, ["Member"], "Otto Other");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  spaceId = space.body.id;
  rooms = `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms`;
});
afterAll(() => server.stop());

let roomCounter = 0;

/** A fresh room; answers the base path of its messages and its id. */
async function newRoom(): Promise<{ id: string; messages: string }> {
  const res = await member.api.post(rooms, { name: `room ${++roomCounter}` });
  if (res.status !== 201) throw new Error(`room create failed: ${res.status} ${res.text}`);
  return { id: res.body.id, messages: `${rooms}/${res.body.id}/messages` };
}

/** Posts messages one after the other; answers them in order. */
async function postMany(path: string, count: number, as: Person = member, prefix = "m"): Promise<Message[]> {
  const out: Message[] = [];
  for (let i = 0; i < count; i++) {
    const res = await as.api.post(path, { content: `${prefix}${i}` });
    if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
    out.push(res.body.message);
  }
  return out;
}

const ids = (list: { id: string }[]) => list.map((m) => m.id);

describe("POST .../chat-rooms/{roomId}/messages", () => {
  it("answers 201 {message, attachments} with every field of the message", async () => {
    const room = await newRoom();
    const before = Date.now();
    const res = await member.api.post(room.messages, { content: "Hello, team 👋" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["attachments", "message"]);
    expect(res.body.attachments).toEqual([]);
    const m = res.body.message;
    expect(Object.keys(m).sort()).toEqual(MESSAGE_KEYS);
    expect(m.id).toMatch(UUID);
    expect(m).toMatchObject({
      chat_room_id: room.id,
      space_id: spaceId,
      author_user_id: member.id,
      content: "Hello, team 👋",
      edited_at: null,
      deleted_at: null,
    });
    expect(m.created_at).toMatch(TIMESTAMP);
    expect(m.updated_at).toMatch(TIMESTAMP);
    expect(m.updated_at).toBe(m.created_at);
    expect(Date.parse(m.created_at)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(m.created_at)).toBeLessThanOrEqual(Date.now() + 5);
  });

  it("keeps the content as given, surrounding whitespace included", async () => {
    const room = await newRoom();
    const res = await member.api.post(room.messages, { content: "  indented\nsecond line  " });
    expect(res.status).toBe(201);
    expect(res.body.message.content).toBe("  indented\nsecond line  ");
  });

  it("needs content unless there are attachments: 400 content: required", async () => {
    const room = await newRoom();
    for (const body of [
      {},
      { content: "" },
      { content: "   \n\t" },
      { content: "\u200b\u200d" },
      { content: "\u2800" },
      { attachments: [] },
      { content: "", attachments: [] },
    ]) {
      const res = await member.api.post(room.messages, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "content: required" });
    }
    const list = await member.api.get(room.messages);
    expect(list.body.messages).toEqual([]);
  });

  it("accepts attachments without content; the attachment record has every field", async () => {
    const room = await newRoom();
    const res = await member.api.post(room.messages, {
      attachments: [
        {
          url: "https://cdn.example.com/reports/q3.pdf",
          name: "Q3 report.pdf",
          mime: "application/pdf",
          size_bytes: 48213,
        },
      ],
    });
    expect(res.status).toBe(201);
    const { message, attachments } = res.body;
    expect(message.content).toBe("");
    expect(attachments).toHaveLength(1);
    const a = attachments[0];
    expect(Object.keys(a).sort()).toEqual(ATTACHMENT_KEYS);
    expect(a.id).toMatch(UUID);
    expect(a).toMatchObject({
      message_id: message.id,
      name: "Q3 report.pdf",
      mime: "application/pdf",
      size_bytes: 48213,
      url: "https://cdn.example.com/reports/q3.pdf",
    });
    expect(a.created_at).toMatch(TIMESTAMP);
  });

  it("never stamps an edit, a deletion or a reaction before its message, when a burst ran the stamps ahead", async () => {
    const room = await newRoom();
    // A burst: each message a millisecond after the last, faster than the clock.
    await Promise.all(Array.from({ length: 400 }, (_, i) => member.api.post(room.messages, { content: `b${i}` })));
    const last = (await member.api.post(room.messages, { content: "last" })).body.message;
    const [reaction, edited] = await Promise.all([
      member.api.post(`${room.messages}/${last.id}/reactions`, { emoji: "👍" }),
      member.api.patch(`${room.messages}/${last.id}`, { content: "last, edited" }),
    ]);
    expect(reaction.body.created_at >= last.created_at).toBe(true);
    expect(edited.body.edited_at >= last.created_at).toBe(true);
    expect(edited.body.updated_at >= last.created_at).toBe(true);
    const deleted = (await member.api.post(room.messages, { content: "gone" })).body.message;
    expect((await member.api.delete(`${room.messages}/${deleted.id}`)).status).toBe(204);
    const listed = (await member.api.get(`${room.messages}?limit=1`)).body.messages[0];
    expect(listed.deleted_at >= deleted.created_at).toBe(true);
  });

  it("holds a name taken from the URL to the rules of a given name", async () => {
    const room = await newRoom();
    const urls = [
      "https://evil.example/invoice%E2%80%AEtxt.exe", // a right-to-left override
      "https://x.example/line%0Abreak%00nul%1Besc.txt",
      `https://x.example/${"n".repeat(300)}.pdf`,
      "https://x.example/%E2%80%8B%E2%80%8B", // zero-width spaces only
      "https://x.example/folder/",
    ];
    const res = await member.api.post(room.messages, {
      content: "odd names",
      attachments: urls.map((url) => ({ url })),
    });
    expect(res.status).toBe(201);
    expect(res.body.attachments.map((a: { name: string }) => a.name)).toEqual([
      "invoicetxt.exe",
      "linebreaknulesc.txt",
      "n".repeat(255),
      "attachment",
      "attachment",
    ]);
  });

  it("defaults an attachment's name to the URL's last path segment, mime to application/octet-stream, size to 0", async () => {
    const room = await newRoom();
    const res = await member.api.post(room.messages, {
      content: "two links",
      attachments: [
        { url: "https://cdn.example.com/files/diagram.png?v=2" },
        { url: "http://example.org/a/b/notes.txt" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.attachments).toHaveLength(2);
    expect(res.body.attachments[0]).toMatchObject({
      name: "diagram.png",
      mime: "application/octet-stream",
      size_bytes: 0,
      url: "https://cdn.example.com/files/diagram.png?v=2",
    });
    expect(res.body.attachments[1]).toMatchObject({
      name: "notes.txt",
      mime: "application/octet-stream",
      size_bytes: 0,
      url: "http://example.org/a/b/notes.txt",
    });
  });

  it("needs an http(s) URL for every attachment, naming the attachment that is wrong", async () => {
    const room = await newRoom();
    for (const url of [
      "javascript:alert(1)",
      "ftp://files.example.com/a.zip",
      "/relative/path.png",
      "relative.png",
      "data:text/html,<b>x</b>",
      "file:///etc/passwd",
      "https://",
      "",
      "https://example.com/a file.png",
      "https://example.com/a\tb",
      "https:example.com",
      "http:/example.com/a",
      "https:\\\\example.com\\a",
      "https://example.com\\a",
    ]) {
      const res = await member.api.post(room.messages, { content: "see", attachments: [{ url }] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "attachments[0].url: must be an http(s) URL" });
    }
    const second = await member.api.post(room.messages, {
      content: "see",
      attachments: [{ url: "https://ok.example.com/a.png" }, { url: "javascript:void(0)" }],
    });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ error: "attachments[1].url: must be an http(s) URL" });
    const missing = await member.api.post(room.messages, { content: "see", attachments: [{ name: "x" }] });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "attachments[0].url: required" });
    const list = await member.api.get(room.messages);
    expect(list.body.messages).toEqual([]);
  });

  it("holds attachment names to the name rules and a mime type to one line", async () => {
    const room = await newRoom();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "a\nb" }, "attachments[0].name: must not contain control characters"],
      [{ name: "\u200b" }, "attachments[0].name: must contain a visible character"],
      [{ mime: "text/plain\r\nX-Injected: y" }, "attachments[0].mime: must not contain control characters"],
    ];
    for (const [extra, error] of cases) {
      const res = await member.api.post(room.messages, { attachments: [{ url: "https://example.com/a", ...extra }] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error });
    }
    const empty = await member.api.post(room.messages, {
      attachments: [{ url: "https://example.com/a/b.pdf", name: "" }],
    });
    expect(empty.status).toBe(201);
    expect(empty.body.attachments[0].name).toBe("b.pdf");
  });

  it("stores an attachment URL without the whitespace around it", async () => {
    const room = await newRoom();
    const res = await member.api.post(room.messages, { attachments: [{ url: "  https://example.com/x.png\n" }] });
    expect(res.status).toBe(201);
    expect(res.body.attachments[0]).toMatchObject({ url: "https://example.com/x.png", name: "x.png" });
  });

  it("takes content of up to 40,000 characters and refuses more", async () => {
    const room = await newRoom();
    const fits = await member.api.post(room.messages, { content: "x".repeat(40_000) });
    expect(fits.status).toBe(201);
    expect(fits.body.message.content).toHaveLength(40_000);
    const long = await member.api.post(room.messages, { content: "x".repeat(40_001) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ error: "content: must be at most 40000 characters" });
  });

  it("takes up to 20 attachments and refuses more", async () => {
    const room = await newRoom();
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://cdn.example.com/${i}.png` }));
    const fits = await member.api.post(room.messages, { attachments: many(20) });
    expect(fits.status).toBe(201);
    expect(fits.body.attachments).toHaveLength(20);
    expect(fits.body.attachments.map((a: { name: string }) => a.name)).toEqual(many(20).map((_, i) => `${i}.png`));
    const over = await member.api.post(room.messages, { attachments: many(21) });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ error: "attachments: must have at most 20 items" });
  });

  it("names an attachment after its URL even when the URL's path is not valid percent-encoding", async () => {
    const room = await newRoom();
    const url = "https://cdn.example.com/files/100%ZZ.pdf";
    const res = await member.api.post(room.messages, { content: "odd link", attachments: [{ url }] });
    // A stray `%` in the last path segment (`100%ZZ.pdf`) cannot be decoded: the name keeps it as written.
    expect(res.status).toBe(201);
    expect(res.body.attachments[0].url).toBe(url);
    expect(res.body.attachments[0].name).toContain("100");
  });

  it("needs chat.write: a Viewer gets 403 missing permission: chat.write", async () => {
    const room = await newRoom();
    const res = await viewer.api.post(room.messages, { content: "may I?" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: chat.write" });
  });

  it("answers 404 chat room not found for an unknown room", async () => {
    const res = await member.api.post(`${rooms}/${UNKNOWN}/messages`, { content: "hello?" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "chat room not found" });
  });
});

describe("GET .../chat-rooms/{roomId}/messages", () => {
  it("answers {messages, reactions, attachments}, chronological, to any member", async () => {
    const room = await newRoom();
    const posted = await postMany(room.messages, 3);
    const res = await viewer.api.get(room.messages);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["attachments", "messages", "reactions"]);
    expect(res.body.messages).toEqual(posted);
    expect(res.body.messages.map((m: Message) => m.content)).toEqual(["m0", "m1", "m2"]);
    expect(res.body.reactions).toEqual([]);
    expect(res.body.attachments).toEqual([]);
  });

  it("lists attachments and reactions as the POST answered them", async () => {
    const room = await newRoom();
    const posted = await member.api.post(room.messages, {
      content: "file",
      attachments: [{ url: "https://cdn.example.com/x.zip", name: "x.zip", mime: "application/zip", size_bytes: 10 }],
    });
    const reaction = await other.api.post(`${room.messages}/${posted.body.message.id}/reactions`, { emoji: "🎉" });
    const res = await member.api.get(room.messages);
    expect(res.body.messages).toEqual([posted.body.message]);
    expect(res.body.attachments).toEqual(posted.body.attachments);
    expect(res.body.reactions).toEqual([reaction.body]);
  });

  describe("limit and before", () => {
    let room: { id: string; messages: string };
    let all: Message[];

    beforeAll(async () => {
      room = await newRoom();
      all = await postMany(room.messages, 210);
    });

    it("answers the newest 50 by default, oldest first", async () => {
      const res = await member.api.get(room.messages);
      expect(res.status).toBe(200);
      expect(res.body.messages).toHaveLength(50);
      expect(ids(res.body.messages)).toEqual(ids(all.slice(-50)));
    });

    it("answers the newest `limit`", async () => {
      const res = await member.api.get(`${room.messages}?limit=3`);
      expect(ids(res.body.messages)).toEqual(ids(all.slice(-3)));
      const one = await member.api.get(`${room.messages}?limit=1`);
      expect(ids(one.body.messages)).toEqual([(all[209] as Message).id]);
    });

    it("clamps a limit above 200 to 200", async () => {
      for (const limit of [201, 500, 100000, "9007199254740993", "99999999999999999999999"]) {
        const res = await member.api.get(`${room.messages}?limit=${limit}`);
        expect(res.status).toBe(200);
        expect(res.body.messages).toHaveLength(200);
        expect(ids(res.body.messages)).toEqual(ids(all.slice(-200)));
      }
      const exact = await member.api.get(`${room.messages}?limit=200`);
      expect(exact.body.messages).toHaveLength(200);
    });

    it("refuses a limit below 1 or not a number: 400 invalid limit", async () => {
      for (const limit of ["0", "-1", "abc", "1.5", "", "0x10", "1e2", "+5", "%2010", "300.0"]) {
        const res = await member.api.get(`${room.messages}?limit=${limit}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: "invalid limit" });
      }
    });

    it("refuses a before that is not an RFC 3339 timestamp: 400 invalid before", async () => {
      for (const before of ["yesterday", "2026-13-01T00:00:00Z", "1700000000000", "2026-01-01", "not-a-date"]) {
        const res = await member.api.get(`${room.messages}?before=${encodeURIComponent(before)}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: "invalid before" });
      }
    });

    it("answers only messages created strictly before `before`", async () => {
      const pivot = all[100] as Message;
      const res = await member.api.get(`${room.messages}?limit=5&before=${encodeURIComponent(pivot.created_at)}`);
      expect(res.status).toBe(200);
      expect(ids(res.body.messages)).toEqual(ids(all.slice(95, 100)));
    });

    it("takes a before with a UTC offset", async () => {
      const pivot = all[100] as Message;
      const shifted = new Date(Date.parse(pivot.created_at) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
      const res = await member.api.get(`${room.messages}?limit=5&before=${encodeURIComponent(shifted)}`);
      expect(res.status).toBe(200);
      expect(ids(res.body.messages)).toEqual(ids(all.slice(95, 100)));
    });

    it("takes a before written with a lower-case t and z, as RFC 3339 allows", async () => {
      const pivot = all[100] as Message;
      const lower = pivot.created_at.replace("T", "t").replace("Z", "z");
      const res = await member.api.get(`${room.messages}?limit=5&before=${encodeURIComponent(lower)}`);
      expect(res.status).toBe(200);
      expect(ids(res.body.messages)).toEqual(ids(all.slice(95, 100)));
    });

    it("takes a before with more than three fractional digits at its exact instant", async () => {
      const pivot = all[100] as Message;
      // 0.5 ms after message 100 was created: message 100 is strictly before it and belongs to the page.
      const later = pivot.created_at.replace("Z", "500Z");
      const res = await member.api.get(`${room.messages}?limit=5&before=${encodeURIComponent(later)}`);
      expect(res.status).toBe(200);
      expect(ids(res.body.messages)).toEqual(ids(all.slice(96, 101)));
    });

    it("answers an empty page before the first message", async () => {
      const first = all[0] as Message;
      const res = await member.api.get(`${room.messages}?before=${encodeURIComponent(first.created_at)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ messages: [], reactions: [], attachments: [] });
    });

    it("pages back with before = the oldest created_at and sees every message once", async () => {
      const seen: Message[] = [];
      let before: string | undefined;
      for (let i = 0; i < 100; i++) {
        const query = before ? `?limit=13&before=${encodeURIComponent(before)}` : "?limit=13";
        const res = await member.api.get(`${room.messages}${query}`);
        expect(res.status).toBe(200);
        if (res.body.messages.length === 0) break;
        seen.unshift(...res.body.messages);
        before = res.body.messages[0].created_at;
      }
      expect(ids(seen)).toEqual(ids(all));
    });
  });

  it("reactions and attachments of a page cover exactly that page's messages", async () => {
    const room = await newRoom();
    const posted: { message: Message; attachments: { id: string }[] }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await member.api.post(room.messages, {
        content: `m${i}`,
        attachments: [{ url: `https://cdn.example.com/file-${i}.pdf` }],
      });
      posted.push(res.body);
      await other.api.post(`${room.messages}/${res.body.message.id}/reactions`, { emoji: "👍" });
      await member.api.post(`${room.messages}/${res.body.message.id}/reactions`, { emoji: "🔥" });
    }
    const byMessage = (page: { reactions: { message_id: string }[]; attachments: { message_id: string }[] }) => ({
      reactions: [...new Set(page.reactions.map((r) => r.message_id))].sort(),
      attachments: [...new Set(page.attachments.map((a) => a.message_id))].sort(),
    });

    const newest = await member.api.get(`${room.messages}?limit=2`);
    const newestIds = ids(posted.slice(3).map((p) => p.message));
    expect(ids(newest.body.messages)).toEqual(newestIds);
    expect(byMessage(newest.body)).toEqual({ reactions: [...newestIds].sort(), attachments: [...newestIds].sort() });
    expect(newest.body.reactions).toHaveLength(4);
    expect(ids(newest.body.attachments)).toEqual(posted.slice(3).flatMap((p) => ids(p.attachments)));

    const middle = await member.api.get(
      `${room.messages}?limit=2&before=${encodeURIComponent(newest.body.messages[0].created_at)}`,
    );
    const middleIds = ids(posted.slice(1, 3).map((p) => p.message));
    expect(ids(middle.body.messages)).toEqual(middleIds);
    expect(byMessage(middle.body)).toEqual({ reactions: [...middleIds].sort(), attachments: [...middleIds].sort() });
    expect(middle.body.reactions).toHaveLength(4);
    expect(middle.body.attachments).toHaveLength(2);

    const oldest = await member.api.get(
      `${room.messages}?limit=2&before=${encodeURIComponent(middle.body.messages[0].created_at)}`,
    );
    const oldestId = (posted[0] as { message: Message }).message.id;
    expect(ids(oldest.body.messages)).toEqual([oldestId]);
    expect(byMessage(oldest.body)).toEqual({ reactions: [oldestId], attachments: [oldestId] });
  });

  it("pages through messages posted concurrently with no gaps or repeats", async () => {
    const room = await newRoom();
    const posters = [member, other, org.owner];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (posters[i % 3] as Person).api.post(room.messages, { content: `burst ${i}` }),
      ),
    );
    for (const res of answers) expect(res.status).toBe(201);
    const postedIds = new Set(answers.map((r) => r.body.message.id as string));
    expect(postedIds.size).toBe(50);

    const seen: Message[] = [];
    let before: string | undefined;
    for (let i = 0; i < 100; i++) {
      const query = before ? `?limit=7&before=${encodeURIComponent(before)}` : "?limit=7";
      const res = await member.api.get(`${room.messages}${query}`);
      expect(res.status).toBe(200);
      if (res.body.messages.length === 0) break;
      seen.unshift(...res.body.messages);
      before = res.body.messages[0].created_at;
    }
    expect(seen).toHaveLength(50);
    expect(new Set(ids(seen))).toEqual(postedIds);
    // One room's messages carry strictly increasing times, so the walk is chronological without ties.
    const stamps = seen.map((m) => Date.parse(m.created_at));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i] as number).toBeGreaterThan(stamps[i - 1] as number);
    const all = await member.api.get(`${room.messages}?limit=200`);
    expect(ids(all.body.messages)).toEqual(ids(seen));
  });

  it("answers 404 chat room not found for an unknown or malformed room", async () => {
    for (const id of [UNKNOWN, "nope"]) {
      const res = await member.api.get(`${rooms}/${id}/messages`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "chat room not found" });
    }
  });
});

describe("PATCH .../messages/{messageId}", () => {
  it("lets the author edit: 200 with the message unwrapped, content replaced and edited_at set", async () => {
    const room = await newRoom();
    const [original] = (await postMany(room.messages, 1)) as [Message & { updated_at: string }];
    await Bun.sleep(5);
    const res = await member.api.patch(`${room.messages}/${original.id}`, { content: "fixed typo" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({
      id: original.id,
      content: "fixed typo",
      created_at: original.created_at,
      author_user_id: member.id,
      deleted_at: null,
    });
    expect(res.body.edited_at).toMatch(TIMESTAMP);
    expect(res.body.updated_at).toBe(res.body.edited_at);
    expect(Date.parse(res.body.edited_at)).toBeGreaterThan(Date.parse(original.created_at));
    const list = await member.api.get(room.messages);
    expect(list.body.messages).toEqual([res.body]);
  });

  it("refuses anyone else, even the owner: 403 only the author can edit this message", async () => {
    const room = await newRoom();
    const [m] = (await postMany(room.messages, 1)) as [Message];
    for (const who of [org.owner, other, viewer]) {
      // Whatever the body holds: someone else learns nothing from a validation message.
      for (const body of [{ content: "hijacked" }, {}, { content: "" }, { content: 5 }]) {
        const res = await who.api.patch(`${room.messages}/${m.id}`, body);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: "only the author can edit this message" });
      }
    }
    const list = await member.api.get(room.messages);
    expect(list.body.messages[0]).toMatchObject({ content: "m0", edited_at: null });
  });

  it("refuses a missing or blank content with a 400 naming the field", async () => {
    const room = await newRoom();
    const [m] = (await postMany(room.messages, 1)) as [Message];
    const missing = await member.api.patch(`${room.messages}/${m.id}`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "content: required" });
    for (const content of ["  ", "\u200b", "\u2800"]) {
      const blank = await member.api.patch(`${room.messages}/${m.id}`, { content });
      expect(blank.status).toBe(400);
      expect(blank.body).toEqual({ error: "content: must not be empty" });
    }
    const number = await member.api.patch(`${room.messages}/${m.id}`, { content: 5 });
    expect(number.body).toEqual({ error: "content: must be a string" });
    const long = await member.api.patch(`${room.messages}/${m.id}`, { content: "x".repeat(40_001) });
    expect(long.body).toEqual({ error: "content: must be at most 40000 characters" });
    // Counted in characters: 40,000 emoji fit.
    const emoji = await member.api.patch(`${room.messages}/${m.id}`, { content: "😀".repeat(40_000) });
    expect(emoji.status).toBe(200);
  });

  it("refuses to edit a deleted message: 409 message has been deleted", async () => {
    const room = await newRoom();
    const [m] = (await postMany(room.messages, 1)) as [Message];
    expect((await member.api.delete(`${room.messages}/${m.id}`)).status).toBe(204);
    const res = await member.api.patch(`${room.messages}/${m.id}`, { content: "back from the dead" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "message has been deleted" });
  });

  it("answers 404 message not found for an unknown or malformed message, or one of another room", async () => {
    const room = await newRoom();
    const elsewhere = await newRoom();
    const [foreign] = (await postMany(elsewhere.messages, 1)) as [Message];
    for (const id of [UNKNOWN, "bogus", foreign.id]) {
      const res = await member.api.patch(`${room.messages}/${id}`, { content: "x" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "message not found" });
    }
  });
});

describe("DELETE .../messages/{messageId}", () => {
  it('soft-deletes: 204, then listed with content "" and deleted_at set, its reactions and attachments dropped', async () => {
    const room = await newRoom();
    const keep = await member.api.post(room.messages, {
      content: "keep me",
      attachments: [{ url: "https://cdn.example.com/keep.pdf" }],
    });
    const doomed = await member.api.post(room.messages, {
      content: "secret",
      attachments: [{ url: "https://cdn.example.com/secret.pdf" }],
    });
    const keepId = keep.body.message.id;
    const doomedId = doomed.body.message.id;
    await other.api.post(`${room.messages}/${keepId}/reactions`, { emoji: "👍" });
    await other.api.post(`${room.messages}/${doomedId}/reactions`, { emoji: "👀" });

    const res = await member.api.delete(`${room.messages}/${doomedId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");

    const list = await member.api.get(room.messages);
    expect(ids(list.body.messages)).toEqual([keepId, doomedId]);
    const gone = list.body.messages[1];
    expect(Object.keys(gone).sort()).toEqual(MESSAGE_KEYS);
    expect(gone.content).toBe("");
    expect(gone.deleted_at).toMatch(TIMESTAMP);
    expect(gone.author_user_id).toBe(member.id);
    expect(gone.created_at).toBe(doomed.body.message.created_at);
    expect(list.body.messages[0]).toMatchObject({ content: "keep me", deleted_at: null });
    expect(list.body.reactions.map((r: { message_id: string }) => r.message_id)).toEqual([keepId]);
    expect(list.body.attachments.map((a: { message_id: string }) => a.message_id)).toEqual([keepId]);
    expect(list.text).not.toContain("secret");
  });

  it("deleting twice is harmless: 204 again", async () => {
    const room = await newRoom();
    const [m] = (await postMany(room.messages, 1)) as [Message];
    expect((await member.api.delete(`${room.messages}/${m.id}`)).status).toBe(204);
    const first = (await member.api.get(room.messages)).body.messages[0];
    const again = await member.api.delete(`${room.messages}/${m.id}`);
    expect(again.status).toBe(204);
    const second = (await member.api.get(room.messages)).body.messages[0];
    expect(second.deleted_at).toBe(first.deleted_at);
  });

  it("lets the author delete their own message without chat.write", async () => {
    const base = `/api/v1/organizations/${org.id}`;
    const role = await org.owner.api.post(`${base}/roles`, { name: "Chatter", permissions: ["chat.write"] });
    expect(role.status).toBe(201);
    const chatter = await addMember(org, ["Viewer"], "Cleo Chatter");
    const grant = await org.owner.api.put(`${base}/members/${chatter.id}/roles`, {
      role_ids: [role.body.role.id, org.roles.Viewer],
    });
    expect(grant.status).toBe(200);
    const room = await newRoom();
    const posted = await chatter.api.post(room.messages, { content: "I may regret this" });
    expect(posted.status).toBe(201);

    const revoke = await org.owner.api.put(`${base}/members/${chatter.id}/roles`, { role_ids: [org.roles.Viewer] });
    expect(revoke.status).toBe(200);
    const perms = await chatter.api.get(`${base}/me/permissions`);
    expect(perms.body).toEqual({ permissions: ["files.read"] });
    const cannotPost = await chatter.api.post(room.messages, { content: "again" });
    expect(cannotPost.status).toBe(403);
    expect(cannotPost.body).toEqual({ error: "missing permission: chat.write" });

    const res = await chatter.api.delete(`${room.messages}/${posted.body.message.id}`);
    expect(res.status).toBe(204);
    const list = await member.api.get(room.messages);
    expect(list.body.messages[0]).toMatchObject({ id: posted.body.message.id, content: "" });
    expect(list.body.messages[0].deleted_at).toMatch(TIMESTAMP);
  });

  it("refuses someone else without chat.write: 403 missing permission: chat.write", async () => {
    const room = await newRoom();
    const [m] = (await postMany(room.messages, 1)) as [Message];
    const res = await viewer.api.delete(`${room.messages}/${m.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: chat.write" });
    const list = await member.api.get(room.messages);
    expect(list.body.messages[0]).toMatchObject({ content: "m0", deleted_at: null });
  });

  it("lets a chat.write holder delete anyone's message", async () => {
    const room = await newRoom();
    const [a, b] = (await postMany(room.messages, 2)) as [Message, Message];
    expect((await other.api.delete(`${room.messages}/${a.id}`)).status).toBe(204);
    expect((await org.owner.api.delete(`${room.messages}/${b.id}`)).status).toBe(204);
    const list = await member.api.get(room.messages);
    expect(list.body.messages.map((m: Message) => m.content)).toEqual(["", ""]);
    for (const m of list.body.messages) expect(m.deleted_at).toMatch(TIMESTAMP);
  });

  it("answers 404 message not found for an unknown or malformed message", async () => {
    const room = await newRoom();
    for (const id of [UNKNOWN, "bogus"]) {
      const res = await member.api.delete(`${room.messages}/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "message not found" });
    }
  });
});
