/** API Pix's wire and our domain: derived references, the cob we ask for, what a cob or devolução read back means. */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  chargeStateOf,
  cobRequest,
  devolucaoIdOf,
  fraudReturnOf,
  minorOf,
  paymentIdOfTxid,
  refundIdOfDevolucao,
  refundStateOf,
  returnHintOf,
  txidOf,
} from '../../shared/adapters/providers/api-pix/api-pix.transformers';
import { parseProvidersConfig, ProvidersConfigError } from '../../shared/adapters/providers/providers.config';

const paymentId = () => `pi_${randomBytes(16).toString('base64url')}`;

describe('references derived from our ids', () => {
  it('a txid is pi + 32 hex digits (inside [a-zA-Z0-9]{26,35}) and maps back to the payment id', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
        const id = `pi_${Buffer.from(bytes).toString('base64url')}`;
        const txid = txidOf(id);
        expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
        expect(paymentIdOfTxid(txid)).toBe(id);
      }),
    );
  });

  it('a devolução id is re + 32 hex digits (inside [a-zA-Z0-9]{1,35}) and maps back to the refund id', () => {
    const id = `re_${randomBytes(16).toString('base64url')}`;
    expect(devolucaoIdOf(id)).toMatch(/^re[0-9a-f]{32}$/);
    expect(refundIdOfDevolucao(devolucaoIdOf(id))).toBe(id);
  });

  it('refuses what is not one of our ids, and reads no foreign txid as ours', () => {
    expect(() => txidOf('po_abc')).toThrow(RangeError);
    expect(() => txidOf('pi_short')).toThrow(RangeError);
    expect(paymentIdOfTxid('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123')).toBeNull();
    expect(paymentIdOfTxid(`pi${'0'.repeat(31)}`)).toBeNull();
  });
});

describe('the cob we ask for', () => {
  const base = {
    paymentId: paymentId(),
    amountMinor: 5000,
    merchantName: 'Loja',
    createdAt: '2026-11-24T10:00:00.000Z',
    expiresAt: '2026-11-24T10:30:00.000Z',
  };

  it('expiry in seconds, the amount with two decimals, the key, the debtor by CPF, the payer request', () => {
    expect(
      cobRequest({ ...base, debtor: { document: '52998224725', name: 'Ana Silva' }, description: 'Pedido 42' }, 'chave@loja.com'),
    ).toEqual({
      calendario: { expiracao: 1800 },
      devedor: { cpf: '52998224725', nome: 'Ana Silva' },
      valor: { original: '50.00' },
      chave: 'chave@loja.com',
      solicitacaoPagador: 'Pedido 42',
    });
  });

  it('a CNPJ debtor; no debtor without a document; 140 characters at most', () => {
    expect(cobRequest({ ...base, debtor: { document: '11222333000181', name: 'Empresa' } }, 'k').devedor).toEqual({
      cnpj: '11222333000181',
      nome: 'Empresa',
    });
    const r = cobRequest({ ...base, description: 'x'.repeat(300) }, 'k');
    expect(r.devedor).toBeUndefined();
    expect(r.solicitacaoPagador).toHaveLength(140);
    expect(cobRequest({ ...base, amountMinor: 1 }, 'k').valor.original).toBe('0.01');
  });

  it('the same payment gives the same request every time (a retry repeats it)', () => {
    expect(cobRequest(base, 'k')).toEqual(cobRequest({ ...base }, 'k'));
  });
});

