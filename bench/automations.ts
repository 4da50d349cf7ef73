/**
 * Automations that run (contract §8), measured from outside:
 * - A tick under load: a scheduled automation posting every 5 s, while wrk saturates the same server with chat
 *   posts. For each tick, the time from the cron's instant to the message it posted (the run's `finished_at`,
 *   which commits with the message). Target: every tick within 1 s.
 * - 1,000 active per-minute schedules, nothing else going on: the server's CPU time over BENCH_SCHEDULE_MINUTES
 *   minutes (default 2) as a share of one core, each tick posting its message. Target: under 2%.
 */
import { readFileSync } from "node:fs";
import { errorCount, lua, opts, type ProbeScenario, type Row, startTandem, waitQuiet, wrk } from "./harness";
import { api, space, times } from "./seed";

/** User and system CPU time of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Run {
  status: string;
  created_at: string;
  finished_at: string | null;
}

const tickUnderLoad: ProbeScenario = {
  kind: "probe",
  name: "automations: a tick under the chat-post load",
  async run(): Promise<Row> {
    const server = await startTandem();
    const s = await space(server, "ticks");
    const every = 5;
    const { automation } = await api<{ automation: { id: string } }>(server, "POST", `${s.base}/automations`, {
      name: "Tick",
      kind: "scheduled",
      status: "active",
      config: { cron: `*/${every} * * * * *`, channel: "general", message: "tick" },
    });
    const seconds = Math.max(20, opts.duration * 4);
    await waitQuiet();
    const load = await wrk(
      server,
      {
        path: `${s.base}/chat-rooms/${s.room}/messages`,
        headers: { authorization: `Bearer ${await server.token()}` },
        lua: `BODY = ${JSON.stringify('{"content":"load %d"}')}\n${lua("post-json.lua")}`,
      },
      seconds,
    );
    await api(server, "PATCH", `${s.base}/automations/${automation.id}`, { status: "paused" });
    const { runs } = await api<{ runs: Run[] }>(server, "GET", `${s.base}/automations/${automation.id}/runs?limit=200`);
    await server.stop();
    // Each run's cron instant is its creation time rounded down to the step: a tick is never taken early.
    const delays = runs
      .filter((r) => r.status === "succeeded" && r.finished_at)
      .map((r) => {
        const created = Date.parse(r.created_at);
        const instant = created - (created % (every * 1000));
        return (Date.parse(r.finished_at as string) - instant) / 1000;
      })
      .sort((a, b) => a - b);
    const worst = delays.at(-1) ?? Number.POSITIVE_INFINITY;
    const failed = runs.filter((r) => r.status === "failed").length;
    const errors = errorCount(load);
    return {
      scenario: this.name,
      measured: `${delays.length} ticks, tick to message: p50 ${(delays[Math.floor(delays.length / 2)] ?? 0).toFixed(3)} s, max ${worst.toFixed(3)} s; load ${Math.round(load.rps)} posts/s`,
      target: "every tick within 1 s",
      pass: delays.length >= seconds / every - 1 && worst <= 1 && failed === 0 && errors === 0,
      details: { delays, failed, loadRps: load.rps, errors },
    };
  },
};

const idleSchedules: ProbeScenario = {
  kind: "probe",
  name: "automations: 1,000 per-minute schedules, idle",
  async run(): Promise<Row> {
    const server = await startTandem();
    const s = await space(server, "schedules");
    const n = 1000;
    // Spread over the minute, as a thousand teams' schedules would be: one at each of 60 seconds, in turn.
    await times(n, 8, (i) =>
      api(server, "POST", `${s.base}/automations`, {
        name: `Schedule ${i}`,
        kind: "scheduled",
        status: "active",
        config: { cron: `${i % 60} * * * * *`, channel: "general", message: `minute mark ${i}` },
      }),
    );
    const minutes = Number(process.env.BENCH_SCHEDULE_MINUTES ?? 2);
    // The first minute's ticks settle in before the measured window.
    await Bun.sleep(61_000);
    await waitQuiet();
    const before = cpuSeconds(server.pid);
    const start = performance.now();
    await Bun.sleep(minutes * 60_000);
    const cpu = cpuSeconds(server.pid) - before;
    const wall = (performance.now() - start) / 1000;
    const { messages } = await api<{ messages: unknown[] }>(
      server,
      "GET",
      `${s.base}/chat-rooms/${s.room}/messages?limit=1`,
    );
    await server.stop();
    const share = cpu / wall;
    return {
      scenario: this.name,
      measured: `${(share * 100).toFixed(2)}% of a core over ${minutes} min (${cpu.toFixed(2)} s CPU, ${n} runs a minute)`,
      target: "under 2% of a core",
      pass: share < 0.02 && messages.length > 0,
      details: { cpuSeconds: cpu, wallSeconds: wall, share },
    };
  },
};

export const automations = [tickUnderLoad, idleSchedules];
