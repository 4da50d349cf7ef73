/**
 * What a staff member can look at and propose while it answers: recent chat, the space's files, a file's
 * text, proposals (a file patch, an automation) that wait for a person, and the board (`replies.task-tools.ts`).
 * Every tool acts as the staff member, through the same services and checks as its REST calls, so it can
 * read no more than its `sa_` token could and change no file or automation without a person's approval.
 */

import type { SpaceActor } from "../../core/actor";
import { iso } from "../../lib/ids";
import type { FunctionTool } from "../../providers/modelrouter";
import type { AutomationsService } from "../automations/automations.service";
import type { ChatService } from "../chat/chat.service";
import type { FilesService, NodeRow } from "../files/files.service";
import type { ProposalsService } from "../proposals/proposals.service";
import type { SpacesService } from "../spaces/spaces.service";
import type { TasksService } from "../tasks/tasks.service";
import { uiLink, uiPaths } from "./replies.links";
import { taskTools, WRITING_TASK_TOOLS } from "./replies.task-tools";

/** Where the reply goes, how people are named, and what the person who asked may do. */
export interface ReplyScope {
  actor: SpaceActor;
  roomId: string | null;
  /** The thread asked in: the conversation is the thread's. */
  threadRootId?: string | null;
  taskId: string | null;
  nameOf(userId: string | null): string;
  /** The member a tool names: by user id, or by display name ignoring case. */
  memberId(ref: string): string | undefined;
  /**
   * The permissions of the person who asked (empty once they left the organization). Staff act for them: a
   * tool or a pre-read that needs a permission is offered only when both the staff member and they have it,
   * so nobody reads or proposes through staff what they could not themselves.
   */
  asker: ReadonlySet<string>;
}

/** Whether the person who asked may read the space's files (and so the staff member may, for them). */
export const askerReadsFiles = (scope: ReplyScope) => scope.asker.has("files.read");

export interface ToolServices {
  chat: ChatService;
  tasks: TasksService;
  files: FilesService;
  proposals: ProposalsService;
  automations: AutomationsService;
  spaces: Pick<SpacesService, "columns">;
  /** The space's task labels, where the board has them: `list_tasks` names a task's labels with them. */
  labels?: { list(actor: SpaceActor): readonly { id: string; name: string }[] };
}

const MAX_FILE_CHARS = 50_000;
const MAX_LISTED_FILES = 500;
const AUTOMATION_KINDS = ["social_post", "reverse_tunnel", "scheduled", "webhook"];

/** The conversation the reply belongs to, oldest first, one line per message. */
export function recentConversation(services: ToolServices, scope: ReplyScope, limit: number): string {
  const lines = scope.taskId
    ? services.tasks
        .messages(scope.actor, scope.taskId, { limit })
        .map((m) => `[${iso(m.createdAt)}] ${scope.nameOf(m.authorUserId)}: ${m.content}`)
    : scope.roomId
      ? services.chat
          .latestMessages(scope.actor, scope.roomId, limit, scope.threadRootId ?? null)
          .filter((m) => m.deletedAt === null)
          .map((m) => `[${iso(m.createdAt)}] ${scope.nameOf(m.authorUserId)}: ${m.content}`)
      : [];
  return lines.join("\n") || "(no messages)";
}

/** The file a tool argument names: its id, or its path (the leading `/` optional), or a unique name. */
export function findFile(services: ToolServices, actor: SpaceActor, ref: unknown): NodeRow {
  const wanted = String(ref ?? "")
    .trim()
    .replace(/^\/+/, "");
  if (!wanted) throw new Error("name a file by its path or id");
  const files = services.files.paths(actor).filter((f) => f.node.kind === "file");
  const exact = files.find((f) => f.node.id === wanted || f.path === wanted);
  if (exact) return exact.node;
  const lower = wanted.toLowerCase();
  const byName = files.filter((f) => f.path.toLowerCase() === lower || f.node.name.toLowerCase() === lower);
  if (byName.length === 1) return (byName[0] as { node: NodeRow }).node;
  if (byName.length > 1) throw new Error(`several files match ${wanted}: give the path`);
  throw new Error(`no file ${wanted} in this space`);
}

