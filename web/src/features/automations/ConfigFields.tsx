/**
 * The configuration of each kind as form fields rather than JSON: what a scheduled or webhook automation does
 * (post in a room, ask a staff member, create a task), a schedule, a social post's endpoint and text. Rooms,
 * columns, people and staff are picked from the space's own, so a name cannot be mistyped.
 */
import { useId } from "react";
import type { AutomationKind, ChatRoom, Column } from "../../../../src/api-types";
import { useWorkspace } from "../../lib/workspace";
import type { ConfigDraft } from "./config-draft";
import { DEFAULT_SOCIAL_ENDPOINT, roomLabel, type TaskConfig, taskOf, text } from "./model";
import { ScheduleFields } from "./ScheduleFields";

/** Sets one key of the draft (undefined removes it). */
type SetKey = (key: string, value: unknown) => void;

/** A select of names or ids that keeps a stored value the lists do not have, marked, rather than losing it. */
function Picker({
  label,
  value,
  options,
  none,
  missing,
  onChange,
}: {
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
  none: string;
  missing: string;
  onChange: (value: string) => void;
}) {
  // Until the lists load, a stored value is shown as it is, not yet as missing.
  const known = value === "" || options.length === 0 || options.some(([v]) => v === value);
  return (
    <label className="field">
      <span>{label}</span>
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{none}</option>
        {!known && <option value={value}>{`${value} (${missing})`}</option>}
        {known && value !== "" && options.length === 0 && <option value={value}>{value}</option>}
        {options.map(([v, name]) => (
          <option key={v} value={v}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The task an automation creates: on or off, then its title, column, assignee and description. */
function TaskFields({ task, columns, set }: { task: TaskConfig | null; columns: Column[]; set: SetKey }) {
  const ws = useWorkspace();
  const change = (key: keyof TaskConfig, value: string) => set("task", { ...task, [key]: value });
  const people = ws.members.map((m) => [m.user_id, m.display_name] as const);
  return (
    <div className="stack action-group">
      <label className="check">
        <input
          type="checkbox"
          checked={task !== null}
          onChange={(event) => set("task", event.target.checked ? { title: "" } : undefined)}
        />
        Create a task
      </label>
      {task && (
        <div className="form-grid">
          <label className="field span-2">
            <span>Task title</span>
            <input
              value={task.title ?? ""}
              required
              maxLength={500}
              onChange={(event) => change("title", event.target.value)}
            />
          </label>
          <Picker
            label="Column"
            value={task.column ?? ""}
            options={columns.map((c) => [c.name, c.name] as const)}
            none={columns[0] ? `The first (${columns[0].name})` : "The first column"}
            missing="no such column"
            onChange={(value) => change("column", value)}
          />
          <Picker
            label="Assignee"
            value={task.assignee_user_id ?? ""}
            options={people}
            none="Nobody"
            missing="not a member"
            onChange={(value) => change("assignee_user_id", value)}
          />
          <label className="field span-2">
            <span>Task description (optional)</span>
            <textarea
              rows={2}
              value={task.description ?? ""}
              onChange={(event) => change("description", event.target.value)}
            />
          </label>
        </div>
      )}
    </div>
  );
}

/**
 * What a scheduled or webhook automation does, any of three: post a message (a webhook's is a template over
 * the request's JSON), ask a staff member in the room, create a task.
 */
function ActionFields({
  kind,
  draft,
  set,
  rooms,
  columns,
}: {
  kind: "scheduled" | "webhook";
  draft: ConfigDraft;
  set: SetKey;
  rooms: ChatRoom[];
  columns: Column[];
}) {
  const ws = useWorkspace();
  const id = useId();
  const messageKey = kind === "webhook" ? "template" : "message";
  // Room names match case-insensitively, a leading `#` aside, as the server matches them.
  const channel = text(draft, "channel").replace(/^#/, "");
  const room = rooms.find((r) => r.name.toLowerCase() === channel.toLowerCase());
  const staff = ws.members.filter((m) => m.is_service_account).map((m) => [m.user_id, m.display_name] as const);
  return (
    <fieldset className="actions-fields">
      <legend>What it does</legend>
      <p className="small muted">
        {kind === "webhook"
          ? "On each signed request: any of these, at least one."
          : "At each run: any of these, at least one."}{" "}
        A message or a question to staff goes to the room.
      </p>
      <Picker
        label="Room"
        value={room?.name ?? channel}
        options={rooms.map((r) => [r.name, roomLabel(r.name)] as const)}
        none="No room"
        missing="no such room"
        onChange={(value) => set("channel", value || undefined)}
      />
      <label className="field">
        <span>{kind === "webhook" ? "Message template" : "Message"}</span>
        <textarea
          rows={3}
          value={text(draft, messageKey)}
          aria-describedby={kind === "webhook" ? `${id}-template-help` : undefined}
          placeholder={kind === "webhook" ? "Deploy of {{service}}: {{status}}" : "Stand-up in 10 minutes!"}
          onChange={(event) => set(messageKey, event.target.value)}
        />
      </label>
      {kind === "webhook" && (
        <p id={`${id}-template-help`} className="small muted">
          <code>{"{{path.to.field}}"}</code> puts in a field of the request's JSON (<code>{"{{repository.name}}"}</code>
          ); a missing field is left empty. Blank: the event's name and a short summary.
        </p>
      )}
      <div className="form-grid action-group">
        <Picker
          label="Ask a staff member"
          value={text(draft, "staff_user_id")}
          options={staff}
          none="Nobody"
          missing="not a staff member"
          onChange={(value) => set("staff_user_id", value || undefined)}
        />
        <label className="field span-2">
          <span>What to ask</span>
          <textarea
            rows={2}
            value={text(draft, "staff_prompt")}
            placeholder="Summarise what changed on the board last week."
            onChange={(event) => set("staff_prompt", event.target.value)}
          />
        </label>
      </div>
      <TaskFields task={taskOf(draft)} columns={columns} set={set} />
    </fieldset>
  );
}

/** A social post: where it goes, what it says, and when (or only on Run now). */
function SocialFields({ draft, set }: { draft: ConfigDraft; set: SetKey }) {
  return (
    <>
      <label className="field">
        <span>Endpoint</span>
        <input
          type="url"
          value={text(draft, "endpoint")}
          placeholder={DEFAULT_SOCIAL_ENDPOINT}
          onChange={(event) => set("endpoint", event.target.value)}
        />
      </label>
      <p className="small muted field-hint">
        Tandem posts <code>{'{"text": …}'}</code> as JSON there with the OAuth token below. Blank:{" "}
        {DEFAULT_SOCIAL_ENDPOINT}.
      </p>
      <label className="field">
        <span>Text to post</span>
        <textarea rows={3} value={text(draft, "text")} onChange={(event) => set("text", event.target.value)} />
      </label>
      <ScheduleFields
        optional
        cron={text(draft, "cron")}
        timezone={text(draft, "timezone")}
        onChange={(key, value) => set(key, value)}
      />
    </>
  );
}

/** The configuration fields of `kind`. */
export function ConfigFields({
  kind,
  draft,
  set,
  rooms,
  columns,
}: {
  kind: AutomationKind;
  draft: ConfigDraft;
  set: SetKey;
  rooms: ChatRoom[];
  columns: Column[];
}) {
  if (kind === "reverse_tunnel")
    return (
      <p className="notice">
        Nothing to set here. Once it is active, its page shows the <code>tandem tunnel</code> command that connects a
        local service, and the link that opens it.
      </p>
    );
  if (kind === "social_post") return <SocialFields draft={draft} set={set} />;
  return (
    <>
      {kind === "scheduled" && (
        <ScheduleFields
          cron={text(draft, "cron")}
          timezone={text(draft, "timezone")}
          onChange={(key, value) => set(key, value)}
        />
      )}
      <ActionFields kind={kind} draft={draft} set={set} rooms={rooms} columns={columns} />
    </>
  );
}
