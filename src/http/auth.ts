/**
 * The permission macro. Every route declares one of: `permission` (a catalogue permission, or `member` for any
 * member of the route's organization), `signedIn: true` (any valid token, no organization), or `public: true`.
 * A test walks the routes and fails on one that declares none (default deny). The declaration is also written
 * into the route's OpenAPI `detail`, so the docs show it.
 */
import { Elysia } from "elysia";
import type { AuthService } from "../features/auth/auth.service";
import { assertPermission, type SpaceActor } from "../features/spaces/spaces.policy";
import type { SpacesService } from "../features/spaces/spaces.service";
import type { Need } from "./permissions";

/** The macro plugin type, for route modules. */
export type AuthMacro = ReturnType<typeof authMacro>;

/** The macro plugin, bound to the auth service of one app. */
/** Route metadata for the docs and the default-deny test; Elysia types `detail` as an OpenAPI operation. */
const mark = (meta: Record<string, unknown>) => meta as Record<string, unknown>;

/** Distinguishes the macro of each app built in one process (Elysia dedupes plugins by name and seed). */
let instances = 0;

export function authMacro(auth: AuthService, spaces: SpacesService) {
  return new Elysia({ name: "auth-macro", seed: ++instances }).macro({
    /** No token needed. */
    public: (_enabled: true) => ({ detail: mark({ "x-public": true }) }),
    /** Any valid token; the route is outside any organization. */
    signedIn: (_enabled: true) => ({
      detail: mark({ "x-signed-in": true }),
      resolve: ({ headers }) => ({ principal: auth.authenticate(headers.authorization) }),
    }),
    /** A member of the route's organization (`:orgId`, or `?org_id=`) holding `need`. */
    permission: (need: Need) => ({
      detail: mark({ "x-permission": need }),
      resolve: ({ headers, params, query }) => {
        // Elysia leaves `params` undefined on a route without path parameters (`/me/tasks?org_id=`).
        const orgId =
          (params as Record<string, string | undefined> | undefined)?.orgId ??
          (query as Record<string, string | undefined> | undefined)?.org_id;
        return { actor: auth.authorize(auth.authenticate(headers.authorization), need, orgId) };
      },
    }),
    /**
     * A route below `/spaces/:spaceId`: membership of the org, then the space must be visible (404
     * `space not found` otherwise, before any 403, so a private space never shows through), then `need`.
     */
    space: (need: Need) => ({
      detail: mark({ "x-permission": need, "x-space": true }),
      resolve: ({ headers, params }) => {
        const { orgId, spaceId } = params as Record<string, string>;
        const actor = auth.authorize(auth.authenticate(headers.authorization), "member", orgId);
        const space = spaces.access(actor, spaceId ?? "");
        assertPermission(actor, need);
        const spaceActor: SpaceActor = { ...actor, space };
        return { actor: spaceActor };
      },
    }),
  });
}
