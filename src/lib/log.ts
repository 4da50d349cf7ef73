/**
 * The process logger: pino writing JSON lines to stdout (transports use worker threads, which a compiled
 * binary cannot start). Anything that looks like a credential is redacted by path.
 */
import pino from "pino";

/** The logger type every module takes. */
export type Logger = pino.Logger;

/** Paths that would hold a secret if a caller ever logged a body or headers. */
const REDACT = [
  "password",
  "*.password",
  "token",
  "*.token",
  "access_token",
  "refresh_token",
  "*.access_token",
  "*.refresh_token",
  "api_key",
  "*.api_key",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
];

/** Creates the logger; `destination` defaults to stdout. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: "[redacted]" },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** Removes credentials from a URL's query string before it is logged (`?token=` on WebSocket upgrades). */
export function redactUrl(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf("?");
  if (q === -1) return pathAndQuery;
  const params = new URLSearchParams(pathAndQuery.slice(q + 1));
  let changed = false;
  for (const key of [...params.keys()]) {
    if (/token|secret|password|key/i.test(key)) {
      params.set(key, "[redacted]");
      changed = true;
    }
  }
  return changed ? `${pathAndQuery.slice(0, q)}?${params.toString()}` : pathAndQuery;
}

/**
 * A gate for repeated log lines: `write` runs at most once per `ms`, and is told how many calls it stood for
 * since the last one it ran.
 */
export function atMostEvery(ms: number): (write: (suppressed: number) => void) => void {
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (write) => {
    const now = Date.now();
    if (now - last < ms) {
      suppressed++;
      return;
    }
    last = now;
    write(suppressed);
    suppressed = 0;
  };
}
