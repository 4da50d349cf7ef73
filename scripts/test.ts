/**
 * `npm test`: every test on the default engine (SQLite), then the API tests again with every test server on
 * PostgreSQL (`TANDEM_TEST_DATABASE=postgres`: a real PostgreSQL 15 the tests start, test/helpers/postgres.ts).
 * Arguments go to both runs as they would to `bun test` (a file or folder runs only that, on both engines);
 * `--sqlite` or `--postgres` first runs one engine only. Ends with each failed test again, with what it printed
 * before it failed (a long log is often read from its end), and both runs' counts added up, as `bun test` prints
 * them.
 */

/** The folders whose tests speak to servers over HTTP and sockets: the API suite, run on both engines. */
const API_SUITE = [
  "test/acceptance",
  "test/access",
  "test/ai",
  "test/audit",
  "test/auth",
  "test/chat",
  "test/collab",
  "test/events",
  "test/files",
  "test/inbox",
  "test/jobs",
  "test/people",
  "test/search",
  "test/spaces",
  "test/staff",
  "test/tasks",
];

export {};

const args = process.argv.slice(2);
const only = args[0] === "--sqlite" || args[0] === "--postgres" ? (args.shift() as string) : null;
const given = args.filter((a) => !a.startsWith("-"));
const flags = args.filter((a) => a.startsWith("-"));

interface Counts {
  pass: number;
  fail: number;
  code: number;
  /** Each failed test's `(fail)` line, after the lines printed since the test before it ended. */
  failures: string[];
}

/** At most this many lines of what a failed test printed are repeated at the end. */
const FAILURE_LINES = 60;

async function run(paths: string[], env: Record<string, string>, label: string): Promise<Counts> {
  console.log(`\n=== ${label}\n`);
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...flags, ...paths], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const counts: Counts = { pass: 0, fail: 0, code: 0, failures: [] };
  // bun test writes its report to stderr: the lines since the last test ended are what the next one printed.
  let since: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    let last = "";
    let partial = "";
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      out.write(text);
      last = (last + text).slice(-4000);
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        // bun test names each failed test again at its end: the first time is the one with its output.
        if (line.startsWith("(fail)") && !counts.failures.some((f) => f.endsWith(line))) {
          counts.failures.push([`${label}:`, ...since.slice(-FAILURE_LINES), line].join("\n"));
        }
        if (/^\((pass|fail|skip|todo)\)/.test(line)) since = [];
        else since.push(line);
      }
    }
    for (const [, n, kind] of last.matchAll(/^ *(\d+) (pass|fail)$/gm)) counts[kind as "pass" | "fail"] = Number(n);
  };
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  counts.code = await proc.exited;
  return counts;
}

const runs: Counts[] = [];
if (only !== "--postgres") runs.push(await run(given, {}, "SQLite (every test)"));
if (only !== "--sqlite") {
  // The API suite, or what of it was named.
  const paths = given.length === 0 ? API_SUITE : given.filter((p) => API_SUITE.some((dir) => p.startsWith(dir)));
  if (paths.length > 0 || only === "--postgres") {
    runs.push(
      await run(paths.length > 0 ? paths : given, { TANDEM_TEST_DATABASE: "postgres" }, "PostgreSQL (the API suite)"),
    );
  }
}
const failures = runs.flatMap((r) => r.failures);
if (failures.length > 0) console.log(`\nFailed:\n\n${failures.join("\n\n")}`);
const pass = runs.reduce((n, r) => n + r.pass, 0);
const fail = runs.reduce((n, r) => n + r.fail, 0);
console.log(`\nBoth engines:\n ${pass} pass\n ${fail} fail`);
process.exit(runs.some((r) => r.code !== 0) ? 1 : 0);
