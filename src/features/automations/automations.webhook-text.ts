/**
 * What a webhook posts when its config gives no `template`: the event's name and a few words about it. GitHub's
 * common events are said as a person would; any other JSON by its top-level fields.
 */

const MAX_SUMMARY = 1000;

type Json = Record<string, unknown>;

const str = (value: unknown) => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");
const obj = (value: unknown): Json =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
const firstLine = (text: string) => text.split("\n")[0]?.trim() ?? "";

/** GitHub's events, in a line. */
function github(event: string, payload: Json): string | null {
  const repo = str(obj(payload.repository).full_name);
  const who = str(obj(payload.sender).login);
  switch (event) {
    case "push": {
      const commits = Array.isArray(payload.commits) ? payload.commits.length : 0;
      const branch = str(payload.ref).replace(/^refs\/heads\//, "");
      const head = firstLine(str(obj(payload.head_commit).message));
      return `${who || "Someone"} pushed ${commits} commit${commits === 1 ? "" : "s"} to ${repo}${branch ? ` (${branch})` : ""}${head ? `: ${head}` : ""}`;
    }
    case "pull_request": {
      const pr = obj(payload.pull_request);
      return `Pull request #${str(pr.number)} ${str(payload.action)} in ${repo}: ${str(pr.title)} ${str(pr.html_url)}`.trim();
    }
    case "issues": {
      const issue = obj(payload.issue);
      return `Issue #${str(issue.number)} ${str(payload.action)} in ${repo}: ${str(issue.title)} ${str(issue.html_url)}`.trim();
    }
    case "release":
      return `Release ${str(obj(payload.release).tag_name)} ${str(payload.action)} in ${repo}`;
    case "ping":
      return `GitHub says hello to ${repo || "this webhook"}: ${str(payload.zen)}`;
    default:
      return null;
  }
}

/** The top-level fields of a payload that are text or numbers, `key: value`, on one line. */
function fields(payload: Json): string {
  return Object.entries(payload)
    .filter(([, v]) => typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    .slice(0, 6)
    .map(([k, v]) => `${k}: ${String(v).slice(0, 120)}`)
    .join(", ");
}

/** The message of a delivery without a template: `**name**: event` and what it says. */
export function webhookSummary(name: string, event: string | null, payload: unknown): string {
  const body = obj(payload);
  const kind = event ?? (str(body.type) || str(body.event) || str(body.action) || "delivery");
  const said = (event ? github(event, body) : null) ?? fields(body);
  const text = `**${name}**: ${kind}${said ? `\n${said}` : ""}`;
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}
