/** Request and response schemas of a space's labels. */
import { z } from "zod";
import { lazy, nameIn, timestampOut, uuidOut } from "../../http/schemas";

export const labelOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      space_id: uuidOut,
      name: z.string(),
      /** `#rrggbb`, in lower case. */
      color: z.string(),
      created_at: timestampOut,
    })
    .meta({ id: "Label" }),
);
export type LabelOut = z.infer<ReturnType<typeof labelOut>>;

const labelName = nameIn(50);
const color = z
  .string()
  .refine((s) => /^#[0-9a-f]{6}$/i.test(s), { params: { message: "must be a #rrggbb color" } })
  .overwrite((s) => s.toLowerCase())
  .meta({
    description: "`#rrggbb` (six hexadecimal digits), stored in lower case",
    pattern: "^#[0-9a-fA-F]{6}$",
    example: "#3b82f6",
  });

export const createLabelIn = z.object({ name: labelName, color });
export type CreateLabelIn = z.infer<typeof createLabelIn>;

export const patchLabelIn = z.object({ name: labelName.optional(), color: color.optional() });
export type PatchLabelIn = z.infer<typeof patchLabelIn>;
