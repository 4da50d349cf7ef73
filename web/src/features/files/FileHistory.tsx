/**
 * A text file's history: its kept versions (when, and who changed the file since the version before), and for
 * the one selected a line diff against the current text or against the version before it, with "Restore this
 * version" (asked first; the text comes back through the live document, so people editing see it). New versions
 * arrive live (`file.version.created`). Loaded lazily with the diff code.
 */
import { useEffect, useState } from "react";
import type { FileNode, FileVersion } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { ConfirmDialog } from "../../lib/dialogs";
import { useLiveEvents } from "../../lib/events";
import { useLoad } from "../../lib/hooks";
import { dateTime, ErrorText, Modal, Spinner, timeAgo, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { fileContent, listVersions, restoreVersion, versionText } from "./api";
import { DiffView } from "./diff";

/** What the selected version is compared with. */
type Against = "current" | "previous";

/** A version at the top of the list, once the live event brings it (or nothing when it is listed already). */
function withVersion(list: FileVersion[], version: FileVersion): FileVersion[] {
  return list.some((v) => v.id === version.id) ? list : [version, ...list];
}

/** The texts of versions, fetched when first shown (a version never changes). */
function useVersionTexts(node: FileNode) {
  const ws = useWorkspace();
  const [texts, setTexts] = useState<ReadonlyMap<string, string>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const want = (ids: (string | undefined)[]) => {
    for (const id of ids) {
      if (!id || texts.has(id)) continue;
      versionText(ws.base, node.space_id, node.id, id)
        .then((text) => setTexts((known) => new Map(known).set(id, text)))
        .catch((err) => setError(messageOf(err)));
    }
  };
  return { texts, error, want };
}

/** The file's current text, fetched again whenever it changes (its checksum moves). */
function useCurrentText(node: FileNode): { text: string | null; error: string | null } {
  const ws = useWorkspace();
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: fetched again when the file's text changes (its checksum).
  useEffect(() => {
    let stale = false;
    fileContent(ws.base, node.space_id, node.id)
      .then((blob) => blob.text())
      .then((value) => !stale && setText(value))
      .catch((err) => !stale && setError(messageOf(err)));
    return () => {
      stale = true;
    };
  }, [ws.base, node.space_id, node.id, node.checksum_sha256]);
  return { text, error };
}

export default function FileHistory({
  node,
  onClose,
  onRestored,
}: {
  node: FileNode;
  onClose: () => void;
  /** A version was restored: the history closes and the keyboard goes back to the text. */
  onRestored: () => void;
}) {
  const ws = useWorkspace();
  const versions = useLoad(listVersions, ws.base, node.space_id, node.id);
  const [selected, setSelected] = useState<string | null>(null);
  const [against, setAgainst] = useState<Against>("current");
  const [confirming, setConfirming] = useState(false);
  const current = useCurrentText(node);
  const texts = useVersionTexts(node);
  const canRestore = ws.can("files.write") && !ws.me.service_account_id;

  useLiveEvents((event) => {
    if (event.type === "resync") void versions.reload();
    else if (event.type === "file.version.created" && event.payload?.file_id === node.id)
      versions.setData((list) => withVersion(list ?? [], event.payload as FileVersion));
  });

  const list = versions.data ?? [];
  const index = Math.max(
    0,
    list.findIndex((v) => v.id === selected),
  );
  const version = list[index];
  const previous = list[index + 1];
  // biome-ignore lint/correctness/useExhaustiveDependencies: the texts this selection shows, fetched once each.
  useEffect(() => {
    texts.want([version?.id, against === "previous" ? previous?.id : undefined]);
  }, [version?.id, previous?.id, against]);

  const authors = (v: FileVersion) => v.author_user_ids.map((id) => ws.nameOf(id)).join(", ");
  const before =
    against === "current" ? version && texts.texts.get(version.id) : previous ? texts.texts.get(previous.id) : "";
  const after = against === "current" ? current.text : version && texts.texts.get(version.id);

  return (
    <Modal title={`History of ${node.name}`} onClose={onClose} wide>
      <div className="history">
        <ErrorText error={versions.error ?? current.error ?? texts.error} />
        {versions.data === undefined ? (
          <Spinner label="Loading the history…" />
        ) : list.length === 0 ? (
          <p className="muted">
            No versions yet. Tandem keeps one when someone has edited for five minutes or leaves the file, and with
            every change made by upload, an accepted proposal or a restore.
          </p>
        ) : (
          <div className="history-panes">
            <ul className="history-list" aria-label="Versions">
              {list.map((v, i) => (
                <li key={v.id}>
                  <button
                    type="button"
                    className="history-item"
                    aria-current={i === index ? "true" : undefined}
                    onClick={() => setSelected(v.id)}
                  >
                    <span className="history-time" title={dateTime(v.created_at)}>
                      {dateTime(v.created_at)}
                    </span>
                    <span className="history-authors small muted">
                      {authors(v) || "Author not recorded"}
                      {v.checksum_sha256 === node.checksum_sha256 && <span className="badge">current text</span>}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            {version && (
              <section className="history-detail" aria-label={`Version of ${dateTime(version.created_at)}`}>
                <div className="row wrap">
                  <h3 className="grow">
                    {dateTime(version.created_at)}{" "}
                    <span className="muted small" title={dateTime(version.created_at)}>
                      ({timeAgo(version.created_at)})
                    </span>
                  </h3>
                  {canRestore && (
                    <button
                      type="button"
                      className="primary"
                      disabled={version.checksum_sha256 === node.checksum_sha256}
                      title={
                        version.checksum_sha256 === node.checksum_sha256
                          ? "This is the current text already"
                          : undefined
                      }
                      onClick={() => setConfirming(true)}
                    >
                      Restore this version
                    </button>
                  )}
                </div>
                {authors(version) && <p className="small muted">Changed by {authors(version)}</p>}
                {/* biome-ignore lint/a11y/useSemanticElements: a segmented control of toggle buttons, not a form field. */}
                <div className="segmented" role="group" aria-label="Compare with">
                  <button type="button" aria-pressed={against === "current"} onClick={() => setAgainst("current")}>
                    Since then
                  </button>
                  <button type="button" aria-pressed={against === "previous"} onClick={() => setAgainst("previous")}>
                    In this version
                  </button>
                </div>
                <p className="small muted">
                  {against === "current"
                    ? "How the current text differs from this version: + lines were added since, − lines removed."
                    : previous
                      ? `What changed from the version of ${dateTime(previous.created_at)} to this one.`
                      : "The oldest version kept: all of its text."}
                </p>
                {before === undefined || after === undefined || after === null ? (
                  <Spinner label="Loading the texts…" />
                ) : (
                  <div className="diff-scroll">
                    <DiffView
                      before={before}
                      after={after}
                      same={
                        against === "current"
                          ? "This version is the same as the current text."
                          : "No change from the version before."
                      }
                      whole="The newer text"
                    />
                  </div>
                )}
              </section>
            )}
          </div>
        )}
      </div>
      {confirming && version && (
        <ConfirmDialog
          title="Restore this version?"
          confirmLabel="Restore"
          danger={false}
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await restoreVersion(ws.base, node.space_id, node.id, version.id);
            toast(`Restored: ${node.name} has its text of ${dateTime(version.created_at)} again`);
            onRestored();
          }}
        >
          <p>
            {node.name} gets its text of {dateTime(version.created_at)} back. Everyone editing it sees the change and
            can go on typing. The text it has now stays in the history, so you can go back to it.
          </p>
        </ConfirmDialog>
      )}
    </Modal>
  );
}
