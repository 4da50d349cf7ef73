/**
 * A ready-to-run shell snippet that sends a webhook a request signed the Standard Webhooks way: an id, a
 * timestamp, and `v1,` + base64 of HMAC-SHA256 over "{id}.{timestamp}.{body}", keyed with the bytes the secret
 * encodes after `whsec_`. It needs only a POSIX shell, openssl, od and curl (no xxd, no GNU-only flags), so it
 * runs as pasted on Linux and macOS.
 */

/** The sample body the example sends. */
export const SAMPLE_BODY = '{"event":"deploy.finished","service":"web","status":"ok"}';

/** The example for `url`, signing with `secret` (or a placeholder to paste one over). */
export function signedCurl(url: string, secret = "whsec_PASTE_YOUR_SECRET_HERE"): string {
  return [
    `SECRET='${secret}'`,
    `URL='${url}'`,
    `BODY='${SAMPLE_BODY}'`,
    `ID="msg_$(openssl rand -hex 12)"`,
    `TS=$(date +%s)`,
    `KEY=$(printf '%s' "\${SECRET#whsec_}" | openssl base64 -d -A | od -An -v -tx1 | tr -d ' \\n')`,
    `SIG=$(printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -binary | openssl base64 -A)`,
    `curl -sS -X POST "$URL" \\`,
    `  -H 'content-type: application/json' \\`,
    `  -H "webhook-id: $ID" \\`,
    `  -H "webhook-timestamp: $TS" \\`,
    `  -H "webhook-signature: v1,$SIG" \\`,
    `  --data "$BODY"`,
  ].join("\n");
}
