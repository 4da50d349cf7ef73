/**
 * A streaming multipart/form-data reader: file parts are handed to a sink chunk by chunk as they arrive, so
 * an upload is never held whole in memory. Small text fields are collected (at most 64 KiB each).
 */
import { invalid } from "../core/errors";
import type { IncomingFile } from "../core/upload";

/** Receives one file part's bytes. */
export interface FileSink {
  write(chunk: Uint8Array): void;
}

/** What the reader does with each part. */
export interface MultipartHandlers {
  /** Called when a file part starts; returns where its bytes go. */
  onFile(field: string, filename: string, contentType: string | null): FileSink;
  onField(field: string, value: string): void;
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

/** The boundary of a multipart/form-data content type, or null. */
export function boundaryOf(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
  const match = contentType.match(/boundary=(?:"([^"]+)"|([^;\s]+))/i);
  const boundary = match?.[1] ?? match?.[2];
  return boundary && boundary.length <= 70 ? boundary : null;
}

function parseDisposition(headers: string): { name: string; filename: string | null } | null {
  const line = headers.split("\r\n").find((h) => /^content-disposition:/i.test(h));
  if (!line) return null;
  const name = line.match(/;\s*name="([^"]*)"/i)?.[1];
  if (name === undefined) return null;
  const star = line.match(/;\s*filename\*=UTF-8''([^;\s]+)/i)?.[1];
  const plain = line.match(/;\s*filename="([^"]*)"/i)?.[1];
  let filename: string | null = plain ?? null;
  if (star) {
    try {
      filename = decodeURIComponent(star);
    } catch {
      filename = plain ?? null;
    }
  }
  return { name, filename };
}

function contentTypeOf(headers: string): string | null {
  const line = headers.split("\r\n").find((h) => /^content-type:/i.test(h));
  return line ? line.slice(line.indexOf(":") + 1).trim() : null;
}

/** Reads the whole multipart body, dispatching parts to `handlers`. Malformed input is 400. */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  handlers: MultipartHandlers,
): Promise<void> {
  if (!body) throw invalid("file: required");
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let buffer: Buffer = Buffer.alloc(0);
  // Widened on purpose: `step` changes it, which flow analysis outside the closure cannot see.
  let state = "preamble" as "preamble" | "after-boundary" | "headers" | "body" | "done";
  let sink: FileSink | null = null;
  let field: { name: string; chunks: Buffer[]; size: number } | null = null;

  const emit = (data: Buffer) => {
    if (data.length === 0) return;
    if (sink) sink.write(data);
    else if (field) {
      field.size += data.length;
      if (field.size > MAX_FIELD_BYTES) throw invalid(`${field.name}: too long`);
      field.chunks.push(data);
    }
  };

  const step = (): boolean => {
    switch (state) {
      case "preamble": {
        const at = buffer.indexOf(opening);
        if (at === -1) {
          if (buffer.length > MAX_HEADER_BYTES) throw invalid("malformed multipart body");
          return false;
        }
        buffer = buffer.subarray(at + opening.length);
        state = "after-boundary";
        return true;
      }
      case "after-boundary": {
        if (buffer.length < 2) return false;
        if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
          state = "done";
          return false;
        }
        if (!buffer.subarray(0, 2).equals(CRLF)) throw invalid("malformed multipart body");
        buffer = buffer.subarray(2);
        state = "headers";
        return true;
      }
      case "headers": {
        const end = buffer.indexOf(HEADER_END);
        if (end === -1) {
          if (buffer.length > MAX_HEADER_BYTES) throw invalid("malformed multipart body");
          return false;
        }
        const headers = buffer.subarray(0, end).toString("utf8");
        buffer = buffer.subarray(end + HEADER_END.length);
        const disposition = parseDisposition(headers);
        if (!disposition) throw invalid("malformed multipart body");
        if (disposition.filename !== null) {
          sink = handlers.onFile(disposition.name, disposition.filename, contentTypeOf(headers));
          field = null;
        } else {
          sink = null;
          field = { name: disposition.name, chunks: [], size: 0 };
        }
        state = "body";
        return true;
      }
      case "body": {
        const at = buffer.indexOf(delimiter);
        if (at === -1) {
          // Keep a tail that could be the start of a delimiter split across chunks.
          const safe = buffer.length - delimiter.length;
          if (safe > 0) {
            emit(buffer.subarray(0, safe));
            buffer = buffer.subarray(safe);
          }
          return false;
        }
        emit(buffer.subarray(0, at));
        buffer = buffer.subarray(at + delimiter.length);
        if (field) handlers.onField(field.name, Buffer.concat(field.chunks).toString("utf8"));
        sink = null;
        field = null;
        state = "after-boundary";
        return true;
      }
      default:
        return false;
    }
  };

  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    if (state === "done") continue;
    buffer = buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffer, chunk]);
    while (step()) {
      // Each step consumes what it can; it returns false when it needs more bytes.
    }
  }
  if (state !== "done") throw invalid("malformed multipart body");
}

/** Bytes of parts nobody reads. */
const DISCARD: FileSink = { write: () => undefined };

/**
 * A multipart/form-data request as an upload: its first part named `file`, streamed, and its other fields.
 * Throws 400 at once when the request is not multipart/form-data.
 */
export function multipartFile(request: Request): IncomingFile {
  const boundary = boundaryOf(request.headers.get("content-type"));
  if (!boundary) throw invalid("content-type must be multipart/form-data");
  return {
    receive: async (open) => {
      const fields: Record<string, string> = {};
      let opened = false;
      await readMultipart(request.body, boundary, {
        onFile: (field, filename, type) => {
          if (field !== "file" || opened) return DISCARD;
          opened = true;
          return open(filename, type);
        },
        onField: (field, value) => {
          fields[field] = value;
        },
      });
      return fields;
    },
  };
}
