/** What a staff member is told and asked for one reply: who it is, where, what it can see there, and its tools. */
import type { FunctionTool } from "../../providers/modelrouter";
import type { ServiceAccountRow } from "../staff/staff.service";
import type { ReplyPayload } from "./replies.queue";
import {
  askerReadsFiles,
  type ReplyScope,
  readFile,
  recentConversation,
  staffTools,
  type ToolServices,
} from "./replies.tools";

const RECENT_MESSAGES = 20;
const LISTED_FILES = 200;
const NAMED_FILES = 3;

/** What the prompt says of the board's tools, as far as they are offered. */
function boardTools(offered: ReadonlySet<string>): string {
  const writes = offered.has("create_task")
    ? "; create_task, move_task and comment_task change it at once, as you"
    : "; you cannot change it";
  return `To answer about the board (tasks, who does what, what is left), call list_tasks, and read_task for one task${writes}. When a tool's result gives a Markdown link, put that link in your answer.`;
}

/** The parts of one reply's prompt, built as a provider asks for them. */
export class ReplyPrompt {
  constructor(
    private readonly services: ToolServices,
    private readonly account: ServiceAccountRow,
    private readonly payload: ReplyPayload,
    private readonly scope: ReplyScope,
  ) {}

  /** What was asked, and by whom. */
  get asked(): string {
    return `${this.scope.nameOf(this.payload.askedBy)}: ${this.payload.prompt}`;
  }

  /** The function tools the staff member may call for the person who asked. */
  tools(): FunctionTool[] {
    return staffTools(this.services, this.scope);
  }

  /**
   * The organization's instructions to the staff member (when it has any), then who it is, where it is asked,
   * and (pre-read) what it can see there, for the person who asked: the space's files only when they may read
   * them. `tools`: the tools it is offered (none for agents, which only read what this text gives them).
   */
  instructions({ preread, tools }: { preread: boolean; tools: readonly FunctionTool[] }): string {
    const { account, payload, scope, services } = this;
    const { actor } = scope;
    const where =
      payload.trigger === "chat"
        ? "a chat room"
        : payload.sourceMessageId
          ? "the messages of a task, where you were mentioned"
          : "the messages of a task assigned to you";
    const offered = new Set(tools.map((t) => t.name));
    const ways = [
      offered.has("propose_file_patch") &&
        "to suggest a change to a file, call propose_file_patch with its whole new text",
      offered.has("propose_automation") && "to suggest an automation, call propose_automation",
    ].filter(Boolean);
    // The organization's own instructions come first: what it says of the staff member's role and manner
    // frames everything Tandem adds after it.
    const own = account.instructions.trim();
    const parts = [
      ...(own ? [`${own}\n`] : []),
      `You are ${account.name}, an AI staff member working alongside the people of the space "${actor.space.name}" in Tandem, a team workspace. You are answering in ${where}. Reply in Markdown, briefly and concretely.`,
      ways.length > 0
        ? `You cannot change files or start automations yourself: ${ways.join("; ")}. A person reviews every proposal.`
        : "You cannot change the space's files or start automations: say what you would change, and a person will.",
      ...(offered.has("list_tasks") ? [boardTools(offered)] : []),
      `Current time: ${new Date().toISOString()}.`,
    ];
    if (!preread) return parts.join("\n");
    parts.push(`\nRecent conversation:\n${recentConversation(services, scope, RECENT_MESSAGES)}`);
    if (!askerReadsFiles(scope)) return parts.join("\n");
    const files = services.files.paths(actor);
    const listed = files.slice(0, LISTED_FILES).map((f) => f.path);
    if (files.length > LISTED_FILES) listed.push(`… and ${files.length - LISTED_FILES} more`);
    parts.push(`\nFiles of the space:\n${listed.join("\n") || "(none)"}`);
    const asked = payload.prompt.toLowerCase();
    const named = files
      .filter((f) => f.node.kind === "file" && f.node.name.length >= 3 && asked.includes(f.node.name.toLowerCase()))
      .slice(0, NAMED_FILES);
    for (const file of named) parts.push(`\nContents of ${file.path}:\n${readFile(services, actor, file.node)}`);
    return parts.join("\n");
  }
}
