import { afterAll, beforeAll } from 'vitest';
import { startTwilioFake, type TwilioFake } from './twilio-fake';

/**
 * A file's loopback Twilio: started before its tests with the Twilio variables pointing at it (the
 * process's own values put back after), `configure` telling it where Steward's webhooks are, and
 * E.164 numbers under `numberPrefix` (7 digits, so files never share a number). Register it before
 * the file's own hooks: they run after this one's.
 */
export function useTwilioFake(numberPrefix: string, configure: (fake: TwilioFake) => void) {
  let fake: TwilioFake | undefined;
  const saved: Record<string, string | undefined> = {};
  let numbers = 0;
  beforeAll(async () => {
    fake = await startTwilioFake();
    for (const [k, v] of Object.entries(fake.env())) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    configure(fake);
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await fake?.close();
  });
  return {
    get fake(): TwilioFake {
      if (!fake) throw new Error('the Twilio fake starts in beforeAll');
      return fake;
    },
    nextNumber: () => `${numberPrefix}${String(1000 + numbers++).padStart(4, '0')}`,
  };
}
