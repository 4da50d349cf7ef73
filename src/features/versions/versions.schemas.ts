/** Response schemas of a text file's versions (contract §11). */
import { z } from "zod";
import { lazy, timestampOut, uuidOut } from "../../http/schemas";

export const versionOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      file_id: uuidOut,
      size_bytes: z.number().int(),
      checksum_sha256: z.string(),
      /** Who changed the file between the version before this one and this one. */
      author_user_ids: z.array(uuidOut),
      created_at: timestampOut,
    })
    .meta({ id: "FileVersion" }),
);
export type VersionOut = z.infer<ReturnType<typeof versionOut>>;
