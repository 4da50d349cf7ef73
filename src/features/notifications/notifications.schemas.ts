/** Request and response schemas of Web Push: the server's key and a browser's subscription (contract §10). */
import { z } from "zod";
import { lazy, timestampOut } from "../../http/schemas";

export const pushKeyOut = lazy(() =>
  z.object({
    /** The VAPID public key: base64url of the uncompressed P-256 point, for `pushManager.subscribe`. */
    public_key: z.string(),
  }),
);

/** An endpoint as browsers give it; its scheme and host are checked by the service. */
const endpointIn = z.string().max(2048);

/** A browser's `PushSubscription.toJSON()`. */
export const pushSubscriptionIn = z.object({
  endpoint: endpointIn,
  expirationTime: z.number().int().nonnegative().nullish(),
  keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(100) }),
});
export type PushSubscriptionIn = z.infer<typeof pushSubscriptionIn>;

export const deletePushSubscriptionIn = z.object({ endpoint: endpointIn });

/** A subscription as the API shows it: never its keys. */
export const pushSubscriptionOut = lazy(() =>
  z
    .object({
      endpoint: z.string(),
      expiration_time: timestampOut.nullable(),
      created_at: timestampOut,
    })
    .meta({ id: "PushSubscription" }),
);
export type PushSubscriptionOut = z.infer<ReturnType<typeof pushSubscriptionOut>>;
