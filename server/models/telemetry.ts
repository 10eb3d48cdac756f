import type { TelemetrySettings } from 'ai';
import { tracingOn } from '@/server/http/tracing';

/**
 * The ai SDK's own OpenTelemetry spans for a model call (model id, tokens, timing), on whenever
 * Steward traces (server/http/tracing.ts). Prompts and answers are never recorded: they are the
 * user's words and the account's data, not telemetry.
 */
export function modelTelemetry(functionId: string): TelemetrySettings {
  return { isEnabled: tracingOn, recordInputs: false, recordOutputs: false, functionId };
}
