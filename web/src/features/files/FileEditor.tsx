/**
 * The collaborative editor of a text file: CodeMirror 6 bound by y-codemirror.next to a Y.Doc that the stock
 * y-websocket client syncs with the server (docs/api.md "Editing together"), other people's cursors and names
 * through awareness, lists typed as markdown editors type them, and a markdown preview beside or instead of the
 * text. Loaded lazily: CodeMirror and Yjs stay out of the first screen's JavaScript.
 */
import { defaultKeymap, indentLess, indentMore } from "@codemirror/commands";
import { markdownLanguage } from "@codemirror/lang-markdown";
import { LanguageSupport, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState, Prec } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder,
} from "@codemirror/view";
import { tagHighlighter, tags } from "@lezer/highlight";
import { useEffect, useRef, useState } from "react";
import { yCollab, yUndoManagerKeymap } from "y-codemirror.next";
import { WebsocketProvider } from "y-websocket";
import * as Y from "yjs";
import { accessToken } from "../../lib/api";
import { Markdown } from "../../lib/markdown";
import { Avatar } from "../../lib/ui";
import { headingInList, listKeymap } from "./markdown-lists";

/** How the file shows: the text, the text and its preview side by side, or the preview alone. */
export type ViewMode = "edit" | "split" | "preview";

/** Someone else in the document, from their awareness state. */
interface Peer {
  id: string;
  name: string;
  color: string;
  /** Without `files.write` (a Viewer) or a staff member: they watch, their typing is not saved. */
  readOnly: boolean;
}

/**
 * Cursor colours: hues far apart, each dark enough for the white name label over a cursor, and told apart by
 * people who see red and green alike (blue, orange, purple, teal… rather than neighbouring browns).
 */
export const PEER_COLORS = [
  "#1d4ed8",
  "#c2410c",
  "#7e22ce",
  "#047857",
  "#be185d",
  "#0e7490",
  "#4d7c0f",
  "#475569",
] as const;

/** A cursor colour and its translucent form for selections. */
function peerColor(color: string): { color: string; colorLight: string } {
  return { color, colorLight: `${color}38` };
}

/**
 * The colour this editor's cursor should have: its client id's palette entry, unless someone else who was there
 * first (a lower client id) already has it; then the first one nobody uses. Each editor applies the same rule,
 * so two people in one file never keep one colour (while the palette lasts).
 */
export function pickColor(clientId: number, others: ReadonlyMap<number, string>, current?: string): string {
  const preferred = current ?? (PEER_COLORS[clientId % PEER_COLORS.length] as string);
  const clash = [...others].some(([id, color]) => color === preferred && id < clientId);
  if (!clash) return preferred;
  const used = new Set(others.values());
  return PEER_COLORS.find((c) => !used.has(c)) ?? preferred;
}

/** Messages of the server's close reasons (4000 + the REST status), in words for people. */
function closedText(reason: string): string {
  if (reason === "file not found") return "This file was deleted.";
  if (reason === "unauthorized") return "You were signed out: sign in again to edit this file.";
  if (reason.startsWith("missing permission")) return `You can no longer open this file (${reason}).`;
  if (reason === "space not found" || reason === "organization not found")
    return `You no longer have access to this file (${reason}).`;
  return `The connection to this file was closed: ${reason}.`;
}

/**
 * Markdown's parts as classes (styled in files.css with the page's tokens, so dark mode follows the system)
 * rather than CodeMirror's default colors, which are made for a light background.
 */
const markdownClasses = tagHighlighter([
  { tag: tags.heading1, class: "md-heading md-h1" },
  { tag: tags.heading2, class: "md-heading md-h2" },
  { tag: tags.heading, class: "md-heading" },
  { tag: tags.emphasis, class: "md-em" },
  { tag: tags.strong, class: "md-strong" },
  { tag: tags.strikethrough, class: "md-strike" },
  { tag: tags.link, class: "md-link" },
  { tag: tags.url, class: "md-url" },
  { tag: tags.monospace, class: "md-code" },
  { tag: tags.quote, class: "md-quote" },
  { tag: [tags.processingInstruction, tags.contentSeparator, tags.comment, tags.labelName], class: "md-mark" },
]);

/**
 * Markdown (GitHub flavoured) without `markdown()`'s embedded-HTML support, which would bring the HTML, CSS and
 * JavaScript languages along: raw HTML is shown as text in the preview anyway.
 */
const markdownSupport = new LanguageSupport(markdownLanguage);

/** Tab indents (and Escape then Tab leaves the editor, CodeMirror's own accessible way out). */
const tabKeys = [
  { key: "Tab", run: indentMore, shift: indentLess },
  { key: "Mod-s", run: () => true },
];

