import { AppError } from '@/server/http/errors';
import type { ModelTier } from './tiers';

/**
 * No model can serve the run: the runtime ends the run with this message as an activity (task)
 * or an `error` event (chat). An AppError, so a caller that lets it escape still answers with
 * its code instead of a 500.
 */
export class ModelNotConfiguredError extends AppError {
  declare readonly code: 'model_not_configured';

  constructor(
    readonly tier: ModelTier,
    message: string,
  ) {
    super(503, 'model_not_configured', message, { tier });
    this.name = 'ModelNotConfiguredError';
  }
}
