/** The audit log (issue scope "an audit log"): the organization's administrative and destructive acts, for owners. */
import { Elysia } from "elysia";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { presentAuditEvent } from "./audit.present";
import { auditOut, auditQuery } from "./audit.schemas";
import type { AuditLog } from "./audit.service";

export function auditRoutes(auth: AuthMacro, audit: AuditLog) {
  return new Elysia({ prefix: "/api/v1/organizations/:orgId" })
    .use(auth)
    .get("/audit", ({ actor, query }) => ({ events: audit.list(actor, query).map(presentAuditEvent) }), {
      permission: "org.manage",
      query: auditQuery,
      detail: doc(
        "Who did what to what, when and from which address: the organization's audit log, newest first",
        () => ({
          200: auditOut(),
          400: "`invalid limit`, `invalid before`, `actor_user_id: must be a UUID`, `action: must be one of ...`",
        }),
      ),
    });
}