describe('a cob read back', () => {
  const cob = {
    calendario: { criacao: '2026-11-24T10:00:00Z', expiracao: 1800 },
    txid: 'pi0123456789abcdef0123456789abcdef',
    revisao: 0,
    loc: { id: 7, location: 'pix.example.com/qr/v2/abc', tipoCob: 'cob' },
    status: 'ATIVA',
    valor: { original: '50.00' },
    chave: 'k',
    pixCopiaECola: '00020101021226...',
  } as const;

  it('ATIVA is open until criacao + expiracao, with the code and the location', () => {
    expect(chargeStateOf(cob as never)).toEqual({
      kind: 'open',
      expiresAt: '2026-11-24T10:30:00.000Z',
      charge: { pixCode: cob.pixCopiaECola, txid: cob.txid, details: { revisao: '0', location: 'pix.example.com/qr/v2/abc' } },
    });
  });

  it('CONCLUIDA is paid, with each Pix in minor units and its devoluções by our refund id', () => {
    const refundId = `re_${randomBytes(16).toString('base64url')}`;
    const state = chargeStateOf({
      ...cob,
      status: 'CONCLUIDA',
      pix: [
        {
          endToEndId: 'E12345678202611241000abcdefghijk',
          valor: '50.00',
          horario: '2026-11-24T10:05:00Z',
          devolucoes: [
            {
              id: devolucaoIdOf(refundId),
              rtrId: 'D1',
              valor: '10.00',
              horario: { solicitacao: '2026-11-24T11:00:00Z' },
              status: 'EM_PROCESSAMENTO',
            },
          ],
        },
      ],
    } as never);
    expect(state).toMatchObject({
      kind: 'paid',
      received: [
        {
          endToEndId: 'E12345678202611241000abcdefghijk',
          amountMinor: 5000,
          paidAt: '2026-11-24T10:05:00.000Z',
          refunds: [{ refundId, kind: 'pending' }],
          fraudReturns: [],
        },
      ],
    });
  });

  it('REMOVIDA_* is removed; amounts are exact in minor units', () => {
    expect(chargeStateOf({ ...cob, status: 'REMOVIDA_PELO_PSP' } as never)).toEqual({ kind: 'removed', received: [] });
    expect(minorOf('0.29')).toBe(29);
    expect(minorOf('1234567.89')).toBe(123456789);
  });

  it('a devolução: DEVOLVIDO succeeded, NAO_REALIZADO failed (declined_by_bank), a foreign id is not ours', () => {
    const id = devolucaoIdOf(`re_${randomBytes(16).toString('base64url')}`);
    const d = { id, rtrId: 'D1', valor: '1.00', horario: { solicitacao: '2026-11-24T11:00:00Z', liquidacao: '2026-11-24T11:01:00Z' } };
    expect(refundStateOf({ ...d, status: 'DEVOLVIDO' } as never)).toMatchObject({ kind: 'succeeded', at: '2026-11-24T11:01:00Z' });
    expect(refundStateOf({ ...d, status: 'NAO_REALIZADO' } as never)).toMatchObject({ kind: 'failed', reason: 'declined_by_bank' });
    expect(refundStateOf({ ...d, id: 'OTHER1', status: 'DEVOLVIDO' } as never)).toBeNull();
  });

  it('a MED return (MED_FRAUDE, MED_OPERACIONAL) that was made is a fraud return, never a refund; ours never is', () => {
    const ours = devolucaoIdOf(`re_${randomBytes(16).toString('base64url')}`);
    const h = { solicitacao: '2026-11-24T11:00:00Z', liquidacao: '2026-11-24T11:01:00Z' };
    const d = (over: Record<string, unknown>) =>
      ({ id: 'med123', rtrId: 'D1', valor: '12.34', horario: h, status: 'DEVOLVIDO', ...over }) as never;
    expect(fraudReturnOf(d({ natureza: 'MED_FRAUDE' }))).toEqual({ id: 'med123', amountMinor: 1234, at: '2026-11-24T11:01:00.000Z' });
    expect(fraudReturnOf(d({ natureza: 'MED_OPERACIONAL' }))).toMatchObject({ amountMinor: 1234 });
    expect(fraudReturnOf(d({ natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO' }))).toBeNull();
    expect(fraudReturnOf(d({ natureza: 'MED_FRAUDE', status: 'NAO_REALIZADO' }))).toBeNull();
    expect(fraudReturnOf(d({ natureza: 'ORIGINAL' }))).toBeNull();
    expect(fraudReturnOf(d({}))).toBeNull();
    expect(fraudReturnOf(d({ id: ours, natureza: 'MED_FRAUDE' }))).toBeNull();
    expect(refundStateOf(d({ natureza: 'MED_FRAUDE' }))).toBeNull();

    const pix = (devolucoes: unknown[]) => ({ endToEndId: 'E1', valor: '20.00', horario: h.solicitacao, devolucoes }) as never;
    expect(returnHintOf(pix([d({ id: ours, natureza: 'ORIGINAL' })]))).toBe(false);
    expect(returnHintOf(pix([]))).toBe(false);
    expect(returnHintOf(pix([d({ natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO' })]))).toBe(true);
    expect(returnHintOf(pix([d({ id: ours, natureza: 'ORIGINAL' }), d({})]))).toBe(true);
    const cobWith = chargeStateOf({
      ...cob,
      status: 'CONCLUIDA',
      pix: [
        {
          endToEndId: 'E12345678202611241000abcdefghijk',
          valor: '50.00',
          horario: h.solicitacao,
          devolucoes: [d({ natureza: 'MED_FRAUDE' })],
        },
      ],
    } as never);
    expect(cobWith).toMatchObject({ kind: 'paid', received: [{ refunds: [], fraudReturns: [{ id: 'med123', amountMinor: 1234 }] }] });
  });
});

describe('the providers document', () => {
  const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
  const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----';
  const apiPix = {
    base_url: 'https://psp.example/api/v2',
    token_url: 'https://psp.example/oauth/token',
    client_id: 'id',
    client_secret: 's3cr3t-value',
    certificate_pem: PEM_CERT,
    private_key_pem: PEM_KEY,
    pix_key: 'chave@loja.com',
    webhook_token: 'a'.repeat(40),
  };

  it('every provider is optional; a full api_pix block parses', () => {
    expect(parseProvidersConfig('{}', 'f')).toEqual({});
    expect(parseProvidersConfig({ api_pix: apiPix }, 'f').api_pix?.pix_key).toBe('chave@loja.com');
  });

  it('names each bad field and never echoes a value', () => {
    const bad = { api_pix: { ...apiPix, base_url: 'http://psp.example', webhook_token: 'short', client_secret: '' } };
    let err: unknown;
    try {
      parseProvidersConfig(bad, 'providers.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProvidersConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('api_pix.base_url');
    expect(msg).toContain('api_pix.webhook_token');
    expect(msg).toContain('api_pix.client_secret');
    expect(msg).not.toContain('short');
    expect(() => parseProvidersConfig('{not json', 'f')).toThrow(/not JSON/);
    expect(() => parseProvidersConfig({ api_pix: { ...apiPix, extra: 1 } }, 'f')).toThrow(/api_pix/);
  });
});
