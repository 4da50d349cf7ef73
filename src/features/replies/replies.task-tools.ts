/**
 * The board as a staff member sees it while it answers (contract §11 "Staff task tools"): it reads the columns
 * and their tasks, one task with its description and comments, and (with `tasks.write`, its own and that of
 * the person who asked) creates, moves and comments on tasks. Every tool goes through `TasksService` as the
 * staff member, so the rules of any caller with its roles apply, a column's WIP limit included; a refusal is
 * the tool's result, told to the model, not a failure of the reply.
 */
import type { z } from "zod";
import type { SpaceActor } from "../../core/actor";
import { iso, isUuid } from "../../lib/ids";
import type { FunctionTool } from "../../providers/modelrouter";
import type { SpacesService } from "../spaces/spaces.service";
import { createTaskIn, postTaskMessageIn } from "../tasks/tasks.schemas";
import type { TasksService } from "../tasks/tasks.service";
import { uiLink, uiPaths } from "./replies.links";
import type { ReplyScope, ToolServices } from "./replies.tools";

type TaskView = ReturnType<TasksService["get"]>;
type ColumnRow = ReturnType<SpacesService["columns"]>[number];

/** How many of a task's comments `read_task` shows, the newest. */
const SHOWN_COMMENTS = 50;

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The first refusal of a schema, as the API would say it (`title: required`). */
function parsed<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(result.error.issues[0]?.message ?? "invalid arguments");
  return result.data;
}

/** The label ids of a task, where the board has labels. */
const labelIdsOf = (task: TaskView): readonly string[] => (task as { labelIds?: readonly string[] }).labelIds ?? [];

/** The names of the space's labels by id (empty where the board has none). */
function labelNames(services: ToolServices, actor: SpaceActor): ReadonlyMap<string, string> {
  return new Map((services.labels?.list(actor) ?? []).map((label) => [label.id, label.name]));
}

/**
 * What is set of a task: its id, assignee, due date, how many comments it has (unless they follow), and its
 * priority and labels when it has them.
 */
function taskFacts(task: TaskView, scope: ReplyScope, labels: ReadonlyMap<string, string>, counted = true): string {
  const facts = [`id ${task.id}`];
  if (task.assigneeUserId) facts.push(`assignee ${scope.nameOf(task.assigneeUserId)}`);
  if (task.dueAt !== null) facts.push(`due ${iso(task.dueAt)}`);
  if (counted) facts.push(`${task.commentCount} comment${task.commentCount === 1 ? "" : "s"}`);
  if (task.priority && task.priority !== "none") facts.push(`priority ${task.priority}`);
  const names = labelIdsOf(task).map((id) => labels.get(id) ?? id);
  if (names.length > 0) facts.push(`labels ${names.join(", ")}`);
  return facts.join("; ");
}

/** A column's heading: its name, how many tasks it holds, and its WIP limit when it has one. */
function columnHeading(column: ColumnRow, count: number): string {
  const limit = column.wipLimit ? `, WIP limit ${column.wipLimit}` : "";
  return `Column "${column.name}" (${count} task${count === 1 ? "" : "s"}${limit}):`;
}

/** The whole board: its columns in order, each with its tasks in order. */
function board(services: ToolServices, scope: ReplyScope): string {
  const { actor } = scope;
  const columns = services.spaces.columns(actor.space);
  const tasks = services.tasks.list(actor);
  const labels = labelNames(services, actor);
  const parts = [`The board of the space "${actor.space.name}": ${columns.length} columns, ${tasks.length} tasks.`];
  for (const column of columns) {
    const mine = tasks.filter((t) => t.columnId === column.id);
    parts.push(`\n${columnHeading(column, mine.length)}`);
    const lines = mine.map((t) => `- "${t.title}" (${taskFacts(t, scope, labels)})`);
    parts.push(lines.join("\n") || "(no tasks)");
  }
  return parts.join("\n");
}

/** The task a tool argument names: its id, or its title (ignoring case) when one task has it. */
function findTask(services: ToolServices, actor: SpaceActor, ref: unknown): TaskView {
  const wanted = String(ref ?? "").trim();
  if (!wanted) throw new Error("name a task by its id or title");
  const lower = wanted.toLowerCase();
  if (isUuid(lower)) return services.tasks.get(actor, lower);
  const found = services.tasks.list(actor).filter((t) => t.title.toLowerCase() === lower);
  if (found.length === 1) return found[0] as TaskView;
  if (found.length > 1) throw new Error(`several tasks are titled "${wanted}": give the id`);
  throw new Error(`no task "${wanted}" on this board`);
}

/** The column a tool argument names: its id, or its name (ignoring case and a surrounding space). */
function findColumn(services: ToolServices, actor: SpaceActor, ref: unknown): ColumnRow {
  const wanted = String(ref ?? "").trim();
  const columns = services.spaces.columns(actor.space);
  const column = columns.find((c) => c.id === wanted.toLowerCase() || c.name.toLowerCase() === wanted.toLowerCase());
  if (column) return column;
  throw new Error(
    `no column "${wanted}" on this board; its columns are ${columns.map((c) => `"${c.name}"`).join(", ")}`,
  );
}

/** A member named by a tool argument: a user id, or a display name (ignoring case). */
function findMember(scope: ReplyScope, ref: unknown): string {
  const wanted = String(ref ?? "").trim();
  const id = scope.memberId(wanted.replace(/^@/, ""));
  if (!id) throw new Error(`no member "${wanted}" in the organization`);
  return id;
}

