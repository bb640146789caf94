/** Request schemas of the provider callback routes (their bodies are the provider's, parsed by its connector). */
import * as z from './zod';

export const providerTokenPath = z.object({
  token: z.string().check(z.minLength(1), z.maxLength(256)),
});

/** A Pix Automático callback's path: the webhook token and which callback (`rec`: recurrences, `cobr`: charges). */
export const recurrenceCallbackPath = z.object({
  token: z.string().check(z.minLength(1), z.maxLength(256)),
  callback: z.enum(['rec', 'cobr']),
});
