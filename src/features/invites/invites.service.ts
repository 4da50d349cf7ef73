/**
 * Invites: a one-time, 7-day token that makes its holder a member with the invite's roles. Making them needs
 * `org.members.manage`; accepting one needs only the token (and, for an email that has an account, its
 * password).
 */
import type { OrgActor } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { type EventBus, orgEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import type { TokenPair } from "../../http/schemas";
import { isUuid, newId } from "../../lib/ids";
import { hashToken, newToken } from "../../lib/tokens";
import type { AuthService } from "../auth/auth.service";
import type { MembersService } from "../members/members.service";
import type { OrganizationService } from "../organization/organization.service";
import { presentInvite } from "./invites.present";
import type { InviteRow, InvitesStore } from "./invites.store";

const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

/** Who emails an invite that names an address (the notifications feature), once it is committed. */
export interface InviteMail {
  /** Whether email is set up: the API tells the inviter whether the invite is being emailed. */
  readonly enabled: boolean;
  sendInvite(
    invite: { id: string; orgId: string; email: string; createdBy: string | null; expiresAt: number },
    token: string,
  ): void;
}

export class InvitesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: InvitesStore,
    private readonly organization: OrganizationService,
    private readonly members: MembersService,
    private readonly sessions: AuthService,
    private readonly mail: InviteMail | null = null,
  ) {}

  /** A deleted role is no longer handed out by the invites not yet accepted. */
  listen(events: EventBus): void {
    events.onWrite("role.deleted", (event) => this.store.dropRole(event.payload.role_id));
  }

  list(actor: OrgActor): InviteRow[] {
    return this.store.invites(actor.orgId);
  }

  create(
    actor: OrgActor,
    input: { email?: string | null | undefined; role_ids?: string[] | undefined },
  ): { invite: InviteRow; token: string; emailed: boolean } {
    const token = newToken("inv_");
    const now = Date.now();
    return this.uow.write((unit) => {
      const invited = input.email ? this.members.userByEmail(input.email) : undefined;
      if (invited && this.members.isMember(actor.orgId, invited.id)) {
        throw conflict("already a member of the organization");
      }
      const roleIds = this.members.grantableRoleIds(actor, input.role_ids, "member");
      const invite: InviteRow = {
        id: newId(),
        orgId: actor.orgId,
        email: input.email ?? null,
        tokenHash: hashToken(token),
        roleIds: JSON.stringify(roleIds),
        createdBy: actor.userId,
        createdAt: now,
        expiresAt: now + INVITE_TTL_MS,
        acceptedAt: null,
        acceptedBy: null,
      };
      this.store.insertInvite(invite);
      unit.emit(orgEvent(actor.orgId, "invite.created", presentInvite(invite), actor));
      // Emailed once committed, never for an invite that rolled back; a failure is the mailer's to log.
      const { mail } = this;
      const email = invite.email;
      if (email === null || !mail?.enabled) return { invite, token, emailed: false };
      unit.afterCommit(() => mail.sendInvite({ ...invite, email }, token));
      return { invite, token, emailed: true };
    });
  }

  delete(actor: OrgActor, inviteId: string): void {
    this.uow.write((unit) => {
      const invite = isUuid(inviteId) ? this.store.invite(actor.orgId, inviteId) : undefined;
      if (!invite) throw notFound("invite not found");
      this.store.deleteInvite(invite.id);
      unit.emit(orgEvent(actor.orgId, "invite.revoked", presentInvite(invite), actor));
    });
  }

  /** Whose invite a token is, for the page that accepts it; 400 like accepting when it cannot be used. */
  info(token: string): { organizationName: string; email: string | null; expiresAt: number } {
    const invite = this.store.inviteByTokenHash(hashToken(token));
    const org = invite && this.organization.byId(invite.orgId);
    if (!invite || !org || invite.acceptedAt !== null || invite.expiresAt <= Date.now()) {
      throw invalid("invalid or expired invite");
    }
    return { organizationName: org.name, email: invite.email, expiresAt: invite.expiresAt };
  }

  /**
   * Accepting an invite creates the account, or, for an email that already has one (a member removed earlier,
   * a pending signup), joins that account when its password is given.
   */
  async accept(
    input: { token: string; email: string; password: string; display_name: string },
    client = "",
  ): Promise<TokenPair> {
    const invite = this.store.inviteByTokenHash(hashToken(input.token));
    if (!invite || invite.acceptedAt !== null || invite.expiresAt <= Date.now()) {
      throw invalid("invalid or expired invite");
    }
    if (invite.email !== null && invite.email !== input.email) throw invalid("email does not match invite");
    const existing = this.members.userByEmail(input.email);
    // A password checked or hashed here counts as at sign-in: accepting an invite is no way around its limits.
    const attempt = { client, account: input.email };
    if (existing && !(await this.sessions.checkPassword(input.password, existing.passwordHash, attempt))) {
      throw conflict("email already registered");
    }
    const passwordHash = existing ? null : await this.sessions.hashNewPassword(input.password, attempt);
    const now = Date.now();
    return this.uow.write(() => {
      // The existing account's password changed while it was checked: as after a wrong one.
      if (existing && this.members.user(existing.id)?.passwordHash !== existing.passwordHash) {
        throw conflict("email already registered");
      }
      let userId = existing?.id;
      if (!userId) {
        if (this.members.userByEmail(input.email)) throw conflict("email already registered");
        userId = this.members.createUser({ email: input.email, displayName: input.display_name, passwordHash }, now).id;
      }
      // A member has nothing to accept: the invite stays unspent for the person it was meant for.
      if (this.members.isMember(invite.orgId, userId)) throw conflict("already a member of the organization");
      if (!this.store.consumeInvite(invite.id, userId, now)) throw invalid("invalid or expired invite");
      const roleIds = this.members.existingRoleIds(invite.orgId, JSON.parse(invite.roleIds) as string[]);
      this.members.addMember(invite.orgId, userId, roleIds, now);
      return this.sessions.startSession(userId);
    });
  }
}
