/** Whose budget a keyless request spends: the object in its path, never a page kind shared by every payment. */
import { rateLimitSubject } from '../../shared/http/middleware/rate-limit';
import { routeById } from '../../shared/manifest/routes';
import type { HttpEvent, PipelineContext } from '../../shared/http/types';

const subject = (routeId: string, pathParameters: Record<string, string>) =>
  rateLimitSubject({ route: routeById(routeId) } as PipelineContext, { pathParameters } as unknown as HttpEvent);

describe('rateLimitSubject for keyless pages', () => {
  it('is the payment for /sandbox/{kind}/{payment_id}, so one payment’s page cannot exhaust another’s', () => {
    expect(subject('sandboxPage', { kind: '3ds', payment_id: 'pi_one' })).toBe('pi_one');
    expect(subject('sandboxComplete', { kind: '3ds', payment_id: 'pi_two' })).toBe('pi_two');
  });

  it('is the session or payment in the path for the hosted page routes', () => {
    expect(subject('checkoutStatus', { session_id: 'cs_abc' })).toBe('cs_abc');
    expect(subject('pixQrImage', { payment_id: 'pi_abc' })).toBe('pi_abc');
  });

  it('is absent for an over-long id (no unbounded keys in the table)', () => {
    expect(subject('checkoutStatus', { session_id: `cs_${'x'.repeat(100)}` })).toBeUndefined();
  });
});
