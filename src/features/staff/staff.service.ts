/** AI staff accounts: a backing user, a membership with roles, and an `sa_` token shown once. */

import type { OrgActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { orgEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { isUuid, newId } from "../../lib/ids";
import { nameKey } from "../../lib/text";
import { hashToken, newToken } from "../../lib/tokens";
import type { ChatService } from "../chat/chat.service";
import type { MembersService } from "../members/members.service";
import type { TasksService } from "../tasks/tasks.service";
import { presentServiceAccount } from "./staff.present";
import type { CreateServiceAccountIn, PatchServiceAccountIn } from "./staff.schemas";
import type { Mentionable, ServiceAccountRow, StaffStore } from "./staff.store";

export type { Mentionable, ServiceAccountRow } from "./staff.store";

/** `""` clears an optional text field. */
const orNull = (value: string | undefined) => (value ? value : null);

/** Service-account operations. */
export class StaffService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: StaffStore,
    private readonly members: MembersService,
    private readonly tasks: Pick<TasksService, "unassignAll">,
    private readonly chat: Pick<ChatService, "removeReactionsOf">,
    private readonly defaultModel: string,
  ) {}

  list(actor: OrgActor): ServiceAccountRow[] {
    return this.store.list(actor.orgId);
  }

  create(actor: OrgActor, input: CreateServiceAccountIn): { account: ServiceAccountRow; token: string } {
    const token = newToken("sa_");
    const now = Date.now();
    const model =
      input.provider === "modelrouter" ? input.modelrouter_model || this.defaultModel : (input.modelrouter_model ?? "");
    return this.uow.write((unit) => {
      if (this.store.byName(actor.orgId, input.name)) throw conflict("a staff member with that name already exists");
      const roleIds = this.members.grantableRoleIds(actor, input.role_ids, "ai_staff");
      const id = newId();
      const { id: userId } = this.members.createUser(
        // Not an address anyone can log in with: the user has no password, and `.invalid` never resolves.
        { email: `staff-${id}@staff.invalid`, displayName: input.name, passwordHash: null },
        now,
      );
      const account: ServiceAccountRow = {
        id,
        orgId: actor.orgId,
        userId,
        name: input.name,
        nameKey: nameKey(input.name),
        createdBy: actor.userId,
        provider: input.provider,
        modelrouterModel: model,
        agentDefaultRepoUrl: orNull(input.agent_default_repo_url),
        agentDefaultRef: orNull(input.agent_default_ref),
        instructions: input.instructions ?? "",
        tokenHash: hashToken(token),
        tokenExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insert(account);
      this.members.addMember(actor.orgId, userId, roleIds, now);
      const created = { ...presentServiceAccount(account), role_ids: roleIds };
      unit.emit(orgEvent(actor.orgId, "service_account.created", created, actor));
      return { account, token };
    });
  }

  patch(actor: OrgActor, id: string, input: PatchServiceAccountIn): ServiceAccountRow {
    const now = Date.now();
    return this.uow.write((unit) => {
      const account = this.require(actor, id);
      this.members.assertHoldsRolesOf(actor, account.userId);
      const provider = input.provider ?? account.provider;
      let model = input.modelrouter_model ?? account.modelrouterModel;
      if (provider === "modelrouter" && !model) {
        // Clearing the model of a modelrouter staff member is refused; switching an agent staff member
        // without one to modelrouter gives it the default model, as creating it would.
        if (input.modelrouter_model === "") throw invalid("modelrouter_model: required when provider is modelrouter");
        model = this.defaultModel;
      }
      const patch: Partial<ServiceAccountRow> = { provider, modelrouterModel: model, updatedAt: now };
      if (input.agent_default_repo_url !== undefined) patch.agentDefaultRepoUrl = orNull(input.agent_default_repo_url);
      if (input.agent_default_ref !== undefined) patch.agentDefaultRef = orNull(input.agent_default_ref);
      if (input.instructions !== undefined) patch.instructions = input.instructions;
      if (input.name !== undefined && input.name !== account.name) {
        const other = this.store.byName(actor.orgId, input.name);
        if (other && other.id !== account.id) throw conflict("a staff member with that name already exists");
        patch.name = input.name;
        patch.nameKey = nameKey(input.name);
        this.members.rename(account.userId, input.name, now);
      }
      this.store.update(account.id, patch);
      const updated = this.require(actor, id);
      const payload = { service_account: presentServiceAccount(updated), previous: presentServiceAccount(account) };
      unit.emit(orgEvent(actor.orgId, "service_account.updated", payload, actor));
      return updated;
    });
  }

  /**
   * Deletes the account and its user; the tasks it was assigned are unassigned, each as an update, and its
   * reactions (the 💭 included) are removed, each as a removal. Its chat messages lose their author.
   */
  delete(actor: OrgActor, id: string): void {
    this.uow.write((unit) => {
      const account = this.require(actor, id);
      this.members.assertHoldsRolesOf(actor, account.userId);
      this.tasks.unassignAll(actor.orgId, account.userId);
      this.chat.removeReactionsOf(actor.orgId, account.userId);
      // The service account goes with its user.
      this.members.deleteUser(actor.orgId, account.userId, actor);
      unit.emit(orgEvent(actor.orgId, "service_account.deleted", presentServiceAccount(account), actor));
    });
  }

  /** The staff an organization's messages can mention, longest name first (a mention matches the longest). */
  mentionables(orgId: string): readonly Mentionable[] {
    return this.store.mentionables(orgId);
  }

  /** The service account an `sa_` token's hash belongs to. */
  byTokenHash(hash: string): { id: string; userId: string; expiresAt: number | null } | undefined {
    return this.store.byTokenHash(hash);
  }

  private require(actor: OrgActor, id: string): ServiceAccountRow {
    const account = isUuid(id) ? this.store.get(actor.orgId, id) : undefined;
    if (!account) throw notFound("service account not found");
    return account;
  }
}
