/**
 * Files of a composer (pasted, dropped, picked): each is uploaded at once into the space's Attachments folder
 * with its progress shown, and becomes an attachment of the message once stored. An upload can be called off
 * while it runs; one still running when the composer goes (another room opened, the thread closed) is called
 * off too, since nothing would be left to attach it to.
 */
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import { ApiError, messageOf } from "../../lib/api";
import { deleteNode } from "../files/api";
import { uploadToRoom } from "./api";
import type { AttachmentDraft } from "./chat-types";

/** A file on its way up. */
export interface Uploading {
  key: number;
  name: string;
  size: number;
  /** From 0 to 1. */
  progress: number;
  /** Why it was refused; it stays listed until removed. */
  error: string | null;
  /** A local picture of an image, shown while it goes up. */
  preview: string | null;
}

let keys = 0;

/** Frees the local picture of an uploaded image once its chip is gone (removed, or sent). */
export function forgetPreview(attachment: AttachmentDraft): void {
  if (attachment.file?.preview) URL.revokeObjectURL(attachment.file.preview);
}

/** Whether a file is a picture the browser can show from its own bytes. */
const isImage = (file: File) => /^image\/(png|jpe?g|gif|webp|avif|bmp)$/.test(file.type);

/**
 * The uploads of a composer in room `roomId`; `onUploaded` hears of each file stored, as the attachment to
 * send. `remove` drops an attachment before sending: an uploaded file goes from the folder again when the
 * person may delete files.
 */
export function useComposerFiles(
  base: string,
  spaceId: string,
  roomId: string,
  canDelete: boolean,
  onUploaded: (attachment: AttachmentDraft) => void,
) {
  const [uploads, setUploads] = useState<Uploading[]>([]);
  const aborts = useRef(new Map<number, () => void>());
  const uploaded = useRef(onUploaded);
  uploaded.current = onUploaded;

  useEffect(() => {
    const running = aborts.current;
    return () => {
      for (const abort of running.values()) abort();
    };
  }, []);

  const change = useCallback((key: number, patch: Partial<Uploading> | null) => {
    setUploads((list) =>
      patch === null ? list.filter((u) => u.key !== key) : list.map((u) => (u.key === key ? { ...u, ...patch } : u)),
    );
  }, []);

  const add = useCallback(
    (files: readonly File[]) => {
      for (const file of files) {
        const key = ++keys;
        const preview = isImage(file) ? URL.createObjectURL(file) : null;
        setUploads((list) => [...list, { key, name: file.name, size: file.size, progress: 0, error: null, preview }]);
        const upload = uploadToRoom(base, spaceId, roomId, file, (progress) => change(key, { progress }));
        aborts.current.set(key, upload.abort);
        upload.done
          .then(({ attachment, node }) => {
            change(key, null);
            uploaded.current({
              url: attachment.url,
              name: attachment.name,
              file: { mime: attachment.mime, size_bytes: attachment.size_bytes, nodeId: node.id, preview },
            });
          })
          .catch((error) => {
            // Called off: it is gone from the list already.
            if (error instanceof ApiError && error.status === 0 && error.message === "upload cancelled") return;
            change(key, { error: messageOf(error) });
          })
          .finally(() => aborts.current.delete(key));
      }
    },
    [base, spaceId, roomId, change],
  );

  /** Calls off an upload, or forgets a refused one. */
  const cancel = useCallback((key: number) => {
    aborts.current.get(key)?.();
    setUploads((list) => {
      const gone = list.find((u) => u.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return list.filter((u) => u.key !== key);
    });
  }, []);

  /** An uploaded file dropped before sending: removed from the Attachments folder again (when allowed). */
  const discard = useCallback(
    (attachment: AttachmentDraft) => {
      if (!attachment.file) return;
      forgetPreview(attachment);
      if (canDelete) void deleteNode(base, spaceId, attachment.file.nodeId).catch(() => undefined);
    },
    [base, spaceId, canDelete],
  );

  return { uploads, add, cancel, discard, busy: uploads.some((u) => u.error === null) };
}

/**
 * Files dragged over `zone` mark it (`data-dropping`, for the "Drop files to attach" look) and, dropped, go to
 * `onFiles`. Anything else dragged (text, a link) is left to the browser.
 */
export function useFileDrop(zone: RefObject<HTMLElement | null>, onFiles: (files: File[]) => void, enabled = true) {
  const handler = useRef(onFiles);
  handler.current = onFiles;
  useEffect(() => {
    const el = zone.current;
    if (!el || !enabled) return;
    let depth = 0;
    const hasFiles = (event: DragEvent) => event.dataTransfer?.types.includes("Files") === true;
    const mark = (on: boolean) => {
      if (on) el.dataset.dropping = "true";
      else delete el.dataset.dropping;
    };
    const enter = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth++;
      mark(true);
    };
    const over = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    };
    const leave = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) mark(false);
    };
    const drop = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth = 0;
      mark(false);
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length > 0) handler.current(files);
    };
    el.addEventListener("dragenter", enter);
    el.addEventListener("dragover", over);
    el.addEventListener("dragleave", leave);
    el.addEventListener("drop", drop);
    return () => {
      mark(false);
      el.removeEventListener("dragenter", enter);
      el.removeEventListener("dragover", over);
      el.removeEventListener("dragleave", leave);
      el.removeEventListener("drop", drop);
    };
  }, [zone, enabled]);
}
