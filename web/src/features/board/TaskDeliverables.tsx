/**
 * A task's deliverables: the linked files (download, unlink), uploading a new one (one request: the server puts
 * it in the space's `Deliverables` root folder, made when missing, and links it), or linking a file already
 * under that folder. The API only links files below that folder (contract §4).
 */
import { useEffect, useRef, useState } from "react";
import type { Deliverable, FileNode, Space, Task } from "../../../../src/api-types";
import { ApiError } from "../../lib/api";
import { useLiveEvents } from "../../lib/events";
import { useAction, useLoad } from "../../lib/hooks";
import { formatSize } from "../../lib/size";
import { ErrorText, toast } from "../../lib/ui";
import { useWorkspace } from "../../lib/workspace";
import { listRoot, listTree, saveFile } from "../files/api";
import { linkDeliverable, listDeliverables, unlinkDeliverable, uploadDeliverable } from "./api";
import { PaperClip } from "./icons";

const FOLDER = "Deliverables";

/** The root folder `Deliverables` (any case), null when there is none, "blocked" when a file has the name. */
async function findFolder(base: string, spaceId: string): Promise<FileNode | null | "blocked"> {
  const nodes = await listRoot(base, spaceId);
  const named = nodes.filter((n) => n.name.toLocaleLowerCase() === FOLDER.toLocaleLowerCase());
  return named.find((n) => n.kind === "folder") ?? (named.length > 0 ? "blocked" : null);
}

