/** Request schemas of the provider callback routes (their bodies are the provider's, parsed by its connector). */
import * as z from './zod';

export const providerTokenPath = z.object({
  token: z.string().check(z.minLength(1), z.maxLength(256)),
});
