/**
 * Provider references derived from our ids, and back: our ids are a prefix and 16 random bytes in base64url; the
 * reference is two letters and those bytes in hex (34 characters), so each provider's reference of one of our
 * objects is fixed by the object, and a reference read back names it.
 */
export function toReference(id: string, prefix: string, tag: string): string {
  if (!id.startsWith(prefix)) throw new RangeError(`not a ${prefix} id`);
  const bytes = Buffer.from(id.slice(prefix.length), 'base64url');
  if (bytes.length !== 16 || bytes.toString('base64url') !== id.slice(prefix.length)) throw new RangeError(`not a ${prefix} id`);
  return `${tag}${bytes.toString('hex')}`;
}

export function fromReference(ref: string, prefix: string, tag: string): string | null {
  const m = new RegExp(`^${tag}([0-9a-f]{32})$`).exec(ref);
  return m ? `${prefix}${Buffer.from(m[1] as string, 'hex').toString('base64url')}` : null;
}
