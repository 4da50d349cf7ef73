/**
 * Uploads as services receive them: the bytes of a file as they arrive, with what the sender said about it.
 * The transport (multipart forms, raw bodies) stays in `http/`; a service never sees a request.
 */

/** Where a file's bytes go as they arrive. */
export interface ByteSink {
  write(chunk: Uint8Array): void;
}

/** An uploaded file, streamed, with the other fields of its form. */
export interface IncomingFile {
  /**
   * Reads the upload: `open` is told the file's name and declared type when its part starts, and its bytes go
   * to the sink it returns as they arrive. Resolves with the form's other fields once the whole body is read;
   * `open` is never called when the form holds no file.
   */
  receive(open: (name: string, type: string | null) => ByteSink): Promise<Record<string, string>>;
}
