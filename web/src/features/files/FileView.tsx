/**
 * One open file: its place in the tree, its actions, and then either the collaborative editor (text files,
 * with a markdown preview and the proposals waiting for review) or the details of a binary file with a
 * download and, for images, a preview.
 */
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import type { FileNode, Proposal } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { dataUrlOf } from "../../lib/blob";
import { useLiveEvents } from "../../lib/events";
import { useLoad, useStored } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { Avatar, copy, dateTime, ErrorText, Spinner, timeAgo } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { collabUrl, fileContent, listFileProposals } from "./api";
import type { ViewMode } from "./FileEditor";
import { NameInput } from "./NameInput";
import { upsertProposal } from "./proposals";
import { ancestorsOf, formatSize, isMarkdown, type Tree } from "./tree";

// CodeMirror, Yjs and the diff code load when a file is first opened, not with the first screen.
const FileEditor = lazy(() => import("./FileEditor"));
const ProposalReview = lazy(() => import("./ProposalReview"));

/** What the file's header asks of the page. */
export interface FileViewActions {
  navigate: (id: string | null) => void;
  back: () => void;
  download: (node: FileNode) => void;
  rename: (node: FileNode, name: string) => Promise<string | null>;
  menu: (node: FileNode, at: { x: number; y: number }) => void;
}

/** The path above a node as links, for the header of a file or folder. */
export function Breadcrumbs({
  tree,
  node,
  onOpen,
}: {
  tree: Tree;
  node: FileNode;
  onOpen: (id: string | null) => void;
}) {
  return (
    <nav className="breadcrumbs small" aria-label="Folder path">
      <button type="button" className="link" onClick={() => onOpen(null)}>
        All files
      </button>
      {ancestorsOf(tree, node.id).map((folder) => (
        <span key={folder.id}>
          <span aria-hidden="true"> / </span>
          <button type="button" className="link" onClick={() => onOpen(folder.id)}>
            {folder.name}
          </button>
        </span>
      ))}
    </nav>
  );
}