/** The deliverables part of a task's detail. */
export function TaskDeliverables({ space, task, canWrite }: { space: Space; task: Task; canWrite: boolean }) {
  const ws = useWorkspace();
  const listing = useLoad(listDeliverables, ws.base, space.id, task.id);
  const input = useRef<HTMLInputElement>(null);
  const [choices, setChoices] = useState<{ node: FileNode; path: string }[] | null>(null);
  const [chosen, setChosen] = useState("");
  const root = useRef<HTMLDivElement>(null);
  const linkButton = useRef<HTMLButtonElement>(null);
  /** Where the keyboard goes after the next render: the picker once open, a linked file's row, or back. */
  const focusNext = useRef<string | null>(null);

  // The picker asked for gets the keyboard (its select, or Cancel when nothing can be linked); once a file is
  // linked its Download button does, and after Cancel "Link an existing file" does again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after the picker or the list changes.
  useEffect(() => {
    const target = focusNext.current;
    if (!target) return;
    focusNext.current = null;
    if (target === "picker")
      root.current?.querySelector<HTMLElement>(".deliverable-pick select, .deliverable-pick button")?.focus();
    else if (target === "browse") linkButton.current?.focus();
    else
      (
        root.current?.querySelector<HTMLElement>(`[data-file-id="${CSS.escape(target)}"] button`) ?? linkButton.current
      )?.focus();
  }, [choices, listing.data]);

  const closePicker = () => {
    focusNext.current = "browse";
    setChoices(null);
  };

  useLiveEvents((event) => {
    // A linked file deleted (or the folder above it) drops out of the list.
    if (event.type === "resync" || (event.space_id === space.id && event.type === "file.deleted"))
      void listing.reload();
  });

  const upload = useAction(async (file: File) => {
    try {
      await uploadDeliverable(ws.base, space.id, task.id, file);
    } catch (err) {
      const clash = err instanceof ApiError && err.status === 409 ? err.message : null;
      if (clash === "name already exists")
        throw new Error(
          `A file named “${file.name}” is already in ${FOLDER}: rename yours, or link that one with “Link an existing file”.`,
        );
      if (clash === `a file named ${FOLDER} is in the way`)
        throw new Error(
          `A file named “${FOLDER}” sits in the root of this space's files: rename it so the folder can be made.`,
        );
      throw err;
    }
    await listing.reload();
    toast(`Attached ${file.name}`);
  });

  const browse = useAction(async () => {
    const folder = await findFolder(ws.base, space.id);
    if (!folder || folder === "blocked") {
      focusNext.current = "picker";
      setChoices([]);
      return;
    }
    const nodes = await listTree(ws.base, space.id);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const linked = new Set(listing.data?.map((d) => d.file_node_id));
    const found: { node: FileNode; path: string }[] = [];
    for (const node of nodes) {
      if (node.kind !== "file" || linked.has(node.id)) continue;
      const parts = [node.name];
      let parent = node.parent_id ? byId.get(node.parent_id) : undefined;
      while (parent && parent.id !== folder.id) {
        parts.unshift(parent.name);
        parent = parent.parent_id ? byId.get(parent.parent_id) : undefined;
      }
      if (parent?.id === folder.id) found.push({ node, path: parts.join("/") });
    }
    found.sort((a, b) => a.path.localeCompare(b.path));
    focusNext.current = "picker";
    setChoices(found);
    setChosen(found[0]?.node.id ?? "");
  });

  const link = useAction(async (nodeId: string) => {
    await linkDeliverable(ws.base, space.id, task.id, nodeId);
    await listing.reload();
    focusNext.current = nodeId;
    setChoices(null);
  });

  const unlink = useAction(async (nodeId: string) => {
    await unlinkDeliverable(ws.base, space.id, task.id, nodeId);
    await listing.reload();
  });

  const get = useAction(async (d: Deliverable) => saveFile(ws.base, space.id, d.file_node_id, d.file_name));

  // One error line for all of them: doing something new clears what an earlier action left there.
  const fresh =
    <A extends unknown[]>(action: { run: (...args: A) => Promise<boolean> }) =>
    (...args: A) => {
      for (const each of [upload, browse, link, unlink, get]) each.clear();
      return action.run(...args);
    };

  const list = listing.data ?? [];
  return (
    <div className="deliverables" ref={root}>
      {listing.data && list.length === 0 && (
        <p className="small muted">{task.deliverable_required ? "Nothing delivered yet." : "No files linked."}</p>
      )}
      {list.length > 0 && (
        <ul className="list" aria-label="Deliverables">
          {list.map((d) => (
            <li key={d.file_node_id} className="deliverable" data-file-id={d.file_node_id}>
              <PaperClip />
              <span className="grow">
                {d.file_name}{" "}
                <span className="small muted">{d.size_bytes === null ? "" : formatSize(d.size_bytes)}</span>
              </span>
              <button
                type="button"
                className="link"
                aria-label={`Download ${d.file_name}`}
                disabled={get.busy}
                onClick={() => void fresh(get)(d)}
              >
                Download
              </button>
              {canWrite && (
                <button
                  type="button"
                  className="link danger"
                  aria-label={`Unlink ${d.file_name}`}
                  disabled={unlink.busy}
                  onClick={() => void fresh(unlink)(d.file_node_id)}
                >
                  Unlink
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <div className="row wrap">
          <input
            ref={input}
            type="file"
            className="sr-only"
            tabIndex={-1}
            // The button below is the control; this input is only how the browser's file chooser opens.
            aria-hidden="true"
            aria-label="File to attach"
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = "";
              if (file) void fresh(upload)(file);
            }}
          />
          <button type="button" disabled={upload.busy} onClick={() => input.current?.click()}>
            {upload.busy ? "Uploading…" : "Upload a deliverable"}
          </button>
          <button
            ref={linkButton}
            type="button"
            disabled={browse.busy}
            aria-expanded={choices !== null}
            onClick={() => void fresh(browse)()}
          >
            Link an existing file
          </button>
        </div>
      )}
      {choices && (
        // biome-ignore lint/a11y/noStaticElementInteractions: Escape of the picker's own controls, bubbled up.
        <div
          className="row wrap deliverable-pick"
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              // Closes the picker only, not the task panel around it.
              event.preventDefault();
              event.stopPropagation();
              closePicker();
            }
          }}
        >
          {choices.length === 0 ? (
            <span className="small muted">No other files under {FOLDER}.</span>
          ) : (
            <>
              <label className="sr-only" htmlFor={`pick-${task.id}`}>
                File under {FOLDER}
              </label>
              <select id={`pick-${task.id}`} value={chosen} onChange={(event) => setChosen(event.target.value)}>
                {choices.map((c) => (
                  <option key={c.node.id} value={c.node.id}>
                    {c.path}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="primary"
                disabled={!chosen || link.busy}
                onClick={() => void fresh(link)(chosen)}
              >
                Link
              </button>
            </>
          )}
          <button type="button" onClick={closePicker}>
            Cancel
          </button>
        </div>
      )}
      <ErrorText error={listing.error ?? upload.error ?? browse.error ?? link.error ?? unlink.error ?? get.error} />
    </div>
  );
}
