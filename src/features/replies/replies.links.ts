/**
 * Links to what a staff member made while answering: a file edit proposal, an automation waiting for
 * approval, a task. Each tool that makes one says where it is in the web UI as a Markdown link; the reply
 * then carries that link, whether or not the model copied it, so "I proposed it" always leads to it.
 */
import type { ToolCallRecord } from "../../providers/modelrouter";

/** The tools whose result names something the reply should link to. */
const LINKING_TOOLS = new Set(["propose_file_patch", "propose_automation", "create_task"]);

/** A Markdown link to a page of the web UI (a path of Tandem's own). */
export function uiLink(label: string, path: string): string {
  return `[${label.replace(/[[\]\\]/g, "\\$&")}](${path})`;
}

/** Where the web UI shows each kind of thing. */
export const uiPaths = {
  /** The file, with its proposals waiting for review; the query names the proposal. */
  proposal: (spaceId: string, fileId: string, proposalId: string) =>
    `/spaces/${spaceId}/files/${fileId}?proposal=${proposalId}`,
  automation: (spaceId: string, automationId: string) => `/spaces/${spaceId}/automations/${automationId}`,
  task: (spaceId: string, taskId: string) => `/spaces/${spaceId}/board?task=${taskId}`,
};

/** The UI links in a text: `[label](/spaces/...)`. */
const LINK = /\[((?:\\.|[^\]\\])+)\]\((\/spaces\/[^)\s]+)\)/g;
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The answer with a line for each thing the reply made (a successful call of a linking tool) whose page the
 * answer does not link to yet, in the order they were made.
 */
export function withLinks(text: string, toolCalls: readonly ToolCallRecord[]): string {
  const missing: string[] = [];
  for (const call of toolCalls) {
    if (call.error !== null || !LINKING_TOOLS.has(call.name)) continue;
    for (const [link, , path] of call.result.matchAll(LINK)) {
      // Linked already when the answer names the thing's id (the last one of the path), however it links it.
      const id = (path as string).match(UUIDS)?.at(-1) ?? (path as string);
      if (!text.includes(id) && !missing.includes(link)) missing.push(link);
    }
  }
  return missing.length === 0 ? text : `${text}\n\n${missing.map((link) => `→ ${link}`).join("\n")}`;
}
