/** Spaces: creation with their board and `general` room, visibility, and space members. */

import type { OrgActor, SpaceActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { type EventBus, spaceEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId } from "../../lib/ids";
import { nameTaken } from "../../lib/text";
import type { ChatService } from "../chat/chat.service";
import type { MembersService } from "../members/members.service";
import { assertManagesSpace, assertPersonLinksRepository } from "./spaces.policy";
import { presentColumn, presentSpace } from "./spaces.present";
import type { CreateColumnIn, PatchColumnIn } from "./spaces.schemas";
import type {
  BoardRow,
  ColumnRow,
  GitLinkRow,
  SpaceMemberRow,
  SpaceRow,
  SpacesStore,
  SpaceWithRole,
} from "./spaces.store";

/** The columns every new board starts with. */
export const DEFAULT_COLUMNS = ["To do", "In progress", "Review", "Done"] as const;

const columnNotFound = () => notFound("column not found");

/** The column of the board's `columns` with that id: 404 otherwise. */
function requireColumn(columns: readonly ColumnRow[], id: string): ColumnRow {
  const column = isUuid(id) ? columns.find((c) => c.id === id) : undefined;
  if (!column) throw columnNotFound();
  return column;
}

/** Column names are unique on a board, ignoring case (in every script). */
function assertFreeName(columns: readonly ColumnRow[], name: string, exceptId?: string): void {
  if (nameTaken(columns, name, exceptId)) throw conflict("name already exists");
}

/** Space operations. */
export class SpacesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: SpacesStore,
    private readonly chat: ChatService,
    private readonly people: MembersService,
  ) {}

  /** Someone who leaves the organization leaves its spaces, in the same unit. */
  listen(events: EventBus): void {
    events.onWrite("member.removed", (event) =>
      this.store.removeFromOrgSpaces(event.organization_id, event.payload.user_id),
    );
  }

  /** The space (visible or not) with the user's role in it: what access to it is decided from. */
  withRole(orgId: string, spaceId: string, userId: string): SpaceWithRole | undefined {
    return this.store.spaceWithRole(orgId, spaceId, userId);
  }

  /** The spaces the actor is a member of, with their role in each (what they may manage, which private ones they see). */
  memberships(actor: OrgActor): { spaceId: string; role: string }[] {
    return this.store.memberships(actor.userId);
  }

  list(actor: OrgActor): SpaceRow[] {
    return this.store.visibleSpaces(actor.orgId, actor.userId, actor.permissions.has("org.manage"));
  }

  /** Creates the space, its owner membership, its board with the four columns and its `general` room. */
  create(
    actor: OrgActor,
    input: { name: string; description?: string | undefined; private?: boolean | undefined },
  ): SpaceRow {
    const now = Date.now();
    const space: SpaceRow = {
      id: newId(),
      orgId: actor.orgId,
      name: input.name,
      description: input.description ?? "",
      isPrivate: input.private ?? false,
      createdBy: actor.userId,
      createdAt: now,
    };
    const board: BoardRow = { id: newId(), spaceId: space.id, name: "Board", createdAt: now };
    const columns: ColumnRow[] = DEFAULT_COLUMNS.map((name, position) => ({
      id: newId(),
      boardId: board.id,
      name,
      position,
      wipLimit: null,
    }));
    this.uow.write((unit) => {
      this.store.insertSpace(space);
      this.store.insertMember({ spaceId: space.id, userId: actor.userId, role: "owner", addedAt: now });
      this.store.insertBoard(board, columns);
      this.chat.addFirstRoom({ id: space.id, createdBy: actor.userId }, now);
      unit.emit({
        type: "space.created",
        organization_id: actor.orgId,
        space_id: space.id,
        payload: presentSpace(space),
        actor,
      });
    });
    return space;
  }

  get(actor: SpaceActor): SpaceRow {
    const space = this.store.spaceWithRole(actor.orgId, actor.space.id, actor.userId);
    if (!space) throw notFound("space not found");
    return space;
  }

  board(actor: SpaceActor): { board: BoardRow; columns: ColumnRow[] } {
    const board = this.store.board(actor.space.id);
    if (!board) throw new Error(`space ${actor.space.id} has no board`);
    return { board, columns: this.store.columns(board.id) };
  }

  /** The columns of the space's board, in order (none before its board exists). */
  columns(space: { id: string }): ColumnRow[] {
    const board = this.store.board(space.id);
    return board ? this.store.columns(board.id) : [];
  }

  /** A column of the space's board. */
  column(actor: SpaceActor, columnId: string): ColumnRow | undefined {
    return this.store.column(actor.space.id, columnId);
  }

  /**
   * Adds a column at `position` (omitted or past the end: last); the columns from there move one place on, so
   * positions stay 0..n-1. One event, for the new column: the others' positions follow from it.
   */
  addColumn(actor: SpaceActor, input: CreateColumnIn): ColumnRow {
    return this.uow.write((unit) => {
      const { board, columns } = this.board(actor);
      assertFreeName(columns, input.name);
      const position = Math.min(input.position ?? columns.length, columns.length);
      if (position < columns.length) this.store.shiftColumns(board.id, position, columns.length - 1, 1);
      const column: ColumnRow = {
        id: newId(),
        boardId: board.id,
        name: input.name,
        position,
        wipLimit: input.wip_limit ?? null,
      };
      this.store.insertColumn(column);
      unit.emit(spaceEvent(actor, "board.column.created", presentColumn(column)));
      return column;
    });
  }

  /**
   * Renames, moves (`position` past the end: last; the columns between close up) or sets the WIP limit of a
   * column; only the fields present change. One event, for that column.
   */
  updateColumn(actor: SpaceActor, columnId: string, input: PatchColumnIn): ColumnRow {
    return this.uow.write((unit) => {
      const { board, columns } = this.board(actor);
      const column = requireColumn(columns, columnId);
      const next: ColumnRow = { ...column };
      if (input.name !== undefined) {
        assertFreeName(columns, input.name, column.id);
        next.name = input.name;
      }
      if (input.wip_limit !== undefined) next.wipLimit = input.wip_limit;
      if (input.position !== undefined) {
        next.position = Math.min(input.position, columns.length - 1);
        if (next.position < column.position) this.store.shiftColumns(board.id, next.position, column.position - 1, 1);
        if (next.position > column.position) this.store.shiftColumns(board.id, column.position + 1, next.position, -1);
      }
      this.store.saveColumn(column, next);
      unit.emit(spaceEvent(actor, "board.column.updated", presentColumn(next)));
      return next;
    });
  }

  /** Deletes an empty column that is not the board's last; the columns after it move one place back. */
  deleteColumn(actor: SpaceActor, columnId: string): void {
    this.uow.write((unit) => {
      const { board, columns } = this.board(actor);
      const column = requireColumn(columns, columnId);
      if (columns.length <= 1) throw conflict("a board needs a column");
      if (this.store.columnHasTasks(column.id)) throw conflict("column is not empty");
      this.store.deleteColumn(column.id);
      if (column.position < columns.length - 1) {
        this.store.shiftColumns(board.id, column.position + 1, columns.length - 1, -1);
      }
      unit.emit(spaceEvent(actor, "board.column.deleted", { id: column.id }));
    });
  }

  // Members

  /** Whether the user is a member of the space (who sees a private one, with `org.manage` holders). */
  hasMember(actor: SpaceActor, userId: string): boolean {
    return this.store.member(actor.space.id, userId) !== undefined;
  }

  members(actor: SpaceActor): SpaceMemberRow[] {
    return this.store.members(actor.space.id);
  }

  addMember(actor: SpaceActor, userId: string, role: "owner" | "member" = "member"): SpaceMemberRow {
    assertManagesSpace(actor);
    return this.uow.write(() => {
      if (!this.people.isMember(actor.orgId, userId)) throw invalid("user_id: not a member of the organization");
      if (this.store.member(actor.space.id, userId)) throw conflict("already a member of the space");
      const row: SpaceMemberRow = { spaceId: actor.space.id, userId, role, addedAt: Date.now() };
      this.store.insertMember(row);
      return row;
    });
  }

  /** A space owner (or org.manage) removes anyone; every member may leave (remove themselves). */
  removeMember(actor: SpaceActor, userId: string): void {
    if (userId !== actor.userId) assertManagesSpace(actor);
    this.uow.write(() => {
      const member = isUuid(userId) ? this.store.member(actor.space.id, userId) : undefined;
      if (!member) throw notFound("space member not found");
      if (member.role === "owner" && this.store.countOwners(actor.space.id) <= 1) {
        throw conflict("cannot remove the last owner of the space");
      }
      this.store.deleteMember(actor.space.id, userId);
    });
  }

  // Git link: where `agent` staff work when their account names no repository.

  gitLink(actor: SpaceActor): GitLinkRow | undefined {
    return this.store.gitLink(actor.space.id);
  }

  setGitLink(actor: SpaceActor, input: { repo_url: string; ref?: string | undefined }): GitLinkRow {
    assertPersonLinksRepository(actor);
    const row: GitLinkRow = {
      spaceId: actor.space.id,
      repoUrl: input.repo_url,
      ref: input.ref ?? "",
      updatedBy: actor.userId,
      updatedAt: Date.now(),
    };
    this.uow.write(() => this.store.putGitLink(row));
    return row;
  }

  removeGitLink(actor: SpaceActor): void {
    assertPersonLinksRepository(actor);
    this.uow.write(() => this.store.deleteGitLink(actor.space.id));
  }
}
