/** Space rows to JSON. */
import { iso } from "../../lib/ids";
import type { BoardOut, ColumnOut, GitLinkOut, SpaceMemberOut, SpaceOut } from "./spaces.schemas";
import type { BoardRow, ColumnRow, GitLinkRow, SpaceMemberRow, SpaceRow } from "./spaces.store";

export function presentSpace(row: SpaceRow): SpaceOut {
  return {
    id: row.id,
    organization_id: row.orgId,
    name: row.name,
    description: row.description,
    private: row.isPrivate,
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
  };
}

export function presentBoard(row: BoardRow): BoardOut {
  return { id: row.id, space_id: row.spaceId, name: row.name, created_at: iso(row.createdAt) };
}

export function presentColumn(row: ColumnRow): ColumnOut {
  return { id: row.id, board_id: row.boardId, name: row.name, position: row.position, wip_limit: row.wipLimit };
}

export function presentSpaceMember(row: SpaceMemberRow): SpaceMemberOut {
  return { user_id: row.userId, role: row.role as SpaceMemberOut["role"], added_at: iso(row.addedAt) };
}

export function presentGitLink(row: GitLinkRow): GitLinkOut {
  return { repo_url: row.repoUrl, ref: row.ref, updated_at: iso(row.updatedAt) };
}
