/**
 * The scenarios and their targets. A load scenario says what wrk requests (and how to seed its server); a probe
 * measures something else once. Add new ones here; bench/harness.ts does the rest.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { automations } from "./automations";
import {
  errorCount,
  freePort,
  type LoadScenario,
  lua,
  MiB,
  median,
  memory,
  mib,
  noiseOf,
  opts,
  type ProbeScenario,
  pin,
  type Scenario,
  type Server,
  luaWith as script,
  setupDataDir,
  startTandem,
  waitQuiet,
  wrk,
} from "./harness";
import { inboxPost } from "./inbox";
import { realtime } from "./realtime";
import { search } from "./search";
import { api, space, times } from "./seed";
import { staff } from "./staff";
import { ui } from "./ui";
import { webhookScenarios } from "./webhooks";

const bearer = async (server: Server) => ({ Authorization: `Bearer ${await server.token()}` });

const health: LoadScenario = {
  kind: "load",
  name: "GET /health",
  request: () => ({ path: "/health" }),
};

const me: LoadScenario = {
  kind: "load",
  name: "GET /api/v1/me (bearer)",
  request: async (server) => ({ path: "/api/v1/me", headers: await bearer(server) }),
  minRatio: 0.5,
};

const patchMe = async (server: Server) => ({
  path: "/api/v1/me",
  headers: await bearer(server),
  lua: lua("patch-me.lua"),
});

const write: LoadScenario = {
  kind: "load",
  name: "PATCH /api/v1/me (write)",
  request: patchMe,
};

/** exec of `tandem serve` on a set-up data dir to the first 200 on /health, polled every millisecond. */
const startup: ProbeScenario = {
  kind: "probe",
  name: "startup to first 200 /health",
  async run() {
    const dir = setupDataDir();
    // One untimed start first, so every timed run finds the secrets generated and the database migrated.
    await (await startTandem(dir)).stop();
    const times: number[] = [];
    for (let i = 0; i < opts.startupRuns; i++) {
      await waitQuiet();
      const port = await freePort();
      const cmd = [opts.bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data", dir];
      const t0 = performance.now();
      const proc = Bun.spawn(pin(opts.serverCpu, cmd), {
        stdout: opts.log === "file" ? Bun.file(join(dir, `startup-${i}.log`)) : "ignore",
        stderr: "inherit",
      });
      for (;;) {
        const status = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) break;
        if (proc.exitCode !== null) throw new Error(`tandem serve exited with ${proc.exitCode}`);
        if (performance.now() - t0 > 10_000) throw new Error("tandem serve did not answer /health within 10 s");
        await Bun.sleep(1);
      }
      times.push(performance.now() - t0);
      proc.kill("SIGTERM");
      await proc.exited;
    }
    const ms = median(times);
    return {
      scenario: this.name,
      measured: `${ms.toFixed(1)} ms (median of ${times.length}, min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})`,
      target: "< 100 ms",
      pass: ms < 100,
      details: { median_ms: ms, runs_ms: times },
    };
  },
};

