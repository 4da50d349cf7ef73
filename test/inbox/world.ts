/** The cast of the inbox tests: a server, its organization, people, a public and a private space, helpers. */
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import type { Client } from "../helpers/http";
import { startTestServer, type TestServer } from "../helpers/server";

/** Every field of an inbox item (contract §10), sorted. */
export const ITEM_KEYS = [
  "actor_user_id",
  "automation_id",
  "chat_room_id",
  "created_at",
  "id",
  "kind",
  "message_id",
  "proposal_id",
  "read_at",
  "space_id",
  "summary",
  "task_id",
].sort();

export interface World {
  server: TestServer;
  org: Org;
  owner: Person;
  ada: Person;
  bob: Person;
  /** A public space and its `general` room. */
  spaceId: string;
  roomId: string;
  /** A private space of the owner and Ada (Bob is not in it), and its `general` room. */
  privateId: string;
  privateRoomId: string;
}

export const spacePath = (w: World, spaceId = w.spaceId) => `/api/v1/organizations/${w.org.id}/spaces/${spaceId}`;
export const roomPath = (w: World, roomId = w.roomId, spaceId = w.spaceId) =>
  `${spacePath(w, spaceId)}/chat-rooms/${roomId}`;

/** The first room of a space. */
export async function generalOf(api: Client, orgId: string, spaceId: string): Promise<string> {
  const res = await api.get(`/api/v1/organizations/${orgId}/spaces/${spaceId}/chat-rooms`);
  return res.body.chat_rooms[0].id;
}

/** A new server with the cast. */
export async function startWorld(): Promise<World> {
  return castOn(await startTestServer());
}

/** The cast on a server already started (one with settings of its own). */
export async function castOn(server: TestServer): Promise<World> {
  const org = await setupOrg(server);
  const ada = await addMember(org, ["Member"], "Ada Lovelace");
  const bob = await addMember(org, ["Member"], "Bob Builder");
  const base = `/api/v1/organizations/${org.id}/spaces`;
  const spaceId = (await org.owner.api.post(base, { name: "Launch" })).body.id as string;
  const privateId = (await org.owner.api.post(base, { name: "Secret", private: true })).body.id as string;
  await org.owner.api.post(`${base}/${privateId}/members`, { user_id: ada.id });
  return {
    server,
    org,
    owner: org.owner,
    ada,
    bob,
    spaceId,
    roomId: await generalOf(org.owner.api, org.id, spaceId),
    privateId,
    privateRoomId: await generalOf(org.owner.api, org.id, privateId),
  };
}

/** Posts a chat message; its JSON. */
export async function say(w: World, who: Person, content: string, roomId = w.roomId, spaceId = w.spaceId) {
  const res = await who.api.post(`${roomPath(w, roomId, spaceId)}/messages`, { content });
  if (res.status !== 201) throw new Error(`post failed: ${res.status} ${res.text}`);
  return res.body.message;
}

/** The caller's unread rooms. */
export async function unread(w: World, who: Person): Promise<any[]> {
  const res = await who.api.get(`/api/v1/me/unread?org_id=${w.org.id}`);
  if (res.status !== 200) throw new Error(`unread failed: ${res.status} ${res.text}`);
  return res.body.rooms;
}

/** The caller's inbox. */
export async function inbox(w: World, who: Person, query = ""): Promise<{ items: any[]; unread: number }> {
  const res = await who.api.get(`/api/v1/me/inbox?org_id=${w.org.id}${query}`);
  if (res.status !== 200) throw new Error(`inbox failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Marks the room read up to the message as `who`. */
export async function readUpTo(w: World, who: Person, messageId: string, roomId = w.roomId, spaceId = w.spaceId) {
  return who.api.post(`${roomPath(w, roomId, spaceId)}/read`, { message_id: messageId });
}
