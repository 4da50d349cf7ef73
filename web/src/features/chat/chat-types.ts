/** Shapes of the chat screen's own: a staff reply under way, and a link being attached. */

/** A staff reply under way in a room, shown as "<name> is thinking…" (null: a staff member deleted since). */
export interface Thinking {
  jobId: string;
  staffUserId: string | null;
}

/** What the composer sends as an attachment: a link typed in, or a file uploaded. */
export interface AttachmentDraft {
  url: string;
  /** Empty for a link given without a name (the server takes the URL's last segment). */
  name: string;
  /**
   * An uploaded file: its type, size and node (removed again when dropped before sending, where allowed), and
   * a local picture of an image (a `blob:` URL of the file as it was picked).
   */
  file?: { mime: string; size_bytes: number; nodeId: string; preview: string | null };
}

/** Where a message goes: the room (no value), or a thread, shown in the room too when `also_in_room`. */
export interface ThreadPlace {
  thread_root_id: string;
  also_in_room: boolean;
}
