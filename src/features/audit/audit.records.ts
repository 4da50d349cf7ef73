/**
 * What the audit log records: one handler per event of an audited act, each writing its record in the
 * transaction of the act (`events.onWrite`). A handler reads what the event carries and names the people,
 * spaces and files it points at as they are called now; it never records a secret (an invite's token, a staff
 * member's token, a provider key or its hint are in no event it hears).
 */
import type { DomainEvent, EventBus, EventOf } from "../../core/events";
import type { RoleRef } from "../members/members.events";
import type { AuditEntry, AuditLog, AuditTarget } from "./audit.service";

/** What the records ask of other features. */
export interface AuditWorld {
  user(userId: string): { displayName: string; email: string } | undefined;
  spaceName(orgId: string, spaceId: string): string | undefined;
  /** A file's name, deleted or not. */
  fileName(spaceId: string, nodeId: string): string | undefined;
  /** The roles of `ids` that exist, named. */
  roles(orgId: string, ids: readonly string[]): RoleRef[];
}

/** Text in details is kept short: a longer value is cut here. */
const MAX_TEXT = 500;

function short(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * The fields of `previous` and `current` that differ (`updated_at` aside), each `{from, to}`; a long text shows
 * as its length, which says that it changed without filling the log with it.
 */
function changesOf(
  previous: Record<string, unknown>,
  current: Record<string, unknown>,
): Record<string, { from: unknown; to: unknown }> {
  const shown = (value: unknown) =>
    typeof value === "string" && value.length > MAX_TEXT ? `(${value.length} characters)` : value;
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(current)) {
    if (key === "updated_at") continue;
    if (JSON.stringify(previous[key]) === JSON.stringify(current[key])) continue;
    changes[key] = { from: shown(previous[key]), to: shown(current[key]) };
  }
  return changes;
}

/** The handlers that write the audit log. */
export class AuditRecords {
  constructor(
    private readonly log: AuditLog,
    private readonly world: AuditWorld,
  ) {}

