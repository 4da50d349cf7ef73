import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { TIMESTAMP } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let org: Org;
let member: Person;
let other: Person;
let viewer: Person;
let messages: string;

const UNKNOWN = "01a1fdb9-0000-7000-8000-000000000000";

beforeAll(async () => {
  server = await startTestServer();
  org = await setupOrg(server);
  member = await addMember(org, ["Member"], "Mia Member");
  other = await addMember(org, ["Member"], "Otto Other");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
  if (space.status !== 201) throw new Error(`space create failed: ${space.status} ${space.text}`);
  const rooms = `/api/v1/organizations/${org.id}/spaces/${space.body.id}/chat-rooms`;
  const general = (await member.api.get(rooms)).body.chat_rooms[0];
  messages = `${rooms}/${general.id}/messages`;
});
afterAll(() => server.stop());

/** A fresh message by `member`; answers its id and the base path of its reactions. */
async function newMessage(content = "react to me"): Promise<{ id: string; reactions: string }> {
  const res = await member.api.post(messages, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return { id: res.body.message.id, reactions: `${messages}/${res.body.message.id}/reactions` };
}

/** The reactions the listing shows for one message. */
async function reactionsOf(messageId: string): Promise<{ user_id: string; emoji: string; created_at: string }[]> {
  const res = await member.api.get(`${messages}?limit=200`);
  return res.body.reactions.filter((r: { message_id: string }) => r.message_id === messageId);
}

const q = (emoji: string) => `?emoji=${encodeURIComponent(emoji)}`;

describe("POST .../messages/{messageId}/reactions", () => {
  it("answers 201 with the reaction {message_id, user_id, emoji, created_at}", async () => {
    const m = await newMessage();
    const res = await other.api.post(m.reactions, { emoji: "👍" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["created_at", "emoji", "message_id", "user_id"]);
    expect(res.body).toMatchObject({ message_id: m.id, user_id: other.id, emoji: "👍" });
    expect(res.body.created_at).toMatch(TIMESTAMP);
    expect(await reactionsOf(m.id)).toEqual([res.body]);
  });

  const singles: [string, string][] = [
    ["a plain emoji", "🎉"],
    ["a skin-tone form", "👍🏽"],
    ["a ZWJ family", "👨‍👩‍👧‍👦"],
    ["a ZWJ profession with a skin tone", "👩🏾‍💻"],
    ["a flag", "🇫🇷"],
    ["a subdivision flag (tag sequence)", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"],
    ["a digit keycap", "1️⃣"],
    ["a # keycap", "#️⃣"],
    ["the rainbow flag", "🏳️‍🌈"],
    ["an emoji with its presentation selector", "❤️"],
  ];
  for (const [what, emoji] of singles) {
    it(`accepts ${what} as one emoji (${emoji})`, async () => {
      const m = await newMessage();
      const res = await member.api.post(m.reactions, { emoji });
      expect(res.status).toBe(201);
      expect(res.body.emoji).toBe(emoji);
      const listed = await reactionsOf(m.id);
      expect(listed.map((r) => r.emoji)).toEqual([emoji]);
    });
  }

  const refused: [string, string][] = [
    ["two emoji", "👍👍"],
    ["two different emoji", "👍🎉"],
    ["two flags", "🇫🇷🇩🇪"],
    ["text", "ok"],
    ["a shortcode", ":thumbsup:"],
    ["a bare digit", "1"],
    ["an empty string", ""],
    ["whitespace", "   "],
    ["an emoji plus a letter", "👍a"],
    ["a letter plus an emoji", "a👍"],
    ["a lone skin-tone modifier joined to text", "x🏽"],
    ["two emoji joined into no emoji", "👍\u200D🎉"],
    ["a lone joiner", "\u200D"],
    ["a selector alone", "\uFE0F"],
  ];
  for (const [what, emoji] of refused) {
    it(`refuses ${what}: 400 emoji must be a single emoji`, async () => {
      const m = await newMessage();
      const res = await member.api.post(m.reactions, { emoji });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "emoji must be a single emoji" });
      expect(await reactionsOf(m.id)).toEqual([]);
    });
  }

  it("refuses an emoji that is not a string, or is null, or a long string, with the same message", async () => {
    const m = await newMessage();
    for (const emoji of [5, null, true, ["👍"], "x".repeat(1000), "👍".repeat(40)]) {
      const res = await member.api.post(m.reactions, { emoji });
      expect({ emoji, status: res.status, body: res.body }).toEqual({
        emoji,
        status: 400,
        body: { error: "emoji must be a single emoji" },
      });
    }
    expect(await reactionsOf(m.id)).toEqual([]);
  });

  it("refuses a missing emoji: 400 emoji must be a single emoji", async () => {
    const m = await newMessage();
    const res = await member.api.post(m.reactions, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "emoji must be a single emoji" });
  });

  it("stores ❤ typed without its presentation selector as ❤️, the same reaction", async () => {
    const m = await newMessage();
    const bare = await member.api.post(m.reactions, { emoji: "❤" });
    expect(bare.status).toBe(201);
    expect(bare.body.emoji).toBe("❤️");
    const full = await member.api.post(m.reactions, { emoji: "❤️" });
    expect(full.status).toBe(201);
    expect(full.body).toEqual(bare.body);
    const listed = await reactionsOf(m.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.emoji).toBe("❤️");
  });

  it("stores a keycap typed without its selector (1⃣) as the keycap (1️⃣)", async () => {
    const m = await newMessage();
    const bare = await member.api.post(m.reactions, { emoji: "1\u20E3" });
    expect(bare.status).toBe(201);
    expect(bare.body.emoji).toBe("1\uFE0F\u20E3");
    expect(await reactionsOf(m.id)).toHaveLength(1);
  });

  for (const [typed, stored, what] of <[string, string, string][]>[
    ["\u{1F937}\u200D\u2640", "\u{1F937}\u200D\u2640\uFE0F", "a gendered ZWJ sequence without its last selector"],
    ["\u{1F3F3}\u200D\u{1F308}", "\u{1F3F3}\uFE0F\u200D\u{1F308}", "the rainbow flag without its selector"],
    ["\u{1F575}\u200D\u2642\uFE0F", "\u{1F575}\uFE0F\u200D\u2642\uFE0F", "a ZWJ sequence missing its first selector"],
    ["\u2764\u200D\u{1F525}", "\u2764\uFE0F\u200D\u{1F525}", "heart on fire without its selector"],
  ]) {
    it(`stores ${what} in its fully-qualified form, the same reaction`, async () => {
      const m = await newMessage();
      const typedRes = await member.api.post(m.reactions, { emoji: typed });
      expect(typedRes.status).toBe(201);
      expect(typedRes.body.emoji).toBe(stored);
      const full = await member.api.post(m.reactions, { emoji: stored });
      expect(full.body).toEqual(typedRes.body);
      expect(await reactionsOf(m.id)).toHaveLength(1);
      expect((await member.api.delete(`${m.reactions}${q(typed)}`)).status).toBe(204);
    });
  }

  it("ignores spaces around the emoji", async () => {
    const m = await newMessage();
    const res = await member.api.post(m.reactions, { emoji: " \u{1F44D}\n" });
    expect(res.status).toBe(201);
    expect(res.body.emoji).toBe("\u{1F44D}");
  });

  it("answers 201 with the same reaction when reacting twice, without a duplicate", async () => {
    const m = await newMessage();
    const first = await member.api.post(m.reactions, { emoji: "🚀" });
    await Bun.sleep(5);
    const second = await member.api.post(m.reactions, { emoji: "🚀" });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(await reactionsOf(m.id)).toEqual([first.body]);
  });

  it("keeps reactions of different people and different emoji apart", async () => {
    const m = await newMessage();
    const a = await member.api.post(m.reactions, { emoji: "👍" });
    const b = await other.api.post(m.reactions, { emoji: "👍" });
    const c = await member.api.post(m.reactions, { emoji: "👍🏽" });
    for (const res of [a, b, c]) expect(res.status).toBe(201);
    const listed = await reactionsOf(m.id);
    expect(listed).toHaveLength(3);
    expect(listed.map((r) => `${r.user_id}:${r.emoji}`).sort()).toEqual(
      [`${member.id}:👍`, `${other.id}:👍`, `${member.id}:👍🏽`].sort(),
    );
  });

  it("refuses a reaction to a deleted message: 409 message has been deleted", async () => {
    const m = await newMessage();
    expect((await member.api.delete(`${messages}/${m.id}`)).status).toBe(204);
    const res = await other.api.post(m.reactions, { emoji: "👍" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "message has been deleted" });
  });

  it("needs chat.write: a Viewer gets 403 missing permission: chat.write", async () => {
    const m = await newMessage();
    const res = await viewer.api.post(m.reactions, { emoji: "👍" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: chat.write" });
    expect(await reactionsOf(m.id)).toEqual([]);
  });

  it("answers 404 message not found for an unknown or malformed message", async () => {
    for (const id of [UNKNOWN, "bogus"]) {
      const res = await member.api.post(`${messages}/${id}/reactions`, { emoji: "👍" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "message not found" });
    }
  });
});

describe("DELETE .../messages/{messageId}/reactions?emoji=", () => {
  it("removes the caller's reaction: 204, then 404 reaction not found", async () => {
    const m = await newMessage();
    await member.api.post(m.reactions, { emoji: "👍🏽" });
    const kept = await member.api.post(m.reactions, { emoji: "🎉" });
    const res = await member.api.delete(`${m.reactions}${q("👍🏽")}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await reactionsOf(m.id)).toEqual([kept.body]);
    const again = await member.api.delete(`${m.reactions}${q("👍🏽")}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "reaction not found" });
  });

  it("removes a ZWJ, flag or keycap reaction given URL-encoded", async () => {
    const m = await newMessage();
    for (const emoji of ["👨‍👩‍👧‍👦", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "#️⃣"])
      expect((await member.api.post(m.reactions, { emoji })).status).toBe(201);
    for (const emoji of ["👨‍👩‍👧‍👦", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "#️⃣"])
      expect((await member.api.delete(`${m.reactions}${q(emoji)}`)).status).toBe(204);
    expect(await reactionsOf(m.id)).toEqual([]);
  });

  it("removes ❤️ when asked with ❤", async () => {
    const m = await newMessage();
    await member.api.post(m.reactions, { emoji: "❤️" });
    const res = await member.api.delete(`${m.reactions}${q("❤")}`);
    expect(res.status).toBe(204);
    expect(await reactionsOf(m.id)).toEqual([]);
  });

  it("removes only the caller's reaction: someone else's answers 404 reaction not found and stays", async () => {
    const m = await newMessage();
    const theirs = await other.api.post(m.reactions, { emoji: "👀" });
    const res = await member.api.delete(`${m.reactions}${q("👀")}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "reaction not found" });
    expect(await reactionsOf(m.id)).toEqual([theirs.body]);
  });

  it("refuses a missing, empty or invalid emoji: 400 emoji must be a single emoji", async () => {
    const m = await newMessage();
    await member.api.post(m.reactions, { emoji: "👍" });
    for (const suffix of ["", "?emoji=", q("ok"), q("👍👍")]) {
      const res = await member.api.delete(`${m.reactions}${suffix}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "emoji must be a single emoji" });
    }
    expect(await reactionsOf(m.id)).toHaveLength(1);
  });

  it("needs chat.write: a Viewer gets 403 missing permission: chat.write", async () => {
    const m = await newMessage();
    const res = await viewer.api.delete(`${m.reactions}${q("👍")}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "missing permission: chat.write" });
  });

  it("answers 404 message not found for an unknown message", async () => {
    const res = await member.api.delete(`${messages}/${UNKNOWN}/reactions${q("👍")}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "message not found" });
  });
});
