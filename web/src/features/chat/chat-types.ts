/** Shapes of the chat screen's own: a staff reply under way, and a link being attached. */

/** A staff reply under way in a room, shown as "<name> is thinking…" (null: a staff member deleted since). */
export interface Thinking {
  jobId: string;
  staffUserId: string | null;
}

/** What the composer sends as an attachment. */
export interface AttachmentDraft {
  url: string;
  name: string;
}
