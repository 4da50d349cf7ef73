/**
 * What emails and pushes say: pure functions of the items and names they are given. Emails are plain text with
 * a simple HTML twin in which every value is escaped; nothing here reads the database, so access is decided by
 * the caller before anything is rendered.
 */

/** An inbox item as email and push show it. */
export interface Notice {
  kind: string;
  spaceId: string;
  spaceName: string;
  actorName: string | null;
  chatRoomId: string | null;
  taskId: string | null;
  automationId: string | null;
  proposalId: string | null;
  summary: string;
}

/** One line saying what happened: "Ada Lovelace mentioned you in Launch". */
export function headline(notice: Notice): string {
  const who = notice.actorName ?? "Someone";
  const where = notice.spaceName;
  switch (notice.kind) {
    case "mention":
      return `${who} mentioned you in ${where}`;
    case "assigned":
      return `${who} assigned you a task in ${where}`;
    case "thread_reply":
      return `${who} replied in a thread you wrote in, in ${where}`;
    case "staff_reply":
      return `${who} answered you in ${where}`;
    case "approval":
      return `${notice.actorName ? `${who} asks` : "Something asks"} for your approval in ${where}`;
    default:
      return `Something needs you in ${where}`;
  }
}

/** Where in the web UI the item opens, below the public URL. */
export function pathOf(notice: Notice): string {
  const space = `/spaces/${encodeURIComponent(notice.spaceId)}`;
  if (notice.automationId !== null || notice.proposalId !== null) return "/approvals";
  if (notice.chatRoomId !== null) return `${space}/chat/${encodeURIComponent(notice.chatRoomId)}`;
  if (notice.taskId !== null) return `${space}/board`;
  return space;
}

/** Text for HTML, every character that means something there escaped. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A subject line: one line, whatever the names hold. */
function subjectLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, " ").slice(0, 200);
}

const HTML_HEAD = '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5;color:#222">';
const HTML_TAIL = "</body></html>";

/** The footer of a notification email: why it came, and where to change that. */
function footer(base: string, setting: "digest" | "all") {
  const settings = `${base}/settings`;
  const why =
    setting === "digest"
      ? "You get this digest because your email notifications are set to digest."
      : "You get this email because your email notifications are set to all.";
  return {
    text: `--\n${why}\nChange it in your settings: ${settings}\n`,
    html: `<hr><p style="color:#666;font-size:small">${escapeHtml(why)} <a href="${escapeHtml(settings)}">Change it in your settings</a>.</p>`,
  };
}

/** The email of one person's digest: everything that waited for them, at most `shown` of it listed. */
export function digestEmail(input: {
  base: string;
  organizationName: string;
  recipientName: string;
  notices: readonly Notice[];
  /** How many items the digest stands for, listed or not. */
  total: number;
}) {
  const { base, notices, total } = input;
  const org = input.organizationName;
  const subject = subjectLine(total === 1 ? `1 thing needs you in ${org}` : `${total} things need you in ${org}`);
  const more = total - notices.length;
  const lines = notices.map((n) => `- ${headline(n)}:\n  ${n.summary}\n  ${base}${pathOf(n)}`);
  const text = [
    `Hi ${input.recipientName},`,
    "",
    `While you were away, ${total === 1 ? "this waited" : `${total} things waited`} for you in ${org}:`,
    "",
    lines.join("\n\n"),
    ...(more > 0 ? ["", `…and ${more} more in your inbox.`] : []),
    "",
    `Open Tandem: ${base}/`,
    "",
    footer(base, "digest").text,
  ].join("\n");
  const items = notices
    .map(
      (n) =>
        `<li style="margin-bottom:12px"><a href="${escapeHtml(base + pathOf(n))}">${escapeHtml(headline(n))}</a><br>` +
        `<span style="color:#444">${escapeHtml(n.summary)}</span></li>`,
    )
    .join("");
  const html =
    HTML_HEAD +
    `<p>Hi ${escapeHtml(input.recipientName)},</p>` +
    `<p>While you were away, ${total === 1 ? "this waited" : `${total} things waited`} for you in ${escapeHtml(org)}:</p>` +
    `<ul>${items}</ul>` +
    (more > 0 ? `<p>…and ${more} more in your inbox.</p>` : "") +
    `<p><a href="${escapeHtml(`${base}/`)}">Open Tandem</a></p>` +
    footer(base, "digest").html +
    HTML_TAIL;
  return { subject, text, html };
}

/** The email of one item on its own (setting `all`). */
export function itemEmail(input: { base: string; organizationName: string; notice: Notice }) {
  const { base, notice } = input;
  const title = headline(notice);
  const link = base + pathOf(notice);
  const text = [`${title}:`, "", notice.summary, "", `Open it: ${link}`, "", footer(base, "all").text].join("\n");
  const html =
    HTML_HEAD +
    `<p>${escapeHtml(title)}:</p>` +
    `<blockquote style="border-left:3px solid #ccc;margin:0;padding-left:12px">${escapeHtml(notice.summary)}</blockquote>` +
    `<p><a href="${escapeHtml(link)}">Open it</a></p>` +
    footer(base, "all").html +
    HTML_TAIL;
  return { subject: subjectLine(`${title} (${input.organizationName})`), text, html };
}

/** The email of an invite: who invites, to what, and the link that accepts it. */
export function inviteEmail(input: {
  base: string;
  organizationName: string;
  inviterName: string | null;
  token: string;
  expiresAt: number;
}) {
  const link = `${input.base}/invite?token=${encodeURIComponent(input.token)}`;
  const who = input.inviterName ?? "Someone";
  const org = input.organizationName;
  const until = new Date(input.expiresAt).toUTCString();
  const text = [
    `${who} invited you to join ${org} on Tandem.`,
    "",
    `Accept the invite: ${link}`,
    "",
    `The link works once, until ${until}. If you did not expect it, ignore this email.`,
    "",
  ].join("\n");
  const html =
    HTML_HEAD +
    `<p>${escapeHtml(who)} invited you to join ${escapeHtml(org)} on Tandem.</p>` +
    `<p><a href="${escapeHtml(link)}">Accept the invite</a></p>` +
    `<p style="color:#666;font-size:small">The link works once, until ${escapeHtml(until)}. If you did not expect it, ignore this email.</p>` +
    HTML_TAIL;
  return { subject: subjectLine(`${who} invited you to ${org} on Tandem`), text, html };
}
