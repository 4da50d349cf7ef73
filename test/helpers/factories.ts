/** Factories that build state through the public API, the way a user would. */
import { type Client, client } from "./http";
import { startTestServer, type TestServer } from "./server";

export const OWNER = { email: "owner@acme.test", password: "owner-password", name: "Olivia Owner" };

/** A signed-in user of the organization. */
export interface Person {
  id: string;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
  api: Client;
}

/** An organization set up through the web setup endpoint, with its owner signed in. */
export interface Org {
  id: string;
  owner: Person;
  roles: Record<"Owner" | "Member" | "Viewer" | "AI Staff", string>;
  server: TestServer;
  anon: Client;
}

/** Runs first-run setup and returns the organization with its owner. */
export async function setupOrg(server: TestServer, orgName = "Acme"): Promise<Org> {
  const anon = client(server.url);
  const res = await anon.post("/api/v1/public/setup", {
    token: server.setupToken,
    org_name: orgName,
    admin_email: OWNER.email,
    admin_password: OWNER.password,
    admin_name: OWNER.name,
  });
  if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${res.text}`);
  const owner: Person = {
    id: res.body.user_id,
    email: OWNER.email,
    password: OWNER.password,
    token: res.body.access_token,
    refreshToken: res.body.refresh_token,
    api: client(server.url, res.body.access_token),
  };
  const roles = await owner.api.get(`/api/v1/organizations/${res.body.organization_id}/roles`);
  const byName = Object.fromEntries(roles.body.roles.map((r: { name: string; id: string }) => [r.name, r.id]));
  return { id: res.body.organization_id, owner, roles: byName as Org["roles"], server, anon };
}

let counter = 0;

/** Invites someone with the given roles and accepts as them; returns them signed in. */
export async function addMember(
  org: Org,
  roleNames: (keyof Org["roles"])[] = ["Member"],
  name?: string,
): Promise<Person> {
  const n = ++counter;
  const email = `person${n}@acme.test`;
  const password = `password-${n}`;
  const invite = await org.owner.api.post(`/api/v1/organizations/${org.id}/invites`, {
    email,
    role_ids: roleNames.map((r) => org.roles[r]),
  });
  if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${invite.text}`);
  const accepted = await org.anon.post("/api/v1/auth/accept-invite", {
    token: invite.body.token,
    email,
    password,
    display_name: name ?? `Person ${n}`,
  });
  if (accepted.status !== 201) throw new Error(`accept failed: ${accepted.status} ${accepted.text}`);
  const me = await client(org.server.url, accepted.body.access_token).get("/api/v1/me");
  return {
    id: me.body.user.id,
    email,
    password,
    token: accepted.body.access_token,
    refreshToken: accepted.body.refresh_token,
    api: client(org.server.url, accepted.body.access_token),
  };
}

/** Creates a staff member and returns its account and `sa_` token client. */
export async function addStaff(org: Org, body: Record<string, unknown> = {}) {
  const n = ++counter;
  const res = await org.owner.api.post(`/api/v1/organizations/${org.id}/service-accounts`, {
    name: `Staff ${n}`,
    ...body,
  });
  if (res.status !== 201) throw new Error(`staff create failed: ${res.status} ${res.text}`);
  return {
    account: res.body.service_account,
    token: res.body.token as string,
    api: client(org.server.url, res.body.token),
  };
}

/**
 * The cast of the staff tests (proposals, automations): a fresh server and organization with a Member, a
 * Viewer, a Member kept out of the private space, a staff member, two public spaces and a private one that
 * only the owner is in.
 */
export async function staffWorld(publicSpaces: readonly [string, string]) {
  const server = await startTestServer();
  const org = await setupOrg(server);
  const member = await addMember(org, ["Member"], "Mia Member");
  const viewer = await addMember(org, ["Viewer"], "Vic Viewer");
  const outsider = await addMember(org, ["Member"], "Otto Outsider");
  const staff = await addStaff(org);
  const space = async (body: Record<string, unknown>) =>
    (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, body)).body.id as string;
  const spaceId = await space({ name: publicSpaces[0] });
  const otherSpaceId = await space({ name: publicSpaces[1] });
  const privateSpaceId = await space({ name: "Secret", private: true });
  return { server, org, member, viewer, outsider, staff, spaceId, otherSpaceId, privateSpaceId };
}

/** Reads every room `who` has something unread in, to its newest message, and marks their inbox read. */
export async function readEverything(org: Org, who: Person): Promise<void> {
  const base = `/api/v1/organizations/${org.id}/spaces`;
  const unread = await who.api.get(`/api/v1/me/unread?org_id=${org.id}`);
  for (const room of unread.body.rooms as { chat_room_id: string; space_id: string }[]) {
    const rooms = `${base}/${room.space_id}/chat-rooms/${room.chat_room_id}`;
    const newest = (await who.api.get(`${rooms}/messages?limit=1`)).body.messages.at(-1);
    if (newest) await who.api.post(`${rooms}/read`, { message_id: newest.id });
  }
  await who.api.post("/api/v1/me/inbox/read", { org_id: org.id, all: true });
}

/** A chat message as the room's list answers it (the fields tests read). */
export interface ListedMessage {
  id: string;
  content: string;
  author_user_id: string | null;
  automation_id: string | null;
  created_at: string;
}

/** Every message of a room (`messages`: its `.../messages` path), oldest first, read a page at a time. */
export async function allMessages(api: Client, messages: string): Promise<ListedMessage[]> {
  const out: ListedMessage[] = [];
  let before = "";
  for (;;) {
    const res = await api.get(`${messages}?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`);
    const page = res.body.messages as ListedMessage[];
    out.unshift(...page);
    if (page.length < 100) return out;
    before = (page[0] as ListedMessage).created_at;
  }
}
