/** Sample request data shared by the HTTP test helpers and the in-memory use-case fixtures (no AWS imports). */
export const CPF = '52998224725';
export const customer = { name: 'Ana Silva', email: 'ana@example.com', document: CPF };

/** A PIX payout (or refund) beneficiary whose payouts complete in the sandbox: a CPF with an e-mail key. */
export const pixBeneficiary = {
  name: 'Ana Silva',
  document: CPF,
  document_type: 'CPF',
  instant_transfer_key: 'ana@example.com',
  instant_transfer_type: 'email',
};

/** The checkout session most tests create: 100.50 BRL with an order number and metadata. */
export const SESSION_BODY = {
  amount: 100.5,
  currency: 'BRL',
  country: 'BRA',
  success_url: 'https://shop.example/ok',
  cancel_url: 'https://shop.example/cancel',
  order_number: 'ORD-1',
  metadata: { cart: '42' },
} as const;
