/** Request and response schemas of the file tree. */
import { z } from "zod";
import { idIn, lazy, timestampOut, uuidOut } from "../../http/schemas";

export const nodeOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      space_id: uuidOut,
      parent_id: uuidOut.nullable(),
      kind: z.enum(["file", "folder"]),
      name: z.string(),
      mime_type: z.string().nullable(),
      size_bytes: z.number().int().nullable(),
      checksum_sha256: z.string().nullable(),
      /** True for text files, which open in the collaborative editor. */
      editable: z.boolean(),
      created_by: uuidOut.nullable(),
      created_at: timestampOut,
      updated_at: timestampOut,
      deleted_at: timestampOut.nullable(),
    })
    .meta({ id: "FileNode" }),
);
export type NodeOut = z.infer<ReturnType<typeof nodeOut>>;

const parentIn = idIn.nullish();
// Any length here: `checkName` gives the one message for a name that is too long.
const nameIn = z.string().meta({ minLength: 1, maxLength: 255 });

export const listFilesQuery = z.object({
  parentId: idIn.optional(),
  q: z.string().max(255).optional(),
  scope: z.string().max(16).optional(),
});
export const createFolderIn = z.object({ name: nameIn, parent_id: parentIn });
export const createTextIn = z.object({ name: nameIn, parent_id: parentIn, content: z.string().optional() });
export const patchNodeIn = z.object({ name: nameIn.optional(), parent_id: parentIn });