function ImagePreview({ node }: { node: FileNode }) {
  const ws = useWorkspace();
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: refetched when the content changes (its checksum).
  useEffect(() => {
    let made: string | null = null;
    let stale = false;
    setError(null);
    fileContent(ws.base, node.space_id, node.id)
      .then(async (blob) => {
        if (stale) return;
        // An SVG can hold scripts: shown from a blob: URL, "open image in new tab" would run them as a page of
        // this origin. A data: URL cannot be opened as a page, and an <img> never runs scripts.
        const src = blob.type.startsWith("image/svg") ? await dataUrlOf(blob) : URL.createObjectURL(blob);
        if (src.startsWith("blob:")) made = src;
        if (!stale) setUrl(src);
        else if (made) URL.revokeObjectURL(made);
      })
      .catch((err) => {
        if (!stale) setError(messageOf(err));
      });
    return () => {
      stale = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [ws.base, node.space_id, node.id, node.checksum_sha256]);
  if (error) return <ErrorText error={`The preview could not load: ${error}`} />;
  if (!url) return <Spinner label="Loading the preview…" />;
  return <img className="image-preview" src={url} alt={`Preview of ${node.name}`} />;
}

/** Images the browser shows, small enough to fetch just for a look. */
const PREVIEWABLE = /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)$/;

function BinaryDetails({ node, onDownload }: { node: FileNode; onDownload: () => void }) {
  const ws = useWorkspace();
  const image = node.mime_type !== null && PREVIEWABLE.test(node.mime_type) && (node.size_bytes ?? 0) <= 25_000_000;
  return (
    <div className="binary-details">
      {image && <ImagePreview node={node} />}
      <dl className="details">
        <dt>Type</dt>
        <dd>{node.mime_type ?? "unknown"}</dd>
        <dt>Size</dt>
        <dd>
          {formatSize(node.size_bytes)}
          {node.size_bytes !== null && node.size_bytes >= 1000 && (
            <span className="muted"> ({node.size_bytes.toLocaleString()} bytes)</span>
          )}
        </dd>
        <dt>SHA-256</dt>
        <dd className="checksum">
          <code>{node.checksum_sha256 ?? "—"}</code>
          {node.checksum_sha256 && (
            <button
              type="button"
              className="link small"
              onClick={() => void copy(node.checksum_sha256 as string, "Checksum copied")}
            >
              Copy
            </button>
          )}
        </dd>
        <dt>Uploaded</dt>
        <dd title={dateTime(node.created_at)}>
          {timeAgo(node.created_at)} by {ws.nameOf(node.created_by)}
        </dd>
        <dt>Changed</dt>
        <dd title={dateTime(node.updated_at)}>{timeAgo(node.updated_at)}</dd>
      </dl>
      <p>
        <button type="button" className="primary" onClick={onDownload}>
          Download {node.name}
        </button>
      </p>
      <p className="muted small">This file is not text, so it opens on your device rather than in the editor.</p>
    </div>
  );
}

/** The proposals of a text file: those waiting (with a count) and, on demand, the ones already decided. */
function ProposalsBar({ proposals, onReview }: { proposals: Proposal[]; onReview: (proposal: Proposal) => void }) {
  const ws = useWorkspace();
  const [history, setHistory] = useState(false);
  const pending = proposals.filter((p) => p.status === "pending");
  const resolved = proposals.filter((p) => p.status !== "pending");
  if (proposals.length === 0) return null;
  const item = (p: Proposal) => (
    <li key={p.id} className="proposal-item">
      <Avatar id={p.author_user_id ?? ""} name={ws.nameOf(p.author_user_id)} staff={ws.isStaff(p.author_user_id)} />
      <div className="grow">
        <strong>{ws.nameOf(p.author_user_id)}</strong>{" "}
        <span className="muted small" title={dateTime(p.created_at)}>
          {timeAgo(p.created_at)}
        </span>
        {p.status !== "pending" && (
          <span className={`badge status-${p.status}`}>
            {p.status}
            {p.resolved_by ? ` by ${ws.nameOf(p.resolved_by)}` : ""}
          </span>
        )}
        {p.note && <Markdown source={p.note} className="proposal-text small" />}
      </div>
      <button
        type="button"
        className={p.status === "pending" ? "primary" : ""}
        data-proposal={p.id}
        onClick={() => onReview(p)}
      >
        {p.status === "pending" ? "Review" : "View"}
        <span className="sr-only"> the change proposed by {ws.nameOf(p.author_user_id)}</span>
      </button>
    </li>
  );
  return (
    <section className="proposals-bar" aria-label="Proposed changes">
      <div className="row">
        <h3 className="grow">
          {pending.length > 0 ? (
            <>
              <span className="count-badge">{pending.length}</span> proposed{" "}
              {pending.length === 1 ? "change waits" : "changes wait"} for review
            </>
          ) : (
            <span className="muted">No proposed changes waiting</span>
          )}
        </h3>
        {resolved.length > 0 && (
          <button type="button" className="link small" aria-expanded={history} onClick={() => setHistory(!history)}>
            {history ? "Hide" : "Show"} {resolved.length} decided
          </button>
        )}
      </div>
      {pending.length > 0 && <ul className="list">{pending.map(item)}</ul>}
      {history && <ul className="list">{resolved.map(item)}</ul>}
    </section>
  );
}

export function FileView({
  node,
  tree,
  canWrite,
  renaming,
  onStopRenaming,
  focusRequest,
  actions,
}: {
  node: FileNode;
  tree: Tree;
  canWrite: boolean;
  /** The name is being edited in the header. */
  renaming: boolean;
  onStopRenaming: () => void;
  /** Not 0: put the cursor in the text (it was just created, or opened with Enter); a new number asks again. */
  focusRequest: number;
  actions: FileViewActions;
}) {
  const ws = useWorkspace();
  const [mode, setMode] = useStored<ViewMode>("tandem.files.mode", "split");
  const markdown = isMarkdown(node);
  const proposals = useLoad(node.editable ? listFileProposals : null, ws.base, node.space_id, node.id);
  const [reviewing, setReviewing] = useState<string | null>(null);
  /**
   * Where the keyboard goes once a review is decided and its dialog is gone (its Review button went with the
   * proposal): the next proposal waiting, else the text.
   */
  const [afterReview, setAfterReview] = useState<{ next: string | null } | null>(null);
  const article = useRef<HTMLElement>(null);

  useLiveEvents((event) => {
    if (event.type === "resync") {
      if (node.editable) void proposals.reload();
      return;
    }
    if (
      (event.type === "file.proposal.created" || event.type === "file.proposal.updated") &&
      event.payload?.node_id === node.id
    )
      proposals.setData((list) => upsertProposal(list ?? [], event.payload as Proposal));
  });

  const list = proposals.data ?? [];
  const reviewed = reviewing ? list.find((p) => p.id === reviewing) : undefined;

  const resolved = (proposal: Proposal) => {
    // The answer updates the list at once (the live event may come later), so the dialog closes onto a list
    // without the decided proposal.
    const rest = upsertProposal(list, proposal);
    const next = rest.find((p) => p.status === "pending");
    proposals.setData(rest);
    setReviewing(null);
    setAfterReview({ next: next?.id ?? null });
  };
  useEffect(() => {
    if (!afterReview) return;
    setAfterReview(null);
    const root = article.current;
    const next = afterReview.next ? root?.querySelector<HTMLElement>(`[data-proposal="${afterReview.next}"]`) : null;
    (next ?? root?.querySelector<HTMLElement>(".cm-content"))?.focus();
  }, [afterReview]);

  return (
    <article className="file-view" aria-label={node.name} ref={article}>
      <header className="file-head">
        <button type="button" className="link files-back" onClick={actions.back}>
          ← Files
        </button>
        <Breadcrumbs tree={tree} node={node} onOpen={actions.navigate} />
        <div className="file-title row wrap">
          {renaming ? (
            <NameInput
              label={`New name for ${node.name}`}
              initial={node.name}
              depth={0}
              className="title-edit grow"
              onSave={(name) => actions.rename(node, name)}
              onCancel={onStopRenaming}
            />
          ) : (
            <h2 className="grow">{node.name}</h2>
          )}
          {node.editable && markdown && (
            // biome-ignore lint/a11y/useSemanticElements: a segmented control of toggle buttons, not a form field.
            <div className="segmented" role="group" aria-label="View">
              {(
                [
                  ["edit", "Edit"],
                  ["split", "Split"],
                  ["preview", "Preview"],
                ] as const
              ).map(([key, label]) => (
                <button key={key} type="button" aria-pressed={mode === key} onClick={() => setMode(key)}>
                  {label}
                </button>
              ))}
            </div>
          )}
          <button type="button" onClick={() => actions.download(node)}>
            Download
          </button>
          <button
            type="button"
            aria-label={`More actions for ${node.name}`}
            title={`More actions for ${node.name}`}
            onClick={(event) => {
              const box = event.currentTarget.getBoundingClientRect();
              actions.menu(node, { x: box.right, y: box.bottom });
            }}
          >
            ⋯
          </button>
        </div>
        <p className="muted small file-meta">
          {node.editable ? "Text" : (node.mime_type ?? "File")} · {formatSize(node.size_bytes)} · changed{" "}
          <span title={dateTime(node.updated_at)}>{timeAgo(node.updated_at)}</span>
        </p>
      </header>
      {node.editable ? (
        <>
          <ErrorText error={proposals.error} />
          <ProposalsBar proposals={list} onReview={(p) => setReviewing(p.id)} />
          <Suspense fallback={<Spinner label="Opening the editor…" />}>
            <FileEditor
              collabUrl={collabUrl(ws.base, node.space_id)}
              fileId={node.id}
              fileName={node.name}
              me={{ id: ws.me.id, name: ws.me.display_name }}
              readOnly={!canWrite}
              mode={mode}
              isMarkdown={markdown}
              focusRequest={focusRequest}
              isStaff={ws.isStaff}
            />
          </Suspense>
          {reviewed && (
            <Suspense fallback={null}>
              <ProposalReview
                proposal={reviewed}
                node={node}
                onClose={() => setReviewing(null)}
                onResolved={resolved}
              />
            </Suspense>
          )}
        </>
      ) : (
        <BinaryDetails node={node} onDownload={() => actions.download(node)} />
      )}
    </article>
  );
}
