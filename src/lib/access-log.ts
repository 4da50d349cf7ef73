/**
 * The access log: one JSON line per request, in the same shape as the other log lines. Written here rather
 * than through pino because pino's per-line cost (~4-6 µs with redaction) is as much as a whole small request;
 * these lines carry only fields the server fills itself, so nothing needs redacting.
 */

/** Where lines go: stdout, buffered and flushed every 100 ms, unless a test gives its own sink. */
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

function bufferedStdout(): LineSink {
  if (stdout) return stdout;
  const writer = Bun.stdout.writer({ highWaterMark: 64 * 1024 });
  setInterval(() => writer.flush(), 100).unref();
  process.on("exit", () => writer.flush());
  stdout = { write: (line) => void writer.write(line) };
  return stdout;
}
