/**
 * Which versions a file keeps, and who may restore one. Versions are thinned as they age, so a file edited all
 * day keeps a bounded history: every version of the last 24 hours, then the last one of each hour for a week,
 * then the last one of each day (docs/benchmarks.md measures a day of editing).
 */
import type { OrgActor } from "../../core/actor";
import { forbidden } from "../../core/errors";

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** Versions younger than this are all kept. */
export const KEEP_ALL_MS = DAY_MS;
/** Up to this age one version per hour is kept; past it, one per day. */
export const HOURLY_UNTIL_MS = 7 * DAY_MS;

/** A version as thinning sees it. */
export interface Aged {
  id: string;
  createdAt: number;
  authors: string[];
}

/** What thinning changes: versions dropped, and the new authors of the versions that take their changes. */
export interface Thinned {
  drop: string[];
  authors: Map<string, string[]>;
}

/** The hour or the day (UTC) a version stands for, by its age at `now`. */
function periodOf(createdAt: number, now: number): string {
  return now - createdAt < HOURLY_UNTIL_MS
    ? `h${Math.floor(createdAt / HOUR_MS)}`
    : `d${Math.floor(createdAt / DAY_MS)}`;
}

/**
 * Of a file's versions older than a day (oldest first), keeps the last of each period and drops the others. A
 * dropped version's changes are now part of the next kept one (the last of its period), whose authors then
 * name everyone who changed the file since the kept version before.
 */
export function thin(versions: readonly Aged[], now: number): Thinned {
  const drop: string[] = [];
  const authors = new Map<string, string[]>();
  let run: Aged[] = [];
  const close = () => {
    const kept = run.at(-1);
    if (!kept || run.length === 1) return;
    const names = new Set<string>();
    for (const version of run) {
      for (const id of version.authors) names.add(id);
      if (version !== kept) drop.push(version.id);
    }
    if (names.size !== kept.authors.length) authors.set(kept.id, [...names]);
  };
  let period = "";
  for (const version of versions) {
    const next = periodOf(version.createdAt, now);
    if (next !== period) {
      close();
      run = [];
      period = next;
    }
    run.push(version);
  }
  close();
  return { drop, authors };
}

/** Restoring a version changes the file: people only (staff propose changes instead). */
export function assertMayRestore(actor: OrgActor): void {
  if (actor.serviceAccountId !== null) throw forbidden(ONLY_A_PERSON_RESTORES);
}

export const ONLY_A_PERSON_RESTORES = "only a person can restore a version";
