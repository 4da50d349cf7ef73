/**
 * `kill -9` of one of several nodes (contract §9): writers posting and moving tasks through both nodes lose
 * nothing a node acknowledged, the survivor goes on writing at once (the dead node's transaction and its write lock
 * go with its connection), and what is stored holds together (every id once, every column's order dense). A staff
 * reply one node was writing when it died is finished by another once the job's lease lapses: one reply, and
 * the model asked once more, not once per node.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { nodeCluster } from "../helpers/cluster";
import { allMessages } from "../helpers/factories";
import { completion, type FakeProvider, startFakeProvider } from "../helpers/fake-providers";
import { type Client, client } from "../helpers/http";
import type { SpawnedServer } from "../helpers/server";
import { eventually } from "../helpers/sockets";

const fakes: FakeProvider[] = [];
const clusters: ReturnType<typeof nodeCluster>[] = [];
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
  for (const fake of fakes) fake.stop();
});

/** An install of `n` nodes, an organization set up through the first, and a space with its room and board. */
async function world(prefix: string, n: number, env: Record<string, string> = {}) {
  const install = nodeCluster(prefix, env);
  clusters.push(install);
  const nodes: SpawnedServer[] = [];
  for (let i = 0; i < n; i++) nodes.push(await install.start());
  const org = await install.setup(nodes[0] as SpawnedServer);
  const space = (await org.owner.api.post(`/api/v1/organizations/${org.id}/spaces`, { name: "Launch" })).body;
  const base = `/api/v1/organizations/${org.id}/spaces/${space.id}`;
  const room = (await org.owner.api.get(`${base}/chat-rooms`)).body.chat_rooms[0].id;
  const board = (await org.owner.api.get(`${base}/board`)).body;
  const columns = board.columns.map((c: { id: string }) => c.id) as string[];
  /** The owner's API through `node`. */
  const through = (node: SpawnedServer) => client(node.url, org.owner.token);
  return { install, nodes, org, base, messages: `${base}/chat-rooms/${room}/messages`, columns, through };
}

describe("kill -9 of a node in the middle of writes through both", () => {
  let w: Awaited<ReturnType<typeof world>>;
  const acked = { posts: new Set<string>(), tasks: new Set<string>(), moves: 0, afterKill: 0 };
  let killed = false;

  beforeAll(async () => {
    w = await world("crash", 2);
    for (let i = 0; i < 12; i++) {
      const node = w.nodes[i % 2] as SpawnedServer;
      const made = await w.through(node).post(`${w.base}/tasks`, { title: `task ${i}`, column_id: w.columns[0] });
      expect(made.status).toBe(201);
      acked.tasks.add(made.body.id);
    }
  }, 60_000);

  /** One client's writes through `api` until `running()` says stop; each 2xx is recorded. */
  async function writer(api: Client, name: string, running: () => boolean): Promise<void> {
    const tasks = [...acked.tasks];
    for (let n = 0; running(); n++) {
      try {
        if (n % 3 === 2) {
          const id = tasks[(n * 7 + name.length) % tasks.length] as string;
          const column = w.columns[n % w.columns.length];
          const moved = await api.patch(`${w.base}/tasks/${id}`, { column_id: column, position: 0 });
          if (moved.status === 200) acked.moves++;
          continue;
        }
        const content = `${name} post ${n}`;
        const posted = await api.post(w.messages, { content });
        if (posted.status === 201) {
          acked.posts.add(content);
          if (killed) acked.afterKill++;
        }
      } catch {
        // The node went away mid-request: that write was not acknowledged, and this client is done.
        return;
      }
    }
  }

  it("loses no acknowledged write, and the survivor goes on writing at once", async () => {
    const [a, b] = w.nodes as [SpawnedServer, SpawnedServer];
    let stop = false;
    const running = () => !stop;
    const load = Promise.all(
      [a, b].flatMap((node, i) => [0, 1, 2].map((c) => writer(w.through(node), `n${i} c${c}`, running))),
    );
    await Bun.sleep(1500);
    a.proc.kill("SIGKILL");
    killed = true;
    await a.proc.exited;
    // B keeps writing for a while after the kill: the dead node's write lock did not outlive it.
    await Bun.sleep(1500);
    stop = true;
    await load;
    expect(acked.afterKill).toBeGreaterThan(0);
    expect(acked.moves).toBeGreaterThan(0);

    const stored = await allMessages(w.through(b), w.messages);
    const ids = stored.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const contents = stored.map((m) => m.content);
    expect([...acked.posts].filter((c) => !contents.includes(c))).toEqual([]);
    // Each post stored once, even those whose answer the kill cut off.
    expect(contents.length).toBe(new Set(contents).size);
  }, 30_000);

  it("keeps every task once, and each column's order dense", async () => {
    const b = w.nodes[1] as SpawnedServer;
    const listed = (await w.through(b).get(`${w.base}/tasks?limit=1000`)).body.tasks as {
      id: string;
      column_id: string;
      position: number;
    }[];
    expect(listed.map((t) => t.id).sort()).toEqual([...acked.tasks].sort());
    for (const column of w.columns) {
      const positions = listed.filter((t) => t.column_id === column).map((t) => t.position);
      expect(positions.sort((x, y) => x - y)).toEqual(positions.map((_, i) => i));
    }
  });
});

