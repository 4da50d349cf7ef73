/**
 * Reviewing a proposed text: the file's current text against the proposal, line by line (the `diff` package),
 * with the author's note, then accept (the text lands in the live document for everyone) or reject. Loaded
 * lazily with the diff code.
 */
import { diffLines } from "diff";
import { useEffect, useId, useMemo, useState } from "react";
import type { FileNode, Proposal } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { useAction } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { Avatar, dateTime, ErrorText, Modal, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { fileContent, resolveProposal } from "./api";

/** Unchanged lines kept around each change; longer unchanged runs fold into one line. */
const CONTEXT = 3;

/** A line of the diff; `eol` is false for a last line with no newline after it. */
type Line = { kind: "add" | "del" | "same"; text: string; eol: boolean; oldNo: number | null; newNo: number | null };
type Row = Line | { kind: "fold"; count: number; lines: Line[] };

/** The lines of a part of the diff, each with whether a newline ends it (the text's last line may have none). */
function splitLines(value: string): { text: string; eol: boolean }[] {
  const lines = value.split("\n");
  const last = lines.pop() as string;
  const split = lines.map((text) => ({ text, eol: true }));
  if (last !== "") split.push({ text: last, eol: false });
  return split;
}

/** The diff as numbered lines with long unchanged stretches folded; null when it took too long. */
function diffRows(current: string, proposed: string): { rows: Row[]; added: number; removed: number } | null {
  const parts = diffLines(current, proposed, { timeout: 1500 });
  if (!parts) return null;
  const lines: Line[] = [];
  let oldNo = 1;
  let newNo = 1;
  let added = 0;
  let removed = 0;
  for (const part of parts) {
    for (const { text, eol } of splitLines(part.value)) {
      if (part.added) {
        lines.push({ kind: "add", text, eol, oldNo: null, newNo: newNo++ });
        added++;
      } else if (part.removed) {
        lines.push({ kind: "del", text, eol, oldNo: oldNo++, newNo: null });
        removed++;
      } else lines.push({ kind: "same", text, eol, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  const rows: Row[] = [];
  let i = 0;
  while (i < lines.length) {
    if ((lines[i] as Line).kind !== "same") {
      rows.push(lines[i] as Line);
      i++;
      continue;
    }
    let end = i;
    while (end < lines.length && (lines[end] as Line).kind === "same") end++;
    const run = lines.slice(i, end);
    const keepBefore = i === 0 ? 0 : CONTEXT;
    const keepAfter = end === lines.length ? 0 : CONTEXT;
    if (run.length > keepBefore + keepAfter + 1) {
      rows.push(...run.slice(0, keepBefore));
      const folded = run.slice(keepBefore, run.length - keepAfter);
      rows.push({ kind: "fold", count: folded.length, lines: folded });
      rows.push(...run.slice(run.length - keepAfter));
    } else rows.push(...run);
    i = end;
  }
  return { rows, added, removed };
}

/** Unique in a diff: an added line has only a new number, a removed one only an old one. */
const keyOf = (line: Line) => `${line.oldNo ?? "-"}:${line.newNo ?? "-"}`;

function DiffView({ current, proposed }: { current: string; proposed: string }) {
  const diff = useMemo(() => diffRows(current, proposed), [current, proposed]);
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());
  if (!diff)
    return (
      <>
        <p className="muted">The texts differ too much to compare line by line. The proposed text:</p>
        <pre className="diff-plain">{proposed}</pre>
      </>
    );
  if (diff.added === 0 && diff.removed === 0)
    return <p className="muted">The proposal is the same as the current text.</p>;
  return (
    <>
      <p className="small diff-stats">
        <span className="diff-added-count">+{diff.added}</span>{" "}
        <span className="diff-removed-count">−{diff.removed}</span> lines
      </p>
      <table className="diff" aria-label="Changes">
        <tbody>
          {diff.rows.flatMap((row, index) => {
            if (row.kind === "fold") {
              const first = row.lines[0] as Line;
              if (!opened.has(index))
                return [
                  <tr key={`fold-${keyOf(first)}`} className="diff-fold">
                    <td colSpan={4}>
                      <button type="button" className="link" onClick={() => setOpened(new Set(opened).add(index))}>
                        Show {row.count} unchanged {row.count === 1 ? "line" : "lines"}
                      </button>
                    </td>
                  </tr>,
                ];
              return row.lines.flatMap((line) => diffLine(line));
            }
            return diffLine(row);
          })}
        </tbody>
      </table>
    </>
  );
}

/** How trailing whitespace is drawn, as git marks it: visible, so that a line differing only there shows how. */
const WHITESPACE_MARKS: Record<string, string> = { " ": "·", "\t": "→", "\r": "␍" };

/**
 * A line's rows: the line, and after a changed line that has no newline at its end, git's "\ No newline at end
 * of file". A changed line's trailing whitespace is drawn visibly (and named for screen readers).
 */
function diffLine(line: Line) {
  const rows = [<DiffLine key={keyOf(line)} line={line} />];
  if (!line.eol && line.kind !== "same")
    rows.push(
      <tr key={`${keyOf(line)}-eol`} className={`diff-${line.kind} diff-eol`}>
        <td className="diff-no" />
        <td className="diff-no" />
        <td className="diff-sign" />
        <td className="diff-text">\ No newline at end of file</td>
      </tr>,
    );
  return rows;
}

function DiffLine({ line }: { line: Line }) {
  const sign = line.kind === "add" ? "+" : line.kind === "del" ? "−" : " ";
  const changed = line.kind !== "same";
  const body = changed ? line.text.replace(/\s+$/, "") : line.text;
  const trailing = line.text.slice(body.length);
  return (
    <tr className={`diff-${line.kind}`}>
      <td className="diff-no">{line.oldNo ?? ""}</td>
      <td className="diff-no">{line.newNo ?? ""}</td>
      <td
        className="diff-sign"
        aria-label={line.kind === "add" ? "added" : line.kind === "del" ? "removed" : undefined}
      >
        {sign}
      </td>
      <td className="diff-text">
        {body || (trailing ? "" : " ")}
        {trailing && (
          <>
            <span className="diff-ws" title="Trailing whitespace" aria-hidden="true">
              {[...trailing].map((c) => WHITESPACE_MARKS[c] ?? "·").join("")}
            </span>
            <span className="sr-only"> (trailing whitespace)</span>
          </>
        )}
      </td>
    </tr>
  );
}

/**
 * The review dialog of one proposal. The current text is fetched again whenever the file changes (its checksum
 * moves), so the diff always shows what accepting would replace.
 */
export default function ProposalReview({
  proposal,
  node,
  onClose,
  onResolved,
}: {
  proposal: Proposal;
  node: FileNode;
  onClose: () => void;
  /** Accepted or rejected: the proposal as the API answered (the caller closes the dialog and moves the focus). */
  onResolved: (proposal: Proposal) => void;
}) {
  const ws = useWorkspace();
  const [current, setCurrent] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const canResolve = ws.can("files.write") && !ws.me.service_account_id;

  // biome-ignore lint/correctness/useExhaustiveDependencies: fetched again when the file's text changes (its checksum).
  useEffect(() => {
    let stale = false;
    fileContent(ws.base, node.space_id, node.id)
      .then((blob) => blob.text())
      .then((text) => {
        if (!stale) setCurrent(text);
      })
      .catch((err) => {
        if (!stale) setLoadError(messageOf(err));
      });
    return () => {
      stale = true;
    };
  }, [ws.base, node.space_id, node.id, node.checksum_sha256]);

  const resolve = useAction(async (action: "accept" | "reject") => {
    const resolved = await resolveProposal(ws.base, node.space_id, proposal.id, action);
    toast(action === "accept" ? `Accepted: ${node.name} now has the proposed text` : "Proposal rejected");
    onResolved(resolved);
  });

  const changedSince = node.checksum_sha256 !== null && node.checksum_sha256 !== proposal.base_content_sha256;
  const author = ws.nameOf(proposal.author_user_id);
  const pending = proposal.status === "pending";
  const warningId = useId();
  // Accepting a proposal of an older text can only be refused (409): it is not offered then, and says why.
  const stale = pending && changedSince;

  return (
    <Modal title={`Proposed change to ${node.name}`} onClose={onClose} wide>
      <div className="stack">
        <div className="proposal-meta">
          <Avatar id={proposal.author_user_id ?? ""} name={author} staff={ws.isStaff(proposal.author_user_id)} />
          <div className="grow">
            <strong>{author}</strong>{" "}
            <span className="muted small" title={dateTime(proposal.created_at)}>
              proposed {timeAgo(proposal.created_at)}
            </span>
            {proposal.note ? (
              <Markdown source={proposal.note} className="proposal-text" />
            ) : (
              <p className="muted small">No note.</p>
            )}
          </div>
          {!pending && <span className={`badge status-${proposal.status}`}>{proposal.status}</span>}
        </div>
        {stale && (
          <p className="warn-text" role="status" id={warningId}>
            The file was edited after this proposal was made, so it can no longer be accepted: the changes below compare
            the proposal with the text as it is now. Reject it and ask for a new proposal, or apply the change by hand.
          </p>
        )}
        {loadError ? (
          <ErrorText error={loadError} />
        ) : current === null ? (
          <Spinner label="Loading the current text…" />
        ) : (
          <div className="diff-scroll">
            <DiffView current={current} proposed={proposal.proposed_content} />
          </div>
        )}
        {resolve.error && (
          <p className="error" role="alert">
            {resolve.error === "file changed since the proposal"
              ? "Could not accept: file changed since the proposal. Someone edited the file after it was proposed; ask for a new proposal or apply the change by hand."
              : `Could not save the review: ${resolve.error}`}
          </p>
        )}
        <div className="row end wrap">
          <button type="button" onClick={onClose}>
            Close
          </button>
          {pending && canResolve && (
            <>
              <button
                type="button"
                className={stale ? "primary" : "danger"}
                disabled={resolve.busy}
                onClick={() => void resolve.run("reject")}
              >
                Reject
              </button>
              <button
                type="button"
                className={stale ? undefined : "primary"}
                disabled={resolve.busy || current === null || stale}
                aria-describedby={stale ? warningId : undefined}
                title={stale ? "The file changed since the proposal: it can no longer be accepted" : undefined}
                onClick={() => void resolve.run("accept")}
              >
                Accept change
              </button>
            </>
          )}
        </div>
        {pending && !canResolve && (
          <p className="muted small">Only a person with the files.write permission can accept or reject it.</p>
        )}
      </div>
    </Modal>
  );
}
