/**
 * The documents a dispute's evidence may carry (DESIGN.md 9.4), as the card acquirer takes them (its disputes API's
 * limits): PDF up to 2 MB, JPEG and TIFF up to 10 MB, each only when its bytes are that type. Pure.
 */
import { isStandardBase64 } from '../base64';

/** The content types the acquirer takes for a defense document, with its size limit for each (decoded bytes). */
export const DEFENSE_CONTENT_LIMITS = {
  'application/pdf': 2 * 1024 * 1024,
  'image/jpeg': 10 * 1024 * 1024,
  'image/tiff': 10 * 1024 * 1024,
} as const;
export type DefenseContentType = keyof typeof DEFENSE_CONTENT_LIMITS;
export const DEFENSE_CONTENT_TYPES = Object.keys(DEFENSE_CONTENT_LIMITS) as DefenseContentType[];

/** The first bytes each content type starts with (PDF `%PDF-`, JPEG SOI, TIFF little- or big-endian). */
const MAGIC: Readonly<Record<keyof typeof DEFENSE_CONTENT_LIMITS, readonly Buffer[]>> = {
  'application/pdf': [Buffer.from('%PDF-', 'latin1')],
  'image/jpeg': [Buffer.from([0xff, 0xd8, 0xff])],
  'image/tiff': [Buffer.from([0x49, 0x49, 0x2a, 0x00]), Buffer.from([0x4d, 0x4d, 0x00, 0x2a])],
};

/**
 * What the acquirer would not take of a document, or null: a content type other than PDF, JPEG or TIFF, content that is not
 * base64, bytes that are not of the declared type, or more than the acquirer's limit for it (PDF 2 MB, JPEG and TIFF 10 MB).
 * The words name the rule only (never the content).
 */
export function defenseDocumentProblem(d: { mime: string; contentBase64: string }): string | null {
  const limit = (DEFENSE_CONTENT_LIMITS as Readonly<Record<string, number>>)[d.mime];
  if (limit === undefined) return 'content type must be application/pdf, image/jpeg or image/tiff';
  if (!isStandardBase64(d.contentBase64)) return 'content must be base64';
  const bytes = Buffer.from(d.contentBase64, 'base64');
  if (bytes.length > limit) return `${d.mime} over the acquirer's limit of ${limit / (1024 * 1024)} MB`;
  const magic = MAGIC[d.mime as keyof typeof MAGIC];
  if (!magic.some((m) => bytes.subarray(0, m.length).equals(m))) return `content is not ${d.mime}`;
  return null;
}
