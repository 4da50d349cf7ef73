/**
 * A message's attachments. A file uploaded from the composer is Tandem's own (its URL is the file's content
 * route, which needs the session's token, so an `<img src>` cannot load it): an image is fetched with the token
 * and shown inline from a `blob:` URL (an SVG from a `data:` URL, which cannot be opened as a page), and opens
 * larger in a dialog; any other file is a chip with its name and size that downloads it. A link to another
 * site stays a link and is never fetched.
 */
import { useEffect, useState } from "react";
import type { Attachment } from "../../../../src/api-types";
import { download, messageOf, saveDownload } from "../../lib/api";
import { dataUrlOf } from "../../lib/blob";
import { formatSize } from "../../lib/size";
import { Modal, toast } from "../../lib/ui";
import { FileIcon, LinkIcon } from "./icons";

/** Images a browser shows, small enough to fetch for a look. */
const PREVIEWABLE = /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml)$/;
const PREVIEW_MAX_BYTES = 25_000_000;
/** How many images stay loaded (each a blob in memory): the room and its thread show the same ones. */
const KEPT_IMAGES = 60;

/**
 * The API path (below `/api/v1`) of a file's content when `url` is one of Tandem's own, whatever host it was
 * written with (Tandem may be reached under several names); null for any other URL.
 */
export function ownContentPath(url: string): string | null {
  try {
    const { pathname } = new URL(url, location.href);
    return /^\/api\/v1(\/organizations\/[^/]+\/spaces\/[^/]+\/files\/[^/]+\/content)$/.exec(pathname)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Whether an attachment shows as a picture: one of Tandem's own images, small enough. */
export function isInlineImage(a: { url: string; mime: string; size_bytes: number }): boolean {
  return PREVIEWABLE.test(a.mime) && a.size_bytes <= PREVIEW_MAX_BYTES && ownContentPath(a.url) !== null;
}

/** Loaded images by path, the oldest first out. */
const images = new Map<string, Promise<string>>();

/** The image at `path` as a URL an `<img>` can show; loaded once for every row that shows it. */
function imageUrl(path: string): Promise<string> {
  const known = images.get(path);
  if (known) return known;
  const made = download(path).then(async (blob) => {
    // An SVG can hold scripts: a blob: URL of it opened in a tab would run them as a page of this origin.
    if (blob.type.startsWith("image/svg")) return dataUrlOf(blob);
    return URL.createObjectURL(blob);
  });
  made.catch(() => images.delete(path));
  images.set(path, made);
  if (images.size > KEPT_IMAGES) {
    const [oldest, url] = images.entries().next().value as [string, Promise<string>];
    images.delete(oldest);
    // An <img> already showing it keeps its decoded picture.
    void url.then((u) => u.startsWith("blob:") && URL.revokeObjectURL(u)).catch(() => undefined);
  }
  return made;
}

/** An image attachment, loaded with the session; a click shows it larger. */
function InlineImage({ attachment, path }: { attachment: Attachment; path: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    let stale = false;
    imageUrl(path).then(
      (url) => !stale && setSrc(url),
      (error) => !stale && setFailed(messageOf(error)),
    );
    return () => {
      stale = true;
    };
  }, [path]);
  if (failed) return <FileChip attachment={attachment} path={path} note={`not available: ${failed}`} />;
  return (
    <>
      <button
        type="button"
        className="attachment-image"
        aria-label={`Open ${attachment.name}`}
        title={attachment.name}
        onClick={() => setOpen(true)}
        disabled={!src}
      >
        {src ? (
          <img src={src} alt={attachment.name} />
        ) : (
          <span className="attachment-image-loading muted small">Loading {attachment.name}…</span>
        )}
      </button>
      {open && src && (
        <Modal title={attachment.name} onClose={() => setOpen(false)} wide>
          <img className="attachment-full" src={src} alt={attachment.name} />
          <p className="row">
            <span className="grow muted small">{formatSize(attachment.size_bytes)}</span>
            <button type="button" onClick={() => void fetchFile(path, attachment.name)}>
              Download
            </button>
          </p>
        </Modal>
      )}
    </>
  );
}

/** Downloads one of Tandem's own files; a refusal is said in a notice. */
async function fetchFile(path: string, name: string): Promise<void> {
  try {
    await saveDownload(path, name);
  } catch (error) {
    toast(`${name} could not be downloaded: ${messageOf(error)}`, "error");
  }
}

/** A file of Tandem's own as a chip: its name and size; a click downloads it. */
function FileChip({ attachment, path, note }: { attachment: Attachment; path: string; note?: string }) {
  return (
    <button
      type="button"
      className="attachment attachment-file"
      title={`Download ${attachment.name}`}
      onClick={() => void fetchFile(path, attachment.name)}
    >
      <FileIcon />
      <span className="attachment-name">{attachment.name}</span>
      <span className="muted small">{note ?? formatSize(attachment.size_bytes)}</span>
    </button>
  );
}

/** Whether a URL may become a link (the API only stores http(s) ones; checked again before it is clickable). */
function isHttp(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** One attachment as its kind shows. */
function AttachmentItem({ attachment: a }: { attachment: Attachment }) {
  const path = ownContentPath(a.url);
  if (path && isInlineImage(a)) return <InlineImage attachment={a} path={path} />;
  if (path) return <FileChip attachment={a} path={path} />;
  if (!isHttp(a.url)) return <span className="attachment">{a.name || a.url}</span>;
  return (
    <a href={a.url} target="_blank" rel="noopener noreferrer nofollow" className="attachment">
      <LinkIcon /> <span className="attachment-name">{a.name || a.url}</span>
      <span className="muted small"> {hostOf(a.url)}</span>
    </a>
  );
}

/** The attachments of a message, pictures first in a row of their own. */
export function AttachmentList({ attachments }: { attachments: readonly Attachment[] }) {
  if (attachments.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attachments">
      {attachments.map((a) => (
        <li key={a.id}>
          <AttachmentItem attachment={a} />
        </li>
      ))}
    </ul>
  );
}
