/**
 * Certificates for the fake PSP, made at test time with node-forge: a CA, the PSP's server certificate for
 * 127.0.0.1/localhost signed by it, our client certificate signed by it, and a rogue client certificate signed
 * by another CA (what a leaked or wrong certificate looks like to the PSP). RSA 2048, valid for a day. The keys
 * come from Node's own (native) generator, and Node signs the certificates; node-forge only lays out the X.509
 * structure. Its JavaScript RSA took about 2 s of CPU per set of five keys and held the event loop meanwhile, so a
 * local stack sharing the process saw its handlers stall (BENCHMARKS.md); and on Node 21 and later, where
 * `navigator` is a global, its big-number code picks its slowest multiply, so even its five signatures cost about
 * 6 CPU-s per set on Node 24 (what CI and Lambda run).
 */
import { generateKeyPair, generateKeyPairSync, sign, type RSAKeyPairOptions } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

export interface Identity {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface PspCertificates {
  readonly ca: Identity;
  readonly server: Identity;
  readonly client: Identity;
  readonly rogueClient: Identity;
}

let serial = 1;

const RSA: RSAKeyPairOptions<'pem', 'pem'> = {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
};
type PemPair = { publicKey: string; privateKey: string };
const generateRsa = promisify(generateKeyPair) as (type: 'rsa', options: RSAKeyPairOptions<'pem', 'pem'>) => Promise<PemPair>;

/** What node-forge's `cert.sign` calls: RSA PKCS#1 v1.5 over the TBS certificate it has just laid out, by Node. */
function nativeSigner(cert: forge.pki.Certificate, keyPem: string): forge.pki.rsa.PrivateKey {
  const signer = {
    sign: () => {
      const tbs = (cert as forge.pki.Certificate & { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate;
      return sign('sha256', Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary'), keyPem).toString('binary');
    },
  };
  return signer as unknown as forge.pki.rsa.PrivateKey;
}

function issue(
  subjectCn: string,
  pem: PemPair,
  issuer: { cert: forge.pki.Certificate; pem: Identity } | null,
  opts: { ca?: boolean; server?: boolean },
) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pem.publicKey);
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const subject = [{ name: 'commonName', value: subjectCn }];
  cert.setSubject(subject);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : subject);
  const extensions: object[] = [{ name: 'basicConstraints', cA: Boolean(opts.ca) }];
  if (opts.ca) extensions.push({ name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true });
  else extensions.push({ name: 'keyUsage', digitalSignature: true, keyEncipherment: true });
  if (opts.server) {
    extensions.push({ name: 'extKeyUsage', serverAuth: true });
    extensions.push({
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
      ],
    });
  } else if (!opts.ca) extensions.push({ name: 'extKeyUsage', clientAuth: true });
  cert.setExtensions(extensions);
  cert.sign(nativeSigner(cert, issuer ? issuer.pem.keyPem : pem.privateKey), forge.md.sha256.create());
  return { cert, pem: { certPem: forge.pki.certificateToPem(cert), keyPem: pem.privateKey } };
}

function assemble([caKeys, rogueCaKeys, serverKeys, clientKeys, rogueClientKeys]: PemPair[]): PspCertificates {
  const ca = issue('Fake PSP CA', caKeys!, null, { ca: true });
  const rogueCa = issue('Some Other CA', rogueCaKeys!, null, { ca: true });
  return {
    ca: ca.pem,
    server: issue('127.0.0.1', serverKeys!, ca, { server: true }).pem,
    client: issue('latam-payments client', clientKeys!, ca, {}).pem,
    rogueClient: issue('latam-payments client', rogueClientKeys!, rogueCa, {}).pem,
  };
}

/** A fresh set, its five keys made off the event loop (a fake starts beside a running local stack). */
export async function makeCertificates(): Promise<PspCertificates> {
  return assemble(await Promise.all(Array.from({ length: 5 }, () => generateRsa('rsa', RSA))));
}

/** The same, synchronously (a unit test's module scope). */
export function makeCertificatesSync(): PspCertificates {
  return assemble(Array.from({ length: 5 }, () => generateKeyPairSync('rsa', RSA)));
}