/** A due date as the API takes it; a bare date (`2026-03-01`) is that day at midnight UTC. */
const dueOf = (value: unknown) => {
  const text = str(value)?.trim();
  if (!text) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00.000Z` : text;
};

/** One task with its description and its latest comments, oldest first. */
function taskDetail(services: ToolServices, scope: ReplyScope, task: TaskView): string {
  const { actor } = scope;
  const column = services.spaces.columns(actor.space).find((c) => c.id === task.columnId);
  const parts = [
    `Task "${task.title}" in column "${column?.name ?? "?"}"`,
    taskFacts(task, scope, labelNames(services, actor), false),
    `Link: ${uiPaths.task(actor.space.id, task.id)}`,
  ];
  if (task.deliverableRequired) {
    parts.push(`A deliverable is required${task.deliverableInstructions ? `: ${task.deliverableInstructions}` : "."}`);
  }
  parts.push(`\nDescription:\n${task.description.trim() || "(none)"}`);
  const comments = services.tasks.messages(actor, task.id, { limit: SHOWN_COMMENTS });
  const shown = comments.map((m) => `[${iso(m.createdAt)}] ${scope.nameOf(m.authorUserId)}: ${m.content}`);
  const count =
    task.commentCount > comments.length ? `the latest ${comments.length} of ${task.commentCount}` : comments.length;
  parts.push(`\nComments (${count}):\n${shown.join("\n") || "(none)"}`);
  return parts.join("\n");
}

/** The task tools: reading always; creating, moving and commenting when `writes` (both hold `tasks.write`). */
export function taskTools(services: ToolServices, scope: ReplyScope): FunctionTool[] {
  const { actor } = scope;
  const taskRef = { type: "string", description: "The task's id, or its exact title" };
  const space = actor.space.id;
  return [
    {
      name: "list_tasks",
      description:
        "Lists the board of this space: its columns in order, each with its tasks in order (title, id, assignee, " +
        "due date, comment count, and priority and labels when set).",
      parameters: { type: "object", properties: {} },
      run: () => board(services, scope),
    },
    {
      name: "read_task",
      description: "Reads one task of this space's board: its fields, its description and its latest comments.",
      parameters: { type: "object", properties: { task: taskRef }, required: ["task"] },
      run: (args) => taskDetail(services, scope, findTask(services, actor, args.task ?? args.task_id ?? args.id)),
    },
    {
      name: "create_task",
      writes: true,
      description:
        "Creates a task on this space's board, at the bottom of a column (the first column unless one is named). " +
        "Link to it in your answer with the Markdown link the result gives.",
      parameters: {
        type: "object",
        properties: {
          title: { type: "string" },
          column: { type: "string", description: "A column's name or id (default: the first column)" },
          description: { type: "string", description: "Markdown" },
          assignee: { type: "string", description: "A member's display name or user id" },
          due_at: { type: "string", description: "An RFC 3339 timestamp, or a date like 2026-03-01" },
        },
        required: ["title"],
      },
      run: (args) => {
        const columns = services.spaces.columns(actor.space);
        const column = args.column === undefined ? columns[0] : findColumn(services, actor, args.column);
        if (!column) throw new Error("the board has no column");
        const input = parsed(createTaskIn, {
          title: args.title,
          column_id: column.id,
          description: args.description,
          assignee_user_id: args.assignee === undefined ? undefined : findMember(scope, args.assignee),
          due_at: dueOf(args.due_at),
        });
        const task = services.tasks.create(actor, input);
        const link = uiLink(`Task “${task.title}”`, uiPaths.task(space, task.id));
        return `Created ${link} (id ${task.id}) in column "${column.name}".`;
      },
    },
    {
      name: "move_task",
      writes: true,
      description: "Moves a task of this space's board to a column, at a position of it (default: the bottom).",
      parameters: {
        type: "object",
        properties: {
          task: taskRef,
          column: { type: "string", description: "The column's name or id" },
          position: { type: "integer", minimum: 0, description: "0 is the top of the column" },
        },
        required: ["task", "column"],
      },
      run: (args) => {
        const task = findTask(services, actor, args.task ?? args.task_id);
        const column = findColumn(services, actor, args.column);
        const position = args.position === undefined ? undefined : Number(args.position);
        if (position !== undefined && !(Number.isInteger(position) && position >= 0)) {
          throw new Error("position must be an integer of 0 or more");
        }
        // Without a position the task goes to the bottom of another column (and stays where it is in its own).
        const moved = services.tasks.patch(actor, task.id, { column_id: column.id, position });
        const link = uiLink(`Task “${moved.title}”`, uiPaths.task(space, moved.id));
        return `Moved ${link} to column "${column.name}", position ${moved.position}.`;
      },
    },
    {
      name: "comment_task",
      writes: true,
      description: "Posts a comment (Markdown) on a task of this space's board, as you.",
      parameters: {
        type: "object",
        properties: { task: taskRef, content: { type: "string", description: "The comment, in Markdown" } },
        required: ["task", "content"],
      },
      run: (args) => {
        const task = findTask(services, actor, args.task ?? args.task_id);
        const { content } = parsed(postTaskMessageIn, { content: args.content });
        services.tasks.postMessage(actor, task.id, content);
        return `Commented on ${uiLink(`Task “${task.title}”`, uiPaths.task(space, task.id))}.`;
      },
    },
  ];
}

/** The task tools that write: offered only when the staff member and the person who asked hold `tasks.write`. */
export const WRITING_TASK_TOOLS = new Set(["create_task", "move_task", "comment_task"]);
