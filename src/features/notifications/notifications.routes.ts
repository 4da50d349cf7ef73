/** Web Push (contract §10): the server's key, and the caller's browser subscriptions. */
import { Elysia } from "elysia";
import { z } from "zod";
import type { AuthMacro } from "../../http/auth";
import { doc } from "../../http/docs";
import { optionalOrgQuery } from "../inbox/inbox.schemas";
import { presentSubscription } from "./notifications.present";
import { deletePushSubscriptionIn, pushKeyOut, pushSubscriptionIn, pushSubscriptionOut } from "./notifications.schemas";
import type { PushService } from "./notifications.service";

const ORG_404 =
  "`organization not found`: `org_id` (or, when none is given, the install's organization) is no organization the caller is a member of";

export function notificationsRoutes(auth: AuthMacro, push: PushService) {
  return new Elysia({ prefix: "/api/v1" })
    .use(auth)
    .get("/public/push-key", () => ({ public_key: push.publicKey() }), {
      public: true,
      detail: doc("The VAPID public key a browser subscribes to Web Push with (`applicationServerKey`)", () => ({
        200: pushKeyOut(),
      })),
    })
    .post(
      "/me/push-subscriptions",
      ({ actor, body, status }) => status(201, { subscription: presentSubscription(push.subscribe(actor, body)) }),
      {
        memberOrInstall: true,
        query: optionalOrgQuery,
        body: pushSubscriptionIn,
        detail: doc(
          "Subscribes the caller's browser (its `PushSubscription` JSON) to pushes of their inbox items in `org_id` (default: the install's organization); the same endpoint again replaces its keys",
          () => ({
            201: z.object({ subscription: pushSubscriptionOut() }),
            400: "`endpoint: must be an https URL`; `keys.p256dh: must be a P-256 public key (base64url)`; `keys.auth: must be 16 bytes (base64url)`",
            404: ORG_404,
          }),
        ),
      },
    )
    .delete(
      "/me/push-subscriptions",
      ({ actor, body, status }) => {
        push.unsubscribe(actor, body.endpoint);
        return status(204);
      },
      {
        memberOrInstall: true,
        query: optionalOrgQuery,
        body: deletePushSubscriptionIn,
        detail: doc("Unsubscribes the caller's browser of that endpoint (nothing to do is done too)", () => ({
          204: null,
          404: ORG_404,
        })),
      },
    );
}
