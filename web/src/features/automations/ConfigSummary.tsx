/**
 * What an automation will do, read from its configuration for the people who approve it: its schedule in words,
 * the room, the message, the question to staff, the task, a social post's endpoint and text. Keys no kind knows
 * are listed as they are, so nothing an approver agrees to is hidden.
 */
import type { ReactNode } from "react";
import type { Automation } from "../../../../src/api-types";
import { useWorkspace } from "../../lib/workspace";
import { cronWords, DEFAULT_TIMEZONE } from "./cron";
import { DEFAULT_SOCIAL_ENDPOINT, otherSettings, roomLabel, taskOf, text } from "./model";

/** The schedule in words, with its expression and time zone. */
function Schedule({ config }: { config: Record<string, unknown> }) {
  const cron = text(config, "cron");
  return (
    <>
      {cronWords(cron)} <span className="muted">({text(config, "timezone") || DEFAULT_TIMEZONE})</span>{" "}
      <code className="small">{cron}</code>
    </>
  );
}

/** The summary, as a description list. */
export function ConfigSummary({ automation: a }: { automation: Automation }) {
  const ws = useWorkspace();
  const config = a.config;
  const task = taskOf(config);
  const others = otherSettings(config);
  const items: [string, ReactNode][] = [];
  if (text(config, "cron")) items.push(["When", <Schedule key="cron" config={config} />]);
  else if (a.kind === "webhook") items.push(["When", "Its URL is called, signed"]);
  else if (a.kind === "social_post") items.push(["When", "On Run now only"]);
  if (a.kind === "social_post") {
    items.push([
      "Posts to",
      <code key="endpoint" className="url">
        {text(config, "endpoint") || DEFAULT_SOCIAL_ENDPOINT}
      </code>,
    ]);
    if (text(config, "text")) items.push(["Text", text(config, "text")]);
  }
  const channel = text(config, "channel");
  if (channel) items.push(["Room", roomLabel(channel)]);
  const message = text(config, a.kind === "webhook" ? "template" : "message");
  if (message) items.push([a.kind === "webhook" ? "Template" : "Message", message]);
  const staff = text(config, "staff_user_id");
  const prompt = text(config, "staff_prompt");
  if (staff || prompt)
    items.push([
      `Asks ${staff ? ws.nameOf(staff) : "(nobody chosen)"}`,
      prompt || <span className="muted">(no question)</span>,
    ]);
  if (task)
    items.push([
      "Creates a task",
      <>
        “{task.title ?? ""}”{task.column ? ` in ${task.column}` : ""}
        {task.assignee_user_id ? `, assigned to ${ws.nameOf(task.assignee_user_id)}` : ""}
        {task.description && <span className="muted"> · {task.description}</span>}
      </>,
    ]);
  if (Object.keys(others).length > 0)
    items.push([
      "Other settings",
      <code key="others" className="pre">
        {JSON.stringify(others, null, 2)}
      </code>,
    ]);
  if (items.length === 0)
    return <p className="small muted">{a.kind === "reverse_tunnel" ? "Nothing to configure." : "No configuration."}</p>;
  return (
    <dl className="config-summary">
      {items.map(([term, detail]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{detail}</dd>
        </div>
      ))}
    </dl>
  );
}
