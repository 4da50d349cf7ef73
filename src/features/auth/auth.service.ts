/** Sessions: who a token belongs to, and the login, refresh, logout, register and accept-invite flows. */

import type { Principal } from "../../core/actor";
import { conflict, forbidden, invalid, unauthenticated } from "../../core/errors";
import type { UnitOfWork } from "../../db/unit";
import type { TokenPair } from "../../http/schemas";
import { newId } from "../../lib/ids";
import { signAccessToken, verifyAccessToken } from "../../lib/jwt";
import { hashPassword, verifyPassword } from "../../lib/password";
import { hashToken, newToken } from "../../lib/tokens";
import type { PeopleStore, UserRow } from "../people/people.store";
import type { AuthStore } from "./auth.store";

/** Access tokens live 900 s (api-spec §8). */
export const ACCESS_TOKEN_TTL_S = 900;
const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/** Where an account stands with the organization's signup approval. */
type SignupState = "none" | "pending" | "denied";

/** How many verified access tokens are remembered (a few per active user). */
const VERIFIED_MEMO = 10_000;

/** Sessions and token checks. */
export class AuthService {
  /**
   * Verified access tokens by their exact text: verifying costs an HMAC and two decodes on every request, a
   * lookup costs nothing. Expiry is still checked on every use; a tampered token is a different string.
   */
  private readonly verified = new Map<string, { sub: string; exp: number; sid: string | undefined }>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AuthStore,
    private readonly people: PeopleStore,
    private readonly jwtSecret: Uint8Array,
  ) {}

  /** Resolves an `Authorization` header to a principal, or throws 401 `unauthorized`. */
  authenticate(authorization: string | null | undefined): Principal {
    // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are `Bearer` too.
    if (!authorization || !(authorization.startsWith("Bearer ") || /^bearer /i.test(authorization))) {
      throw unauthenticated();
    }
    return this.authenticateToken(authorization.slice(7).trim());
  }

  /** Resolves a bare token (JWT access token or `sa_` token), or throws 401 `unauthorized`. */
  authenticateToken(token: string): Principal {
    if (token.startsWith("sa_")) {
      const staff = this.store.staffByTokenHash(hashToken(token));
      if (!staff || (staff.expiresAt !== null && staff.expiresAt <= Date.now())) throw unauthenticated();
      return { userId: staff.userId, serviceAccountId: staff.id };
    }
    const now = Date.now();
    let known = this.verified.get(token);
    if (known && known.exp * 1000 <= now) {
      this.verified.delete(token);
      throw unauthenticated();
    }
    if (!known) {
      const claims = verifyAccessToken(this.jwtSecret, token, now);
      if (!claims) throw unauthenticated();
      if (this.verified.size >= VERIFIED_MEMO) this.verified.delete(this.verified.keys().next().value as string);
      known = { sub: claims.sub, exp: claims.exp, sid: claims.sid };
      this.verified.set(token, known);
    }
    // A token of an ended session (signed out, password reset) is refused before it expires.
    if (known.sid !== undefined && !this.store.sessionLive(known.sid, now)) throw unauthenticated();
    return { userId: known.sub, serviceAccountId: null, sessionId: known.sid };
  }

  /**
   * False once the sign-in session has ended (signed out, password reset...). Asked for open sockets at each
   * check of `onSessionsEnded`: a state read more than a second before is read again, so a revocation by
   * another process closes them at the next check.
   */
  sessionLive(sessionId: string): boolean {
    return this.store.sessionLive(sessionId, Date.now(), 1000);
  }

  /** Calls `listener` when sessions may have ended: see `AuthStore.onSessionsEnded`. */
  onSessionsEnded(listener: () => void): () => void {
    return this.store.onSessionsEnded(listener);
  }

  /**
   * Goes up whenever anyone's access may have changed in this process: a membership, a role, a space membership
   * or an account changed, or a session ended. While it stands still, a check made a moment ago still holds.
   */
  accessEpoch(): number {
    return this.people.accessGeneration + this.store.revocations;
  }

  /** `client` is the caller's address: password checks take turns between clients. */
  async login(emailInput: string, password: string, client = ""): Promise<TokenPair> {
    const email = emailInput.trim().toLowerCase();
    const user = this.people.userByEmailAddress(email);
    const ok = await verifyPassword(password, user?.passwordHash ?? null, client);
    if (!user || !ok) throw unauthenticated("invalid credentials");
    const state = this.signupState(user);
    if (state === "denied") throw unauthenticated("invalid credentials");
    return this.uow.write(() => {
      // Changed while it was checked (a password change or reset): the password given is no longer the one, and a
      // session issued now would outlive the change meant to end them all.
      if (!this.samePassword(user)) throw unauthenticated("invalid credentials");
      return this.issue(user.id, newId(), state === "pending");
    });
  }

  /** True while the account's password is still the one read in `user`. */
  private samePassword(user: UserRow): boolean {
    return this.people.user(user.id)?.passwordHash === user.passwordHash;
  }

  refresh(token: string): TokenPair {
    const now = Date.now();
    const outcome = this.uow.write(() => {
      const row = this.store.refreshByHash(hashToken(token));
      if (!row) return "invalid" as const;
      if (row.usedAt !== null || row.revokedAt !== null) {
        // A used token presented again means it leaked: end the whole session family.
        this.store.revokeFamily(row.familyId, now);
        return "reused" as const;
      }
      if (row.expiresAt <= now || !this.store.markUsed(row.id, now)) return "invalid" as const;
      const user = this.people.user(row.userId);
      if (!user) return "invalid" as const;
      const state = this.signupState(user);
      if (state === "denied") return "invalid" as const;
      return this.issue(user.id, row.familyId, state === "pending");
    });
    if (typeof outcome === "string") throw unauthenticated("invalid refresh token");
    return outcome;
  }

  /** Revokes the session the token belongs to. Unknown tokens are ignored: logout is idempotent. */
  logout(token: string): void {
    const row = this.store.refreshByHash(hashToken(token));
    if (row) this.uow.write(() => this.store.revokeFamily(row.familyId, Date.now()));
  }

  /** Refuses a registration while open signups are off, before its body is looked at. */
  assertSignupsOpen(): void {
    if (!this.people.onlyOrg()?.openSignupsEnabled) throw forbidden("signups_disabled");
  }

  /** Open signup: the account is created and waits for approval. */
  async register(input: { email: string; password: string; display_name: string }, client = ""): Promise<TokenPair> {
    const org = this.people.onlyOrg();
    if (!org?.openSignupsEnabled) throw forbidden("signups_disabled");
    if (this.people.userByEmailAddress(input.email)) throw conflict("email already registered");
    const passwordHash = await hashPassword(input.password, client);
    const now = Date.now();
    return this.uow.write(() => {
      const current = this.people.onlyOrg();
      if (!current?.openSignupsEnabled) throw forbidden("signups_disabled");
      if (this.people.userByEmailAddress(input.email)) throw conflict("email already registered");
      const user: UserRow = {
        id: newId(),
        email: input.email,
        displayName: input.display_name,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      };
      this.people.insertUser(user);
      this.people.insertSignupRequest({
        id: newId(),
        orgId: current.id,
        userId: user.id,
        status: "pending",
        createdAt: now,
        resolvedAt: null,
        resolvedBy: null,
      });
      return this.issue(user.id, newId(), true);
    });
  }

  /**
   * Accepting an invite creates the account, or, for an email that already has one (a member removed earlier,
   * a pending signup), joins that account when its password is given.
   */
  /** Whose invite a token is, for the page that accepts it; 400 like accepting when it cannot be used. */
  inviteInfo(token: string): { organizationName: string; email: string | null; expiresAt: number } {
    const invite = this.people.inviteByTokenHash(hashToken(token));
    const org = invite && this.people.org(invite.orgId);
    if (!invite || !org || invite.acceptedAt !== null || invite.expiresAt <= Date.now()) {
      throw invalid("invalid or expired invite");
    }
    return { organizationName: org.name, email: invite.email, expiresAt: invite.expiresAt };
  }

  async acceptInvite(
    input: { token: string; email: string; password: string; display_name: string },
    client = "",
  ): Promise<TokenPair> {
    const invite = this.people.inviteByTokenHash(hashToken(input.token));
    if (!invite || invite.acceptedAt !== null || invite.expiresAt <= Date.now()) {
      throw invalid("invalid or expired invite");
    }
    if (invite.email !== null && invite.email !== input.email) throw invalid("email does not match invite");
    const existing = this.people.userByEmailAddress(input.email);
    if (existing && !(await verifyPassword(input.password, existing.passwordHash, client))) {
      throw conflict("email already registered");
    }
    const passwordHash = existing ? null : await hashPassword(input.password, client);
    const now = Date.now();
    return this.uow.write(() => {
      // The existing account's password changed while it was checked: as after a wrong one.
      if (existing && !this.samePassword(existing)) throw conflict("email already registered");
      let userId = existing?.id;
      if (!userId) {
        if (this.people.userByEmailAddress(input.email)) throw conflict("email already registered");
        userId = newId();
        this.people.insertUser({
          id: userId,
          email: input.email,
          displayName: input.display_name,
          passwordHash,
          createdAt: now,
          updatedAt: now,
        });
      }
      // A member has nothing to accept: the invite stays unspent for the person it was meant for.
      if (this.people.isMember(invite.orgId, userId)) throw conflict("already a member of the organization");
      if (!this.people.consumeInvite(invite.id, userId, now)) throw invalid("invalid or expired invite");
      const roleIds = (JSON.parse(invite.roleIds) as string[]).filter((id) => this.people.role(invite.orgId, id));
      this.people.addMember(invite.orgId, userId, roleIds, now);
      this.people.approvePendingSignupsOf(invite.orgId, userId, now);
      return this.issue(userId, newId(), false);
    });
  }

  /** A fresh token pair for a user who just proved who they are (setup). */
  startSession(userId: string): TokenPair {
    return this.uow.write(() => this.issue(userId, newId(), false));
  }

  /** Issues an access token and a refresh token of `familyId`; call inside a write transaction. */
  private issue(userId: string, familyId: string, signupPending: boolean): TokenPair {
    const now = Date.now();
    const refreshToken = newToken("rt_");
    this.store.insertRefresh({
      id: newId(),
      userId,
      familyId,
      tokenHash: hashToken(refreshToken),
      createdAt: now,
      expiresAt: now + REFRESH_TOKEN_TTL_MS,
      usedAt: null,
      revokedAt: null,
    });
    const pair: TokenPair = {
      access_token: signAccessToken(this.jwtSecret, userId, ACCESS_TOKEN_TTL_S, now, familyId),
      refresh_token: refreshToken,
      token_type: "Bearer",
      expires_in: ACCESS_TOKEN_TTL_S,
    };
    if (signupPending) pair.signup_pending = true;
    return pair;
  }

  /** Members are never pending; otherwise the latest signup request decides. */
  private signupState(user: UserRow): SignupState {
    const request = this.people.latestSignupRequestOf(user.id);
    if (!request || request.status === "approved") return "none";
    if (this.people.isMember(request.orgId, user.id)) return "none";
    return request.status === "pending" ? "pending" : "denied";
  }
}
