/**
 * SSRF guard for webhook URLs (DESIGN.md section 5). Merchants choose the URL, so before each
 * delivery the host is resolved ONCE, every resolved address must be public (or loopback where
 * allowed, for local runs), and the sender then connects to exactly the checked address
 * (http-sender.ts), leaving no second resolution for DNS rebinding.
 *
 * IPv6 addresses that embed an IPv4 address (IPv4-mapped, IPv4-compatible, SIIT, NAT64, 6to4)
 * are classified by the embedded IPv4 address. Any IPv6 address outside global unicast
 * (2000::/3) and not listed below is 'reserved'.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

export type IpClass = 'public' | 'loopback' | 'private' | 'link-local' | 'cgnat' | 'multicast' | 'unspecified' | 'reserved' | 'invalid';

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export type UnsafeUrlReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'https_required'
  | 'credentials_in_url'
  | 'invalid_port'
  | 'address_not_allowed'
  /** The name did not resolve (or resolved to nothing): may be transient, see `retryable`. */
  | 'dns_error';

export class UnsafeUrlError extends Error {
  override readonly name = 'UnsafeUrlError';
  constructor(
    readonly reason: UnsafeUrlReason,
    message: string,
    /** True only for DNS failures, which may pass on a later attempt. */
    readonly retryable = false,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Address classification

interface Range4 {
  base: number;
  bits: number;
  cls: IpClass;
}
const v4 = (cidr: string, cls: IpClass): Range4 => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { base: parseIpv4(ip)!, bits: Number(bits), cls };
};

/**
 * Most specific first; anything not listed is public. Built on first use, not at import: parsing them
 * runs node:net's isIP, whose first call costs ~7 ms, and most cold starts never check a URL.
 */
let ipv4Ranges: readonly Range4[] | undefined;
const IPV4_RANGES = (): readonly Range4[] =>
  (ipv4Ranges ??= [
    v4('255.255.255.255/32', 'reserved'), // limited broadcast
    v4('0.0.0.0/8', 'unspecified'), // "this network"; 0.0.0.0 reaches the local host on Linux
    v4('10.0.0.0/8', 'private'),
    v4('100.64.0.0/10', 'cgnat'),
    v4('127.0.0.0/8', 'loopback'),
    v4('169.254.0.0/16', 'link-local'), // includes 169.254.169.254 (instance metadata)
    v4('172.16.0.0/12', 'private'),
    v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
    v4('192.0.2.0/24', 'reserved'), // TEST-NET-1
    v4('192.88.99.0/24', 'reserved'), // 6to4 relay anycast (deprecated)
    v4('192.168.0.0/16', 'private'),
    v4('198.18.0.0/15', 'reserved'), // benchmarking
    v4('198.51.100.0/24', 'reserved'), // TEST-NET-2
    v4('203.0.113.0/24', 'reserved'), // TEST-NET-3
    v4('224.0.0.0/4', 'multicast'),
    v4('240.0.0.0/4', 'reserved'),
  ]);

/** Dotted quad to an unsigned 32-bit number; null unless exactly four decimal octets. */
function parseIpv4(ip: string): number | null {
  if (isIP(ip) !== 4) return null;
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function classifyV4(n: number): IpClass {
  for (const r of IPV4_RANGES()) {
    const size = 2 ** (32 - r.bits);
    if (Math.floor(n / size) === Math.floor(r.base / size)) return r.cls;
  }
  return 'public';
}

/** Eight 16-bit groups; null unless a valid IPv6 address (a zone id is ignored). */
function parseIpv6(input: string): number[] | null {
  const ip = input.split('%')[0]!;
  if (isIP(ip) !== 6) return null;
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // A trailing dotted quad (::ffff:1.2.3.4) becomes two hex groups.
    const quad = parseIpv4(text.slice(lastColon + 1));
    if (quad === null) return null;
    text = `${text.slice(0, lastColon + 1)}${Math.floor(quad / 65536).toString(16)}:${(quad % 65536).toString(16)}`;
  }
  const toGroups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const double = text.indexOf('::');
  let groups: number[];
  if (double >= 0) {
    const head = toGroups(text.slice(0, double));
    const rest = toGroups(text.slice(double + 2));
    groups = [...head, ...new Array<number>(Math.max(0, 8 - head.length - rest.length)).fill(0), ...rest];
  } else {
    groups = toGroups(text);
  }
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const prefixMatches = (g: number[], prefix: number[], bits: number): boolean => {
  for (let i = 0; i * 16 < bits; i++) {
    const take = Math.min(16, bits - i * 16);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((g[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
};
const v6 = (cidr: string) => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { prefix: parseIpv6(ip)!, bits: Number(bits) };
};
const inRange = (g: number[], r: { prefix: number[]; bits: number }) => prefixMatches(g, r.prefix, r.bits);

const bitOf = (g: number[], bit: number) => ((g[bit >> 4] ?? 0) >> (15 - (bit & 15))) & 1;
/** The 32 bits of the address starting at bit `offset`, as an IPv4 number. */
function bitsAt(g: number[], offset: number): number {
  let n = 0;
  for (let bit = offset; bit < offset + 32; bit++) n = n * 2 + bitOf(g, bit);
  return n;
}
const zeroBits = (g: number[], from: number, to: number) => {
  for (let bit = from; bit < to; bit++) if (bitOf(g, bit)) return false;
  return true;
};

const v6Ranges = () => ({
  ipv4Mapped: v6('::ffff:0:0/96'),
  siit: v6('::ffff:0:0:0/96'), // IPv4-translated (RFC 2765)
  ipv4Compatible: v6('::/96'), // deprecated IPv4-compatible
  nat64: v6('64:ff9b::/96'),
  nat64Local: v6('64:ff9b:1::/48'),
  sixToFour: v6('2002::/16'),
  globalUnicast: v6('2000::/3'),
  /** Most specific first. */
  classes: [
    { range: v6('100::/64'), cls: 'reserved' }, // discard-only
    { range: v6('2001::/23'), cls: 'reserved' }, // IETF protocol assignments (Teredo, benchmarking, ORCHID...)
    { range: v6('2001:db8::/32'), cls: 'reserved' }, // documentation
    { range: v6('3fff::/20'), cls: 'reserved' }, // documentation (RFC 9637)
    { range: v6('5f00::/16'), cls: 'reserved' }, // SRv6 SIDs
    { range: v6('fc00::/7'), cls: 'private' }, // unique local
    { range: v6('fe80::/10'), cls: 'link-local' },
    { range: v6('fec0::/10'), cls: 'private' }, // site-local (deprecated)
    { range: v6('ff00::/8'), cls: 'multicast' },
  ] as ReadonlyArray<{ range: { prefix: number[]; bits: number }; cls: IpClass }>,
});
let v6Built: ReturnType<typeof v6Ranges> | undefined;

function classifyV6(g: number[]): IpClass {
  const V6 = (v6Built ??= v6Ranges());
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  if (inRange(g, V6.ipv4Mapped) || inRange(g, V6.siit) || inRange(g, V6.ipv4Compatible) || inRange(g, V6.nat64)) {
    return classifyV4(bitsAt(g, 96));
  }
  if (inRange(g, V6.nat64Local)) {
    // Local-use NAT64 (RFC 8215): the operator's prefix length is unknown, so each RFC 6052
    // reading consistent with the address is classified and the first non-public one wins.
    // The /48 and /56 forms end in 32 zero bits, so their /96 reading (0.0.0.0) already refuses them.
    const readings = [bitsAt(g, 96)];
    if (zeroBits(g, 64, 72) && zeroBits(g, 104, 128)) readings.push(bitsAt(g, 72)); // /64 form
    return readings.map(classifyV4).find((c) => c !== 'public') ?? 'public';
  }
  if (inRange(g, V6.sixToFour)) return classifyV4(bitsAt(g, 16));
  for (const { range, cls } of V6.classes) if (inRange(g, range)) return cls;
  return inRange(g, V6.globalUnicast) ? 'public' : 'reserved';
}

/** Classifies an IPv4 or IPv6 address (IPv6 may be bracketed, as in URLs). */
export function classifyIp(ip: string): IpClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const n4 = parseIpv4(bare);
  if (n4 !== null) return classifyV4(n4);
  const g = parseIpv6(bare);
  return g ? classifyV6(g) : 'invalid';
}

// ---------------------------------------------------------------------------------------------
// URL checks

export const defaultResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface UrlSyntaxOptions {
  requireHttps: boolean;
  /**
   * Only for literal-IP hosts: whether a loopback literal passes. Default true, because the
   * syntactic check has no policy context; checkWebhookUrl decides it at delivery.
   */
  allowLoopback?: boolean;
  /** Plain http to a loopback literal even when https is required: the local live stage and its tests only. */
  allowLoopbackHttp?: boolean;
}

const hostOf = (url: URL) => (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);

function addressAllowed(cls: IpClass, allowLoopback: boolean): boolean {
  return cls === 'public' || (cls === 'loopback' && allowLoopback);
}

/**
 * Checks everything that needs no DNS: an absolute http(s) URL (https only when required), no
 * user/password, port 1-65535, and a literal IP host (decimal, hex and short IPv4 forms are
 * normalised by the URL parser first) that is public or loopback. Throws UnsafeUrlError.
 */
export function checkUrlSyntax(raw: string, { requireHttps, allowLoopback = true, allowLoopbackHttp = false }: UrlSyntaxOptions): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('invalid_url', 'Not an absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UnsafeUrlError('scheme_not_allowed', `Scheme ${url.protocol} is not allowed; use https.`);
  }
  const loopbackHttp = allowLoopbackHttp && allowLoopback && isIP(hostOf(url)) !== 0 && classifyIp(hostOf(url)) === 'loopback';
  if (requireHttps && url.protocol !== 'https:' && !loopbackHttp) throw new UnsafeUrlError('https_required', 'The URL must use https.');
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeUrlError('credentials_in_url', 'The URL must not contain a user name or password.');
  }
  if (url.port !== '' && !(Number(url.port) >= 1 && Number(url.port) <= 65535)) {
    throw new UnsafeUrlError('invalid_port', `Port ${url.port} is not allowed.`);
  }
  const host = hostOf(url);
  if (host === '') throw new UnsafeUrlError('invalid_url', 'The URL has no host.');
  if (isIP(host)) {
    const cls = classifyIp(host);
    if (!addressAllowed(cls, allowLoopback))
      throw new UnsafeUrlError('address_not_allowed', `Address ${host} is ${cls}, not a public address.`);
  }
  return url;
}

/** Request validation without DNS: see checkUrlSyntax. */
export function isUrlSyntacticallyAllowed(url: string, opts: UrlSyntaxOptions): boolean {
  try {
    checkUrlSyntax(url, opts);
    return true;
  } catch (e) {
    if (e instanceof UnsafeUrlError) return false;
    throw e;
  }
}

export interface CheckOptions {
  /** Loopback addresses are allowed (local runs and tests only). */
  allowLoopback: boolean;
  requireHttps: boolean;
  allowLoopbackHttp?: boolean;
  resolver?: Resolver;
}

/**
 * The delivery-time check: syntax as above, then the host resolved once; EVERY resolved address
 * must be public (or loopback when allowed). Returns the address to connect to (the first one).
 */
export async function checkWebhookUrl(
  raw: string,
  { allowLoopback, requireHttps, allowLoopbackHttp, resolver = defaultResolver }: CheckOptions,
): Promise<{ url: URL; address: string; family: 4 | 6 }> {
  const url = checkUrlSyntax(raw, { requireHttps, allowLoopback, allowLoopbackHttp });
  const host = hostOf(url);
  const literal = isIP(host);
  if (literal) return { url, address: host, family: literal === 6 ? 6 : 4 };

  let resolved: Array<{ address: string; family: 4 | 6 }>;
  try {
    resolved = await resolver(host);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UnsafeUrlError('dns_error', `${host} did not resolve (${code}).`, true);
  }
  if (resolved.length === 0) throw new UnsafeUrlError('dns_error', `${host} resolved to no address.`, true);
  for (const { address } of resolved) {
    const cls = classifyIp(address);
    if (!addressAllowed(cls, allowLoopback)) {
      throw new UnsafeUrlError('address_not_allowed', `${host} resolves to ${address}, which is ${cls}, not a public address.`);
    }
  }
  const first = resolved[0]!;
  return { url, address: first.address, family: isIP(first.address) === 6 ? 6 : 4 };
}
