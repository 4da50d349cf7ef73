/** File-tree rules that depend on names and rows. */
import type { OrgActor } from "../../core/actor";
import { forbidden, invalid } from "../../core/errors";
import { charCount, hasControl, isInvisible } from "../../lib/text";

/** The largest text file, in UTF-8 bytes, however it is written: REST or the collaborative socket. */
export const MAX_TEXT_BYTES = 5 * 1024 * 1024;

/** 1 to 255 characters after trimming, no `/` or NUL, not `.` or `..` (contract §4). */
export function checkName(raw: string): string {
  const name = raw.trim();
  const length = charCount(name);
  if (length === 0 || length > 255) throw invalid("name: must be 1 to 255 characters");
  if (hasControl(name)) throw invalid("name: must not contain control characters");
  if (isInvisible(name)) throw invalid("name: must contain a visible character");
  if (name.includes("/") || name.includes("\u0000")) throw invalid("name: must not contain / or NUL");
  if (name === "." || name === "..") throw invalid("name: must not be . or ..");
  return name;
}

/**
 * Who may change a document over the collaborative-editing socket: people with `files.write`. Service accounts
 * never do (they propose patches a person accepts); everyone else who can read the file joins read-only.
 */
export function canEditTogether(actor: OrgActor): boolean {
  return actor.serviceAccountId === null && actor.permissions.has("files.write");
}

/**
 * Staff never change a file that exists without a person's approval: a service account may add files and
 * folders and propose new text for a text file (a person accepts it), but its REST writes to existing nodes
 * (new content, rename or move, delete) get 403, as its edits over the socket are dropped.
 */
export function assertMayChangeExisting(actor: OrgActor): void {
  if (actor.serviceAccountId !== null) throw forbidden(STAFF_CANNOT_CHANGE_FILES);
}

export const STAFF_CANNOT_CHANGE_FILES = "service accounts cannot change existing files: propose a patch instead";

/** A folder cannot move into itself or below itself: `ancestry` runs from the new parent up to the root. */
export function assertMovable(folderId: string, ancestry: readonly string[]): void {
  if (ancestry.includes(folderId)) throw invalid("cannot move a folder into itself");
}

const TEXT_EXTENSIONS: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  tsx: "text/x-typescript",
  jsx: "text/javascript",
  py: "text/x-python",
  rb: "text/x-ruby",
  go: "text/x-go",
  rs: "text/x-rust",
  java: "text/x-java",
  c: "text/x-c",
  h: "text/x-c",
  cpp: "text/x-c++",
  sh: "application/x-sh",
  sql: "application/sql",
  svg: "image/svg+xml",
  log: "text/plain",
  ini: "text/plain",
  env: "text/plain",
};

const BINARY_EXTENSIONS: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  wav: "audio/wav",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

function extension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** True for content a person edits as text: a text MIME type or a known text extension. */
export function isTextType(name: string, declared: string | null): boolean {
  const ext = extension(name);
  if (ext in TEXT_EXTENSIONS) return true;
  if (ext in BINARY_EXTENSIONS) return false;
  const type = (declared ?? "").toLowerCase();
  return type.startsWith("text/") || /^application\/(json|xml|yaml|x-sh|sql|toml)\b/.test(type);
}

/** A declared Content-Type as a bare `type/subtype` in lower case, or null when it is not one. */
function mediaType(declared: string | null): string | null {
  const type = declared?.split(";")[0]?.trim().toLowerCase();
  return type && /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : null;
}

/**
 * A binary file's type with the `charset` the upload declared, when it is a text type: its bytes may be text
 * in any encoding, which only the uploader knows (`text/csv; charset=windows-1252`). A declared UTF-8 is not
 * kept: clients add it by default, and text that is UTF-8 is stored as a text file.
 */
function withCharset(type: string, declared: string | null): string {
  const charset = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(declared ?? "")?.[1]?.toLowerCase();
  return charset && !/^utf-?8$/.test(charset) && isTextType("", type) ? `${type}; charset=${charset}` : type;
}

/**
 * The MIME type a file is served with: its extension's, else what the client declared (a binary file's with
 * the declared charset). A text file keeps a text type whatever its name says (`notes.png` made as text is
 * served as text/plain), and is UTF-8.
 */
export function mimeOf(name: string, declared: string | null, text: boolean): string {
  const ext = extension(name);
  const type = mediaType(declared);
  if (text) return TEXT_EXTENSIONS[ext] ?? (type && isTextType("", type) ? type : "text/plain");
  const known = TEXT_EXTENSIONS[ext] ?? BINARY_EXTENSIONS[ext] ?? type;
  return known ? withCharset(known, declared) : "application/octet-stream";
}

/**
 * The MIME type of a file whose bytes a PUT replaced: its extension's, else a specific type the request
 * declared, else the one it had. A form or octet-stream type (what clients send by default) says nothing.
 */
export function replacedMime(name: string, declared: string | null, current: string | null): string {
  const ext = extension(name);
  const known = TEXT_EXTENSIONS[ext] ?? BINARY_EXTENSIONS[ext];
  if (known) return withCharset(known, declared);
  const type = mediaType(declared);
  if (type && !/^(application\/(octet-stream|x-www-form-urlencoded)|multipart\/)/.test(type)) {
    return withCharset(type, declared);
  }
  return current ?? "application/octet-stream";
}

/**
 * Types a browser could run as a page: served as downloads, never inline. HTML, and XML of any kind (`text/xml`,
 * SVG, XHTML, RSS, XSLT...: any `+xml` type), which a browser may render with its own styles and scripts.
 */
export function isActiveContent(mime: string): boolean {
  const type = mime.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "text/html" || /[/+]xml$/.test(type) || /\/xslt?$/.test(type);
}
