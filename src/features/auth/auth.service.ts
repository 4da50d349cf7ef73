/**
 * Credentials and sessions: who a token belongs to, signing in and out, refreshing, and passwords. Accounts
 * themselves belong to the members feature; whether one waits for approval, to the signups feature.
 */
import type { Authenticator } from "../../core/access";
import type { Principal } from "../../core/actor";
import { invalid, notFound, unauthenticated } from "../../core/errors";
import type { EventBus } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import type { TokenPair } from "../../http/schemas";
import { newId } from "../../lib/ids";
import { AccessTokens } from "../../lib/jwt";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "../../lib/password";
import { hashToken, newToken } from "../../lib/tokens";
import type { MembersService, UserRow } from "../members/members.service";
import { type Attempt, SignInLimits } from "./auth.limits";
import { assertHasPassword } from "./auth.policy";
import type { AuthStore } from "./auth.store";

/** Access tokens live 900 s (api-spec §8). */
export const ACCESS_TOKEN_TTL_S = 900;
const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/** Where an account stands with the organization's signup approval. */
export type SignupState = "none" | "pending" | "denied";

/** What sessions ask of other features, handed in where the services are built. */
export interface AuthDeps {
  /** Where the account stands with signup approval (the signups feature). */
  signupState(user: UserRow): SignupState;
  /** The service account an `sa_` token's hash belongs to (the staff feature). */
  staffByTokenHash(hash: string): { id: string; userId: string; expiresAt: number | null } | undefined;
}

/** How many verified access tokens are remembered (a few per active user). */
const VERIFIED_MEMO = 10_000;

/** A verified access token: the principal handed out for it, its expiry (epoch seconds) and session. */
interface Verified {
  principal: Principal;
  exp: number;
  sid: string;
}

