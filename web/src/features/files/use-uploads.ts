/**
 * Uploading into a space's folders, each file with its progress. The toolbar's Upload and a folder's "Upload
 * here" open the same hidden file field: "Upload here" names its folder, the toolbar's files go to the folder
 * open when they are chosen.
 */
import { useRef, useState } from "react";
import type { FileNode } from "../../../../src/api-types";
import { messageOf } from "../../lib/api";
import { toast } from "../../lib/ui";
import { uploadFile } from "./api";

/** An upload on its way, for the progress list. */
export interface Upload {
  key: number;
  name: string;
  progress: number;
}

let uploadKeys = 0;

/** Uploads of `spaceId`; `reveal` unfolds the folder they go to, `onUploaded` hears of each file stored. */
export function useUploads({
  base,
  spaceId,
  canWrite,
  reveal,
  onUploaded,
}: {
  base: string;
  spaceId: string;
  canWrite: boolean;
  reveal: (folderId: string) => void;
  /** `alone`: the file was the only one of its batch (so it can be opened). */
  onUploaded: (node: FileNode, alone: boolean) => void;
}) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const input = useRef<HTMLInputElement>(null);
  /**
   * The folder "Upload here" chose (null: the root). Undefined for the toolbar's Upload: its files go to the folder
   * open when they are chosen, like New file and New folder, whichever way the file field was filled.
   */
  const target = useRef<string | null | undefined>(undefined);

  /** Uploads `files` into `parentId` (the root when null). */
  const upload = (files: File[], parentId: string | null) => {
    if (!canWrite) return;
    if (parentId) reveal(parentId);
    for (const file of files) {
      const key = ++uploadKeys;
      setUploads((list) => [...list, { key, name: file.name, progress: 0 }]);
      uploadFile(base, spaceId, file, parentId, (progress) =>
        setUploads((list) => list.map((u) => (u.key === key ? { ...u, progress } : u))),
      )
        .then((node) => onUploaded(node, files.length === 1))
        .catch((err) => toast(`Could not upload ${file.name}: ${messageOf(err)}`, "error"))
        .finally(() => setUploads((list) => list.filter((u) => u.key !== key)));
    }
  };

  /** Opens the browser's file picker for `parentId` (none: the folder open when the files are chosen). */
  const pick = (parentId?: string | null) => {
    const field = input.current;
    if (!field) return;
    target.current = parentId;
    // A picker closed without files forgets its folder, so the next files go to the open one.
    field.addEventListener(
      "cancel",
      () => {
        target.current = undefined;
      },
      { once: true },
    );
    field.click();
  };

  /** Files chosen in the field: into the folder asked for, else into `openFolder`. */
  const chosen = (files: File[], openFolder: string | null) => {
    const folder = target.current === undefined ? openFolder : target.current;
    target.current = undefined;
    if (files.length > 0) upload(files, folder);
  };

  return { uploads, input, upload, pick, chosen };
}
