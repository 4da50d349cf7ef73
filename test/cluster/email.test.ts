/**
 * Email with several nodes (contract §9, §10): every node sweeps for inbox items to email, and each item is emailed
 * once whichever nodes sweep, as a digest or alone. Three nodes run in this process on one PostgreSQL database, so
 * their sweeps look every 50 ms and the 10 minutes of a digest pass by moving the clock (`setSystemTime`); one SMTP
 * server on loopback takes a while over each email, so sweeps of several nodes overlap. A sweep holds a lease, one
 * live node's at a time, which a node killed mid-sweep leaves to the others.
 */
import { afterAll, beforeAll, describe, expect, it, setSystemTime } from "bun:test";
import { Cluster } from "../../src/db/pg/cluster";
import { PgDatabase } from "../../src/db/pg/connection";
import { nodeCluster } from "../helpers/cluster";
import { addMember, type Org, type Person, setupOrg } from "../helpers/factories";
import { client } from "../helpers/http";
import type { TestServer } from "../helpers/server";
import { type FakeSmtp, later, startFakeSmtp } from "../helpers/smtp";
import { eventually } from "../helpers/sockets";

const MINUTE = 60 * 1000;

let smtp: FakeSmtp;
let install: ReturnType<typeof nodeCluster>;
const nodes: TestServer[] = [];
let org: Org;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  install = nodeCluster("email", { TANDEM_SMTP_URL: smtp.url, TANDEM_SMTP_FROM: "Tandem <tandem@acme.test>" });
  for (let i = 0; i < 3; i++) nodes.push(await install.startHere({ email: { sweepMs: 50 } }));
  org = await setupOrg(nodes[0] as TestServer);
}, 60_000);

afterAll(async () => {
  setSystemTime();
  await install.stop();
  await smtp.stop();
});

/** The emails about inbox items to `address` (each person here also got the invite that made them a member). */
const notices = (address: string) => smtp.to(address).filter((email) => !email.subject.includes(" invited you to "));

describe("email sweeps on three nodes", () => {
  it("emails each item once, alone or in one digest, whichever nodes sweep", async () => {
    const names = ["Ann All", "Abe All", "Dee Digest", "Don Digest"];
    const people: Person[] = [];
    for (const name of names) people.push(await addMember(org, ["Member"], name));
    const alone = people.slice(0, 2);
    const digest = people.slice(2);
    for (const person of alone) {
      const set = await person.api.put(`/api/v1/me/notifications?org_id=${org.id}`, { email: "all" });
      expect(set.status).toBe(200);
    }
    const space = await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" });
    const spacePath = `/api/v1/organizations/${org.id}/spaces/${space.body.id}`;
    const rooms = await org.owner.api.get(`${spacePath}/chat-rooms`);
    const messages = `${spacePath}/chat-rooms/${rooms.body.chat_rooms[0].id}/messages`;
    const everyone = names.map((name) => `@${name}`).join(" ");
    const updates = [0, 1, 2, 3, 4, 5].map((i) => `update ${i}`);
    // Posted through every node: each node writes the items of its own posts.
    for (const [i, update] of updates.entries()) {
      const node = nodes[i % nodes.length] as TestServer;
      const posted = await client(node.url, org.owner.token).post(messages, { content: `${everyone} ${update}` });
      expect(posted.status).toBe(201);
    }
    const unread = async (person: Person) =>
      (await person.api.get(`/api/v1/me/inbox?org_id=${org.id}`)).body.unread as number;
    for (const person of people) {
      const until = Date.now() + 5000;
      while ((await unread(person)) < updates.length && Date.now() < until) await Bun.sleep(50);
      expect(await unread(person)).toBe(updates.length);
    }

    smtp.slowDown(25);
    const sent = (group: Person[]) => group.flatMap((person) => notices(person.email)).length;
    // A minute on, each item of `all` goes alone; the digests wait for their 10 minutes.
    const aloneDue = alone.length * updates.length;
    await later(2 * MINUTE, () => eventually(() => sent(alone) >= aloneDue, "the single emails", 15_000));
    expect(sent(digest)).toBe(0);
    await later(11 * MINUTE, () => eventually(() => sent(digest) >= digest.length, "the digests", 15_000));
    // Every node looks many times more: nothing goes twice.
    await later(12 * MINUTE, () => Bun.sleep(1500));
    for (const person of alone) {
      const emails = notices(person.email);
      expect(emails).toHaveLength(updates.length);
      for (const update of updates) expect(emails.filter((email) => email.text.includes(update))).toHaveLength(1);
    }
    for (const person of digest) {
      const emails = notices(person.email);
      expect(emails).toHaveLength(1);
      expect(emails[0]?.subject).toBe(`${updates.length} things need you in Acme`);
      for (const update of updates) expect(emails[0]?.text).toContain(update);
    }
  }, 60_000);
});

describe("the sweep's lease", () => {
  it("is one live node's at a time, kept while it works, and free once it is given up, its time ran out or its node died", async () => {
    const errors: unknown[] = [];
    const connections = [new PgDatabase(install.databaseUrl), new PgDatabase(install.databaseUrl)];
    const [one, two] = connections.map((pg) => new Cluster(pg, install.databaseUrl, (e) => errors.push(e))) as [
      Cluster,
      Cluster,
    ];
    try {
      await one.start("http://127.0.0.1:1");
      await two.start("http://127.0.0.1:2");
      const mine = one.lease("test.sweep", 60_000);
      const theirs = two.lease("test.sweep", 60_000);
      expect(mine.take()).toBe(true);
      expect(theirs.take()).toBe(false);
      expect(mine.take()).toBe(true);
      mine.release();
      expect(theirs.take()).toBe(true);
      expect(mine.take()).toBe(false);
      // A lease whose time ran out is free, though its node is alive.
      expect(two.lease("test.short", 100).take()).toBe(true);
      expect(one.lease("test.short", 100).take()).toBe(false);
      await Bun.sleep(150);
      expect(one.lease("test.short", 100).take()).toBe(true);
      // Its node dies (no heartbeat for 5 s: its row is made that old, between two of its beats).
      connections[0]?.query("UPDATE cluster_nodes SET seen_at = seen_at - 6000 WHERE id = ?").run(two.node);
      expect(mine.take()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await one.stop();
      await two.stop();
      for (const pg of connections) pg.close();
    }
  });
});
