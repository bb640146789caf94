/** A provider callback's JSON body (API Gateway may base64 it); malformed JSON is a 400 naming the body. */
import { AppError } from '../domain/errors';

export function readCallbackJson(body: string | undefined, base64: boolean | undefined): unknown {
  if (!body) return undefined;
  try {
    return JSON.parse(base64 ? Buffer.from(body, 'base64').toString('utf8') : body);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'The callback body is not valid JSON.', {
      details: [{ field: 'body', message: 'malformed JSON' }],
    });
  }
}
