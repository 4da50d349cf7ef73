/**
 * What each kind of automation reads from its `config` (contract §8), checked whenever the config is written: a
 * key of the wrong type or value is a 400 naming it (`config.cron: invalid cron expression`); a key missing is
 * no error but a `config_problem` (`config.cron: required`), and an automation with one does not run. Keys a
 * kind does not know are kept as they are (`proposal_note`, for one).
 */
import { Cron } from "croner";
import { invalid } from "../../core/errors";
import { isUuid } from "../../lib/ids";
import { charCount } from "../../lib/text";
import { MAX_CONTENT } from "../chat/chat.policy";

/** The kinds. */
export type AutomationKind = "scheduled" | "webhook" | "social_post" | "reverse_tunnel";

/** The task a scheduled or webhook automation creates. */
export interface TaskConfig {
  title: string;
  column?: string;
  assignee_user_id?: string;
  description?: string;
}

/** The keys the kinds know, as they are once checked. */
export interface AutomationConfig {
  cron?: string;
  timezone?: string;
  channel?: string;
  message?: string;
  staff_user_id?: string;
  staff_prompt?: string;
  task?: TaskConfig;
  template?: string;
  endpoint?: string;
  text?: string;
}

/** What the checks ask of the space: whether the names and people a config gives exist there. */
export interface ConfigWorld {
  roomExists(spaceId: string, name: string): boolean;
  columnExists(spaceId: string, name: string): boolean;
  isStaff(orgId: string, userId: string): boolean;
  isMember(orgId: string, userId: string): boolean;
}

/** The space an automation belongs to. */
export interface Place {
  orgId: string;
  spaceId: string;
}

/** The social network's endpoint when the config names none. */
export const DEFAULT_SOCIAL_ENDPOINT = "https://api.x.com/2/tweets";

const MAX_TITLE = 500;
const MAX_DESCRIPTION = 100_000;

/** A cron of 5 fields (minute first) or 6 (seconds first), in `timezone`; throws when croner cannot read it. */
export function cronOf(pattern: string, timezone?: string): Cron {
  const fields = pattern.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) throw new Error("a cron has 5 fields (minute first) or 6 (seconds first)");
  return new Cron(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
}

/** Crons read, by pattern and time zone: a thousand schedules ticking each minute read a handful of patterns. */
const crons = new Map<string, Cron>();
const MAX_CRONS = 1000;

