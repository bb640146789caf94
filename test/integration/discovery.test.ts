/** GET /api/v1/methods and /api/v1/methods/{code} over real HTTP on the local engines. */
import { startTestStack, type TestMerchant, type TestStack } from '../support/test-stack';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack();
  merchant = await stack.createMerchant();
});
afterAll(() => stack.stop());

const get = (path: string, apiKey = merchant.apiKey) => stack.request(path, { apiKey });

describe('GET /api/v1/methods', () => {
  it('lists the Brazilian methods plus card and crypto for country=BRA', async () => {
    const res = await get('/api/v1/methods?country=BRA');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const codes = res.body.methods.map((m: { method_code: string }) => m.method_code).sort();
    expect(codes).toEqual(['svc-mt-1', 'svc-mt-2', 'svc-mt-4', 'svc-mt-7', 'svc-mt-8', 'svc-mt-9'].sort());
    expect(res.body.total).toBe(6);
    const card = res.body.methods.find((m: { method_code: string }) => m.method_code === 'svc-mt-2');
    expect(card).toMatchObject({ country: 'BRA', currency: 'BRL', payment_type: 'card', flow_type: 'embedded' });
    const crypto = res.body.methods.find((m: { method_code: string }) => m.method_code === 'svc-mt-4');
    expect(crypto).toMatchObject({ currency: 'USDT', payment_type: 'crypto' });
    const pix = res.body.methods.find((m: { method_code: string }) => m.method_code === 'svc-mt-1');
    expect(pix.required_fields).toContainEqual({ field: 'document', type: 'cpf', label: 'CPF or CNPJ', required: true });
    expect(pix.min_amount).toBeGreaterThan(0);
    expect(pix.max_amount).toBeGreaterThan(pix.min_amount);
  });

  it('returns every PaymentMethodInfo field on every item', async () => {
    const res = await get('/api/v1/methods');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.methods.length);
    for (const m of res.body.methods) {
      expect(Object.keys(m).sort()).toEqual(
        [
          'country',
          'currency',
          'description',
          'flow_type',
          'max_amount',
          'method_code',
          'min_amount',
          'name',
          'payment_type',
          'required_fields',
        ].sort(),
      );
    }
  });

  it('filters by currency and payment_type together', async () => {
    const res = await get('/api/v1/methods?currency=MXN&payment_type=card');
    expect(res.status).toBe(200);
    expect(res.body.methods).toEqual([expect.objectContaining({ method_code: 'svc-mt-2', country: 'MEX', currency: 'MXN' })]);
  });

  it('uses the country document type: rut for Chile, dni for Peru', async () => {
    const chl = await get('/api/v1/methods?country=CHL');
    const types = chl.body.methods.flatMap((m: any) =>
      m.required_fields.filter((f: any) => f.field === 'document').map((f: any) => f.type),
    );
    expect(new Set(types)).toEqual(new Set(['rut']));
    const per = await get('/api/v1/methods?country=PER&payment_type=wallet');
    expect(per.body.methods[0].required_fields).toContainEqual(expect.objectContaining({ field: 'document', type: 'dni' }));
  });

  it.each([
    ['country=XXX', 'country'],
    ['currency=EUR', 'currency'],
    ['payment_type=boleto', 'payment_type'],
    ['country=bra', 'country'],
  ])('rejects %s with 400 VALIDATION_ERROR naming the parameter', async (qs, field) => {
    const res = await get(`/api/v1/methods?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([expect.objectContaining({ field })]);
  });

  it('lists only what the merchant has enabled', async () => {
    const narrow = await stack.createMerchant({ countries: ['MEX'], methods: ['svc-mt-23', 'svc-mt-2'] });
    const res = await get('/api/v1/methods', narrow.apiKey);
    expect(res.body.methods.map((m: any) => `${m.method_code}@${m.country}`).sort()).toEqual(['svc-mt-23@MEX', 'svc-mt-2@MEX']);
    const brazil = await get('/api/v1/methods?country=BRA', narrow.apiKey);
    expect(brazil.body).toEqual({ success: true, methods: [], total: 0 });
  });
});

describe('GET /api/v1/methods/{method_code}', () => {
  it('returns one local method', async () => {
    const res = await get('/api/v1/methods/svc-mt-23');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ method_code: 'svc-mt-23', country: 'MEX', currency: 'MXN', payment_type: 'bank_transfer' });
  });

  it('localises a global method with ?country=', async () => {
    const res = await get('/api/v1/methods/svc-mt-2?country=CHL');
    expect(res.body).toMatchObject({ method_code: 'svc-mt-2', country: 'CHL', currency: 'CLP' });
    const global = await get('/api/v1/methods/svc-mt-2');
    expect(global.body).toMatchObject({ country: 'GLOBAL', currency: 'USD' });
  });

  it.each(['svc-mt-999', 'svc-mt-99999', 'svc-mt-123456789'])(
    'answers 404 in the checkout error shape for the unknown code %s',
    async (code) => {
      const res = await get(`/api/v1/methods/${code}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code: 'PAYMENT_METHOD_NOT_FOUND' }) });
    },
  );

  it.each(['pix', 'svc-mt-', 'svc-mt-12a', 'SVC-MT-1'])('answers 400 for the malformed code %s', async (code) => {
    const res = await get(`/api/v1/methods/${code}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('method_code');
  });
});

describe('routing', () => {
  it('answers an unknown route with 404 JSON', async () => {
    const res = await get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await stack.request('/api/v1/methods', { method: 'DELETE', apiKey: merchant.apiKey });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('uses the direct-payment error shape under /cashier', async () => {
    const res = await get('/cashier/cashier/unknown');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), error_code: 'not_found', payment_id: null });
  });

  it('serves /health without a key and echoes a request id', async () => {
    const res = await stack.request('/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', dependencies: { dynamodb: 'ok' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
