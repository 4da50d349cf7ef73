/** Small facts about network addresses. */

/** A host name that can only mean this machine: `localhost`, 127.0.0.0/8, `::1` (bracketed or not). */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i.test(hostname);
}
