import { describe, expect, it } from "bun:test";
import { AddressRanges, bareAddress, clientKey, forwardedClient, unmapped } from "../../src/lib/addresses";

describe("bareAddress", () => {
  it("takes an address as headers and sockets write it", () => {
    expect(bareAddress(" 192.0.2.1 ")).toBe("192.0.2.1");
    expect(bareAddress("192.0.2.1:8443")).toBe("192.0.2.1");
    expect(bareAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(bareAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(bareAddress("::ffff:192.0.2.9")).toBe("192.0.2.9");
    for (const text of ["", "unknown", "192.0.2", "1.2.3.4.5", "300.1.1.1", "_hidden", "2001:db8::g"]) {
      expect(bareAddress(text)).toBeNull();
    }
  });
});

describe("unmapped", () => {
  it("gives an IPv4-mapped IPv6 peer as its IPv4 address, and leaves any other as it is", () => {
    expect(unmapped("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(unmapped("::FFFF:127.0.0.1")).toBe("::FFFF:127.0.0.1");
    expect(unmapped("::ffff:7f00:1")).toBe("::ffff:7f00:1");
    expect(unmapped("2001:db8::1")).toBe("2001:db8::1");
    expect(unmapped("192.0.2.1")).toBe("192.0.2.1");
  });
});

describe("AddressRanges.parse", () => {
  it("takes addresses and CIDR ranges of both families", () => {
    const ranges = AddressRanges.parse("10.0.0.0/8, 192.0.2.7,fd00::/8, ::1");
    for (const inside of ["10.255.0.1", "192.0.2.7", "fd12::1", "::1"]) expect(ranges.has(inside)).toBe(true);
    for (const outside of ["11.0.0.1", "192.0.2.8", "fe80::1", "::2"]) expect(ranges.has(outside)).toBe(false);
  });

  it("names the first entry that is neither", () => {
    for (const [text, entry] of [
      ["10.0.0.0/33", "10.0.0.0/33"],
      ["10.0.0.1, proxy.local", "proxy.local"],
      ["fd00::/129", "fd00::/129"],
      ["10.0.0.0/8/8", "10.0.0.0/8/8"],
      ["10.0.0.0/", "10.0.0.0/"],
      ["10.0.0.0/+8", "10.0.0.0/+8"],
    ]) {
      expect(() => AddressRanges.parse(text as string)).toThrow(`"${entry}" is not an IP address or a CIDR range`);
    }
    expect(() => AddressRanges.parse(" , ")).toThrow("names no address");
  });
});

describe("forwardedClient", () => {
  const trusted = AddressRanges.parse("127.0.0.1, 10.0.0.0/8");

  it("is the right-most address of X-Forwarded-For that is not a trusted proxy", () => {
    expect(forwardedClient("127.0.0.1", "203.0.113.5", trusted)).toBe("203.0.113.5");
    expect(forwardedClient("127.0.0.1", "6.6.6.6, 203.0.113.5, 10.1.2.3", trusted)).toBe("203.0.113.5");
    expect(forwardedClient("::ffff:127.0.0.1", "[2001:db8::5]:1234", trusted)).toBe("2001:db8::5");
  });

  it("is the peer when the peer is no trusted proxy, or says nothing", () => {
    expect(forwardedClient("198.51.100.1", "203.0.113.5", trusted)).toBe("198.51.100.1");
    expect(forwardedClient("127.0.0.1", null, trusted)).toBe("127.0.0.1");
  });

  it("stops at an entry that is not an address, or at the left-most when all are trusted", () => {
    expect(forwardedClient("127.0.0.1", "203.0.113.5, garbage, 10.0.0.7", trusted)).toBe("10.0.0.7");
    expect(forwardedClient("127.0.0.1", "10.0.0.9, 10.0.0.7", trusted)).toBe("10.0.0.9");
  });
});

describe("clientKey", () => {
  it("is an IPv4 address itself, and an IPv6 one's /64", () => {
    expect(clientKey("192.0.2.1")).toBe("192.0.2.1");
    expect(clientKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:2::9")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("")).toBe("");
  });
});
