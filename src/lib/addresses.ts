/**
 * IP addresses (v4 and v6) and ranges of them: who the client of a request is when it came through proxies the
 * operator trusts (`TANDEM_TRUSTED_PROXIES`), and what one client is for counting its attempts.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";

/** `::ffff:1.2.3.4` (an IPv4 client of a dual-stack socket) is `1.2.3.4`. */
const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * An address as a header or a socket gives it, bare: brackets, a port and an IPv6 zone dropped, an IPv4-mapped
 * IPv6 address as its IPv4 one, IPv6 in lower case. Null when it is not an address.
 */
export function bareAddress(text: string): string | null {
  let value = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1] as string;
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.indexOf(":"));
  value = value.replace(/%[\w.-]+$/, "");
  if (isIPv4(value)) return value;
  if (!isIPv6(value)) return null;
  const mapped = MAPPED_V4.exec(value);
  return mapped ? (mapped[1] as string) : value.toLowerCase();
}

/**
 * A socket's peer address as the runtime gives it (bare already), with an IPv4-mapped IPv6 address as its IPv4
 * one: the cheap form of `bareAddress`, for every request.
 */
export function unmapped(address: string): string {
  if (!address.startsWith("::ffff:")) return address;
  return MAPPED_V4.exec(address)?.[1] ?? address;
}

/** A set of addresses and CIDR ranges, IPv4 and IPv6. */
export class AddressRanges {
  private readonly list = new BlockList();

  private constructor(
    /** The entries as given, for messages. */
    readonly entries: readonly string[],
  ) {}

  /**
   * Parses a comma-separated list (`10.0.0.0/8, 192.168.1.10, fd00::/8`); throws an Error naming the first entry
   * that is neither an address nor a range. An empty list is an error too: it would trust no one.
   */
  static parse(text: string): AddressRanges {
    const entries = text
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    if (entries.length === 0) throw new Error("names no address");
    const ranges = new AddressRanges(entries);
    for (const entry of entries) {
      const [base = "", prefix, extra] = entry.split("/");
      const address = bareAddress(base);
      const family = address === null ? null : isIPv4(address) ? "ipv4" : "ipv6";
      const bits = family === "ipv4" ? 32 : 128;
      const length = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
      if (address === null || family === null || extra !== undefined || !(length >= 0 && length <= bits)) {
        throw new Error(`"${entry}" is not an IP address or a CIDR range`);
      }
      ranges.list.addSubnet(address, length, family);
    }
    return ranges;
  }

  /** Whether a (bare) address is one of the set. */
  has(address: string): boolean {
    return this.list.check(address, isIPv4(address) ? "ipv4" : "ipv6");
  }
}

/**
 * The client of a request whose peer is `peer`: when the peer is a trusted proxy, the right-most address of
 * `X-Forwarded-For` that is not one (each proxy appends the address it was reached from, so the entries
 * right of the client's are the trusted proxies' own, and whatever the client wrote is left of its own
 * address). An entry that is not an address ends the walk at the last trusted address before it.
 */
export function forwardedClient(peer: string, forwardedFor: string | null, trusted: AddressRanges): string {
  let client = bareAddress(peer) ?? peer;
  if (forwardedFor === null || !trusted.has(client)) return client;
  const hops = forwardedFor.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = bareAddress(hops[i] as string);
    if (hop === null) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/**
 * What one client is, for counting its attempts: an IPv4 address, or the /64 network of an IPv6 one (a single
 * machine or home is given a whole /64, and could otherwise change addresses at will).
 */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === "" ? [] : tail.split(":");
  const missing = address.includes("::") ? 8 - headGroups.length - tailGroups.length : 0;
  const groups = [...headGroups, ...Array(Math.max(missing, 0)).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
