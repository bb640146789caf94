/**
 * Whether `s` is standard base64 (RFC 4648 section 4: `A-Z a-z 0-9 + /`, `=` padding to a multiple of 4, no line
 * breaks), in one pass over its characters. Never a regular expression: a backtracking `^[...]+={0,2}$` over a
 * multi-megabyte document can overflow V8's regexp stack (a RangeError that depends on what ran before it).
 */
export function isStandardBase64(s: string): boolean {
  if (s.length === 0 || s.length % 4 !== 0) return false;
  let end = s.length;
  if (s.charCodeAt(end - 1) === 0x3d) end -= 1;
  if (s.charCodeAt(end - 1) === 0x3d) end -= 1;
  for (let i = 0; i < end; i += 1) {
    const c = s.charCodeAt(i);
    const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
    if (!ok) return false;
  }
  return end > 0;
}
