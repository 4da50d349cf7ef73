/** Who is calling: the principal behind a token, and the actor it becomes in an organization or a space. */

/** The authenticated principal behind a token. */
export interface Principal {
  readonly userId: string;
  /** Set when the token is an `sa_` token. */
  readonly serviceAccountId: string | null;
  /** The sign-in session an access token belongs to (its `sid`); none for `sa_` tokens. */
  readonly sessionId?: string | undefined;
  /** The client address of the request acting, as `clientAddress` reads it; absent where no request acts. */
  readonly address?: string | undefined;
}

/** A principal in the context of one organization, with its permissions there. */
export interface OrgActor extends Principal {
  readonly orgId: string;
  readonly permissions: ReadonlySet<string>;
  /**
   * Checks the caller's access again exactly as the route did (token, membership, permission, space), throwing
   * what the route would have. For a write stored after an `await` (a streamed body, a group commit): meanwhile
   * the account may have been deleted, removed from the organization or the space, or lost the permission.
   * Within a second of the route's check, with no access changed in this process since, it passes at once.
   * Routes set it; actors made by the server itself (staff replies) have none.
   */
  readonly recheck?: () => void;
}

/** A space the caller can see, with the caller's role in it (null: not a member of the space). */
export interface SpaceAccess {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly isPrivate: boolean;
  readonly memberRole: string | null;
}

/** The actor of a route below a space. */
export interface SpaceActor extends OrgActor {
  readonly space: SpaceAccess;
}