/**
 * Opens `fileId`'s document and edits it with whoever else has it open. `readOnly` users see every change and
 * every cursor but cannot type (the server drops their updates anyway).
 */
export default function FileEditor({
  collabUrl,
  fileId,
  fileName,
  me,
  readOnly,
  mode,
  isMarkdown,
  focusRequest = 0,
  isStaff = () => false,
}: {
  /** `ws(s)://host/api/v1/organizations/{orgId}/spaces/{spaceId}/files/collab/ws` */
  collabUrl: string;
  fileId: string;
  fileName: string;
  me: { id: string; name: string };
  readOnly: boolean;
  mode: ViewMode;
  isMarkdown: boolean;
  /**
   * Not 0: put the cursor in the text, now or once it has loaded (a file just created, or opened with Enter from
   * the tree); each new number asks again. Opening a file otherwise leaves the keyboard where it was.
   */
  focusRequest?: number;
  /** Whether a user id is a staff member (always read-only in a document, whatever their awareness says). */
  isStaff?: (userId: string) => boolean;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const editable = useRef(new Compartment());
  const label = useRef(new Compartment());
  const [status, setStatus] = useState<"connecting" | "connected" | "disconnected">("connecting");
  const [synced, setSynced] = useState(false);
  /** The document was live once: a later drop is an outage (edits wait locally), not the first connection. */
  const [wasLive, setWasLive] = useState(false);
  const [closed, setClosed] = useState<string | null>(null);
  const [peers, setPeers] = useState<Peer[]>([]);
  const [text, setText] = useState("");
  /** A focus request waiting for the document to load. */
  const wantsFocus = useRef(false);
  /** This editor's awareness, to say whether it is read-only when that changes. */
  const awareness = useRef<WebsocketProvider["awareness"] | null>(null);
  const staffCheck = useRef(isStaff);
  staffCheck.current = isStaff;

  // One document and socket per file: a new name or reader does not reconnect; access changes apply below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: opened once per file on purpose (see above).
  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    let disposed = false;
    const doc = new Y.Doc();
    const ytext = doc.getText("content");
    const provider = new WebsocketProvider(collabUrl, fileId, doc, { connect: false, params: {} });

    // Every (re)connection asks for a current token: the one a socket opened with may have expired since.
    const connect = async () => {
      const token = await accessToken().catch(() => null);
      if (disposed) return;
      provider.params = token ? { token } : {};
      provider.connect();
    };
    provider.on("connection-close", (event) => {
      // A close of our own (null) or a final one from the server (44xx: deleted, no access) is not retried here.
      if (disposed || !event || (event.code >= 4400 && event.code < 4500)) return;
      provider.shouldConnect = false;
      const delay = Math.min(2 ** provider.wsUnsuccessfulReconnects * 100, 2500);
      setTimeout(() => void connect(), delay);
    });
    provider.on("closed", ({ reason, code }) => setClosed(closedText(reason || `code ${code}`)));
    provider.on("status", ({ status: next }) => {
      setStatus(next);
      if (next === "connected") setWasLive(true);
    });
    provider.on("sync", (isSynced) => {
      if (!isSynced) return;
      setSynced(true);
      if (wantsFocus.current) {
        wantsFocus.current = false;
        view.current?.focus();
      }
    });

    awareness.current = provider.awareness;
    let myColor = pickColor(doc.clientID, new Map());
    provider.awareness.setLocalStateField("user", { id: me.id, name: me.name, readOnly, ...peerColor(myColor) });
    const showPeers = () => {
      const byUser = new Map<string, Peer>();
      const colors = new Map<number, string>();
      provider.awareness.getStates().forEach((state, clientId) => {
        const user = state.user as (Partial<Peer> & { name?: string }) | undefined;
        if (clientId === doc.clientID || !user?.name) return;
        if (user.color) colors.set(clientId, user.color);
        const id = user.id ?? String(clientId);
        const readOnly = user.readOnly === true || staffCheck.current(id);
        const known = byUser.get(id);
        // One person in two tabs shows once, as an editor if either tab can edit.
        byUser.set(id, {
          id,
          name: user.name,
          color: known?.color ?? user.color ?? "var(--line)",
          readOnly: known ? known.readOnly && readOnly : readOnly,
        });
      });
      setPeers([...byUser.values()]);
      const next = pickColor(doc.clientID, colors, myColor);
      if (next !== myColor) {
        myColor = next;
        const mine = provider.awareness.getLocalState()?.user ?? {};
        provider.awareness.setLocalStateField("user", { ...mine, ...peerColor(myColor) });
      }
    };
    provider.awareness.on("change", showPeers);

    // The preview follows the text, at most a few times a second while someone types.
    let previewTimer: ReturnType<typeof setTimeout> | undefined;
    const showText = () => {
      clearTimeout(previewTimer);
      previewTimer = setTimeout(() => setText(ytext.toString()), 120);
    };
    ytext.observe(showText);

    const undoManager = new Y.UndoManager(ytext);
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        doc: ytext.toString(),
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          EditorView.lineWrapping,
          keymap.of([...yUndoManagerKeymap, ...tabKeys, ...defaultKeymap]),
          // Lists as markdown editors type them (markdown-lists.ts), ahead of the plain keys.
          isMarkdown ? [markdownSupport, Prec.high(keymap.of(listKeymap)), headingInList] : [],
          isMarkdown ? syntaxHighlighting(markdownClasses) : [],
          placeholder(readOnly ? "This file is empty." : "Start writing…"),
          editable.current.of(access(readOnly)),
          label.current.of(EditorView.contentAttributes.of({ "aria-label": `Content of ${fileName}` })),
          yCollab(ytext, provider.awareness, { undoManager }),
        ],
      }),
    });
    view.current = editor;
    void connect();

    return () => {
      disposed = true;
      clearTimeout(previewTimer);
      ytext.unobserve(showText);
      provider.awareness.off("change", showPeers);
      provider.destroy();
      editor.destroy();
      undoManager.destroy();
      doc.destroy();
      view.current = null;
      awareness.current = null;
    };
  }, [collabUrl, fileId]);

  // Asked for the keyboard: at once when the text is there, else when it has loaded (see the sync handler).
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new request number asks once.
  useEffect(() => {
    if (focusRequest === 0 || readOnly) return;
    if (synced && view.current) view.current.focus();
    else wantsFocus.current = true;
  }, [focusRequest]);

  // Losing or gaining files.write applies at once, without reopening the document; so does a rename.
  useEffect(() => {
    view.current?.dispatch({ effects: editable.current.reconfigure(access(readOnly)) });
    const state = awareness.current;
    const mine = state?.getLocalState()?.user;
    if (state && mine && mine.readOnly !== readOnly) state.setLocalStateField("user", { ...mine, readOnly });
  }, [readOnly]);
  useEffect(() => {
    view.current?.dispatch({
      effects: label.current.reconfigure(EditorView.contentAttributes.of({ "aria-label": `Content of ${fileName}` })),
    });
  }, [fileName]);

  const live = status === "connected" && synced;
  // Once the document was live, any drop is an outage: what is typed meanwhile stays in this editor and is sent
  // when the socket is back, and the status says so (rather than "Connecting…" for the whole outage, since the
  // socket keeps retrying).
  const offline = !live && (status === "disconnected" || wasLive);
  const editors = peers.filter((p) => !p.readOnly);
  const viewers = peers.filter((p) => p.readOnly);
  const peerList = (list: Peer[], name: string) =>
    list.length > 0 && (
      <div className="peer-group">
        <span className="muted" aria-hidden="true">
          {name}
        </span>
        <ul className="editor-peers" aria-label={name}>
          {list.map((peer) => (
            <li
              key={peer.id}
              className={peer.readOnly ? "viewing" : undefined}
              style={{ "--peer": peer.color } as React.CSSProperties}
              title={peer.readOnly ? `${peer.name} (read-only)` : peer.name}
            >
              <Avatar id={peer.id} name={peer.name} />
              <span className="peer-name">{peer.name}</span>
            </li>
          ))}
        </ul>
      </div>
    );
  return (
    <div className={`file-editor mode-${isMarkdown ? mode : "edit"}`}>
      <div className="editor-status small">
        <span className={`editor-dot ${closed ? "offline" : live ? "live" : "connecting"}`} aria-hidden="true" />
        {/* One status: a reader is told it is read-only (and whether others' changes arrive), never "save as you type". */}
        <span aria-live="polite">
          {closed
            ? "Closed"
            : readOnly
              ? live
                ? "Read-only: you see changes as others make them"
                : offline
                  ? "Read-only · offline: reconnecting"
                  : "Read-only · connecting…"
              : live
                ? "Live: changes save as you type"
                : offline
                  ? "Offline: your changes are kept and will be sent when the connection is back"
                  : "Connecting…"}
        </span>
        <span className="grow" />
        {peerList(editors, "Also editing")}
        {peerList(viewers, "Also viewing")}
      </div>
      {closed && (
        <p className="error" role="alert">
          {closed}
        </p>
      )}
      <div className="editor-panes">
        <div className="editor-text" aria-busy={!synced}>
          {!synced && !closed && <p className="editor-loading muted">Opening the document…</p>}
          <div ref={host} className="editor-host" />
        </div>
        {isMarkdown && mode !== "edit" && (
          <section className="editor-preview" aria-label="Preview">
            <Markdown source={text} />
          </section>
        )}
      </div>
    </div>
  );
}

function access(readOnly: boolean) {
  return [EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)];
}
