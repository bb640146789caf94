/**
 * Body parsing and zod validation of query, path and body. Every bad field is
 * named in the 400; unknown fields are dropped by the schemas (z.object strips).
 */
import type middy from '@middy/core';
import * as z from '../../domain/zod';
import { AppError, type FieldError } from '../../domain/errors';
import type { HttpEvent, HttpResult, PipelineContext } from '../types';

export const MAX_BODY_BYTES = 64 * 1024;

export interface InputSchemas {
  readonly query?: z.core.$ZodType;
  readonly path?: z.core.$ZodType;
  readonly body?: z.core.$ZodType;
}

function issuesOf(schema: z.core.$ZodType, value: unknown, location: string): { data: unknown; errors: FieldError[] } {
  const res = z.safeParse(schema, value);
  if (res.success) return { data: res.data, errors: [] };
  return {
    data: undefined,
    errors: res.error.issues.flatMap((i) => {
      const at = i.path.map(String);
      // A field the schema does not take (a strict object): each one named, not the object holding it.
      if (i.code === 'unrecognized_keys')
        return i.keys.map((k) => ({ field: [...at, k].join('.'), message: 'is not a field of this request' }));
      return [{ field: at.length > 0 ? at.join('.') : location, message: i.message }];
    }),
  };
}

function parseBody(event: HttpEvent, format: 'json' | 'form' | 'raw', maxBytes: number): unknown {
  const raw = event.body;
  // The handler parses it itself, after its own checks (a provider callback: the path token first).
  if (format === 'raw') return undefined;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new AppError('VALIDATION_ERROR', `Request body is larger than ${maxBytes / 1024} KB.`, {
      details: [{ field: 'body', message: `must be at most ${maxBytes} bytes` }],
    });
  }
  const contentType = (event.headers?.['content-type'] ?? '').toLowerCase();
  if (format === 'form') {
    if (!contentType.startsWith('application/x-www-form-urlencoded')) {
      throw new AppError('VALIDATION_ERROR', 'Content-Type must be application/x-www-form-urlencoded.', {
        details: [{ field: 'content-type', message: 'must be application/x-www-form-urlencoded' }],
      });
    }
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/.test(contentType)) {
    throw new AppError('VALIDATION_ERROR', 'Content-Type must be application/json.', {
      details: [{ field: 'content-type', message: 'must be application/json' }],
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Request body is not valid JSON.', {
      details: [{ field: 'body', message: 'malformed JSON' }],
    });
  }
}

export function validation(schemas: InputSchemas): middy.MiddlewareObj<HttpEvent, HttpResult, Error, PipelineContext> {
  return {
    before: (request) => {
      const event = request.event;
      const errors: FieldError[] = [];
      const input: PipelineContext['input'] = { query: {}, path: {}, body: undefined };
      const route = request.context.route;
      const body = parseBody(event, route?.bodyFormat ?? 'json', route?.maxBodyBytes ?? MAX_BODY_BYTES);
      const parts = [
        ['query', schemas.query, event.queryStringParameters ?? {}],
        ['path', schemas.path, event.pathParameters ?? {}],
        ['body', schemas.body, body],
      ] as const;
      for (const [location, schema, value] of parts) {
        if (!schema) continue;
        const r = issuesOf(schema, value, location);
        errors.push(...r.errors);
        input[location] = r.data;
      }
      if (errors.length > 0) {
        throw new AppError('VALIDATION_ERROR', `Invalid request parameters: ${errors.map((e) => e.field).join(', ')}.`, {
          details: errors,
        });
      }
      request.context.input = input;
    },
  };
}
