/**
 * The permission macro. Every route declares one of: `permission` (a catalogue permission, or `member` for any
 * member of the route's organization), `space` (the same, below `/spaces/:spaceId`), `signedIn: true` (any
 * valid token, no organization), or `public: true`. A test walks the routes and fails on one that declares
 * none (default deny). The declaration is also written into the route's OpenAPI `detail`, so the docs show it.
 *
 * `check` adds a rule about the caller alone, beyond its permission (a person, not a service account; the
 * space's owner), checked in the same place; it is declared after one of those, as macros run in order.
 * `urlToken: true`, declared before them, lets a WebSocket route's upgrade carry its token as `?token=`.
 *
 * The checks run in `transform`, before Elysia validates the body and query: a bad token answers 401, an
 * invisible space 404 and a caller without the right 403 whatever the body holds; so does a malformed id further
 * along the path (its resource's 404). `resolve` then hands the result to the handler, with `recheck`: the same
 * check again, for a write stored after the request waited (a streamed body, a group commit); see `recheckOf`.
 */
import { Elysia } from "elysia";
import type { Access, Authenticator } from "../core/access";
import type { OrgActor, Principal, SpaceActor } from "../core/actor";
import { invalid } from "../core/errors";
import type { Need } from "../core/permissions";
import { lowerUuid } from "../lib/ids";
import { clientAddress } from "./base";
import { assertPathIds } from "./path-ids";

/** The macro plugin type, for route modules. */
export type AuthMacro = ReturnType<typeof authMacro>;

/** Route metadata for the docs and the default-deny test; Elysia types `detail` as an OpenAPI operation. */
const mark = (meta: Record<string, unknown>) => meta as Record<string, unknown>;

/** Distinguishes the macro of each app built in one process (Elysia dedupes plugins by name and seed). */
let instances = 0;

type Raw = Record<string, string | undefined> | undefined;

/** What a transform hook is handed, as far as the macros read it. */
interface TransformContext {
  params: unknown;
  query: unknown;
  body: unknown;
  request: Request;
  path: string;
  server: Parameters<typeof clientAddress>[0]["server"];
  set: object;
}

/** A string field of a JSON object body, if there is one. */
function bodyField(body: unknown, name: string): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** Brings the route's UUID path parameters to lower case, as ids are stored (`lowerUuid`). */
function lowerIds(params: Raw): void {
  if (!params) return;
  for (const key in params) params[key] = lowerUuid(params[key]);
}

/**
 * The `Authorization` header, or, with `urlToken` (a route that declares it: the browser's WebSockets, whose
 * upgrade cannot carry headers) and on a WebSocket upgrade, the `?token=` of the URL as a bearer token.
 * Elsewhere a token in the URL is ignored, whatever headers come with it: URLs end up in logs and histories.
 */
export function credential(request: Request, urlToken = false): string | null {
  const header = request.headers.get("authorization");
  if (header !== null || !urlToken || request.headers.get("upgrade")?.toLowerCase() !== "websocket") return header;
  const token = new URL(request.url).searchParams.get("token");
  return token ? `Bearer ${token}` : null;
}

/**
 * How long after its check a recheck may answer as the check did, when no one's access changed in this process
 * meanwhile. A group commit rechecks within a millisecond or two, and that check, with a few memo lookups, cost
 * as much as a tenth of a chat post; a streamed upload rechecks minutes later, in full.
 */
const RECHECK_TRUST_MS = 1000;

/** `check` again, unless it was made a moment ago and nothing it read can have changed since. */
function recheckOf(auth: Authenticator, check: () => void): () => void {
  const epoch = auth.accessEpoch();
  const checkedAt = performance.now();
  return () => {
    if (auth.accessEpoch() === epoch && performance.now() - checkedAt < RECHECK_TRUST_MS) return;
    check();
  };
}

/**
 * The caller with the client address of its request (`Principal.address`), looked up when first read: only the
 * audit log reads it, and the runtime's lookup of the peer's address costs more than a microsecond, on every
 * request.
 */
function withAddress<T extends object>(caller: T, context: Parameters<typeof clientAddress>[0]): T {
  let address: string | undefined;
  return Object.defineProperty(caller, "address", {
    enumerable: true,
    get: () => (address ??= clientAddress(context)),
  });
}

/**
 * The macro plugin, bound to the services of one app. `installOrgId` names the install's organization (one per
 * install), for the routes that fall back to it when the request names none (`memberOrInstall`).
 */
