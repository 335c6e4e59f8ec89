import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Where a webhook may go. A trigger's owner chooses the URL, so without a guard the service could be
 * made to POST into its own network (SSRF): the cloud metadata endpoint, the VPC, localhost. A
 * destination is refused when its host is, or resolves to, an address that is not public unicast —
 * unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (the local stack, whose receivers are on 127.0.0.1).
 *
 * The check runs inside the connection's own DNS lookup (`guardedLookup`), so the address checked is
 * the address connected to: a name that resolves to a public address for the check and a private one
 * for the connection (DNS rebinding) cannot slip through. A name with any refused address is refused.
 */
const refused = new BlockList();
// IPv4: "this network", private, carrier-grade NAT, loopback, link-local (incl. 169.254.169.254, the
// metadata endpoint), IETF protocol assignments, benchmarking, documentation, multicast, reserved, broadcast.
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  refused.addSubnet(net, prefix, "ipv4");
// IPv6: unspecified, loopback, discard, documentation, unique-local (incl. AWS's fd00:ec2::254 metadata),
// link-local, site-local (deprecated), multicast.
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  refused.addSubnet(net, prefix, "ipv6");

// IPv6 blocks that are never a public destination, beyond those above: benchmarking, ORCHID v1/v2,
// documentation (3fff::/20), SRv6 SIDs, and local-use NAT64 (RFC 8215: translates into the operator's
// own network, whatever IPv4 it carries).
for (const [net, prefix] of [
  ["2001:2::", 48],
  ["2001:10::", 28],
  ["2001:20::", 28],
  ["3fff::", 20],
  ["5f00::", 16],
  ["64:ff9b:1::", 48],
] as const)
  refused.addSubnet(net, prefix, "ipv6");

/** The 16 bytes of an IPv6 address in any spelling (`::`, a dotted IPv4 tail), or null. */
export function ipv6Bytes(text: string): Uint8Array | null {
  if (isIP(text) !== 6) return null;
  let hex = text;
  const colon = text.lastIndexOf(":");
  if (text.indexOf(".", colon) > colon) {
    // A dotted IPv4 tail becomes its two 16-bit groups.
    const q = text
      .slice(colon + 1)
      .split(".")
      .map(Number);
    hex = `${text.slice(0, colon + 1)}${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const [left, right] = hex.includes("::") ? hex.split("::") : [hex, null];
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const l = groups(left!);
  const r = right === null ? [] : groups(right);
  const words = right === null ? l : [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 255;
  });
  return bytes;
}

const ipv4At = (b: Uint8Array, at: number): string => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const zeros = (b: Uint8Array, from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by every form that maps one (RFC 4291, 6052, 6145, 3056,
 * 4380): IPv4-compatible ::a.b.c.d (::/96, so :: and ::1 too), IPv4-mapped ::ffff:a.b.c.d, SIIT
 * ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::, and Teredo 2001:0::/32 (its server and
 * its obfuscated client). Connecting to any of them can reach that IPv4 address.
 */
export function embeddedIpv4(bytes: Uint8Array): string[] {
  if (zeros(bytes, 0, 10)) {
    const marker = (bytes[10]! << 8) | bytes[11]!;
    if (marker === 0 || marker === 0xffff) return [ipv4At(bytes, 12)];
  }
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0) return [ipv4At(bytes, 12)];
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes, 4, 12)) return [ipv4At(bytes, 12)];
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [ipv4At(bytes, 2)];
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) {
    const client = bytes.subarray(12, 16).map((x) => x ^ 0xff);
    return [ipv4At(bytes, 4), ipv4At(client, 0)];
  }
  return [];
}

/** True when an IP address is not public unicast (private, loopback, link-local, unique-local, metadata, …), in any spelling. */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return refused.check(bare, "ipv4");
  if (family === 6) {
    const bytes = ipv6Bytes(bare);
    if (bytes === null) return true;
    if (embeddedIpv4(bytes).some((v4) => refused.check(v4, "ipv4"))) return true;
    return refused.check(bare, "ipv6");
  }
  return true; // not an IP address at all: never connect to it
}

/**
 * Why a URL's host may not be a webhook destination, without DNS, or null: a refused IP literal in any
 * spelling (the URL parser has already turned `0177.1` and `127.0.0.1.` into `127.0.0.1`), or a
 * `localhost` name (with or without trailing dots, any case). The one rule for both the check at save
 * time and the delivery's own check before it resolves a name.
 */
export function refusedHost(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isIP(host)) return isRefusedAddress(host) ? `${host} is a private, loopback or link-local address` : null;
  let name = host;
  while (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "localhost" || name.endsWith(".localhost")) return `${hostname} is localhost`;
  return null;
}

export class DestinationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DestinationRefused";
  }
}

/**
 * A `lookup` for http.request: resolves the name, refuses it when any address is refused, and hands
 * the connection exactly the addresses it checked.
 */
export function guardedLookup({ allowPrivate }: { allowPrivate: boolean }): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true, family: options.family }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as { address: string; family: number }[];
      const bad = allowPrivate ? undefined : list.find((a) => isRefusedAddress(a.address));
      if (list.length === 0) return callback(new DestinationRefused(`${hostname} has no address`), "", 0);
      if (bad) return callback(new DestinationRefused(`${hostname} resolves to ${bad.address}, a private, loopback or link-local address`), "", 0);
      if (options.all) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/**
 * Checks a webhook URL as far as it can be checked without DNS (create and update of a trigger):
 * http or https, no credentials in it, and a host that is not a refused IP literal or `localhost`.
 * Returns the reason it is refused, or null.
 */
export function webhookUrlProblem(raw: string, { allowPrivate }: { allowPrivate: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  if (url.username || url.password) return "must not carry credentials; sign with webhook_secret instead";
  if (allowPrivate) return null;
  const problem = refusedHost(url.hostname);
  return problem === null ? null : `must not point at a private, loopback or link-local address or localhost (${problem})`;
}
