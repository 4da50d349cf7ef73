/** Spaces, the board of a space and its members (api-spec §4 Spaces, contract §3). */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { assertManagesSpace } from "./spaces.policy";
import { presentBoard, presentColumn, presentGitLink, presentSpace, presentSpaceMember } from "./spaces.present";
import {
  addSpaceMemberIn,
  boardOut,
  columnOut,
  createColumnIn,
  createSpaceIn,
  gitLinkOut,
  patchColumnIn,
  putGitLinkIn,
  spaceMemberOut,
  spaceOut,
} from "./spaces.schemas";
import type { SpacesService } from "./spaces.service";

export function spacesRoutes(auth: AuthMacro, spaces: SpacesService) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId/spaces" })
    .use(auth)
    .get("", ({ actor }) => ({ spaces: spaces.list(actor).map(presentSpace) }), {
      permission: "member",
      detail: doc("Spaces the caller can see, oldest first", () => ({
        200: z.object({ spaces: z.array(spaceOut()) }),
      })),
    })
    .post("", ({ actor, body, status }) => status(201, presentSpace(spaces.create(actor, body))), {
      permission: "spaces.create",
      body: createSpaceIn,
      detail: doc("Creates a space with its board and `general` room; the caller becomes its owner", () => ({
        201: spaceOut(),
      })),
    })
    .get("/:spaceId", ({ actor }) => presentSpace(spaces.get(actor)), {
      space: "member",
      detail: doc("The space", () => ({ 200: spaceOut() })),
    })
    .get(
      "/:spaceId/board",
      ({ actor }) => {
        const { board, columns } = spaces.board(actor);
        return { board: presentBoard(board), columns: columns.map(presentColumn) };
      },
      {
        space: "member",
        detail: doc("The space's board and its columns in order", () => ({
          200: z.object({ board: boardOut(), columns: z.array(columnOut()) }),
        })),
      },
    )
    .post(
      "/:spaceId/board/columns",
      ({ actor, body, status }) => status(201, { column: presentColumn(spaces.addColumn(actor, body)) }),
      {
        space: "tasks.write",
        body: createColumnIn,
        detail: doc("Adds a column to the board at `position` (omitted or past the end: last)", () => ({
          201: z.object({ column: columnOut() }),
          409: "`name already exists` (a column of the board has that name, ignoring case)",
        })),
      },
    )
    .patch(
      "/:spaceId/board/columns/:columnId",
      ({ actor, params, body }) => ({ column: presentColumn(spaces.updateColumn(actor, params.columnId, body)) }),
      {
        space: "tasks.write",
        body: patchColumnIn,
        detail: doc("Renames a column, moves it to `position` (past the end: last) or sets its WIP limit", () => ({
          200: z.object({ column: columnOut() }),
          409: "`name already exists` (another column of the board has that name, ignoring case)",
        })),
      },
    )
    .delete(
      "/:spaceId/board/columns/:columnId",
      ({ actor, params, status }) => {
        spaces.deleteColumn(actor, params.columnId);
        return status(204);
      },
      {
        space: "tasks.write",
        detail: doc("Deletes an empty column; the board keeps at least one", () => ({
          204: null,
          409: "`column is not empty` (tasks are in it); `a board needs a column` (it is the board's only column)",
        })),
      },
    )
    .get("/:spaceId/members", ({ actor }) => ({ members: spaces.members(actor).map(presentSpaceMember) }), {
      space: "member",
      detail: doc("Members of the space, by when they were added", () => ({
        200: z.object({ members: z.array(spaceMemberOut()) }),
      })),
    })
    .post(
      "/:spaceId/members",
      ({ actor, body, status }) =>
        status(201, { member: presentSpaceMember(spaces.addMember(actor, body.user_id, body.role)) }),
      {
        space: "member",
        check: assertManagesSpace,
        body: addSpaceMemberIn,
        detail: doc(
          "Adds an organization member to the space (space owner or org.manage)",
          () => ({
            201: z.object({ member: spaceMemberOut() }),
            403: "`only a space owner can manage its members`",
            409: "`already a member of the space`",
          }),
          { access: "The space's owner, or a holder of `org.manage`" },
        ),
      },
    )
    .delete(
      "/:spaceId/members/:userId",
      ({ actor, params, status }) => {
        spaces.removeMember(actor, params.userId);
        return status(204);
      },
      {
        space: "member",
        detail: doc(
          "Removes a member from the space (space owner or org.manage; anyone may leave)",
          () => ({
            204: null,
            403: "`only a space owner can manage its members`",
            409: "`cannot remove the last owner of the space`",
          }),
          { access: "The space's owner, or a holder of `org.manage`; any member removes themselves" },
        ),
      },
    )
    .get(
      "/:spaceId/git-link",
      ({ actor }) => {
        const link = spaces.gitLink(actor);
        return { git_link: link ? presentGitLink(link) : null };
      },
      {
        space: "member",
        detail: doc("The space's git repository (null when none is linked), used by `agent` staff", () => ({
          200: z.object({ git_link: gitLinkOut().nullable() }),
        })),
      },
    )
    .put("/:spaceId/git-link", ({ actor, body }) => ({ git_link: presentGitLink(spaces.setGitLink(actor, body)) }), {
      space: "files.write",
      body: putGitLinkIn,
      detail: doc("Links the space to a git repository (`ref` optional)", () => ({
        200: z.object({ git_link: gitLinkOut() }),
        403: "A service account: `only a person can change the space's git link`",
      })),
    })
    .delete(
      "/:spaceId/git-link",
      ({ actor, status }) => {
        spaces.removeGitLink(actor);
        return status(204);
      },
      {
        space: "files.write",
        detail: doc("Removes the space's git repository link", () => ({
          204: null,
          403: "A service account: `only a person can change the space's git link`",
        })),
      },
    );
}
