/**
 * How many people one machine serves: N simulated people on `dist/tandem` pinned to one core, this load on the
 * other. Each person keeps a live-events socket open, posts in their team's room every 30 s, reads it (the newest
 * 50 messages) every 10 s, moves a task every minute, and one in ten types in the team's shared file (a keystroke
 * a second, through the editing socket). People work in teams of 50: each team a private space with its room,
 * a board of 100 tasks and a file, and one account per team (its 50 people are its sessions), so a post reaches the
 * 50 sockets of its team, as in an organization of teams.
 *
 * For each N: 10 s of ramp-up (people start at random moments), then `BENCH_PEOPLE_SECONDS` (default 30) measured.
 * Reported: the p99 of every request kind and of all of them, and whether anything was lost: every post must reach
 * every socket of its team, and every typist's document must end equal to the server's. The target: the largest N
 * at which every request's p99 stays under 100 ms and nothing is lost is 2,000 or more.
 *
 *   taskset -c 1 bun bench/people.ts            (N = BENCH_PEOPLE, default "500,1000,2000,3000")
 */
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { cleanup, type Server, startTandem } from "./harness";
import { api, orgOf, times } from "./seed";

const TEAM = 50;
const TASKS_PER_TEAM = 100;
const SECONDS = Number(process.env.BENCH_PEOPLE_SECONDS ?? 30);
const RAMP_SECONDS = 10;

interface Team {
  spaceId: string;
  base: string;
  roomId: string;
  columns: string[];
  tasks: string[];
  fileId: string;
  token: string;
  /** Posts the server acknowledged, by content. */
  acked: Set<string>;
}

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

async function seed(server: Server, teams: number): Promise<Team[]> {
  const org = await orgOf(server);
  const out: Team[] = [];
  for (let t = 0; t < teams; t++) {
    const invite = await api<{ token: string }>(server, "POST", `/api/v1/organizations/${org}/invites`, {});
    const accepted = await fetch(`${server.url}/api/v1/auth/accept-invite`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        token: invite.token,
        email: `team-${t}@people.bench`,
        password: "team-password",
        display_name: `Team ${t}`,
      }),
    });
    if (!accepted.ok) throw new Error(`accept-invite: ${accepted.status} ${await accepted.text()}`);
    const { access_token: token } = (await accepted.json()) as { access_token: string };
    const me = (await (
      await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      user: { id: string };
    };
    const userId = me.user.id;
    const space = await api<{ id: string }>(server, "POST", `/api/v1/organizations/${org}/spaces`, {
      name: `Team ${t}`,
      private: true,
    });
    const base = `/api/v1/organizations/${org}/spaces/${space.id}`;
    await api(server, "POST", `${base}/members`, { user_id: userId });
    const room = (await api<{ chat_rooms: { id: string }[] }>(server, "GET", `${base}/chat-rooms`)).chat_rooms[0];
    const board = await api<{ columns: { id: string }[] }>(server, "GET", `${base}/board`);
    const columns = board.columns.map((c) => c.id);
    const tasks: string[] = [];
    await times(TASKS_PER_TEAM, 8, async (i) => {
      tasks.push(
        (
          await api<{ id: string }>(server, "POST", `${base}/tasks`, {
            title: `task ${i}`,
            column_id: columns[i % columns.length],
          })
        ).id,
      );
    });
    const file = await api<{ node: { id: string } }>(server, "POST", `${base}/files/text`, {
      name: "notes.md",
      content: "",
    });
    out.push({
      spaceId: space.id,
      base,
      roomId: (room as { id: string }).id,
      columns,
      tasks,
      fileId: file.node.id,
      token,
      acked: new Set(),
    });
  }
  return out;
}

/**
 * One run of `n` people for `seconds` measured; `sample` (if given) is called every 10 s of the run with the
 * server, for a soak to read its memory and its WAL.
 */
