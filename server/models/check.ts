import { environmentModels } from './configuration';
import { modelPrices } from './prices';

/**
 * Configuration mistakes worth a line in the startup log: they do not stop Steward (a run without
 * a model ends with model_not_configured), but an operator should not learn of them from a user.
 */
export function modelConfigurationProblems(env: Record<string, string | undefined> = process.env): string[] {
  const problems: string[] = [];
  const models = environmentModels(env);
  if (models.baseUrlProblem) problems.push(models.baseUrlProblem);
  if (Object.keys(models.models).length && !models.baseUrl && !models.baseUrlProblem) {
    problems.push('STEWARD_MODEL_* names models but STEWARD_MODEL_BASE_URL is not set: runs can use only accounts’ own endpoints');
  }
  try {
    modelPrices(env);
  } catch (e) {
    problems.push((e as Error).message);
  }
  return problems;
}
