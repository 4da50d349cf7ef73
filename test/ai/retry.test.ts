/**
 * Retrying a failed staff reply (docs/api.md "Retrying a failed reply"): `POST .../messages/{messageId}/retry` on
 * the failure reply queues a new reply job, puts the 💭 back, and the job's answer rewrites the failure reply in
 * place, announced live. Against a loopback fake gateway, over REST and the live-events socket.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "bun:test";
import { addMember, addStaff, type Org, type Person } from "../helpers/factories";
import { completion, type FakeProvider } from "../helpers/fake-providers";
import { type GatewayWorld, gatewayWorld } from "../helpers/gateway-world";
import { type Client, UUID } from "../helpers/http";
import { scenarios } from "../helpers/scenarios";
import type { TestServer } from "../helpers/server";
import { eventually, type Listener, type LiveEvent } from "../helpers/sockets";

const SORRY = "Sorry, I couldn't answer:";
const refuse = () => Response.json({ error: { message: "invalid key" } }, { status: 401 });

let server: TestServer;
let fake: FakeProvider;
let org: Org;
let member: Person;
let viewer: Person;
let ada: Awaited<ReturnType<typeof addStaff>>;
let listener: Listener;
let spaceId: string;
let roomId: string;

const roomPath = () => `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms/${roomId}`;
const retryPath = (messageId: string) => `${roomPath()}/messages/${messageId}/retry`;

async function listing(): Promise<{ messages: any[]; reactions: any[] }> {
  return (await org.owner.api.get(`${roomPath()}/messages?limit=200`)).body;
}

/** The end (`ai.reply.finished` or `failed`) of the reply job `jobId`, or of the first job asked by `source`. */
async function ended(match: { job?: string; source?: string }): Promise<LiveEvent> {
  let found: LiveEvent | undefined;
  await eventually(() => {
    found = listener.events.find(
      (e) =>
        (e.type === "ai.reply.finished" || e.type === "ai.reply.failed") &&
        (match.job ? e.payload.job_id === match.job : e.payload.source_message_id === match.source),
    );
    return found !== undefined;
  }, "the reply to end");
  return found as LiveEvent;
}

/** Asks Ada while the gateway refuses: the question and Ada's failure reply. */
async function failedReply(content = "@Ada when do we ship?", as: Client = org.owner.api) {
  fake.handle(refuse);
  const source = (await as.post(`${roomPath()}/messages`, { content })).body.message;
  const event = await ended({ source: source.id });
  expect(event.type).toBe("ai.reply.failed");
  const failure = (await listing()).messages.find((m) => m.id === event.payload.reply_message_id);
  expect(failure.content).toStartWith(SORRY);
  return { source, failure };
}

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld(refuse);
  ({ server, fake, org, spaceId, roomId, listener } = world);
  member = await addMember(org, ["Member"], "Mia Member");
  viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  ada = await addStaff(org, { name: "Ada" });
});
afterAll(() => world.stop());
beforeEach(() => fake.handle(refuse));