export async function runPeople(n: number, seconds = SECONDS, sample?: (server: Server) => void) {
  const server = await startTandem();
  const teams = await seed(server, Math.ceil(n / TEAM));
  console.error(`people: ${n} people in ${teams.length} teams, seeded`);
  const org = await orgOf(server);
  const latency: Record<string, number[]> = { post: [], read: [], move: [] };
  const errors: string[] = [];
  let measuring = false;
  let running = true;
  /** Deliveries of each post to each team socket: content -> sockets that received it. */
  const received = new Map<string, number>();
  const sockets: WebSocket[] = [];
  const typists: { team: Team; doc: Y.Doc; provider: WebsocketProvider; typed: number }[] = [];

  const timed = async (kind: string, method: string, team: Team, path: string, body?: unknown) => {
    const t0 = performance.now();
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${team.token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    await res.text();
    const ms = performance.now() - t0;
    if (measuring) latency[kind]?.push(ms);
    if (res.status >= 400) errors.push(`${kind} ${res.status}`);
    return res.status;
  };

  const wsBase = server.url.replace(/^http/, "ws");
  const people: Promise<void>[] = [];
  for (let p = 0; p < n; p++) {
    const team = teams[Math.floor(p / TEAM)] as Team;
    const ws = new WebSocket(`${wsBase}/api/v1/organizations/${org}/ws?token=${team.token}`);
    ws.onmessage = (event) => {
      const e = JSON.parse(String(event.data)) as { type: string; payload?: { message?: { content?: string } } };
      const content = e.type === "chat.message.created" ? e.payload?.message?.content : undefined;
      if (content) received.set(content, (received.get(content) ?? 0) + 1);
    };
    sockets.push(ws);
    if (p % 10 === 0) {
      const doc = new Y.Doc();
      const provider = new WebsocketProvider(
        `${wsBase}/api/v1/organizations/${org}/spaces/${team.spaceId}/files/collab/ws`,
        team.fileId,
        doc,
        {
          params: { token: team.token },
          disableBc: true,
        },
      );
      typists.push({ team, doc, provider, typed: 0 });
    }
    const person = async () => {
      await Bun.sleep(Math.random() * RAMP_SECONDS * 1000);
      const next = {
        post: performance.now() + Math.random() * 30_000,
        read: performance.now(),
        move: performance.now() + Math.random() * 60_000,
      };
      while (running) {
        const now = performance.now();
        if (now >= next.read) {
          next.read = now + 10_000;
          await timed("read", "GET", team, `${team.base}/chat-rooms/${team.roomId}/messages?limit=50`);
        } else if (now >= next.post) {
          next.post = now + 30_000;
          const content = `person ${p} says ${now.toFixed(0)}`;
          if (
            (await timed("post", "POST", team, `${team.base}/chat-rooms/${team.roomId}/messages`, { content })) === 201
          )
            team.acked.add(content);
        } else if (now >= next.move) {
          next.move = now + 60_000;
          const task = team.tasks[Math.floor(Math.random() * team.tasks.length)];
          const column = team.columns[Math.floor(Math.random() * team.columns.length)];
          await timed("move", "PATCH", team, `${team.base}/tasks/${task}`, { column_id: column, position: 0 });
        } else {
          await Bun.sleep(Math.min(next.read, next.post, next.move) - now);
        }
      }
    };
    people.push(person());
  }
  next: for (;;) {
    for (const t of typists)
      if (!t.provider.synced) {
        await Bun.sleep(50);
        continue next;
      }
    break;
  }
  console.error(`people: ${typists.length} typists synced`);
  const typing = setInterval(() => {
    for (const t of typists) {
      t.doc.getText("content").insert(0, "k");
      t.typed++;
    }
  }, 1000);
  await Bun.sleep(RAMP_SECONDS * 1000);
  measuring = true;
  const sampler = sample ? setInterval(() => sample(server), 10_000) : null;
  await Bun.sleep(seconds * 1000);
  if (sampler) clearInterval(sampler);
  measuring = false;
  running = false;
  clearInterval(typing);
  await Promise.all(people);
  await Bun.sleep(2000);

  let expected = 0;
  let delivered = 0;
  for (const team of teams) {
    const size = Math.min(TEAM, n - teams.indexOf(team) * TEAM);
    for (const content of team.acked) {
      expected += size;
      delivered += Math.min(received.get(content) ?? 0, size);
    }
  }
  let diverged = 0;
  for (const t of typists) {
    const res = await fetch(`${server.url}${t.team.base}/files/${t.team.fileId}/content`, {
      headers: { authorization: `Bearer ${t.team.token}` },
    });
    if ((await res.text()) !== t.doc.getText("content").toString()) diverged++;
    t.provider.destroy();
  }
  for (const ws of sockets) ws.close();
  await server.stop();
  const all = Object.values(latency).flat();
  const row = {
    people: n,
    requests: all.length,
    p99_ms: Object.fromEntries(Object.entries(latency).map(([k, xs]) => [k, +percentile(xs, 99).toFixed(1)])),
    p99_all_ms: +percentile(all, 99).toFixed(1),
    errors: errors.length,
    posts_delivered: `${delivered}/${expected}`,
    typists_diverged: diverged,
    pass:
      Object.values(latency).every((xs) => percentile(xs, 99) < 100) &&
      errors.length === 0 &&
      delivered === expected &&
      diverged === 0,
  };
  console.log(JSON.stringify(row));
  return row;
}

if (import.meta.main) {
  const rows = [];
  for (const n of (process.env.BENCH_PEOPLE ?? "500,1000,2000,3000").split(",").map(Number))
    rows.push(await runPeople(n));
  await cleanup();
  const largest = rows.filter((r) => r.pass).map((r) => r.people);
  console.log(`largest N with every p99 < 100 ms and nothing lost: ${largest.length ? Math.max(...largest) : "none"}`);
  // The editing clients' timers would keep the process alive.
  process.exit(0);
}
