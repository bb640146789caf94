/**
 * The check of the unguessable token in an API Pix callback URL (`/providers/api-pix/{token}/pix|rec|cobr`), one for
 * every callback the PSP posts (Pix received, recurrences, recurring charges).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Hashing both sides gives equal lengths, so the comparison is constant-time whatever was sent. */
export function webhookTokenMatcher(expected: string): (token: string) => boolean {
  const want = digest(expected);
  return (token) => timingSafeEqual(digest(token), want);
}
