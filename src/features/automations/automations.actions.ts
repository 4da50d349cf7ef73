/**
 * What a scheduled or webhook automation does when it runs: post its message in a room, ask a staff member there,
 * create a task. All of it in the unit of the run's end, so a run posts once; the messages are the automation's
 * own (no author, `automation_id`), spoken for the person who approved it.
 */
import type { SpaceActor } from "../../core/actor";
import { notFound } from "../../core/errors";
import type { ChatService } from "../chat/chat.service";
import type { SpacesService } from "../spaces/spaces.service";
import type { TasksService } from "../tasks/tasks.service";
import type { AutomationConfig } from "./automations.config";

/** The services an automation acts through. */
export interface ActionServices {
  chat: Pick<ChatService, "postAsAutomation" | "roomNamed">;
  tasks: Pick<TasksService, "create">;
  spaces: Pick<SpacesService, "columns">;
}

/** What a run did, as its `output`. */
export interface ActionOutput {
  chat_room_id?: string;
  message_id?: string;
  staff_message_id?: string;
  task_id?: string;
}

/**
 * Does what the config says, as `actor` for the automation `automationId`: `message` (already rendered) in the
 * room `channel`, `staff_prompt` there as a message that names `staff_user_id`, and `task`.
 */
export function act(
  services: ActionServices,
  actor: SpaceActor,
  automationId: string,
  config: AutomationConfig,
  message: string | undefined,
): ActionOutput {
  const output: ActionOutput = {};
  const posting = message !== undefined || config.staff_prompt !== undefined;
  if (posting) {
    const room = config.channel === undefined ? undefined : services.chat.roomNamed(actor.space.id, config.channel);
    if (!room) throw notFound("config.channel: no such chat room");
    output.chat_room_id = room.id;
    if (message !== undefined) {
      output.message_id = services.chat.postAsAutomation(actor, room.id, message, automationId).message.id;
    }
    if (config.staff_prompt !== undefined && config.staff_user_id !== undefined) {
      const asked = `<@${config.staff_user_id}> ${config.staff_prompt}`;
      output.staff_message_id = services.chat.postAsAutomation(actor, room.id, asked, automationId).message.id;
    }
  }
  if (config.task) output.task_id = createTask(services, actor, config.task);
  return output;
}

function createTask(services: ActionServices, actor: SpaceActor, task: NonNullable<AutomationConfig["task"]>): string {
  const columns = services.spaces.columns(actor.space);
  const wanted = task.column?.trim().toLowerCase();
  const column = wanted === undefined ? columns[0] : columns.find((c) => c.name.toLowerCase() === wanted);
  if (!column) throw notFound("config.task.column: no such column");
  return services.tasks.create(actor, {
    title: task.title,
    column_id: column.id,
    ...(task.assignee_user_id ? { assignee_user_id: task.assignee_user_id } : {}),
    ...(task.description ? { description: task.description } : {}),
  }).id;
}

/** `{{path.to.field}}` of `payload` in `template`; a path that is not there renders empty. */
export function renderTemplate(template: string, payload: unknown): string {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) => {
    let at: unknown = payload;
    for (const key of path.split(".")) {
      if (at === null || typeof at !== "object") return "";
      at = (at as Record<string, unknown>)[key];
    }
    if (at === undefined || at === null) return "";
    return typeof at === "object" ? JSON.stringify(at) : String(at);
  });
}
