/** Shared steps of the hosted checkout browser tests. */
import type { Page } from 'playwright-core';
import { seriousViolations } from '../support/browser';

export const CPF = '52998224725';
export const CURP = 'BOXW310820HNERXN09';
export const ARG_DNI = '30123456';

export async function fillCustomer(page: Page, document: string, name = 'Ana Silva', email = 'ana@example.com') {
  await page.fill('#f-name', name);
  await page.fill('#f-email', email);
  await page.fill('#f-document', document);
}

export async function fillCard(page: Page, number: string, expiry = '12/30', cvc = '123', holder = 'ANA SILVA') {
  await page.fill('#f-number', number);
  await page.fill('#f-expiry', expiry);
  await page.fill('#f-cvc', cvc);
  await page.fill('#f-holder', holder);
}

export async function chooseMethod(page: Page, id: string) {
  await page.check(`input[name=payment_method][value=${id}]`);
}

/** Clicks Pay and returns the process response body. */
export async function pay(page: Page): Promise<Record<string, any>> {
  const [response] = await Promise.all([page.waitForResponse('**/api/v1/checkout/process'), page.click('#submit')]);
  return response.json();
}

export async function expectAccessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
}

/** Reads the ITF bars back from the boleto SVG (narrow or wide by width) and decodes the digits. */
export function decodeItf(svg: { x: number; width: number }[]): string {
  const narrow = Math.min(...svg.map((r) => r.width));
  const bars = svg.map((r) => (r.width > narrow * 2 ? 1 : 0));
  const spaces = svg.slice(1).map((r, i) => (r.x - (svg[i]!.x + svg[i]!.width) > narrow * 2 ? 1 : 0));
  const PATTERNS = ['00110', '10001', '01001', '11000', '00101', '10100', '01100', '00011', '10010', '01010'];
  // start: 2 narrow bars; stop: wide bar, narrow bar
  expect(bars.slice(0, 2)).toEqual([0, 0]);
  expect(bars.slice(-2)).toEqual([1, 0]);
  let digits = '';
  for (let i = 2; i + 5 <= bars.length - 2; i += 5) {
    const b = bars.slice(i, i + 5).join('');
    const s = spaces.slice(i, i + 5).join('');
    digits += String(PATTERNS.indexOf(b)) + String(PATTERNS.indexOf(s));
  }
  return digits;
}
