/**
 * The configuration a form edits, as a draft: the fields of each kind are read from it and written back as typed,
 * and `configToSave` turns it into what is sent (blank fields left out, keys no kind knows kept as they were).
 */
import type { AutomationKind } from "../../../../src/api-types";
import { browserTimeZone } from "./cron";
import { KNOWN_KEYS, otherSettings, type TaskConfig, taskOf } from "./model";

/** A configuration being edited. */
export type ConfigDraft = Record<string, unknown>;

/** The draft a form starts from: the stored configuration, or for a new automation the browser's time zone. */
export function initialDraft(config: Record<string, unknown> | undefined): ConfigDraft {
  return config ? { ...config } : { timezone: browserTimeZone() };
}

const filled = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/** The task to save: its title and the fields that were filled in, or undefined without a title. */
function taskToSave(task: TaskConfig | null): TaskConfig | undefined {
  if (!task) return undefined;
  const saved: TaskConfig = { title: task.title?.trim() ?? "" };
  if (filled(task.column)) saved.column = task.column;
  if (filled(task.assignee_user_id)) saved.assignee_user_id = task.assignee_user_id;
  if (filled(task.description)) saved.description = task.description;
  return saved;
}

/**
 * What a draft saves for `kind`: the kind's keys that hold something (a schedule and names trimmed, texts as
 * typed), then every key no kind knows and the proposal note, unchanged. Keys of another kind, left over from
 * switching the kind in the form, are dropped.
 */
export function configToSave(kind: AutomationKind, draft: ConfigDraft): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS[kind]) {
    const value = draft[key];
    if (key === "task") {
      const task = taskToSave(taskOf(draft));
      if (task) config.task = task;
    } else if (filled(value))
      config[key] = ["cron", "timezone", "channel", "endpoint"].includes(key) ? value.trim() : value;
    else if (value !== undefined && typeof value !== "string") config[key] = value;
  }
  // A time zone alone is no schedule: kept only beside a cron.
  if (!("cron" in config)) delete config.timezone;
  Object.assign(config, otherSettings(draft));
  if (draft.proposal_note !== undefined) config.proposal_note = draft.proposal_note;
  return config;
}

/** Whether two configurations say the same (key order aside). */
export function sameConfig(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const sorted = (value: unknown): unknown =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([x], [y]) => x.localeCompare(y))
            .map(([k, v]) => [k, sorted(v)]),
        )
      : value;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
