/**
 * Moving bytes: uploads with progress (XMLHttpRequest, since fetch cannot report upload progress) and
 * downloads saved under the file's name through an object URL (the content route needs the bearer token, so
 * a plain link cannot fetch it).
 */

import type { FileNode } from "../../../../src/api-types";
import { ApiError, accessToken, saveDownload } from "../../lib/api";

/**
 * POSTs `file` as multipart to `/api/v1{filesPath}/upload` into `parentId` (the root when null), reporting
 * progress from 0 to 1. Rejects with an ApiError carrying the API's message (413 `file too large`, ...).
 */
export async function uploadFile(
  filesPath: string,
  file: File,
  parentId: string | null,
  onProgress: (fraction: number) => void,
): Promise<FileNode> {
  const send = (token: string | null) =>
    new Promise<FileNode>((resolve, reject) => {
      const form = new FormData();
      form.append("file", file, file.name);
      if (parentId) form.append("parent_id", parentId);
      const xhr = new XMLHttpRequest();
      xhr.open("POST", `/api/v1${filesPath}/upload`);
      if (token) xhr.setRequestHeader("authorization", `Bearer ${token}`);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      };
      xhr.onerror = () => reject(new ApiError(0, "the server cannot be reached; check your connection"));
      xhr.onload = () => {
        let data: { node?: FileNode; error?: string } | null = null;
        try {
          data = JSON.parse(xhr.responseText);
        } catch {
          data = null;
        }
        if (xhr.status >= 200 && xhr.status < 300 && data?.node) resolve(data.node);
        else reject(new ApiError(xhr.status, data?.error ?? `upload failed (${xhr.status})`, data));
      };
      xhr.send(form);
    });
  // accessToken() refreshes the session first when the token is about to expire.
  return send(await accessToken());
}

/** Fetches a file's content and hands it to the browser as a download named like the file. */
export function saveFile(filesPath: string, node: FileNode): Promise<void> {
  return saveDownload(`${filesPath}/${node.id}/content`, node.name);
}
