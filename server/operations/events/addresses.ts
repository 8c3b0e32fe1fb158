import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may be delivered to: public unicast ones only. A URL is untrusted
 * input that points our server at a network; resolved at each attempt, an address that is
 * loopback, private, link-local (the cloud metadata address 169.254.169.254 among them),
 * unique-local (fd00:ec2::254), CGNAT, multicast, reserved, or an IPv6 form that carries an IPv4
 * address (mapped, NAT64, 6to4, Teredo) is refused before any connection is made. The ranges are
 * ipaddr.js's, which follows IANA's special-purpose address registries.
 */

/** The address as one address (an IPv4 written as IPv6, `::ffff:10.0.0.1`, is the IPv4 one). */
const canonical = (address: string) => ipaddr.process(address.replace(/^\[|\]$/g, ''));

/** Why an address is refused (its range, e.g. `private`), or null for a public unicast address. */
export function addressRefusal(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = canonical(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (injectable: tests resolve names their own way). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** A host that is an IP literal (`10.0.0.1`, `[::1]`) resolves to itself, without asking DNS. */
export function literalAddress(hostname: string): ResolvedAddress | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  return family ? { address: bare, family: family === 6 ? 6 : 4 } : null;
}

export class AddressRefused extends Error {}

/**
 * The address to connect to for `hostname`: resolved once (for this attempt), and refused when
 * any of its addresses is not public (unless private addresses are allowed: development and
 * tests). A name that resolved to a public address last time and to an inside one now is refused
 * now, and the connection goes to exactly the address checked here, so a rebinding name cannot
 * slip an inside address in between.
 */
export async function checkedAddress(hostname: string, resolve: Resolve, allowPrivate: boolean): Promise<ResolvedAddress> {
  const literal = literalAddress(hostname);
  const addresses = literal ? [literal] : await resolve(hostname);
  if (!addresses.length) throw new Error(`${hostname} has no address`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const refusal = addressRefusal(address);
      if (refusal) {
        throw new AddressRefused(`refused: ${hostname}${literal ? '' : ` resolves to ${address}, which`} is a ${refusal} address; webhooks go to public addresses only`);
      }
    }
  }
  return addresses[0]!;
}