describe("a staff reply whose node is killed -9 while the model answers", () => {
  // Another node takes the job back when its lease lapses or its node is silent for 5 s, whichever comes first.
  const cases = [
    { lease: "2", when: "once its 2 s lease lapses" },
    { lease: "30", when: "once its node is silent for 5 s, before its 30 s lease lapses" },
  ];
  for (const { lease, when } of cases) {
    it(`is finished by another node ${when}: one reply, the model asked twice in all`, async () => {
      const hold = Promise.withResolvers<void>();
      const fake = startFakeProvider(async (_request, nth) => {
        // The first call never gets its answer to the node that made it: that node is killed meanwhile.
        if (nth === 1) await hold.promise;
        return completion("The answer, once");
      });
      fakes.push(fake);
      // Only node A runs at first, so the job is A's.
      const env = { MODELROUTER_API_BASE_URL: `${fake.origin}/api/v1`, TANDEM_JOB_LEASE_SEC: lease };
      const w = await world("reply", 1, env);
      const orgBase = `/api/v1/organizations/${w.org.id}`;
      const owner = w.org.owner.api;
      expect((await owner.put(`${orgBase}/integrations/modelrouter`, { api_key: "key-1234" })).status).toBe(200);
      const staff = (await owner.post(`${orgBase}/service-accounts`, { name: "Ada" })).body.service_account;
      const [a] = w.nodes as [SpawnedServer];
      expect((await w.through(a).post(w.messages, { content: "@Ada are you there?" })).status).toBe(201);
      await eventually(() => fake.requests.length === 1, "the gateway to be asked");

      const b = await w.install.start();
      // B starting, and looking every second, leaves A's job to A while A lives: no second question.
      await Bun.sleep(3000);
      expect(fake.requests.length).toBe(1);
      a.proc.kill("SIGKILL");
      await a.proc.exited;
      const killedAt = Date.now();
      hold.resolve();

      await eventually(() => fake.requests.length >= 2, "the job to be taken up by B", 10_000);
      expect(Date.now() - killedAt).toBeLessThan(9000);
      const byStaff = async () =>
        (await allMessages(w.through(b), w.messages)).filter((m) => m.author_user_id === staff.user_id);
      let replies = await byStaff();
      for (let i = 0; i < 100 && replies.length === 0; i++) {
        await Bun.sleep(50);
        replies = await byStaff();
      }
      // Time for a second reply to appear, were there one.
      await Bun.sleep(2500);
      replies = await byStaff();
      expect(replies.map((m) => m.content)).toEqual(["The answer, once"]);
      expect(fake.requests.length).toBe(2);
    }, 60_000);
  }
});
