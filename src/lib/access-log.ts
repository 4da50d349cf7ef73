/**
 * The access log: one JSON line per request, in the same shape as the other log lines. Written here rather
 * than through pino because pino's per-line cost (~4-6 µs with redaction) is as much as a whole small request;
 * these lines carry only fields the server fills itself, so nothing needs redacting.
 */

/** Where lines go: stdout, gathered and written every 100 ms (or 32 KiB), unless a test gives its own sink. */
export interface LineSink {
  write(line: string): void;
}

/** What one access line says. */
export interface AccessEntry {
  req_id: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

/** Writes access lines to `sink` (default: buffered stdout); a level above `info` turns them off. */
export function createAccessLog(level: string, sink?: LineSink): (entry: AccessEntry) => void {
  if (!["trace", "debug", "info"].includes(level)) return () => undefined;
  const out = sink ?? bufferedStdout();
  // Many lines share a millisecond under load: its timestamp is formatted once.
  let lastMs = 0;
  let lastTime = "";
  return (entry) => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastTime = new Date(now).toISOString();
    }
    out.write(
      `{"level":"info","time":"${lastTime}","req_id":"${entry.req_id}","method":"${entry.method}","path":${JSON.stringify(entry.path)},"status":${entry.status},"ms":${entry.ms}}\n`,
    );
  };
}

let stdout: LineSink | undefined;

/** Lines are gathered in a string and written together: one write per line costs as much as building it. */
const FLUSH_BYTES = 32 * 1024;
const FLUSH_MS = 100;

function bufferedStdout(): LineSink {
  if (stdout) return stdout;
  const writer = Bun.stdout.writer({ highWaterMark: 64 * 1024 });
  let pending = "";
  const flush = () => {
    if (pending === "") return;
    writer.write(pending);
    pending = "";
    writer.flush();
  };
  setInterval(flush, FLUSH_MS).unref();
  process.on("exit", flush);
  stdout = {
    write: (line) => {
      pending += line;
      if (pending.length >= FLUSH_BYTES) flush();
    },
  };
  return stdout;
}
