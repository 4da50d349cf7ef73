/**
 * Open signups: anyone may ask for an account while the organization allows it; the account signs in at once
 * but reaches nothing until someone with `org.members.manage` approves it (or denies it, and it can no longer
 * sign in).
 */
import type { OrgActor } from "../../core/actor";
import { conflict, forbidden, notFound } from "../../core/errors";
import { type EventBus, orgEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import type { TokenPair } from "../../http/schemas";
import { isUuid, newId } from "../../lib/ids";
import type { AuthService, SignupState } from "../auth/auth.service";
import type { ListedUser, MembersService, UserRow } from "../members/members.service";
import type { OrganizationService } from "../organization/organization.service";
import { presentSignupRequest } from "./signups.present";
import type { SignupRequestView, SignupsStore } from "./signups.store";

/** Where a user stands, as `tandem users list` shows it. */
export type UserStatus = "member" | "pending" | "denied" | "not a member";

export class SignupsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: SignupsStore,
    private readonly organization: OrganizationService,
    private readonly members: MembersService,
    private readonly sessions: AuthService,
  ) {}

  /** A member is never waiting: joining by invite or from the CLI approves whatever request they had. */
  listen(events: EventBus): void {
    events.onWrite("member.added", (event) => {
      this.store.approvePendingSignupsOf(event.organization_id, event.payload.user_id, Date.now());
    });
  }

  /** Refuses a registration while open signups are off, before its body is looked at. */
  assertOpen(): void {
    if (!this.organization.signupsOpen()) throw forbidden("signups_disabled");
  }

  /** Open signup: the account is created and waits for approval. */
  async signUp(input: { email: string; password: string; display_name: string }, client = ""): Promise<TokenPair> {
    this.assertOpen();
    if (this.members.userByEmail(input.email)) throw conflict("email already registered");
    const passwordHash = await this.sessions.hashNewPassword(input.password, { client, account: input.email });
    const now = Date.now();
    return this.uow.write(() => {
      const org = this.organization.current();
      if (!org?.openSignupsEnabled) throw forbidden("signups_disabled");
      if (this.members.userByEmail(input.email)) throw conflict("email already registered");
      const user = this.members.createUser({ email: input.email, displayName: input.display_name, passwordHash }, now);
      this.store.insertSignupRequest({
        id: newId(),
        orgId: org.id,
        userId: user.id,
        status: "pending",
        createdAt: now,
        resolvedAt: null,
        resolvedBy: null,
      });
      return this.sessions.startSession(user.id, true);
    });
  }

  /** Members are never pending; otherwise the latest signup request decides. */
  stateOf(user: UserRow): SignupState {
    const request = this.store.latestSignupRequestOf(user.id);
    if (!request || request.status === "approved") return "none";
    if (this.members.isMember(request.orgId, user.id)) return "none";
    return request.status === "pending" ? "pending" : "denied";
  }

  /** Whether the user's account waits for approval to join the organization. */
  isPending(orgId: string, userId: string): boolean {
    return this.store.hasPendingSignup(orgId, userId);
  }

  list(actor: OrgActor, status?: string): SignupRequestView[] {
    return this.store.signupRequests(actor.orgId, status);
  }

  approve(actor: OrgActor, requestId: string, roleIdsInput?: string[]): void {
    const now = Date.now();
    this.uow.write((unit) => {
      const request = this.requirePending(actor, requestId);
      const roleIds = this.members.grantableRoleIds(actor, roleIdsInput, "member");
      this.store.resolveSignupRequest(request.id, "approved", actor.userId, now);
      const joins = !this.members.isMember(actor.orgId, request.userId);
      if (joins) this.members.addMember(actor.orgId, request.userId, roleIds, now);
      const resolved = presentSignupRequest({ ...request, status: "approved", resolvedAt: now });
      unit.emit(orgEvent(actor.orgId, "signup.approved", { ...resolved, role_ids: joins ? roleIds : [] }, actor));
    });
  }

  deny(actor: OrgActor, requestId: string): void {
    const now = Date.now();
    this.uow.write((unit) => {
      const request = this.requirePending(actor, requestId);
      this.store.resolveSignupRequest(request.id, "denied", actor.userId, now);
      this.sessions.endSessions(request.userId);
      const resolved = presentSignupRequest({ ...request, status: "denied", resolvedAt: now });
      unit.emit(orgEvent(actor.orgId, "signup.denied", resolved, actor));
    });
  }

  /**
   * Every human user with their role names and where they stand, for `tandem users list`: `member`, `pending`
   * or `denied` (a signup), else `not a member` (removed from the organization).
   */
  listUsers(): (ListedUser & { status: UserStatus })[] {
    const org = this.organization.current();
    if (!org) return [];
    return this.members.listUsers(org.id).map((user) => {
      if (user.member) return { ...user, status: "member" as const };
      const signup = this.store.latestSignupRequestOf(user.id)?.status;
      return { ...user, status: signup === "pending" || signup === "denied" ? signup : ("not a member" as const) };
    });
  }

  private requirePending(actor: OrgActor, requestId: string): SignupRequestView {
    const request = isUuid(requestId) ? this.store.signupRequest(actor.orgId, requestId) : undefined;
    if (!request) throw notFound("signup request not found");
    if (request.status !== "pending") throw conflict("signup request is not pending");
    return request;
  }
}