/** The next tick of a cron after `from`, or null when it has none. */
export function nextTick(config: AutomationConfig, from: Date): number | null {
  if (!config.cron) return null;
  const key = `${config.cron}|${config.timezone ?? ""}`;
  let cron = crons.get(key);
  if (!cron) {
    cron = cronOf(config.cron, config.timezone);
    if (crons.size >= MAX_CRONS) crons.delete(crons.keys().next().value as string);
    crons.set(key, cron);
  }
  return cron.nextRun(from)?.getTime() ?? null;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The checks of one config, with what it needs to know of the space. */
class Checker {
  readonly problems: string[] = [];

  constructor(
    private readonly config: Record<string, unknown>,
    private readonly place: Place,
    private readonly world: ConfigWorld,
    /** Writing: a name or person that does not exist is a 400. Otherwise (checked again later): a problem. */
    private readonly writing: boolean,
  ) {}

  /** A missing key: the automation cannot run until it is given. */
  need(key: string, also = ""): void {
    this.problems.push(`config.${key}: required${also}`);
  }

  /** Something given that is not there (any more): a 400 when written, a problem afterwards. */
  private gone(message: string): void {
    if (this.writing) throw invalid(message);
    this.problems.push(message);
  }

  text(key: string, max = MAX_CONTENT, at: Record<string, unknown> = this.config, path = `config.${key}`) {
    const value = at[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw invalid(`${path}: must be a string`);
    if (charCount(value) > max) throw invalid(`${path}: must be at most ${max} characters`);
    return value.trim() ? value : undefined;
  }

  cron(): string | undefined {
    const cron = this.text("cron", 200);
    const timezone = this.text("timezone", 100);
    if (timezone !== undefined && !isTimeZone(timezone)) throw invalid("config.timezone: unknown time zone");
    if (cron === undefined) return undefined;
    try {
      cronOf(cron, timezone).nextRun();
    } catch {
      throw invalid("config.cron: invalid cron expression");
    }
    return cron;
  }

  channel(): string | undefined {
    const channel = this.text("channel", 200);
    if (channel !== undefined && !this.world.roomExists(this.place.spaceId, channel))
      this.gone("config.channel: no such chat room");
    return channel;
  }

  staff(): string | undefined {
    const id = this.text("staff_user_id", 64)?.toLowerCase();
    if (id === undefined) return undefined;
    if (!isUuid(id) || !this.world.isStaff(this.place.orgId, id)) this.gone("config.staff_user_id: not a staff member");
    return id;
  }

  task(): TaskConfig | undefined {
    const task = this.config.task;
    if (task === undefined || task === null) return undefined;
    if (typeof task !== "object" || Array.isArray(task)) throw invalid("config.task: must be an object");
    const fields = task as Record<string, unknown>;
    const title = this.text("title", MAX_TITLE, fields, "config.task.title");
    this.text("description", MAX_DESCRIPTION, fields, "config.task.description");
    const column = this.text("column", 200, fields, "config.task.column");
    if (column !== undefined && !this.world.columnExists(this.place.spaceId, column))
      this.gone("config.task.column: no such column");
    const assignee = this.text("assignee_user_id", 64, fields, "config.task.assignee_user_id")?.toLowerCase();
    if (assignee !== undefined && (!isUuid(assignee) || !this.world.isMember(this.place.orgId, assignee)))
      this.gone("config.task.assignee_user_id: not a member of the organization");
    if (title === undefined) this.need("task.title");
    return fields as unknown as TaskConfig;
  }

  endpoint(): void {
    const endpoint = this.text("endpoint", 2000);
    if (endpoint === undefined) return;
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw invalid("config.endpoint: must be an http(s) URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("config.endpoint: must be an http(s) URL");
  }

  /** A staff prompt names the staff member it asks, and the other way round. */
  staffPrompt(): { staff?: string; prompt?: string } {
    const staff = this.staff();
    const prompt = this.text("staff_prompt");
    if (prompt !== undefined && staff === undefined) this.need("staff_user_id");
    if (staff !== undefined && prompt === undefined) this.need("staff_prompt");
    return { staff, prompt };
  }
}

/**
 * Checks `config` for `kind`: throws a 400 naming the first key of a wrong type or value; returns the first
 * problem that keeps it from running (null: it can run). `writing`: names and people must exist now (400);
 * otherwise (checked again after the space changed) what went away is a problem.
 */
export function checkConfig(
  kind: string,
  config: Record<string, unknown>,
  context: { place: Place; world: ConfigWorld; writing: boolean; hasOauthToken: boolean },
): string | null {
  const c = new Checker(config, context.place, context.world, context.writing);
  switch (kind as AutomationKind) {
    case "scheduled": {
      const cron = c.cron();
      const channel = c.channel();
      const message = c.text("message");
      const { prompt } = c.staffPrompt();
      const task = c.task();
      if (cron === undefined) c.need("cron");
      if (message === undefined && prompt === undefined && task === undefined)
        c.need("message", " (or staff_prompt, or task)");
      else if ((message !== undefined || prompt !== undefined) && channel === undefined) c.need("channel");
      break;
    }
    case "webhook": {
      const channel = c.channel();
      c.text("template");
      const { prompt } = c.staffPrompt();
      const task = c.task();
      if (channel === undefined && task === undefined) c.need("channel", " (or task)");
      else if (prompt !== undefined && channel === undefined) c.need("channel");
      break;
    }
    case "social_post": {
      c.endpoint();
      const cron = c.cron();
      const text = c.text("text", 10_000);
      if (!context.hasOauthToken) c.problems.push("oauth_token: required");
      if (cron !== undefined && text === undefined) c.need("text");
      break;
    }
    case "reverse_tunnel":
      break;
  }
  return c.problems[0] ?? null;
}
