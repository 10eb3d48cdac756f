import { domainRecheck } from './domain-recheck';
import { heartbeat } from './heartbeat';

/** Every Inngest function Steward serves at /api/inngest. */
export const functions = [heartbeat, domainRecheck];
