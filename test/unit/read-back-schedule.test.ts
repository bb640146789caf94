/** When a payment a provider holds is read back: 10, 30 and 60 s after it was made, then every interval. */
import { firstReadBackAt, nextReadBackAt } from '../../shared/domain/payments/read-back';

const made = '2026-11-25T12:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(made) + seconds * 1000);
const offset = (iso: string) => (Date.parse(iso) - Date.parse(made)) / 1000;

describe('read-back schedule', () => {
  it('reads a young payment back at 10, 30 and 60 s, then every interval from the last read', () => {
    expect(offset(firstReadBackAt(made))).toBe(10);
    expect(offset(nextReadBackAt(made, at(0), 120))).toBe(10);
    expect(offset(nextReadBackAt(made, at(10), 120))).toBe(30);
    expect(offset(nextReadBackAt(made, at(12.5), 120))).toBe(30);
    expect(offset(nextReadBackAt(made, at(30), 120))).toBe(60);
    expect(offset(nextReadBackAt(made, at(60), 120))).toBe(180);
    expect(offset(nextReadBackAt(made, at(500), 120))).toBe(620);
  });

  it('a read late for its slot (a busy job) goes to the next one, never back in time', () => {
    for (let t = 0; t < 400; t += 7) expect(Date.parse(nextReadBackAt(made, at(t), 120))).toBeGreaterThan(at(t).getTime());
  });
});
