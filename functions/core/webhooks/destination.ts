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

/** The IPv4 address an IPv6 address carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** True when an IP address is not public unicast (private, loopback, link-local, unique-local, metadata, …). */
export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return refused.check(bare, "ipv4");
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return refused.check(v4, "ipv4");
    return refused.check(bare, "ipv6");
  }
  return true; // not an IP address at all: never connect to it
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
export function guardedLookup(allowPrivate: boolean): LookupFunction {
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
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  if (url.username || url.password) return "must not carry credentials; sign with webhook_secret instead";
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return "must not point at localhost";
  if (isIP(host) && isRefusedAddress(host)) return "must not point at a private, loopback or link-local address";
  return null;
}
