/**
 * What a message will carry, above its composer: links typed in, files uploaded (an image with its picture)
 * and files still going up with their progress, each with a ✕ to remove it before sending.
 */
import { formatSize } from "../../lib/size";
import type { AttachmentDraft } from "./chat-types";
import { FileIcon, LinkIcon } from "./icons";
import type { Uploading } from "./use-composer-files";

export function DraftAttachments({
  attachments,
  uploads,
  onRemove,
  onCancel,
}: {
  attachments: readonly AttachmentDraft[];
  uploads: readonly Uploading[];
  onRemove: (index: number) => void;
  onCancel: (key: number) => void;
}) {
  if (attachments.length === 0 && uploads.length === 0) return null;
  return (
    <ul className="draft-attachments" aria-label="Attachments to send">
      {attachments.map((a, i) => (
        <li key={a.url} className={a.file ? "draft-attachment draft-file" : "draft-attachment"}>
          {a.file?.preview ? (
            <img className="draft-thumb" src={a.file.preview} alt="" />
          ) : a.file ? (
            <FileIcon />
          ) : (
            <LinkIcon />
          )}
          <span className="grow" title={a.file ? a.name : a.url}>
            {a.name || a.url}
          </span>
          {a.file && <span className="muted small">{formatSize(a.file.size_bytes)}</span>}
          <button type="button" className="icon" aria-label={`Remove ${a.name || a.url}`} onClick={() => onRemove(i)}>
            ✕
          </button>
        </li>
      ))}
      {uploads.map((u) => (
        <li key={u.key} className={u.error ? "draft-attachment draft-file failed" : "draft-attachment draft-file"}>
          {u.preview ? <img className="draft-thumb" src={u.preview} alt="" /> : <FileIcon />}
          <span className="draft-upload grow">
            <span className="draft-upload-name" title={u.name}>
              {u.name}
            </span>
            {u.error ? (
              <span className="error small" role="alert">
                Not uploaded: {u.error}
              </span>
            ) : (
              <progress
                value={u.progress}
                max={1}
                aria-label={`Uploading ${u.name}: ${Math.round(u.progress * 100)}% of ${formatSize(u.size)}`}
              />
            )}
          </span>
          <button
            type="button"
            className="icon"
            aria-label={u.error ? `Remove ${u.name}` : `Cancel uploading ${u.name}`}
            onClick={() => onCancel(u.key)}
          >
            ✕
          </button>
        </li>
      ))}
    </ul>
  );
}
