/** AI staff as the API answers them (docs/api.md, Service accounts and Activity). */

/** A staff member's account. `user_id` is the member it appears as (mentions, assignments, messages). */
export interface ServiceAccount {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  created_by: string | null;
  created_at: string;
  provider: "modelrouter" | "agent";
  modelrouter_model: string;
  agent_default_repo_url: string | null;
  agent_default_ref: string | null;
}

/** One tool a staff member called while answering. */
export interface ToolCall {
  name: string;
  /** JSON text, cut at 2,000 characters. */
  arguments: string;
  result: string;
  duration_ms: number;
  error: string | null;
}

/** What a staff member did for one reply. */
export interface ActivityEntry {
  job_id: string;
  organization_id: string;
  space_id: string;
  /** Null once the staff member was deleted. */
  staff_user_id: string | null;
  trigger: "chat" | "task";
  chat_room_id: string | null;
  task_id: string | null;
  source_message_id: string | null;
  reply_message_id: string | null;
  provider: string;
  model: string;
  status: "queued" | "running" | "done" | "failed";
  tool_calls: ToolCall[];
  prompt_tokens: number;
  completion_tokens: number;
  duration_ms: number | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A provider key as shown: whether it is set, and its last four characters. */
export interface Integration {
  provider: "modelrouter" | "agent";
  configured: boolean;
  key_hint: string | null;
  updated_at: string | null;
}

/** The providers, with their names for people. */
export const PROVIDERS: Record<ServiceAccount["provider"], string> = {
  modelrouter: "Model gateway",
  agent: "Cloud agent",
};

/**
 * The model a `modelrouter` staff member gets when none is given: the server's MODELROUTER_DEFAULT_MODEL,
 * whose documented default this is. Shown as a placeholder only; the server decides.
 */
export const DEFAULT_MODEL = "meta-llama/llama-3.3-70b-instruct:free";

/** "850 ms", "12.4 s", "3 min 5 s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}
