/** Request and response schemas of spaces, their board and their members. */
import { z } from "zod";
import { lazy, nameIn, oneLine, repoUrlIn, timestampOut, uuidIn, uuidOut, visible } from "../../http/schemas";

export const spaceOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      organization_id: uuidOut,
      name: z.string(),
      description: z.string(),
      private: z.boolean(),
      created_by: uuidOut.nullable(),
      created_at: timestampOut,
    })
    .meta({ id: "Space" }),
);
export type SpaceOut = z.infer<ReturnType<typeof spaceOut>>;

export const boardOut = lazy(() =>
  z.object({ id: uuidOut, space_id: uuidOut, name: z.string(), created_at: timestampOut }).meta({ id: "Board" }),
);
export const columnOut = lazy(() =>
  z
    .object({
      id: uuidOut,
      board_id: uuidOut,
      name: z.string(),
      position: z.number().int(),
      /** At most this many tasks (staff are held to it, people are warned); null: no limit. */
      wip_limit: z.number().int().nullable(),
    })
    .meta({ id: "Column" }),
);
export type BoardOut = z.infer<ReturnType<typeof boardOut>>;
export type ColumnOut = z.infer<ReturnType<typeof columnOut>>;

const columnName = nameIn(100);
const wipLimit = z.number().int().min(1).max(100_000).nullable();

export const createColumnIn = z.object({
  name: columnName,
  /** 0-based place among the columns; omitted or past the end: last. */
  position: z.number().int().min(0).optional(),
  wip_limit: wipLimit.optional(),
});
export type CreateColumnIn = z.infer<typeof createColumnIn>;

export const patchColumnIn = z.object({
  name: columnName.optional(),
  position: z.number().int().min(0).optional(),
  wip_limit: wipLimit.optional(),
});
export type PatchColumnIn = z.infer<typeof patchColumnIn>;

export const spaceMemberOut = lazy(() =>
  z.object({ user_id: uuidOut, role: z.enum(["owner", "member"]), added_at: timestampOut }).meta({ id: "SpaceMember" }),
);
export type SpaceMemberOut = z.infer<ReturnType<typeof spaceMemberOut>>;

export const createSpaceIn = z.object({
  name: nameIn(100),
  description: z.string().trim().max(2000).optional(),
  private: z.boolean().optional().meta({ default: false }),
});
export const addSpaceMemberIn = z.object({
  user_id: uuidIn,
  role: z.enum(["owner", "member"]).optional().meta({ default: "member" }),
});

export const putGitLinkIn = z.object({
  repo_url: repoUrlIn(),
  ref: oneLine(visible(z.string().trim().max(255))).optional(),
});

export const gitLinkOut = lazy(() =>
  z.object({ repo_url: z.string(), ref: z.string(), updated_at: timestampOut }).meta({ id: "GitLink" }),
);
export type GitLinkOut = z.infer<ReturnType<typeof gitLinkOut>>;