export function authMacro(
  auth: Authenticator,
  access: Access,
  installOrgId: () => string | undefined = () => undefined,
) {
  // Once set up, the install's organization stays the one (none is ever deleted): looked up until there is one.
  let orgOfInstall: string | undefined;
  const installOrg = () => (orgOfInstall ??= installOrgId());
  const resolved = new WeakMap<Request, unknown>();
  const take = <T>(request: Request) => resolved.get(request) as T;
  /** Requests of a route that declared `urlToken`. */
  const urlTokens = new WeakSet<Request>();
  const credentialOf = (request: Request) => credential(request, urlTokens.has(request));

  /**
   * What a token whose session ended is told on a route of `orgId`: 404 `organization not found` when its account
   * is no longer a member (a removed member, whose sessions ended with the removal: contract §7 has their requests
   * to the organization answer so); 401 otherwise, as the authenticator throws next.
   */
  const endedIn = (orgId: string) => (principal: Principal) => void access.orgActor(principal, orgId, "member");

  /**
   * The actor of a route of the caller's own (`/me/...`) or of an organization: a member of `:orgId`, or of the
   * `org_id` of the query or the body, holding `need`. `fallback` answers the organization when none is named.
   */
  const orgTransform =
    (need: Need, fallback: () => string | undefined) =>
    async ({ params, query, body, request, path: requestPath, server, set }: TransformContext) => {
      const given = credentialOf(request);
      lowerIds(params as Raw);
      // Elysia leaves `params` undefined on a route without path parameters (`/me/tasks?org_id=`); a POST to
      // one may name it in its body (`/me/inbox/read {org_id}`).
      // `org_id` is any string (api-spec): one that names no organization of the caller's is a 404, like a path id.
      // A path's `orgId` that is not text (undecodable percent-encoding) is an organization that does not exist.
      const pathIds = params as Raw;
      const orgId =
        pathIds && "orgId" in pathIds
          ? (pathIds.orgId ?? "")
          : (lowerUuid((query as Raw)?.org_id ?? bodyField(body, "org_id")) ?? fallback());
      const ended = orgId === undefined ? undefined : endedIn(orgId);
      const principal = await auth.authenticate(given, ended);
      if (orgId === undefined) throw invalid("org_id: required");
      const actor = access.orgActor(principal, orgId, need);
      assertPathIds(pathIds, requestPath);
      const recheck = recheckOf(
        auth,
        () => void access.orgActor(auth.reauthenticate(given, principal, ended), orgId, need),
      );
      resolved.set(request, withAddress({ ...actor, recheck }, { server, request, set }));
    };

  return new Elysia({ name: "auth-macro", seed: ++instances }).macro({
    /**
     * A WebSocket route of the browser (live events, editing): its upgrade may carry the token as `?token=`.
     * Declared before `permission` or `space`, whose check reads the token, as macros run in order.
     */
    urlToken: (_enabled: true) => ({
      detail: mark({ "x-token-in-url": true }),
      transform: ({ request }) => void urlTokens.add(request),
    }),
    /** No token needed. */
    public: (_enabled: true) => ({ detail: mark({ "x-public": true }) }),
    /** Any valid token; the route is outside any organization. */
    signedIn: (_enabled: true) => ({
      detail: mark({ "x-signed-in": true }),
      transform: async ({ params, request, server, set }) => {
        lowerIds(params as Raw);
        const principal = await auth.authenticate(credentialOf(request));
        resolved.set(request, withAddress({ ...principal }, { server, request, set }));
      },
      resolve: ({ request }) => ({ principal: take<Principal>(request) }),
    }),
    /** A member of the route's organization (`:orgId`, or `?org_id=`) holding `need`. */
    permission: (need: Need) => ({
      detail: mark({ "x-permission": need }),
      transform: orgTransform(need, () => undefined),
      resolve: ({ request }) => ({ actor: take<OrgActor>(request) }),
    }),
    /**
     * Any member, as `permission: "member"`, of the `org_id` named, or when none is, of the install's organization:
     * for the routes a browser calls with what it has (`POST /me/push-subscriptions` with its `PushSubscription`).
     */
    memberOrInstall: (_enabled: true) => ({
      detail: mark({ "x-permission": "member" }),
      transform: orgTransform("member", installOrg),
      resolve: ({ request }) => ({ actor: take<OrgActor>(request) }),
    }),
    /**
     * A route below `/spaces/:spaceId`: membership of the org, then the space must be visible (404
     * `space not found` otherwise, before any 403, so a private space never shows through), then `need`.
     */
    space: (need: Need) => ({
      detail: mark({ "x-permission": need, "x-space": true }),
      transform: async ({ params, request, path, server, set }) => {
        lowerIds(params as Raw);
        const { orgId = "", spaceId = "" } = params as Record<string, string | undefined>;
        const given = credentialOf(request);
        const ended = endedIn(orgId);
        const principal = await auth.authenticate(given, ended);
        const actor = access.spaceActor(principal, orgId, spaceId, need);
        assertPathIds(params as Raw, path);
        const recheck = () =>
          void access.spaceActor(auth.reauthenticate(given, principal, ended), orgId, spaceId, need);
        const spaceActor: SpaceActor = withAddress(
          { ...actor, recheck: recheckOf(auth, recheck) },
          { server, request, set },
        );
        resolved.set(request, spaceActor);
      },
      resolve: ({ request }) => ({ actor: take<SpaceActor>(request) }),
    }),
    /**
     * A policy of the caller alone (it throws), run on what `permission`, `space` or `signedIn` resolved: a
     * caller it refuses gets its 403 before the body is validated, as for a missing permission.
     */
    check: (rule: (caller: never) => void) => ({
      transform: ({ request }) => {
        const caller = take(request);
        if (caller === undefined) throw new Error("`check` must come after `permission`, `space` or `signedIn`");
        (rule as (caller: unknown) => void)(caller);
      },
    }),
  });
}
