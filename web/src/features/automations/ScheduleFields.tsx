/**
 * A schedule in a form: the cron expression (with common ones to start from), its time zone, and what it means
 * as it is typed: the schedule in words and its next runs, or why it is not a schedule yet.
 */
import { useId, useMemo } from "react";
import { DEFAULT_TIMEZONE, readCron, runTime, timeZones } from "./cron";

/** Schedules people often want, to start from. */
const COMMON: readonly (readonly [string, string])[] = [
  ["0 9 * * 1-5", "Weekdays at 9:00"],
  ["0 9 * * *", "Every day at 9:00"],
  ["0 9 * * 1", "Mondays at 9:00"],
  ["0 16 * * 5", "Fridays at 16:00"],
  ["0 * * * *", "Every hour"],
  ["*/15 * * * *", "Every 15 minutes"],
];

/** The next runs as a list, in the schedule's time zone. */
function NextRuns({ next, timezone, seconds }: { next: Date[]; timezone: string; seconds: boolean }) {
  if (next.length === 0) return <p className="small muted">It never comes: no date matches this schedule.</p>;
  return (
    <div className="small">
      <span className="muted">Next runs ({timezone}):</span>
      <ul className="next-runs">
        {next.map((date) => (
          <li key={date.getTime()}>
            <time dateTime={date.toISOString()}>{runTime(date, timezone, seconds)}</time>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The cron and time zone fields. `optional`: a blank schedule is allowed (a social post without one posts only
 * on Run now), and says so.
 */
export function ScheduleFields({
  cron,
  timezone,
  onChange,
  optional = false,
}: {
  cron: string;
  timezone: string;
  onChange: (key: "cron" | "timezone", value: string) => void;
  optional?: boolean;
}) {
  const id = useId();
  const zones = useMemo(timeZones, []);
  const zone = timezone.trim() || DEFAULT_TIMEZONE;
  const reading = readCron(cron, zone);
  const blank = cron.trim() === "";
  const seconds = cron.trim().split(/\s+/).length === 6;
  return (
    <fieldset className="schedule">
      <legend>Schedule{optional && " (optional)"}</legend>
      <div className="form-grid">
        <label className="field">
          <span>Cron expression</span>
          <input
            name="cron"
            className="mono"
            value={cron}
            required={!optional}
            spellCheck={false}
            autoComplete="off"
            placeholder="0 9 * * 1-5"
            aria-describedby={`${id}-reading ${id}-help`}
            onChange={(event) => onChange("cron", event.target.value)}
          />
        </label>
        <label className="field">
          <span>Time zone</span>
          <input
            name="timezone"
            list={`${id}-zones`}
            value={timezone}
            spellCheck={false}
            autoComplete="off"
            placeholder={DEFAULT_TIMEZONE}
            onChange={(event) => onChange("timezone", event.target.value)}
          />
        </label>
      </div>
      <datalist id={`${id}-zones`}>
        {zones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <div className="row wrap common-schedules">
        <span className="small muted">Start from:</span>
        {COMMON.map(([expression, label]) => (
          <button
            key={expression}
            type="button"
            className="chip"
            aria-pressed={cron.trim() === expression}
            onClick={() => onChange("cron", expression)}
          >
            {label}
          </button>
        ))}
      </div>
      <div id={`${id}-reading`} className="schedule-reading" aria-live="polite">
        {reading.ok ? (
          <>
            <p className="schedule-words">{reading.words}</p>
            <NextRuns next={reading.next} timezone={zone} seconds={seconds} />
          </>
        ) : (
          <p className={blank ? "small muted" : "small error"}>
            {blank && optional ? "No schedule: it posts only when someone presses Run now." : reading.problem}
          </p>
        )}
      </div>
      <p id={`${id}-help`} className="small muted">
        Five fields: minute, hour, day of month, month, day of week (<code>0 9 * * 1-5</code> is 9:00 on weekdays). Six
        fields put seconds first. The time zone is an IANA name such as <code>Europe/Berlin</code>; none means{" "}
        {DEFAULT_TIMEZONE}.
      </p>
    </fieldset>
  );
}
