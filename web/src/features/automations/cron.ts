/**
 * A cron expression in words and its next runs, as the server's scheduler reads it: 5 fields (minute first) or
 * 6 (seconds first), in an IANA time zone (UTC when none is given). croner is what the server schedules with, so
 * the runs shown here are the runs that happen; cronstrue says the expression in words. Both load with the
 * automations screens only, not with the first screen.
 */
import { Cron } from "croner";
import cronstrue from "cronstrue";

/** A schedule read for people: in words and its next runs, or why it is not a schedule. */
export type CronReading = { ok: true; words: string; next: Date[] } | { ok: false; problem: string };

/** The time zone the server uses when a schedule names none. */
export const DEFAULT_TIMEZONE = "UTC";

/** Reads `expression` in `timezone`: its words and its next `count` runs after `from`. */
export function readCron(expression: string, timezone = DEFAULT_TIMEZONE, count = 3, from = new Date()): CronReading {
  const trimmed = expression.trim();
  if (trimmed === "") return { ok: false, problem: "No schedule yet." };
  const fields = trimmed.split(/\s+/).length;
  if (fields !== 5 && fields !== 6)
    return { ok: false, problem: `A schedule has 5 fields (minute first) or 6 (seconds first), not ${fields}.` };
  let next: Date[];
  try {
    // As the server reads it (automations.config.ts): croner's own reading of 5 or 6 fields.
    next = new Cron(trimmed, { timezone, paused: true }).nextRuns(count, from);
  } catch (error) {
    return { ok: false, problem: problemOf(error, timezone) };
  }
  let words: string;
  try {
    words = cronstrue.toString(trimmed, { use24HourTimeFormat: true, verbose: false });
  } catch {
    // croner accepts a few forms cronstrue cannot say; the expression itself is then shown.
    words = trimmed;
  }
  return { ok: true, words, next };
}

/** The schedule in words, or the expression itself when it cannot be read. */
export function cronWords(expression: string): string {
  const reading = readCron(expression, DEFAULT_TIMEZONE, 0);
  return reading.ok ? reading.words : expression;
}

function problemOf(error: unknown, timezone: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/time ?zone|timezone|Invalid time zone/i.test(message)) return `“${timezone}” is not a time zone.`;
  // croner's own words, without its "CronPattern: " prefix.
  return `Not a schedule: ${message.replace(/^CronPattern:\s*/, "")}`;
}

/** The IANA time zones this browser knows, for the time zone field. */
export function timeZones(): string[] {
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] };
  const zones = intl.supportedValuesOf?.("timeZone") ?? [];
  return zones.includes(DEFAULT_TIMEZONE) ? zones : [DEFAULT_TIMEZONE, ...zones];
}

/** The browser's own time zone. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || DEFAULT_TIMEZONE;
}

/** A run's time as people read it, in `timezone`: "Mon, Nov 30, 09:00" (seconds when the schedule has them). */
export function runTime(date: Date, timezone: string, seconds = false): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone: timezone,
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: seconds ? "2-digit" : undefined,
    hourCycle: "h23",
  }).format(date);
}
