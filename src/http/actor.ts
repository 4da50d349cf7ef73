/** Who is calling, as resolved by the permission macro. */

/** The authenticated principal behind a token. */
export interface Principal {
  readonly userId: string;
  /** Set when the token is an `sa_` token. */
  readonly serviceAccountId: string | null;
  /** The sign-in session an access token belongs to (its `sid`); none for `sa_` tokens. */
  readonly sessionId?: string | undefined;
}

/** A principal in the context of one organization, with its permissions there. */
export interface OrgActor extends Principal {
  readonly orgId: string;
  readonly permissions: ReadonlySet<string>;
}