  listen(events: EventBus): void {
    // Members and roles
    events.onWrite("member.removed", (e) => this.aboutPerson(e, "member.removed", e.payload.user_id));
    events.onWrite("member.roles.changed", (e) =>
      this.aboutPerson(e, "member.roles.changed", e.payload.user_id, {
        added: e.payload.added,
        removed: e.payload.removed,
      }),
    );
    events.onWrite("role.created", (e) =>
      this.about(e, "role.created", role(e.payload.id, e.payload.name), { permissions: e.payload.permissions }),
    );
    events.onWrite("role.updated", (e) =>
      this.about(e, "role.updated", role(e.payload.role.id, e.payload.role.name), {
        changes: changesOf(e.payload.previous, e.payload.role),
      }),
    );
    events.onWrite("role.deleted", (e) =>
      this.about(e, "role.deleted", role(e.payload.role_id, e.payload.name), { permissions: e.payload.permissions }),
    );
    // Invites and signups
    events.onWrite("invite.created", (e) =>
      this.about(e, "invite.created", invite(e.payload), {
        email: e.payload.email,
        roles: this.world.roles(e.organization_id, e.payload.role_ids),
        expires_at: e.payload.expires_at,
      }),
    );
    events.onWrite("invite.revoked", (e) =>
      this.about(e, "invite.revoked", invite(e.payload), {
        email: e.payload.email,
        accepted_at: e.payload.accepted_at,
      }),
    );
    events.onWrite("signup.approved", (e) =>
      this.aboutPerson(e, "signup.approved", e.payload.user_id, {
        roles: this.world.roles(e.organization_id, e.payload.role_ids),
      }),
    );
    events.onWrite("signup.denied", (e) => this.aboutPerson(e, "signup.denied", e.payload.user_id));
    // Staff
    events.onWrite("service_account.created", (e) => {
      const { id, name, user_id, provider, modelrouter_model, agent_default_repo_url, agent_default_ref } = e.payload;
      this.about(e, "service_account.created", staff(id, name), {
        user_id,
        provider,
        modelrouter_model,
        agent_default_repo_url,
        agent_default_ref,
        roles: this.world.roles(e.organization_id, e.payload.role_ids),
      });
    });
    events.onWrite("service_account.updated", (e) => {
      const { service_account: account, previous } = e.payload;
      const changes = changesOf(previous, account);
      if (Object.keys(changes).length > 0) {
        this.about(e, "service_account.updated", staff(account.id, account.name), {
          user_id: account.user_id,
          changes,
        });
      }
    });
    events.onWrite("service_account.deleted", (e) =>
      this.about(e, "service_account.deleted", staff(e.payload.id, e.payload.name), { user_id: e.payload.user_id }),
    );
    events.onWrite("service_account.token.rotated", (e) =>
      this.about(e, "service_account.token.rotated", staff(e.payload.id, e.payload.name), {
        user_id: e.payload.user_id,
      }),
    );
    // Provider keys and the organization
    events.onWrite("integration.key.set", (e) =>
      this.about(e, "integration.key.set", integration(e.payload.provider), { replaced: e.payload.replaced }),
    );
    events.onWrite("integration.key.cleared", (e) =>
      this.about(e, "integration.key.cleared", integration(e.payload.provider)),
    );
    events.onWrite("organization.updated", (e) => {
      const { organization, previous } = e.payload;
      const changes = changesOf(previous, organization);
      const target = { type: "organization", id: organization.id, label: organization.name };
      if (Object.keys(changes).length > 0) this.about(e, "organization.updated", target, { changes });
    });
    // Approvals
    events.onWrite("automation.approved", (e) =>
      this.inSpace(e, "automation.approved", automation(e.payload), { kind: e.payload.kind }),
    );
    events.onWrite("automation.rejected", (e) =>
      this.inSpace(e, "automation.rejected", automation(e.payload), {
        kind: e.payload.kind,
        reason: short(e.payload.rejection_reason ?? ""),
      }),
    );
    events.onWrite("file.proposal.updated", (e) => {
      const { id, node_id: fileId, status } = e.payload;
      if (status === "pending") return;
      const target = { type: "file_proposal", id, label: this.world.fileName(e.space_id, fileId) ?? "" };
      const action = status === "accepted" ? "file.proposal.accepted" : "file.proposal.rejected";
      this.inSpace(e, action, target, { file_id: fileId, author_user_id: e.payload.author_user_id });
    });
    // Deletions
    events.onWrite("chat.room.deleted", (e) =>
      this.inSpace(e, "chat.room.deleted", { type: "chat_room", id: e.payload.id, label: e.label ?? "" }),
    );
    events.onWrite("task.deleted", (e) =>
      this.inSpace(e, "task.deleted", { type: "task", id: e.payload.id, label: e.label ?? "" }),
    );
    events.onWrite("file.deleted", (e) =>
      this.inSpace(
        e,
        "file.deleted",
        { type: "file", id: e.payload.id, label: e.payload.name },
        { kind: e.payload.kind },
      ),
    );
    // Backups, made by `tandem backup` and `tandem restore`
    events.onWrite("backup.created", (e) =>
      this.about(e, "backup.created", { type: "backup", id: null, label: e.payload.file }, { bytes: e.payload.bytes }),
    );
    events.onWrite("backup.restored", (e) =>
      this.about(e, "backup.restored", { type: "backup", id: null, label: e.payload.file }, { bytes: e.payload.bytes }),
    );
  }

  /** Records the act of `event`. */
  private about(
    event: DomainEvent,
    action: AuditEntry["action"],
    target: AuditTarget,
    details: Record<string, unknown> = {},
  ): void {
    this.log.record(event.actor, { orgId: event.organization_id, action, target, details });
  }

  /** Records the act of `event` in its space, which the details name. */
  private inSpace(
    event: DomainEvent,
    action: AuditEntry["action"],
    target: AuditTarget,
    details: Record<string, unknown> = {},
  ): void {
    const space = { space_id: event.space_id, space_name: this.world.spaceName(event.organization_id, event.space_id) };
    this.about(event, action, target, { ...space, ...details });
  }

  /** Records the act of `event` on a member, named with their email (a person's: a staff member has none). */
  private aboutPerson(
    event: DomainEvent,
    action: AuditEntry["action"],
    userId: string,
    details: Record<string, unknown> = {},
  ): void {
    const user = this.world.user(userId);
    const email = user && !isStaffAddress(user.email) ? { email: user.email } : {};
    this.about(event, action, { type: "user", id: userId, label: user?.displayName ?? "" }, { ...email, ...details });
  }
}

/** The address a staff member's account is given (`staff.service.ts`): no one's email. */
const isStaffAddress = (email: string) => email.endsWith("@staff.invalid");

const role = (id: string, name: string): AuditTarget => ({ type: "role", id, label: name });
const staff = (id: string, name: string): AuditTarget => ({ type: "service_account", id, label: name });
const integration = (provider: string): AuditTarget => ({ type: "integration", id: provider, label: provider });

function invite(payload: EventOf<"invite.created">["payload"]): AuditTarget {
  return { type: "invite", id: payload.id, label: payload.email ?? "" };
}

function automation(payload: EventOf<"automation.approved">["payload"]): AuditTarget {
  return { type: "automation", id: payload.id, label: payload.name };
}
