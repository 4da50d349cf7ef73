/** The list of spaces, creating one, and the frame of one space (its tabs). */
import { type FormEvent, lazy, Suspense, useEffect, useRef, useState } from "react";
import type { SpaceBody } from "../../../../src/api-types";
import { useAction, useLoad } from "../../lib/hooks";
import { Link, navigate } from "../../lib/router";
import { Empty, ErrorText, FormButtons, Modal, Spinner } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { listSpaces } from "../../lib/workspace-api";
import { BoardPage } from "../board/BoardPage";
import { ChatPage } from "../chat/ChatPage";
import { FilesPage } from "../files/FilesPage";
import { Counts, useSpaceCount } from "../inbox/Counts";
import { MuteButton } from "../inbox/MuteButton";
import { createSpace, getSpace } from "./api";
import { SpaceSettings } from "./SpaceSettings";

// Automations bring a cron reader and describer: loaded when the tab is first opened, not with the first screen.
const AutomationsTab = lazy(() => import("../automations/AutomationsPage"));

function CreateSpace({ onClose }: { onClose: () => void }) {
  const ws = useWorkspace();
  const { run, busy, error } = useAction(async (body: SpaceBody) => {
    const space = await createSpace(ws.base, body);
    await ws.reloadSpaces();
    navigate(`/spaces/${space.id}/board`);
    onClose();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    void run({
      name: String(data.get("name") ?? ""),
      description: String(data.get("description") ?? ""),
      private: data.get("private") === "on",
    });
  };
  return (
    <Modal title="New space" onClose={onClose}>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>Name</span>
          <input name="name" required maxLength={200} />
        </label>
        <label className="field">
          <span>Description</span>
          <textarea name="description" rows={3} />
        </label>
        <label className="check">
          <input type="checkbox" name="private" /> Private: only people I add can see it
        </label>
        <FormButtons onCancel={onClose} disabled={busy} label="Create space" />
        <ErrorText error={error} />
      </form>
    </Modal>
  );
}

/** The spaces list (/spaces). */
export function SpacesPage() {
  const ws = useWorkspace();
  const [creating, setCreating] = useState(false);
  // The workspace opens before its spaces arrive: while it has none, they are asked for here too, so "No spaces
  // yet." is said only once the server has answered so (not for the round trip after signing in).
  const own = useLoad(ws.spaces.length === 0 ? listSpaces : null, ws.base);
  const spaces = ws.spaces.length > 0 ? ws.spaces : own.data;
  return (
    <section className="page-body">
      <header className="page-head">
        <h1>Spaces</h1>
        {ws.can("spaces.create") && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New space
          </button>
        )}
      </header>
      {spaces === undefined ? (
        own.error ? (
          <ErrorText error={own.error} />
        ) : (
          <Spinner label="Loading spaces…" />
        )
      ) : spaces.length === 0 ? (
        <Empty>No spaces yet.{ws.can("spaces.create") ? " Create the first one." : ""}</Empty>
      ) : (
        <ul className="cards">
          {spaces.map((space) => (
            <li key={space.id} className="card">
              <Link href={`/spaces/${space.id}/board`} className="card-title">
                {space.private ? "🔒 " : ""}
                {space.name}
              </Link>
              {space.description && <p className="muted">{space.description}</p>}
              <p className="small muted">
                <Link href={`/spaces/${space.id}/board`}>Board</Link> ·{" "}
                <Link href={`/spaces/${space.id}/chat`}>Chat</Link> ·{" "}
                <Link href={`/spaces/${space.id}/files`}>Files</Link>
              </p>
            </li>
          ))}
        </ul>
      )}
      {creating && <CreateSpace onClose={() => setCreating(false)} />}
    </section>
  );
}

const TABS = [
  ["board", "Board"],
  ["chat", "Chat"],
  ["files", "Files"],
  ["automations", "Automations"],
  ["settings", "Settings"],
] as const;

/**
 * A space that cannot be opened: a heading says so (a screen reader's list of headings is not empty), with the
 * API's words and the way back. A private space you are not in answers `space not found` like a missing one.
 */
function SpaceMissing({ error }: { error: string }) {
  // A refusal or a missing space reads "Space not found"; anything else (the server out of reach) says so.
  const missing = /not found|invalid|uuid|validation/i.test(error);
  return (
    <section className="page-body narrow" aria-labelledby="space-missing">
      <header className="page-head">
        <h1 id="space-missing">{missing ? "Space not found" : "Could not open this space"}</h1>
      </header>
      <ErrorText error={error} />
      <p className="muted">
        {missing ? "It does not exist, or it is a private space you are not a member of. " : "Try again in a moment. "}
        <Link href="/spaces">See all spaces</Link>
      </p>
    </section>
  );
}

/**
 * Keeps the active tab in view in a row of tabs that scrolls sideways (on a phone, where they may not all fit):
 * a space opened on its Settings shows the Settings tab.
 */
function useActiveTabInView(tab: string, shown: boolean) {
  const nav = useRef<HTMLElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the tab (or the row itself, once shown) is what changes.
  useEffect(() => {
    const row = nav.current;
    const active = row?.querySelector('[aria-current="page"]');
    if (!row || !active) return;
    const bar = row.getBoundingClientRect();
    const box = active.getBoundingClientRect();
    if (box.left < bar.left) row.scrollLeft -= bar.left - box.left + 24;
    else if (box.right > bar.right) row.scrollLeft += box.right - bar.right + 24;
  }, [tab, shown]);
  return nav;
}

/** One space: its name, its tabs, and the tab's screen. `item` is the room, file or automation in the URL. */
export function SpaceRoute({ spaceId, tab, item }: { spaceId: string; tab: string; item: string | null }) {
  const ws = useWorkspace();
  const known = ws.spaces.find((s) => s.id === spaceId);
  const count = useSpaceCount(spaceId);
  const loaded = useLoad(known ? null : getSpace, ws.base, spaceId);
  const space = known ?? loaded.data;
  const tabs = useActiveTabInView(tab, space !== undefined);
  if (!space) return loaded.error ? <SpaceMissing error={loaded.error} /> : <Spinner />;
  let body: React.ReactNode;
  switch (tab) {
    case "board":
      body = <BoardPage space={space} />;
      break;
    case "chat":
      body = <ChatPage space={space} roomId={item} />;
      break;
    case "files":
      body = <FilesPage space={space} nodeId={item} />;
      break;
    case "automations":
      body = (
        <Suspense fallback={<Spinner />}>
          <AutomationsTab space={space} item={item} />
        </Suspense>
      );
      break;
    case "settings":
      body = <SpaceSettings space={space} />;
      break;
    default:
      body = <ErrorText error="page not found" />;
  }
  return (
    <section className="space">
      <header className="space-head">
        <div className="space-title">
          <h1>
            {space.private && <span title="Private space">🔒 </span>}
            {space.name}
          </h1>
          <MuteButton what="space" id={space.id} name={space.name} />
        </div>
        <nav ref={tabs} className="tabs" aria-label="Space">
          {TABS.map(([key, label]) => (
            <Link
              key={key}
              href={`/spaces/${space.id}/${key}`}
              className={tab === key ? "tab active" : "tab"}
              aria-current={tab === key ? "page" : undefined}
            >
              {label}
              {key === "chat" && (count.unread > 0 || count.mentions > 0) && (
                <>
                  {" "}
                  <Counts count={count} />
                </>
              )}
            </Link>
          ))}
        </nav>
      </header>
      <div className="space-body">{body}</div>
    </section>
  );
}
