/** Where the caller reached Tandem, for URLs answered back to them. */

/** The first value of a comma-separated forwarding header, or undefined. */
const firstOf = (value: string | null) => value?.split(",")[0]?.trim() || undefined;

/**
 * The origin the visitor reached Tandem at: `X-Forwarded-Proto` and `X-Forwarded-Host` when a proxy in front
 * says so, else the request's own. (Only ever used to answer the same caller, or to set `Secure`.)
 */
export function publicOrigin(request: Request): { proto: string; host: string } {
  const url = new URL(request.url);
  const proto = firstOf(request.headers.get("x-forwarded-proto")) ?? url.protocol.slice(0, -1);
  const host = firstOf(request.headers.get("x-forwarded-host")) ?? request.headers.get("host") ?? url.host;
  return { proto: proto === "https" ? "https" : "http", host: host.toLowerCase() };
}

/** `publicOrigin` as one string: `https://tandem.example.com`. */
export function originOf(request: Request): string {
  const { proto, host } = publicOrigin(request);
  return `${proto}://${host}`;
}
