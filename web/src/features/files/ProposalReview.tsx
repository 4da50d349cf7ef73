/**
 * Reviewing a proposed text: the file's current text against the proposal, line by line (`diff.tsx`), with the
 * author's note, then accept (the text lands in the live document for everyone) or reject. Loaded lazily with
 * the diff code.
 */
import { useEffect, useId, useState } from "react";
import type { FileNode, Proposal } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { useAction } from "../../lib/hooks";
import { Markdown } from "../../lib/markdown";
import { Avatar, dateTime, ErrorText, Modal, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { fileContent, resolveProposal } from "./api";
import { DiffView } from "./diff";

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
            <DiffView
              before={current}
              after={proposal.proposed_content}
              same="The proposal is the same as the current text."
              whole="The proposed text"
            />
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
