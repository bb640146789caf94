/** RequiredFieldInfo builders (SPEC.md 2.5): which customer fields each country's methods need. */
import type { CountryCode } from '../geo';

export const FIELD_TYPES = ['text', 'email', 'phone', 'cpf', 'dni', 'rut', 'card', 'expiry', 'cvv'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface RequiredFieldInfo {
  readonly field: string;
  readonly type: FieldType;
  readonly label: string;
  readonly required: boolean;
}

const f = (field: string, type: FieldType, label: string, required = true): RequiredFieldInfo => ({
  field,
  type,
  label,
  required,
});

/** The national document each country collects, with the RequiredFieldInfo type that validates it. */
const DOCUMENT_FIELD: Readonly<Record<CountryCode, RequiredFieldInfo>> = {
  BRA: f('document', 'cpf', 'CPF or CNPJ'),
  PER: f('document', 'dni', 'DNI'),
  COL: f('document', 'text', 'Cédula de ciudadanía (CC)'),
  CHL: f('document', 'rut', 'RUT'),
  MEX: f('document', 'text', 'CURP'),
  ECU: f('document', 'text', 'Cédula de identidad'),
  ARG: f('document', 'dni', 'DNI'),
};

const NAME = f('name', 'text', 'Full name');
const EMAIL = f('email', 'email', 'Email');
const PHONE = f('phone', 'phone', 'Mobile phone');
const PHONE_OPTIONAL = f('phone', 'phone', 'Phone', false);

export type FieldSet = 'basic' | 'wallet' | 'card' | 'crypto';

export function requiredFields(country: CountryCode | null, set: FieldSet): RequiredFieldInfo[] {
  const doc = country ? [DOCUMENT_FIELD[country]] : [];
  switch (set) {
    case 'basic':
      return [NAME, EMAIL, ...doc, PHONE_OPTIONAL];
    case 'wallet':
      return [NAME, EMAIL, ...doc, PHONE];
    case 'card':
      return [
        NAME,
        EMAIL,
        ...doc,
        f('card.number', 'card', 'Card number'),
        f('card.holder_name', 'text', 'Name on card'),
        f('card.expiry', 'expiry', 'Expiry (MM/YYYY)'),
        f('card.cvv', 'cvv', 'Security code (CVV)'),
      ];
    case 'crypto':
      return [NAME, EMAIL];
  }
}
