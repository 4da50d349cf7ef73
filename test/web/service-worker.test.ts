/**
 * The service worker's handlers (web/src/sw/notices.ts) as a plain module, with stand-ins for its windows and
 * notifications: a push of an inbox item becomes one notification tagged with the item's id unless a focused
 * Tandem window shows it itself; a click focuses a window and asks it to open the item, or opens a new window
 * that marks it read; nothing leads off this origin. (The same built worker runs in Chromium in push.test.ts.)
 */
import { describe, expect, it } from "bun:test";
import { withRead } from "../../web/src/features/inbox/items";
import {
  type NoticeData,
  onClick,
  onPush,
  type WindowLike,
  type WorkerEnv,
  withItemParam,
} from "../../web/src/sw/notices";

const ORIGIN = "http://localhost:4100";

const item = {
  id: "0b1c8f7e-4a1d-4b5e-9c3a-1f2e3d4c5b6a",
  kind: "mention",
  space_id: "s1",
  actor_user_id: "u1",
  chat_room_id: "r1",
  message_id: "m1",
  task_id: null,
  automation_id: null,
  proposal_id: null,
  summary: "@Ben can you look?",
  read_at: null,
  created_at: "2026-12-01T10:00:00.000Z",
};

const push = {
  type: "inbox.item",
  organization_id: "o1",
  title: "Olivia Owner mentioned you in Launch",
  body: "@Ben can you look?",
  url: "https://tandem.example.com/spaces/s1/chat/r1",
  item,
};

interface FakeWindow extends WindowLike {
  focusedNow: boolean;
  messages: unknown[];
}

function win(url: string, focused: boolean, visibilityState: DocumentVisibilityState = "visible"): FakeWindow {
  const w: FakeWindow = {
    url,
    focused,
    visibilityState,
    focusedNow: false,
    messages: [],
    focus: async () => {
      w.focusedNow = true;
      return w;
    },
    postMessage: (message) => w.messages.push(message),
  };
  return w;
}

function worker(windows: FakeWindow[] = []) {
  const shown: { title: string; options: NotificationOptions }[] = [];
  const opened: string[] = [];
  const env: WorkerEnv = {
    origin: ORIGIN,
    windows: async () => windows,
    show: async (title, options) => {
      shown.push({ title, options });
    },
    open: async (url) => opened.push(url),
  };
  return { env, shown, opened };
}

describe("a push", () => {
  it("shows the item's title and body, tagged with its id, keeping the path on this origin for the click", async () => {
    const w = worker();
    expect(await onPush(push, w.env)).toBe("shown");
    expect(w.shown).toEqual([
      {
        title: "Olivia Owner mentioned you in Launch",
        options: {
          body: "@Ben can you look?",
          tag: item.id,
          data: { path: "/spaces/s1/chat/r1", organization_id: "o1", item } satisfies NoticeData,
        },
      },
    ]);
  });

  it("is shown when Tandem windows are open but none is focused and visible", async () => {
    const w = worker([win(`${ORIGIN}/inbox`, false, "visible"), win(`${ORIGIN}/spaces`, true, "hidden")]);
    expect(await onPush(push, w.env)).toBe("shown");
    expect(w.shown.length).toBe(1);
  });

  it("is not shown when a focused, visible Tandem window shows the item itself", async () => {
    const w = worker([win(`${ORIGIN}/inbox`, false, "hidden"), win(`${ORIGIN}/spaces`, true, "visible")]);
    expect(await onPush(push, w.env)).toBe("skipped");
    expect(w.shown).toEqual([]);
  });

  it("ignores what is not an inbox item", async () => {
    const w = worker();
    for (const data of [
      null,
      "text",
      { ...push, type: "something.else" },
      { ...push, item: null },
      { ...push, item: { ...item, id: 7 } },
      { ...push, title: undefined },
    ]) {
      expect(await onPush(data, w.env)).toBe("ignored");
    }
    expect(w.shown).toEqual([]);
  });

  it("opens the Inbox when the push names no place", async () => {
    const w = worker();
    await onPush({ ...push, url: undefined }, w.env);
    expect((w.shown[0]?.options.data as NoticeData | undefined)?.path).toBe("/inbox");
  });
});

describe("a click on a notification", () => {
  const data: NoticeData = { path: "/spaces/s1/board?task=t1", organization_id: "o1", item };

  it("focuses the focused window (else a visible one, else any) and asks it to open the item", async () => {
    const hidden = win(`${ORIGIN}/inbox`, false, "hidden");
    const visible = win(`${ORIGIN}/spaces`, false, "visible");
    const focused = win(`${ORIGIN}/my-tasks`, true, "visible");
    for (const [windows, expected] of [
      [[hidden, visible, focused], focused],
      [[hidden, visible], visible],
      [[hidden], hidden],
    ] as const) {
      for (const w of windows) {
        w.focusedNow = false;
        w.messages.length = 0;
      }
      const w = worker([...windows]);
      expect(await onClick(data, w.env)).toBe("focused");
      expect(expected.focusedNow).toBe(true);
      expect(expected.messages).toEqual([{ type: "tandem.open", ...data }]);
      expect(windows.filter((x) => x !== expected).every((x) => x.messages.length === 0)).toBe(true);
      expect(w.opened).toEqual([]);
    }
  });

  it("opens a window at the item's place, naming the item for the page to mark read, when none is open", async () => {
    const w = worker();
    expect(await onClick(data, w.env)).toBe("opened");
    expect(w.opened).toEqual([`/spaces/s1/board?task=t1&inbox_item=${item.id}`]);
    expect(withItemParam("/spaces/s1/chat/r1", "i1")).toBe("/spaces/s1/chat/r1?inbox_item=i1");
  });

  it("never leads off this origin, whatever the notification's path says", async () => {
    const w = worker();
    await onClick({ ...data, path: "https://elsewhere.example/spaces/s1?x=1" }, w.env);
    expect(w.opened).toEqual([`/spaces/s1?x=1&inbox_item=${item.id}`]);
  });

  it("ignores a notification that is not one of an item", async () => {
    const w = worker([win(`${ORIGIN}/inbox`, true)]);
    expect(await onClick(null, w.env)).toBe("ignored");
    expect(await onClick({ path: "/x" }, w.env)).toBe("ignored");
    expect(w.opened).toEqual([]);
  });
});

describe("inbox.read in the Inbox's list", () => {
  it("marks the named items read (or all), keeping the rest as they were", () => {
    const a = { ...item, id: "a" };
    const b = { ...item, id: "b" };
    const c = { ...item, id: "c", read_at: "2026-12-01T09:00:00.000Z" };
    const at = "2026-12-01T11:00:00.000Z";
    const some = withRead([a, b, c] as never, ["b", "c"], at);
    expect(some.map((i) => i.read_at)).toEqual([null, at, c.read_at]);
    expect(some[0]).toBe(a as never);
    expect(withRead([a, b, c] as never, "all", at).map((i) => i.read_at)).toEqual([at, at, c.read_at]);
  });
});
