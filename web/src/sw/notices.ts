/**
 * What the service worker does with a push and with a click on a notification, apart from the worker's globals
 * (`sw.ts` wires them in), so it runs in tests as a plain module.
 *
 * A push is an inbox item (`{type: "inbox.item", organization_id, title, body, url, item}`, docs/api.md): it is
 * shown, tagged with the item's id so that the pushes to several tabs' worth of one browser, and the page's own
 * notification of the same item, make one notification. It is not shown when a Tandem window is focused and
 * visible: that page already shows the item itself.
 *
 * A click goes to a Tandem window (the focused one, else a visible one, else any): focused, and told to open the
 * item, which the page marks read as opening it from the Inbox does. With no window open, a new one opens at the
 * item's place with `inbox_item=<id>` in its address, which the page marks read and takes out. The worker itself
 * never calls the API: it has no session (that is the page's, in its storage).
 */

/** An inbox item as a push carries it (the fields the worker needs; the page takes the whole item). */
export interface PushedItem {
  id: string;
  [field: string]: unknown;
}

/** The payload the server pushes for an inbox item. */
export interface InboxPush {
  type: "inbox.item";
  organization_id: string;
  title: string;
  body: string;
  url: string;
  item: PushedItem;
}

/** What a notification keeps for its click. */
export interface NoticeData {
  /** The place to open, a path of this origin (`/spaces/…`). */
  path: string;
  organization_id: string;
  item: PushedItem;
}

/** What the worker asks a page to do when one of its notifications is clicked. */
export interface OpenMessage extends NoticeData {
  type: "tandem.open";
}

/** A browser window of this origin, as the worker sees it (`WindowClient`). */
export interface WindowLike {
  url: string;
  focused: boolean;
  visibilityState: DocumentVisibilityState;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

/** What the handlers use of the worker. */
export interface WorkerEnv {
  /** The worker's origin (`self.location.origin`). */
  origin: string;
  /** The windows of this origin, controlled or not. */
  windows(): Promise<readonly WindowLike[]>;
  show(title: string, options: NotificationOptions): Promise<void>;
  open(url: string): Promise<unknown>;
}

/** The address parameter naming the item a window was opened for, which the page marks read. */
export const ITEM_PARAM = "inbox_item";

const isString = (value: unknown): value is string => typeof value === "string";

/** The payload, when it is a push of an inbox item; null for anything else. */
export function inboxPushOf(data: unknown): InboxPush | null {
  if (typeof data !== "object" || data === null) return null;
  const push = data as Record<string, unknown>;
  const item = push.item as Record<string, unknown> | null | undefined;
  if (push.type !== "inbox.item" || !isString(push.title) || !isString(push.organization_id)) return null;
  if (typeof item !== "object" || item === null || !isString(item.id)) return null;
  return {
    type: "inbox.item",
    organization_id: push.organization_id,
    title: push.title,
    body: isString(push.body) ? push.body : "",
    url: isString(push.url) ? push.url : "/inbox",
    item: item as PushedItem,
  };
}

/**
 * The path of `url` on this origin: a push names the server's public address, which may not be the one this
 * browser opened Tandem at; only the path is taken, so a notification never leads elsewhere.
 */
export function localPath(url: string, origin: string): string {
  try {
    const parsed = new URL(url, origin);
    return parsed.pathname + parsed.search + parsed.hash;
  } catch {
    return "/inbox";
  }
}

/** The notification of a push: title, body, the item's id as tag, and what the click needs. */
export function noticeOf(push: InboxPush, origin: string): { title: string; options: NotificationOptions } {
  const data: NoticeData = {
    path: localPath(push.url, origin),
    organization_id: push.organization_id,
    item: push.item,
  };
  return { title: push.title, options: { body: push.body, tag: push.item.id, data } };
}

/** Whether a Tandem window is focused and visible: that page shows the item itself. */
export function pageShowsItself(windows: readonly WindowLike[]): boolean {
  return windows.some((w) => w.focused && w.visibilityState === "visible");
}

/** Handles a push: `shown`, `skipped` (a focused window shows it) or `ignored` (not an inbox item). */
export async function onPush(data: unknown, env: WorkerEnv): Promise<"shown" | "skipped" | "ignored"> {
  const push = inboxPushOf(data);
  if (!push) return "ignored";
  if (pageShowsItself(await env.windows())) return "skipped";
  const { title, options } = noticeOf(push, env.origin);
  await env.show(title, options);
  return "shown";
}

/** The window a click goes to: the focused one, else a visible one, else the first. */
export function windowFor(windows: readonly WindowLike[]): WindowLike | undefined {
  return windows.find((w) => w.focused) ?? windows.find((w) => w.visibilityState === "visible") ?? windows[0];
}

/** `path` with the item named for the page to mark read. */
export function withItemParam(path: string, itemId: string): string {
  const url = new URL(path, "http://tandem.invalid");
  url.searchParams.set(ITEM_PARAM, itemId);
  return url.pathname + url.search + url.hash;
}

/**
 * Handles a click on a notification shown from `data` (a notice's data): to a window, focused and told to open
 * the item; else a new window at its place. `focused`, `opened` or `ignored` (not one of ours).
 */
export async function onClick(data: unknown, env: WorkerEnv): Promise<"focused" | "opened" | "ignored"> {
  const notice = data as Partial<NoticeData> | null;
  if (!notice || !isString(notice.path) || !isString(notice.item?.id)) return "ignored";
  const path = localPath(notice.path, env.origin);
  const target = windowFor(await env.windows());
  if (target) {
    await target.focus();
    const message: OpenMessage = {
      type: "tandem.open",
      path,
      organization_id: isString(notice.organization_id) ? notice.organization_id : "",
      item: notice.item,
    };
    target.postMessage(message);
    return "focused";
  }
  await env.open(withItemParam(path, notice.item.id));
  return "opened";
}