/** Sessions and token checks. */
export class AuthService implements Authenticator {
  /**
   * Verified access tokens by their exact text: the library's verification costs ~25 µs and waits for WebCrypto,
   * a lookup costs nothing. Expiry is still checked on every use; a tampered token is a different string.
   */
  private readonly verified = new Map<string, Verified>();
  /** The same entries by the principal handed out, for `reauthenticate` (an entry may leave `verified` meanwhile). */
  private readonly byPrincipal = new WeakMap<Principal, Verified>();
  private readonly tokens: AccessTokens;
  /** What password checks may wait, run and fail, per client and account (`auth.limits.ts`). */
  private readonly limits = new SignInLimits();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AuthStore,
    private readonly members: MembersService,
    private readonly deps: AuthDeps,
    jwtSecret: Uint8Array,
  ) {
    this.tokens = new AccessTokens(jwtSecret);
  }

  /**
   * A password set anywhere (a change, a reset, an account readmitted) ends the account's other sessions; a
   * member removed from the organization (the install's only one) loses every session at once, as a denied
   * signup does. (The organization's routes still tell their tokens 404 `organization not found`: see `live`.)
   */
  listen(events: EventBus): void {
    events.onWrite("user.password.changed", ({ payload }) => {
      this.store.revokeUser(payload.user_id, Date.now(), payload.keep_session_id ?? undefined);
    });
    events.onWrite("member.removed", ({ payload }) => this.store.revokeUser(payload.user_id, Date.now()));
  }

  /**
   * Resolves an `Authorization` header to a principal, or throws 401 `unauthorized`. A token verified before is a
   * lookup, answered at once; a new one waits for the library's verification.
   */
  authenticate(
    authorization: string | null | undefined,
    ended?: (principal: Principal) => void,
  ): Principal | Promise<Principal> {
    return this.authenticateToken(bearerToken(authorization), ended);
  }

  /** Resolves a bare token (JWT access token or `sa_` token) as `authenticate` does, or throws 401 `unauthorized`. */
  authenticateToken(token: string, ended?: (principal: Principal) => void): Principal | Promise<Principal> {
    if (token.startsWith("sa_")) return this.staffPrincipal(token);
    const now = Date.now();
    const known = this.verified.get(token);
    if (!known) return this.verify(token, now, ended);
    if (known.exp * 1000 <= now) {
      this.verified.delete(token);
      throw unauthenticated();
    }
    return this.live(known, now, ended);
  }

  /**
   * `authenticate` again, without waiting, for the header it resolved to `principal` earlier in the same request
   * (a write stored after the request waited). The token's signature was proven then; what can have changed is
   * checked again: the token's expiry and session, or the staff token.
   */
  reauthenticate(
    authorization: string | null | undefined,
    principal: Principal,
    ended?: (principal: Principal) => void,
  ): Principal {
    if (principal.serviceAccountId !== null) return this.staffPrincipal(bearerToken(authorization));
    const known = this.byPrincipal.get(principal);
    const now = Date.now();
    if (!known || known.exp * 1000 <= now) throw unauthenticated();
    return this.live(known, now, ended);
  }

  /** A token not seen before: verified by the library, then remembered. */
  private async verify(token: string, now: number, ended?: (principal: Principal) => void): Promise<Principal> {
    const claims = await this.tokens.verify(token, now);
    if (!claims) throw unauthenticated();
    if (this.verified.size >= VERIFIED_MEMO) this.verified.delete(this.verified.keys().next().value as string);
    const principal = { userId: claims.sub, serviceAccountId: null, sessionId: claims.sid };
    const known = { principal, exp: claims.exp, sid: claims.sid };
    this.verified.set(token, known);
    this.byPrincipal.set(principal, known);
    return this.live(known, now, ended);
  }

  /**
   * The principal of a verified token, unless its session ended (signed out, password reset, removed from the
   * organization) before it expired: then `ended` may refuse it its own way, else 401.
   */
  private live(known: Verified, now: number, ended?: (principal: Principal) => void): Principal {
    if (this.store.sessionLive(known.sid, now)) return known.principal;
    ended?.(known.principal);
    throw unauthenticated();
  }

  private staffPrincipal(token: string): Principal {
    const staff = this.deps.staffByTokenHash(hashToken(token));
    if (!staff || (staff.expiresAt !== null && staff.expiresAt <= Date.now())) throw unauthenticated();
    return { userId: staff.userId, serviceAccountId: staff.id };
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
    return this.members.accessGeneration + this.store.revocations;
  }

  /**
   * Checks `password` against `hash` (null: an unknown account, which costs the same) for `attempt`, within the
   * sign-in limits: 429 `too many attempts` beyond them. Checks take turns between clients.
   */
  async checkPassword(password: string, hash: string | null, attempt: Attempt): Promise<boolean> {
    const admitted = this.limits.admit(attempt);
    let outcome: "right" | "wrong" | null = null;
    try {
      outcome = (await verifyPassword(password, hash, admitted.client)) ? "right" : "wrong";
      return outcome === "right";
    } finally {
      admitted.done(outcome);
    }
  }

  /** Hashes a new password (a signup, an invite accepted) for `attempt`, within the limits on checks at once. */
  async hashNewPassword(password: string, attempt: Attempt): Promise<string> {
    const admitted = this.limits.admit(attempt);
    try {
      return await hashPassword(password, admitted.client);
    } finally {
      admitted.done(null);
    }
  }

  /** `client` is the caller's address, which the sign-in limits count by. */
  async login(emailInput: string, password: string, client = ""): Promise<TokenPair> {
    const email = emailInput.trim().toLowerCase();
    const user = this.members.userByEmail(email);
    const ok = await this.checkPassword(password, user?.passwordHash ?? null, { client, account: email });
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
    return this.members.user(user.id)?.passwordHash === user.passwordHash;
  }

  refresh(token: string): Promise<TokenPair> {
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
      const user = this.members.user(row.userId);
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

  /**
   * A fresh token pair for a user who just proved who they are (setup, an accepted invite, a signup), in the
   * caller's unit when there is one.
   */
  startSession(userId: string, signupPending = false): Promise<TokenPair> {
    return this.uow.write(() => this.issue(userId, newId(), signupPending));
  }

  /** Ends every session of the user (a denied signup). */
  endSessions(userId: string): void {
    this.uow.write(() => this.store.revokeUser(userId, Date.now()));
  }

  /**
   * Changes the caller's own password and ends every other session of theirs at once (refresh tokens revoked,
   * sockets closed); the session asking stays signed in. A wrong current password is 400, not 401: the
   * caller's token is fine, and a 401 would make clients refresh and retry.
   */
  async changePassword(principal: Principal, currentPassword: string, newPassword: string, client = ""): Promise<void> {
    assertHasPassword(principal);
    const user = this.members.user(principal.userId);
    if (!user) throw unauthenticated();
    // Within the same limits as login: a stolen access token must not guess the password any faster. The new
    // hash is made under the same admission.
    const admitted = this.limits.admit({ client, account: user.email });
    let outcome: "right" | "wrong" | null = null;
    let passwordHash: string;
    try {
      outcome = (await verifyPassword(currentPassword, user.passwordHash, admitted.client)) ? "right" : "wrong";
      if (outcome === "wrong") throw invalid("current password is incorrect");
      passwordHash = await hashPassword(newPassword, admitted.client);
    } finally {
      admitted.done(outcome);
    }
    this.uow.write(() => {
      // Changed meanwhile (another change, a reset): the password just checked is no longer the current one.
      if (!this.samePassword(user)) throw invalid("current password is incorrect");
      this.members.setPassword(user.id, passwordHash, principal.sessionId ?? null);
    });
  }

  /** Sets a new password and ends every session of the user (`tandem users reset-password`). */
  async resetPassword(emailInput: string, password: string): Promise<UserRow> {
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw invalid(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const user = this.members.userByEmail(emailInput.trim().toLowerCase());
    if (!user || user.passwordHash === null) throw notFound("user not found");
    this.members.setPassword(user.id, await hashPassword(password));
    return user;
  }

  /** Drops expired refresh tokens (hourly). */
  pruneExpired(): void {
    this.store.pruneExpired(Date.now());
  }

  /** Notices sessions ended by another process (`tandem users reset-password`) and closes their sockets. */
  checkSessions(): void {
    this.store.checkSessions();
  }

  /**
   * Issues an access token and a refresh token of `familyId`; call inside a write transaction. The refresh token
   * is stored at once, in the caller's transaction; the access token is signed after it (signing waits).
   */
  private async issue(userId: string, familyId: string, signupPending: boolean): Promise<TokenPair> {
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
      access_token: await this.tokens.sign(userId, familyId, ACCESS_TOKEN_TTL_S),
      refresh_token: refreshToken,
      token_type: "Bearer",
      expires_in: ACCESS_TOKEN_TTL_S,
    };
    if (signupPending) pair.signup_pending = true;
    return pair;
  }

  private signupState(user: UserRow): SignupState {
    return this.deps.signupState(user);
  }
}

/** The token of a bearer `Authorization` header, or 401 `unauthorized`. */
function bearerToken(authorization: string | null | undefined): string {
  // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are `Bearer` too.
  if (!authorization || !(authorization.startsWith("Bearer ") || /^bearer /i.test(authorization))) {
    throw unauthenticated();
  }
  return authorization.slice(7).trim();
}
