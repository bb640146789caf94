/**
 * SSRF guard for webhook URLs (DESIGN.md section 5): address classification for IPv4, IPv6 and
 * IPv6 embeddings of IPv4, and the URL checks with a stub resolver (no real DNS).
 */
import {
  checkUrlSyntax,
  checkWebhookUrl,
  classifyIp,
  isUrlSyntacticallyAllowed,
  UnsafeUrlError,
  type IpClass,
  type Resolver,
} from '../../shared/adapters/webhooks/ssrf-guard';

const cases: Array<[string, IpClass]> = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
  ['223.255.255.255', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['1.0.0.0', 'public'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['100.64.0.0', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['169.253.255.255', 'public'],
  ['169.255.0.0', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.0.0.8', 'reserved'],
  ['192.0.1.1', 'public'],
  ['192.0.2.1', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['198.17.255.255', 'public'],
  ['198.20.0.0', 'public'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['203.0.114.0', 'public'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:80b::200e', 'public'],
  ['[2001:4860:4860::8888]', 'public'],
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fbff:ffff::1', 'reserved'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'private'],
  ['feff::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:db8:ffff::1', 'reserved'],
  ['2001:db9::1', 'public'],
  ['100::1', 'reserved'],
  ['100::ffff:ffff:ffff:ffff', 'reserved'],
  ['100:0:0:1::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['3fff::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['1::1', 'reserved'],
  // IPv4-mapped, dotted and hex forms
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  // IPv4-compatible (deprecated)
  ['::127.0.0.1', 'loopback'],
  ['::a9fe:a9fe', 'link-local'],
  ['::8.8.8.8', 'public'],
  ['::0.0.0.2', 'unspecified'],
  // NAT64 well-known and local-use prefixes
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['64:ff9b::169.254.169.254', 'link-local'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::c0a8:101', 'private'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b:1::a9fe:a9fe', 'link-local'],
  ['64:ff9b:1::808:808', 'public'],
  ['64:ff9b:1::a00:1', 'private'],
  ['64:ff9b:1:a9fe:a9:fe00::', 'unspecified'], // RFC 6052 /48 form of 169.254.169.254: its /96 reading is 0.0.0.0
  ['64:ff9b:1:0:a:0:800:0', 'private'], // /64 form of 10.0.0.8 (its /96 reading, 8.0.0.0, is public)
  ['64:ff9b:1:0:8:808:800:0', 'public'], // /64 form of 8.8.8.8
  // 6to4
  ['2002:7f00:1::1', 'loopback'],
  ['2002:a9fe:a9fe::', 'link-local'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', 'public'],
  // invalid
  ['', 'invalid'],
  ['localhost', 'invalid'],
  ['127.1', 'invalid'],
  ['010.0.0.1', 'invalid'],
  ['256.0.0.1', 'invalid'],
  ['1.2.3.4 ', 'invalid'],
  ['::ffff:999.0.0.1', 'invalid'],
  ['12345::', 'invalid'],
  ['1:2:3:4:5:6:7:8:9', 'invalid'],
];

describe('classifyIp', () => {
  it.each(cases)('%s is %s', (ip, cls) => {
    expect(classifyIp(ip)).toBe(cls);
  });
});

/** A stub DNS: name -> addresses; unknown names fail like getaddrinfo. */
function stub(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string) => {
    calls.push(host);
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolver, { calls });
}

const reasonOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UnsafeUrlError);
    return (e as UnsafeUrlError).reason;
  }
  throw new Error('expected an UnsafeUrlError');
};

describe('checkWebhookUrl', () => {
  const strict = { allowLoopback: false, requireHttps: true };
  const local = { allowLoopback: true, requireHttps: false };

  it('accepts a name whose every address is public, returning the first to connect to', async () => {
    const resolver = stub({ 'merchant.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const r = await checkWebhookUrl('https://Merchant.Example/hooks?x=1', { ...strict, resolver });
    expect(r).toEqual({ url: new URL('https://merchant.example/hooks?x=1'), address: '93.184.216.34', family: 4 });
    expect(resolver.calls).toEqual(['merchant.example']);
    const v6 = await checkWebhookUrl('https://v6.example:8443/', { ...strict, resolver: stub({ 'v6.example': ['2606:4700:4700::1111'] }) });
    expect(v6).toMatchObject({ address: '2606:4700:4700::1111', family: 6 });
  });

  it.each(cases.filter(([, cls]) => cls !== 'public' && cls !== 'loopback' && cls !== 'invalid'))(
    'refuses a name resolving to %s (%s), even with loopback allowed',
    async (ip, cls) => {
      const resolver = stub({ 'evil.example': [ip.replace(/^\[|\]$/g, '')] });
      await expect(checkWebhookUrl('https://evil.example/', { ...strict, resolver })).rejects.toThrow(cls);
      expect(await reasonOf(checkWebhookUrl('http://evil.example/', { ...local, resolver }))).toBe('address_not_allowed');
    },
  );

  it('a name resolving to 127.0.0.1 is refused unless loopback is allowed', async () => {
    const resolver = stub({ localhost: ['127.0.0.1'], 'v6-local': ['::1'] });
    expect(await reasonOf(checkWebhookUrl('https://localhost/', { ...strict, resolver }))).toBe('address_not_allowed');
    expect(await reasonOf(checkWebhookUrl('https://v6-local/', { ...strict, resolver }))).toBe('address_not_allowed');
    await expect(checkWebhookUrl('http://localhost:4000/hook', { ...local, resolver })).resolves.toMatchObject({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(checkWebhookUrl('http://v6-local/', { ...local, resolver })).resolves.toMatchObject({ address: '::1', family: 6 });
  });

  it('every resolved address must pass: one public and one private is refused', async () => {
    const resolver = stub({ 'mixed.example': ['93.184.216.34', '10.0.0.5'], 'mixed6.example': ['2606:4700:4700::1111', 'fd00::5'] });
    await expect(checkWebhookUrl('https://mixed.example/', { ...strict, resolver })).rejects.toThrow('10.0.0.5, which is private');
    await expect(checkWebhookUrl('https://mixed6.example/', { ...strict, resolver })).rejects.toThrow('fd00::5');
    // Loopback allowed does not open private addresses.
    const lo = stub({ 'lo-and-private': ['127.0.0.1', '192.168.1.1'] });
    expect(await reasonOf(checkWebhookUrl('http://lo-and-private/', { ...local, resolver: lo }))).toBe('address_not_allowed');
  });

  it('a resolver answer that is not an address is refused', async () => {
    const resolver = stub({ 'weird.example': ['not-an-ip'] });
    await expect(checkWebhookUrl('https://weird.example/', { ...strict, resolver })).rejects.toThrow('invalid');
  });

  it('DNS failures and empty answers are dns_error, marked retryable', async () => {
    const resolver = stub({ 'empty.example': [] });
    for (const url of ['https://empty.example/', 'https://nxdomain.example/']) {
      const err = await checkWebhookUrl(url, { ...strict, resolver }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect(err).toMatchObject({ reason: 'dns_error', retryable: true });
    }
    const refused = await checkWebhookUrl('https://10.0.0.1/', strict).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'address_not_allowed', retryable: false });
  });

  it('literal IPs are classified without DNS; IPv6 literals and obfuscated IPv4 forms too', async () => {
    const resolver = stub({});
    for (const url of [
      'https://[::1]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[::ffff:7f00:1]/',
      'https://[fe80::1]/',
      'https://[2002:a9fe:a9fe::1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      'https://0x7f.1/',
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://0/',
      'https://[::]/',
    ]) {
      expect(await reasonOf(checkWebhookUrl(url, { ...strict, resolver }))).toBe('address_not_allowed');
    }
    expect(resolver.calls).toEqual([]);
    await expect(checkWebhookUrl('https://8.8.8.8:8443/x', { ...strict, resolver })).resolves.toMatchObject({
      address: '8.8.8.8',
      family: 4,
    });
    await expect(checkWebhookUrl('https://[2606:4700:4700::1111]/', { ...strict, resolver })).resolves.toMatchObject({
      address: '2606:4700:4700::1111',
      family: 6,
    });
    await expect(checkWebhookUrl('http://127.0.0.1:3000/', { ...local, resolver })).resolves.toMatchObject({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(checkWebhookUrl('http://[::1]:3000/', { ...local, resolver })).resolves.toMatchObject({ address: '::1', family: 6 });
    expect(await reasonOf(checkWebhookUrl('http://[::ffff:169.254.169.254]/', { ...local, resolver }))).toBe('address_not_allowed');
    expect(resolver.calls).toEqual([]);
  });

  it('scheme, credentials and port rules', async () => {
    const resolver = stub({ 'merchant.example': ['93.184.216.34'] });
    expect(await reasonOf(checkWebhookUrl('http://merchant.example/', { ...strict, resolver }))).toBe('https_required');
    await expect(
      checkWebhookUrl('http://merchant.example/', { allowLoopback: false, requireHttps: false, resolver }),
    ).resolves.toMatchObject({ address: '93.184.216.34' });
    expect(await reasonOf(checkWebhookUrl('http://user:pass@merchant.example/', { ...local, resolver }))).toBe('credentials_in_url');
    expect(await reasonOf(checkWebhookUrl('https://user@merchant.example/', { ...strict, resolver }))).toBe('credentials_in_url');
    expect(await reasonOf(checkWebhookUrl('https://:pass@merchant.example/', { ...strict, resolver }))).toBe('credentials_in_url');
    for (const url of [
      'file:///etc/passwd',
      'gopher://merchant.example:70/_x',
      'ftp://merchant.example/',
      'ws://merchant.example/',
      'javascript:alert(1)',
      'data:text/plain,x',
    ]) {
      expect(await reasonOf(checkWebhookUrl(url, { ...local, resolver }))).toBe('scheme_not_allowed');
    }
    expect(await reasonOf(checkWebhookUrl('https://merchant.example:0/', { ...strict, resolver }))).toBe('invalid_port');
    expect(await reasonOf(checkWebhookUrl('https://merchant.example:65536/', { ...strict, resolver }))).toBe('invalid_url');
    await expect(checkWebhookUrl('https://merchant.example:65535/', { ...strict, resolver })).resolves.toBeDefined();
    await expect(checkWebhookUrl('https://merchant.example:1/', { ...strict, resolver })).resolves.toBeDefined();
    expect(await reasonOf(checkWebhookUrl('/relative/path', { ...strict, resolver }))).toBe('invalid_url');
    expect(await reasonOf(checkWebhookUrl('not a url', { ...strict, resolver }))).toBe('invalid_url');
  });

  it('uses the system resolver by default (localhost, no network needed)', async () => {
    await expect(checkWebhookUrl('http://localhost:1/', { allowLoopback: true, requireHttps: false })).resolves.toMatchObject({
      url: expect.any(URL),
    });
    expect(await reasonOf(checkWebhookUrl('http://localhost:1/', { allowLoopback: false, requireHttps: false }))).toBe(
      'address_not_allowed',
    );
  });
});

describe('isUrlSyntacticallyAllowed / checkUrlSyntax (no DNS)', () => {
  it.each([
    ['https://merchant.example/hook', true, true],
    ['http://merchant.example/hook', true, false],
    ['http://merchant.example/hook', false, true],
    ['https://user:pass@merchant.example/', true, false],
    ['file:///etc/passwd', false, false],
    ['gopher://merchant.example/', false, false],
    ['https://merchant.example:0/', true, false],
    ['https://10.0.0.1/', true, false],
    ['https://[::ffff:169.254.169.254]/', true, false],
    ['https://[64:ff9b::a9fe:a9fe]/', true, false],
    ['https://8.8.8.8/', true, true],
    ['http://127.0.0.1:3000/', false, true], // loopback is a delivery-time decision by default
    ['not a url', false, false],
  ])('%s (requireHttps %s) -> %s', (url, requireHttps, allowed) => {
    expect(isUrlSyntacticallyAllowed(url, { requireHttps })).toBe(allowed);
  });

  it('refuses loopback literals when told so, and never resolves names', () => {
    expect(isUrlSyntacticallyAllowed('https://[::1]/', { requireHttps: true, allowLoopback: false })).toBe(false);
    expect(isUrlSyntacticallyAllowed('https://127.0.0.1/', { requireHttps: true, allowLoopback: false })).toBe(false);
    expect(isUrlSyntacticallyAllowed('https://localhost/', { requireHttps: true, allowLoopback: false })).toBe(true);
    expect(checkUrlSyntax('https://Merchant.Example./x', { requireHttps: true }).hostname).toBe('merchant.example.');
  });
});
