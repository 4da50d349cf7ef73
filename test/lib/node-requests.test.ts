import { describe, expect, it } from "bun:test";
import { NodeRequests, WINDOW_MS } from "../../src/lib/node-requests";

const secret = new TextEncoder().encode("a-secret-every-node-of-this-test-shares-0123456789");
const a = new NodeRequests(secret, "node-a");
const path = "/api/v1/cluster/tunnels/0190a21e-0000-7000-8000-000000000000";
const sent = (headers: Record<string, string>, to = `http://b.test${path}`, method = "POST") =>
  new Request(to, { method, headers });

describe("NodeRequests", () => {
  it("lets the node a request names take it once, from the node that signed it", () => {
    const b = new NodeRequests(secret, "node-b");
    const headers = a.sign("POST", path, "node-b");
    expect(b.verify(sent(headers))).toBe("node-a");
    // Seen once: the same request sent again is refused.
    expect(b.verify(sent(headers))).toBeNull();
  });

  it("refuses a request for another node, of another method or path, or out of its time window", () => {
    const b = new NodeRequests(secret, "node-b");
    const c = new NodeRequests(secret, "node-c");
    expect(c.verify(sent(a.sign("POST", path, "node-b")))).toBeNull();
    expect(b.verify(sent(a.sign("POST", path, "node-b"), `http://b.test${path}x`))).toBeNull();
    expect(b.verify(sent(a.sign("POST", path, "node-b"), undefined, "PUT"))).toBeNull();
    const old = a.sign("POST", path, "node-b", Date.now() - WINDOW_MS - 1000);
    expect(b.verify(sent(old))).toBeNull();
  });

  it("refuses what another secret signed, and what carries no signature", () => {
    const b = new NodeRequests(secret, "node-b");
    const stranger = new NodeRequests(new TextEncoder().encode("another-install-secret-0123456789abcdef"), "node-a");
    expect(b.verify(sent(stranger.sign("POST", path, "node-b")))).toBeNull();
    expect(b.verify(sent({}))).toBeNull();
    const headers = a.sign("POST", path, "node-b");
    expect(b.verify(sent({ ...headers, "x-tandem-node-signature": "" }))).toBeNull();
    expect(b.verify(sent({ ...headers, "x-tandem-node": "node-z" }))).toBeNull();
  });
});
