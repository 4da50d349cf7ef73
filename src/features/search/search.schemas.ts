/** Request and response schemas of search (contract §10). */
import { z } from "zod";
import { idIn, lazy, limitIn, timestampIn, timestampOut, uuidOut } from "../../http/schemas";
import { charCount } from "../../lib/text";
import { KINDS, type Kind } from "./search.store";

/** The longest `q`, in characters (code points). */
export const MAX_Q = 200;

/** White space around `q` is ignored, in its length too: a word pasted with a trailing space still fits. */
const q = z
  .string()
  .transform((s) => s.trim())
  .refine((s) => s.length > 0, { params: { message: "must not be empty" } })
  .refine((s) => charCount(s) <= MAX_Q, { params: { message: `must be at most ${MAX_Q} characters` } })
  .meta({ type: "string", minLength: 1, maxLength: MAX_Q });

const isKind = (s: string): s is Kind => (KINDS as readonly string[]).includes(s);

/**
 * `types`: kinds separated by commas (`message,file`); empty or absent: every kind. Elysia hands a value with a
 * comma (or a repeated parameter) over as a list: both read the same.
 */
const types = z
  .preprocess((v) => (Array.isArray(v) ? v.join(",") : v), z.string())
  .transform((s) => [...new Set(s.split(",").map((t) => t.trim()))].filter((t) => t !== ""))
  .refine((list) => list.every(isKind), {
    params: { message: `must be a comma-separated list of ${KINDS.join(", ")}` },
  })
  .transform((list) => list as Kind[])
  .meta({ type: "string", description: `comma-separated: ${KINDS.join(", ")}; absent or empty: all` });

export const searchQuery = z.object({
  q,
  types: types.optional(),
  space_id: idIn.optional(),
  limit: limitIn.optional(),
  before: timestampIn("invalid before").optional(),
});

export const searchResultOut = lazy(() =>
  z
    .object({
      type: z.enum(KINDS),
      id: uuidOut,
      space_id: uuidOut,
      /** The room's name (a message), the task's title (a task, a task message), the path (a file node). */
      title: z.string(),
      /** An excerpt around the matches, HTML-escaped, each match inside `<mark>` and `</mark>`. */
      snippet: z.string(),
      created_at: timestampOut,
      /** Where to open it: the room of a message. */
      chat_room_id: uuidOut.optional(),
      /** The task (of a task message; a task's own id for a task). */
      task_id: uuidOut.optional(),
      /** The file node (a file's own id). */
      file_id: uuidOut.optional(),
    })
    .meta({ id: "SearchResult" }),
);
export type SearchResultOut = z.infer<ReturnType<typeof searchResultOut>>;

export const searchOut = lazy(() => z.object({ results: z.array(searchResultOut()) }));
export type SearchOut = z.infer<ReturnType<typeof searchOut>>;
