import dns from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Where this server's outgoing requests may go (webhook deliveries, the fetch of a seller's logo).
 * The URL text is checked when it is saved, and every address the host resolves to is checked
 * again when a request connects, so a name that later resolves to an internal address (DNS
 * rebinding) is still refused: no server-side request forgery.
 */
export interface UrlPolicy {
  readonly allowInsecureLocalhost: boolean;
  readonly allowPrivateNetworks: boolean;
}

/** The configured policy: `WEBHOOK_ALLOW_INSECURE_LOCALHOST` and `WEBHOOK_ALLOW_PRIVATE_NETWORKS` govern every outgoing request. */
export const urlPolicyOf = (config: { webhookAllowInsecureLocalhost: boolean; webhookAllowPrivateNetworks: boolean }): UrlPolicy => ({
  allowInsecureLocalhost: config.webhookAllowInsecureLocalhost,
  allowPrivateNetworks: config.webhookAllowPrivateNetworks,
});

const ranges = (entries: [string, number, "ipv4" | "ipv6"][]): BlockList => {
  const list = new BlockList();
  for (const [network, prefix, type] of entries) list.addSubnet(network, prefix, type);
  return list;
};

const LOOPBACK = ranges([
  ["127.0.0.0", 8, "ipv4"],
  ["::1", 128, "ipv6"],
]);
const PRIVATE = ranges([
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
]);
// Never a destination, whatever the configuration: "this host", multicast, reserved, broadcast.
const UNROUTABLE = ranges([
  ["0.0.0.0", 8, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"],
  ["ff00::", 8, "ipv6"],
]);

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

function matches(list: BlockList, address: string): boolean {
  const mapped = MAPPED_IPV4.exec(address)?.[1];
  if (mapped !== undefined) return list.check(mapped, "ipv4");
  return list.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

/** Why an IP address may not be connected to, or null when it may. */
export function addressProblem(address: string, policy: UrlPolicy): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  if (matches(UNROUTABLE, address)) return `${address} is not a routable address`;
  if (matches(LOOPBACK, address)) {
    return policy.allowInsecureLocalhost || policy.allowPrivateNetworks ? null : `${address} is a loopback address`;
  }
  if (matches(PRIVATE, address)) return policy.allowPrivateNetworks ? null : `${address} is a private or link-local address`;
  return null;
}

const isLocalhostName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost");

/** Why a URL may not be requested, or null when it may (as far as its text tells). */
export function urlProblem(text: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "The URL is not valid.";
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const literal = isIP(host) !== 0;
  const loopback = isLocalhostName(host) || (literal && matches(LOOPBACK, host));
  if (url.protocol === "http:") {
    if (!(policy.allowInsecureLocalhost && loopback)) return "The URL must use https.";
  } else if (url.protocol !== "https:") {
    return "The URL must use https.";
  }
  if (loopback && !literal) {
    return policy.allowInsecureLocalhost || policy.allowPrivateNetworks ? null : `${host} is a loopback address`;
  }
  return literal ? addressProblem(host, policy) : null;
}

export class ForbiddenAddress extends Error {}

/** A `lookup` for outgoing requests that refuses to connect to any address the policy forbids. */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      for (const { address } of addresses) {
        const problem = addressProblem(address, policy);
        if (problem) return callback(new ForbiddenAddress(`${hostname} resolves to a refused address: ${problem}`), "", 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new ForbiddenAddress(`${hostname} has no address`), "", 4);
      return callback(null, first.address, first.family);
    });
  };
}
