/**
 * An automation's runs, newest first: what started each (its schedule, a webhook call, Run now, a tunnel
 * connection), how it ended, when and how long it took, its attempt when retried, its error and its output.
 */
import { type ReactNode, useEffect, useState } from "react";
import type { AutomationRun } from "../../../../src/api-types";
import { Link } from "../../lib/router";
import { busyProps, dateTime, Empty, ErrorText, Spinner, timeAgo } from "../../lib/ui";
import { RUN_STATUSES, TRIGGERS } from "./model";
import { duration } from "./runs-state";
import type { Runs } from "./use-runs";

/** How many attempts a run gets (contract §8: network errors, 429 and 5xx are tried again). */
const ATTEMPTS = 3;

/** A value of the output as text: itself when it is a string or number, else its JSON. */
function shown(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value, null, 2);
}

/** The output keys said in words (and linked to what they name); the rest are listed as they are. */
const KNOWN_OUTPUT = ["chat_room_id", "message_id", "staff_message_id", "task_id", "status", "id", "requests"];

/**
 * A run's output: what it posted or created, linked to the room or task (the ids of `automations.actions.ts`),
 * a social post's answer, a tunnel connection's requests; any other key as it is.
 */
function Output({ output, spaceId }: { output: Record<string, unknown>; spaceId: string }) {
  const id = (key: string) => (typeof output[key] === "string" ? (output[key] as string) : null);
  const room = id("chat_room_id");
  const said: ReactNode[] = [];
  const inRoom = (key: string, words: string) => {
    if (!id(key)) return;
    said.push(
      room ? (
        <Link key={key} href={`/spaces/${spaceId}/chat/${room}`}>
          {words}
        </Link>
      ) : (
        words
      ),
    );
  };
  inRoom("message_id", "Posted the message");
  inRoom("staff_message_id", "Asked the staff member");
  const task = id("task_id");
  if (task)
    said.push(
      <Link key="task" href={`/spaces/${spaceId}/board?task=${task}`}>
        Created the task
      </Link>,
    );
  if (output.status !== undefined) said.push(`Answered ${shown(output.status)}`);
  if (output.id !== undefined && output.id !== null) said.push(`Post id ${shown(output.id)}`);
  if (typeof output.requests === "number")
    said.push(`${output.requests} ${output.requests === 1 ? "request" : "requests"}`);
  const rest = Object.entries(output).filter(([key]) => !KNOWN_OUTPUT.includes(key));
  return (
    <>
      {said.length > 0 && (
        <p className="small run-output-said">{said.flatMap((part, i) => (i === 0 ? [part] : [" · ", part]))}</p>
      )}
      {rest.length > 0 && (
        <details className="run-output">
          <summary className="small">Output</summary>
          <dl>
            {rest.map(([key, value]) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd className={typeof value === "object" && value !== null ? "mono pre" : undefined}>{shown(value)}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </>
  );
}

/** Re-renders every second while something runs, so its time goes on. */
function useTick(active: boolean): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, [active]);
}

/** One run. */
function RunRow({ run, spaceId }: { run: AutomationRun; spaceId: string }) {
  const when = run.started_at ?? run.created_at;
  const took = duration(run);
  return (
    <li className={`run run-${run.status}`}>
      <div className="run-line">
        <span className={`status-pill status-${run.status}`}>{RUN_STATUSES[run.status] ?? run.status}</span>
        <span className="run-trigger">{TRIGGERS[run.trigger] ?? run.trigger}</span>
        <time className="muted small" dateTime={when} title={dateTime(when)}>
          {run.started_at ? timeAgo(when) : `queued ${timeAgo(when)}`}
        </time>
        {took && (
          <span className="muted small">
            {run.status === "running" ? "for " : "took "}
            {took}
          </span>
        )}
        {run.attempt > 1 && (
          <span className="muted small">
            attempt {run.attempt} of {ATTEMPTS}
          </span>
        )}
      </div>
      {run.error && <p className="run-error small">{run.error}</p>}
      {run.output && <Output output={run.output} spaceId={spaceId} />}
    </li>
  );
}

/** The history section of an automation's page. */
export function RunHistory({ runs, spaceId }: { runs: Runs; spaceId: string }) {
  const list = runs.runs;
  useTick(list?.some((r) => r.status === "running" || r.status === "queued") === true);
  return (
    <section className="panel runs" aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs</h2>
      <ErrorText error={runs.error} />
      {list === null && !runs.error && <Spinner />}
      {list?.length === 0 && <Empty>No runs yet. They appear here as they start.</Empty>}
      {list && list.length > 0 && (
        <ol className="run-list" aria-label="Runs, newest first">
          {list.map((run) => (
            <RunRow key={run.id} run={run} spaceId={spaceId} />
          ))}
        </ol>
      )}
      {runs.more && (
        <button type="button" {...busyProps(runs.loadingOlder)} onClick={() => void runs.loadOlder()}>
          {runs.loadingOlder ? "Loading…" : "Load older runs"}
        </button>
      )}
    </section>
  );
}