/** A file's text as a tool shows it; a binary file is described, not dumped. */
export function readFile(services: ToolServices, actor: SpaceActor, node: NodeRow): string {
  if (node.storage !== "text") return `(binary file, ${node.mimeType ?? "unknown type"}, ${node.sizeBytes ?? 0} bytes)`;
  const { body } = services.files.content(actor, node.id);
  const text = new TextDecoder().decode(body as Uint8Array);
  return text.length > MAX_FILE_CHARS ? `${text.slice(0, MAX_FILE_CHARS)}\n… (truncated)` : text;
}

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/**
 * The function tools of one reply: reading the conversation and the board always; the space's files when the
 * person who asked may read them (a file patch is proposed with `files.read`, as REST has it); an automation
 * when they may create one (`files.write`). Creating, moving and commenting on tasks need `tasks.write` of
 * both the staff member and the person who asked, as the REST routes check it; the staff member's other
 * permissions apply on top, in the services.
 */
export function staffTools(services: ToolServices, scope: ReplyScope): FunctionTool[] {
  const needs: Record<string, string> = {
    list_space_files: "files.read",
    read_space_file: "files.read",
    propose_file_patch: "files.read",
    propose_automation: "files.write",
  };
  const writesTasks = scope.asker.has("tasks.write") && scope.actor.permissions.has("tasks.write");
  return [...allTools(services, scope), ...taskTools(services, scope)].filter((tool) => {
    if (WRITING_TASK_TOOLS.has(tool.name)) return writesTasks;
    const need = needs[tool.name];
    return need === undefined || scope.asker.has(need);
  });
}