/** VmRSS once idle after a handful of requests, then after a login (argon2id takes 64 MiB per hash). */
const rss: ProbeScenario = {
  kind: "probe",
  name: "idle RSS",
  async run() {
    const server = await startTandem();
    for (let i = 0; i < 10; i++) {
      await fetch(`${server.url}/health`).then((r) => r.arrayBuffer());
      await fetch(`${server.url}/api/v1/public/instance`).then((r) => r.arrayBuffer());
    }
    await Bun.sleep(1000);
    const idle = memory(server.pid);
    const token = await server.token();
    for (let i = 0; i < 10; i++) {
      await fetch(`${server.url}/api/v1/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) =>
        r.arrayBuffer(),
      );
    }
    await Bun.sleep(1000);
    const afterLogin = memory(server.pid);
    await server.stop();
    return {
      scenario: this.name,
      measured: `${mib(idle.rss)} (after a login ${mib(afterLogin.rss)}, peak ${mib(afterLogin.hwm)})`,
      target: "< 80 MiB",
      pass: idle.rss < 80 * MiB,
      details: { idle_rss: idle.rss, after_login_rss: afterLogin.rss, after_login_hwm: afterLogin.hwm },
    };
  },
};

/** Sustained PATCH /me under wrk while the WAL file's size is sampled every 100 ms. */
const wal: ProbeScenario = {
  kind: "probe",
  name: "WAL under sustained writes",
  async run({ bareRps }) {
    const server = await startTandem();
    const walPath = join(server.dir, "tandem.db-wal");
    const size = () => {
      try {
        return statSync(walPath).size;
      } catch {
        return 0;
      }
    };
    const samples: number[] = [];
    const req = await patchMe(server);
    await waitQuiet();
    const timer = setInterval(() => samples.push(size()), 100);
    const r = await wrk(server, req, opts.walDuration);
    clearInterval(timer);
    await server.stop();
    const third = Math.max(1, Math.floor(samples.length / 3));
    const max = Math.max(...samples);
    const firstMax = Math.max(...samples.slice(0, third));
    const lastMax = Math.max(...samples.slice(-third));
    const final = samples.at(-1) ?? 0;
    const growing = lastMax > firstMax * 1.25;
    const errors = errorCount(r);
    return {
      scenario: this.name,
      rps: r.rps,
      p50_ms: r.latency_ms.p50,
      p99_ms: r.latency_ms.p99,
      ratio: r.rps / bareRps,
      measured:
        `max ${mib(max)}, final ${mib(final)}, thirds ${mib(firstMax)} -> ${mib(lastMax)}` +
        (errors ? `, ${errors} errors/non-2xx` : ""),
      noise: noiseOf([r]),
      target: "max < 64 MiB, not growing",
      pass: max < 64 * MiB && !growing && errors === 0 && r.requests > 0,
      details: { wrk: r, seconds: opts.walDuration, samples_every_ms: 100, wal_bytes: samples },
    };
  },
};

// Workspace: chat, tasks, files. Sizes are stated in each name.

/** What a scenario made on each server it started (bench/postgres.ts runs each on two servers at once). */
const chatRoom = new Map<Server, string>();
const chatPost: LoadScenario = {
  kind: "load",
  name: "POST chat message",
  async start() {
    const server = await startTandem();
    const s = await space(server, "chat post");
    chatRoom.set(server, `${s.base}/chat-rooms/${s.room}/messages`);
    return server;
  },
  request: async (server) => ({
    path: chatRoom.get(server) as string,
    headers: await bearer(server),
    lua: script("post-json.lua", { BODY: '{"content":"hello from the bench, message %d"}' }),
  }),
  minRatio: 0.2,
};

let bigRoom = "";
const chatList: LoadScenario = {
  kind: "load",
  name: "GET 50 chat messages with reactions (room of 100k)",
  async start() {
    const server = await startTandem();
    const s = await space(server, "chat list");
    bigRoom = `${s.base}/chat-rooms/${s.room}/messages`;
    const ids: string[] = [];
    await times(100_000, 64, async (i) => {
      const { message } = await api(server, "POST", bigRoom, { content: `message ${i} of a long conversation` });
      if (i >= 100_000 - 400) ids.push(message.id);
    });
    await times(ids.length * 3, 32, (i) =>
      api(server, "POST", `${bigRoom}/${ids[i % ids.length]}/reactions`, {
        emoji: ["👍", "🎉", "👀"][Math.floor(i / ids.length)],
      }),
    );
    return server;
  },
  request: async (server) => ({ path: `${bigRoom}?limit=50`, headers: await bearer(server) }),
  minRatio: 0.1,
  maxP99Ms: 10,
  connections: 10,
};

const messagesPath = new Map<Server, string>();
const singleInsert: LoadScenario = {
  kind: "load",
  name: "POST task message (a single-INSERT route)",
  async start() {
    const server = await startTandem();
    const s = await space(server, "single insert");
    const task = await api(server, "POST", `${s.base}/tasks`, { title: "talk", column_id: s.columns[0] });
    messagesPath.set(server, `${s.base}/tasks/${task.id}/messages`);
    return server;
  },
  request: async (server) => ({
    path: messagesPath.get(server) as string,
    headers: await bearer(server),
    lua: script("post-json.lua", { BODY: '{"content":"comment %d"}' }),
  }),
};

const moves = new Map<Server, { prefix: string; ids: string[] }>();
const taskMove: LoadScenario = {
  kind: "load",
  name: "PATCH task move (column of 1,000)",
  async start() {
    const server = await startTandem();
    const s = await space(server, "task move");
    const ids: string[] = [];
    await times(1000, 16, async (i) => {
      ids.push((await api(server, "POST", `${s.base}/tasks`, { title: `task ${i}`, column_id: s.columns[0] })).id);
    });
    moves.set(server, { prefix: `${s.base}/tasks/`, ids });
    return server;
  },
  request: async (server) => {
    const move = moves.get(server) as { prefix: string; ids: string[] };
    return {
      path: move.prefix,
      headers: await bearer(server),
      lua: script("move-task.lua", { PREFIX: move.prefix, IDS: move.ids, COLUMN_SIZE: 1000 }),
    };
  },
  relativeTo: "POST task message (a single-INSERT route)",
  minRatio: 0.8,
};

let myTasksPath = "";
const myTasks: LoadScenario = {
  kind: "load",
  name: "GET /me/tasks (10k tasks over 50 spaces), one client",
  async start() {
    const server = await startTandem();
    const me = await api(server, "GET", "/api/v1/me");
    for (let n = 0; n < 50; n++) {
      const s = await space(server, `my tasks ${n}`);
      myTasksPath = `/api/v1/me/tasks?org_id=${s.org}`;
      await times(200, 16, (i) =>
        api(server, "POST", `${s.base}/tasks`, {
          title: `task ${n}-${i}`,
          column_id: s.columns[i % 4],
          assignee_user_id: me.user.id,
        }),
      );
    }
    return server;
  },
  request: async (server) => ({ path: myTasksPath, headers: await bearer(server) }),
  maxP99Ms: 5,
  connections: 1,
};

let treePath = "";
const tree: LoadScenario = {
  kind: "load",
  name: "GET files/tree (10k nodes), one client",
  async start() {
    const server = await startTandem();
    const s = await space(server, "tree");
    treePath = `${s.base}/files/tree`;
    const folders: string[] = [];
    await times(100, 16, async (i) => {
      folders.push((await api(server, "POST", `${s.base}/files/folders`, { name: `folder ${i}` })).node.id);
    });
    await times(9900, 32, (i) =>
      api(server, "POST", `${s.base}/files/text`, {
        name: `note ${i}.md`,
        parent_id: folders[i % folders.length],
        content: `# Note ${i}\n`,
      }),
    );
    return server;
  },
  request: async (server) => ({ path: treePath, headers: await bearer(server) }),
  maxP99Ms: 30,
  connections: 1,
};

export const scenarios: Scenario[] = [
  health,
  me,
  write,
  chatPost,
  inboxPost,
  chatList,
  singleInsert,
  taskMove,
  myTasks,
  tree,
  ...realtime,
  ...staff,
  ...automations,
  ...search,
  ...webhookScenarios,
  ...ui,
  startup,
  rss,
  wal,
];