describe("POST .../messages/{messageId}/retry", () => {
  it("queues a new reply with the 💭 back; its answer rewrites the failure reply in place, live", async () => {
    const { source, failure } = await failedReply();
    expect((await listing()).reactions.filter((r) => r.message_id === source.id)).toEqual([]);
    // The gateway answers once the 💭 has been seen back on the question.
    const seen = Promise.withResolvers<void>();
    fake.handle(async () => {
      await seen.promise;
      return completion("We ship on Tuesday.");
    });
    const mark = listener.events.length;
    const res = await member.api.post(retryPath(failure.id));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      job_id: expect.stringMatching(UUID),
      staff_user_id: ada.account.user_id,
      chat_room_id: roomId,
      source_message_id: source.id,
      reply_message_id: failure.id,
    });
    const during = await listing();
    expect(during.reactions.filter((r) => r.message_id === source.id).map((r) => [r.user_id, r.emoji])).toEqual([
      [ada.account.user_id, "💭"],
    ]);
    seen.resolve();

    const event = await ended({ job: res.body.job_id });
    expect(event.type).toBe("ai.reply.finished");
    // Asked again for the person who asked: the inbox's staff answer goes to them.
    expect(event.payload).toMatchObject({ reply_message_id: failure.id, asked_by_user_id: org.owner.id, error: null });
    const after = await listing();
    const byAda = after.messages.filter((m) => m.author_user_id === ada.account.user_id);
    expect(byAda).toHaveLength(1);
    expect(byAda[0]).toMatchObject({ id: failure.id, content: "We ship on Tuesday.", created_at: failure.created_at });
    expect(byAda[0].edited_at).not.toBeNull();
    expect(after.reactions.filter((r) => r.message_id === source.id)).toEqual([]);
    // The gateway was asked the question as the person who asked it wrote it.
    expect(fake.requests.at(-1)?.body.messages.at(-1)).toEqual({
      role: "user",
      content: "Olivia Owner: @Ada when do we ship?",
    });

    const mine = listener.events
      .slice(mark)
      .filter(
        (e) =>
          (e.type.startsWith("chat.") && [e.payload.message_id, e.payload.id].includes(source.id)) ||
          (e.type === "chat.message.updated" && e.payload.id === failure.id) ||
          (e.type.startsWith("ai.reply.") && e.payload.job_id === res.body.job_id),
      );
    expect(mine.map((e) => e.type)).toEqual([
      "chat.reaction.added",
      "ai.reply.started",
      "chat.message.updated",
      "chat.reaction.removed",
      "ai.reply.finished",
    ]);
    expect(mine[2]?.payload).toEqual(byAda[0]);

    // Answered now: not a failed reply any more.
    const again = await member.api.post(retryPath(failure.id));
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: "message is not a failed reply" });
  });

  it("answers 409 while a retry of it runs, and a retry that fails again rewrites the failure and can be retried", async () => {
    const { failure } = await failedReply("@Ada what is the plan?");
    const hold = Promise.withResolvers<void>();
    fake.handle(async () => {
      await hold.promise;
      return refuse();
    });
    const first = await org.owner.api.post(retryPath(failure.id), {});
    expect(first.status).toBe(202);
    const twice = await member.api.post(retryPath(failure.id));
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ error: "reply is already being retried" });
    hold.resolve();
    const event = await ended({ job: first.body.job_id });
    expect(event.type).toBe("ai.reply.failed");
    expect(event.payload.reply_message_id).toBe(failure.id);
    const rewritten = (await listing()).messages.find((m) => m.id === failure.id);
    expect(rewritten.content).toStartWith(SORRY);
    expect(rewritten.edited_at).not.toBeNull();
    fake.handle(() => completion("Here is the plan."));
    const third = await org.owner.api.post(retryPath(failure.id));
    expect(third.status).toBe(202);
    expect((await ended({ job: third.body.job_id })).type).toBe("ai.reply.finished");
    expect((await listing()).messages.find((m) => m.id === failure.id).content).toBe("Here is the plan.");
  });

  it("answers 409 when the question was deleted, and 404 once the failure reply is deleted", async () => {
    const { source, failure } = await failedReply("@Ada anything?");
    expect((await org.owner.api.delete(`${roomPath()}/messages/${source.id}`)).status).toBe(204);
    const gone = await org.owner.api.post(retryPath(failure.id));
    expect(gone.status).toBe(409);
    expect(gone.body).toEqual({ error: "the message it answered was deleted" });
    expect((await org.owner.api.delete(`${roomPath()}/messages/${failure.id}`)).status).toBe(204);
    const deleted = await org.owner.api.post(retryPath(failure.id));
    expect(deleted.status).toBe(404);
    expect(deleted.body).toEqual({ error: "message not found" });
  });

  it("answers 409 when the staff member may no longer post in the room, 400 once it is deleted", async () => {
    const eve = await addStaff(org, { name: "Eve" });
    fake.handle(refuse);
    const source = (await org.owner.api.post(`${roomPath()}/messages`, { content: "@Eve status?" })).body.message;
    const failure = (await ended({ source: source.id })).payload.reply_message_id;
    await org.owner.api.put(`/api/v1/organizations/${org.id}/members/${eve.account.user_id}/roles`, {
      role_ids: [org.roles.Viewer],
    });
    const unable = await org.owner.api.post(retryPath(failure));
    expect(unable.status).toBe(409);
    expect(unable.body).toEqual({ error: "the staff member can no longer answer here" });
    await org.owner.api.delete(`/api/v1/organizations/${org.id}/service-accounts/${eve.account.id}`);
    const deleted = await org.owner.api.post(retryPath(failure));
    expect(deleted.status).toBe(400);
    expect(deleted.body).toEqual({ error: "message is not a failed reply" });
  });

  describe("who and what", () => {
    let question: any;
    let failure: any;
    let answer: any;

    beforeAll(async () => {
      ({ source: question, failure } = await failedReply("@Ada one more?"));
      fake.handle(() => completion("An answer."));
      const asked = (await org.owner.api.post(`${roomPath()}/messages`, { content: "@Ada and this?" })).body.message;
      answer = (await ended({ source: asked.id })).payload.reply_message_id;
    });

    scenarios(
      {
        url: () => server.url,
        tokens: () => ({ owner: org.owner.token, viewer: viewer.token, staff: ada.token }),
        params: () => ({
          question: retryPath(question.id),
          failure: retryPath(failure.id),
          answer: retryPath(answer),
          unknown: retryPath(crypto.randomUUID()),
          malformed: retryPath("not-a-uuid"),
          otherRoom: `/api/v1/organizations/${org.id}/spaces/${spaceId}/chat-rooms/${crypto.randomUUID()}/messages/${failure.id}/retry`,
        }),
      },
      [
        {
          method: "POST",
          url: "{question}",
          as: "owner",
          status: 400,
          error: "message is not a failed reply",
          name: "a person's message",
        },
        {
          method: "POST",
          url: "{answer}",
          as: "owner",
          status: 400,
          error: "message is not a failed reply",
          name: "an answer",
        },
        { method: "POST", url: "{unknown}", as: "owner", status: 404, error: "message not found" },
        { method: "POST", url: "{malformed}", as: "owner", status: 404, error: "message not found" },
        { method: "POST", url: "{otherRoom}", as: "owner", status: 404, error: "chat room not found" },
        { method: "POST", url: "{failure}", as: "viewer", status: 403, error: "missing permission: chat.write" },
        { method: "POST", url: "{failure}", as: "staff", status: 403, error: "only a person can retry a reply" },
      ],
    );
  });
});