function allTools(services: ToolServices, scope: ReplyScope): FunctionTool[] {
  const { actor } = scope;
  return [
    {
      name: "read_recent_chat",
      description: "Reads the most recent messages of the conversation this reply belongs to, oldest first.",
      parameters: {
        type: "object",
        properties: { limit: { type: "integer", minimum: 1, maximum: 100, description: "How many (default 20)" } },
      },
      run: (args) => recentConversation(services, scope, Math.min(Math.max(Number(args.limit) || 20, 1), 100)),
    },
    {
      name: "list_space_files",
      description: "Lists the files and folders of this space by path (folders end with /).",
      parameters: { type: "object", properties: {} },
      run: () => {
        const paths = services.files.paths(actor);
        const shown = paths.slice(0, MAX_LISTED_FILES).map((f) => f.path);
        if (paths.length > MAX_LISTED_FILES) shown.push(`… and ${paths.length - MAX_LISTED_FILES} more`);
        return shown.join("\n") || "(no files)";
      },
    },
    {
      name: "read_space_file",
      description: "Reads the text of a file of this space, named by its path (as listed) or id.",
      parameters: {
        type: "object",
        properties: { path: { type: "string", description: "The file's path or id" } },
        required: ["path"],
      },
      run: (args) => readFile(services, actor, findFile(services, actor, args.path ?? args.file_id)),
    },
    {
      name: "propose_file_patch",
      writes: true,
      description:
        "Proposes a new full text for a text file. Nothing changes until a person accepts the proposal; " +
        "say in your answer that you proposed it, with the Markdown link the result gives.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "The file's path or id" },
          proposed_content: { type: "string", description: "The whole new text of the file" },
          note: { type: "string", description: "What changes and why, for the reviewer" },
        },
        required: ["path", "proposed_content"],
      },
      run: (args) => {
        const content = str(args.proposed_content);
        if (content === undefined) throw new Error("proposed_content must be a string");
        const node = findFile(services, actor, args.path ?? args.file_id);
        const proposal = services.proposals.create(actor, node.id, { proposed_content: content, note: str(args.note) });
        const link = uiLink(`Proposed change to ${node.name}`, uiPaths.proposal(actor.space.id, node.id, proposal.id));
        return `${link} (proposal ${proposal.id}) is waiting for a person to accept or reject it.`;
      },
    },
    {
      name: "propose_automation",
      writes: true,
      description:
        "Proposes an automation for this space. It waits for a person's approval before it can run; link to it " +
        "in your answer with the Markdown link the result gives. Kinds and " +
        "their config: scheduled {cron, timezone?, channel?, message?, staff_user_id?, staff_prompt?, task?}: at " +
        "each tick of the cron it posts `message` in the room `channel`, asks the staff member `staff_user_id` " +
        "there with `staff_prompt`, and/or creates `task`; at least one of message, staff_prompt, task, and " +
        "channel whenever it posts. webhook {channel?, template?, staff_user_id?, staff_prompt?, task?}: an " +
        "inbound URL (a person copies its secret); each delivery posts `template` (or a summary of it) in " +
        "`channel` and takes the other actions like a scheduled one. social_post {text, cron?, timezone?, " +
        "endpoint?}: posts `text` through the OAuth token a person stores, on the cron or when run. " +
        `reverse_tunnel {}: a person's local web service, reached through Tandem. Your own staff_user_id is ${actor.userId}.`,
      parameters: {
        type: "object",
        properties: {
          name: { type: "string" },
          kind: { type: "string", enum: AUTOMATION_KINDS },
          config: {
            type: "object",
            description: "The kind's keys, as described; unknown keys are kept",
            properties: {
              cron: {
                type: "string",
                description: "5 fields, minute first (`0 9 * * 1-5` is 9:00 on weekdays), or 6 with seconds first",
              },
              timezone: {
                type: "string",
                description: "An IANA time zone of the cron, like Europe/Berlin (default UTC)",
              },
              channel: { type: "string", description: "The name of a chat room of this space, like general" },
              message: { type: "string", description: "Markdown posted at each tick" },
              staff_user_id: { type: "string", description: "The user id of the staff member to ask" },
              staff_prompt: { type: "string", description: "What the staff member is asked at each tick" },
              task: {
                type: "object",
                description: "A task created at each tick",
                properties: {
                  title: { type: "string" },
                  column: { type: "string", description: "A column name of the board (default the first)" },
                  assignee_user_id: { type: "string" },
                  description: { type: "string" },
                },
                required: ["title"],
              },
              template: { type: "string", description: "A webhook's message, with {{path.to.field}} of its JSON" },
              text: { type: "string", description: "A social post's text" },
              endpoint: { type: "string", description: "A social post's endpoint (default X's POST /2/tweets)" },
            },
          },
          description: { type: "string", description: "Why, for the person who approves it" },
        },
        required: ["name", "kind"],
      },
      run: (args) => {
        const name = str(args.name)?.trim();
        const kind = str(args.kind);
        if (!name) throw new Error("name is required");
        if (!kind || !AUTOMATION_KINDS.includes(kind))
          throw new Error(`kind must be one of ${AUTOMATION_KINDS.join(", ")}`);
        const config =
          args.config && typeof args.config === "object" && !Array.isArray(args.config)
            ? (args.config as Record<string, unknown>)
            : undefined;
        const { row: automation } = services.automations.create(actor, {
          name: name.slice(0, 200),
          kind: kind as "webhook",
          config,
          description: str(args.description),
        });
        const lacking = automation.configProblem ? ` It cannot run as it is: ${automation.configProblem}.` : "";
        const link = uiLink(`Automation “${automation.name}”`, uiPaths.automation(actor.space.id, automation.id));
        return `${link} (id ${automation.id}) is pending a person's approval.${lacking}`;
      },
    },
  ];
}
