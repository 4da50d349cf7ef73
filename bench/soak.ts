/**
 * The soak: the load model of bench/people.ts (1,000 people by default, `BENCH_SOAK_PEOPLE`) held for
 * `BENCH_SOAK_SECONDS` (default 600), sampling the server's memory (RSS) and the size of its WAL every 10 s.
 * It passes when nothing is lost, no request fails, every p99 stays under 100 ms, memory settles (the highest RSS
 * of the last half at most 1.25 times that of the first half) and the WAL stays under 64 MiB.
 *
 *   taskset -c 1 bun bench/soak.ts
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { cleanup, memory } from "./harness";
import { runPeople } from "./people";

const PEOPLE = Number(process.env.BENCH_SOAK_PEOPLE ?? 1000);
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const MiB = 1024 * 1024;

const samples: { rss: number; wal: number }[] = [];
const row = await runPeople(PEOPLE, SECONDS, (server) => {
  const wal = join(server.dir, "tandem.db-wal");
  samples.push({ rss: memory(server.pid).rss, wal: existsSync(wal) ? statSync(wal).size : 0 });
});
await cleanup();
const half = Math.floor(samples.length / 2);
const maxOf = (xs: { rss: number }[]) => Math.max(...xs.map((s) => s.rss));
const first = maxOf(samples.slice(0, half));
const last = maxOf(samples.slice(half));
const walMax = Math.max(...samples.map((s) => s.wal));
const settled = last <= first * 1.25;
const summary = {
  ...row,
  seconds: SECONDS,
  rss_mib: samples.map((s) => +(s.rss / MiB).toFixed(1)),
  rss_first_half_max_mib: +(first / MiB).toFixed(1),
  rss_last_half_max_mib: +(last / MiB).toFixed(1),
  wal_max_mib: +(walMax / MiB).toFixed(1),
  pass: row.pass && settled && walMax < 64 * MiB,
};
console.log(JSON.stringify(summary));
process.exit(summary.pass ? 0 : 1);
