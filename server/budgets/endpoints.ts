import { defineEndpoint } from '@/server/http/endpoint';
import {
  BudgetEnvelope,
  BudgetList,
  BudgetListQuery,
  BudgetParams,
  CreateBudgetBody,
  CreditsView,
  DeletedBudget,
  TopUpBody,
  UpdateBudgetBody,
} from './contracts';
import { userCredits } from './credits';
import { createBudget, deleteBudget, getBudget, listBudgets, topUpBudget, updateBudget } from './service';

const tags = ['Budgets'];
// Account keys manage every budget, organization admins and keys their organization's; users read their own (the service decides).
const anyone = { tags, auth: 'any' as const };

/** Credit budgets per account, organization, team and user, and what a user has left (issue: limits that hold under concurrency). */
export const budgetEndpoints = [
  defineEndpoint({
    ...anyone,
    method: 'GET',
    path: '/budgets',
    summary: 'Credit budgets the caller manages (as a user: those covering them), newest first, with the current period’s figures',
    query: BudgetListQuery,
    response: BudgetList,
    errors: [400],
    handle: ({ db, actor, query }) => listBudgets(db, actor, query),
  }),
  defineEndpoint({
    ...anyone,
    method: 'POST',
    path: '/budgets',
    summary: 'Create the credit budget of an account, organization, team or user (one per scope)',
    body: CreateBudgetBody,
    response: BudgetEnvelope,
    status: 201,
    errors: [400, 403, 404, 409],
    handle: ({ db, actor, body }) => createBudget(db, actor, body),
  }),
  defineEndpoint({
    ...anyone,
    method: 'GET',
    path: '/budgets/{budgetId}',
    summary: 'One credit budget with the current period’s spent, reserved and remaining credits',
    params: BudgetParams,
    response: BudgetEnvelope,
    errors: [404],
    handle: ({ db, actor, params }) => getBudget(db, actor, params.budgetId),
  }),
  defineEndpoint({
    ...anyone,
    method: 'PATCH',
    path: '/budgets/{budgetId}',
    summary: 'Change the period, the limit, the member share or the alert thresholds; blocked tasks resume when there is room again',
    params: BudgetParams,
    body: UpdateBudgetBody,
    response: BudgetEnvelope,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => updateBudget(db, actor, params.budgetId, body),
  }),
  defineEndpoint({
    ...anyone,
    method: 'DELETE',
    path: '/budgets/{budgetId}',
    summary: 'Remove a credit budget and its usage; it no longer holds anyone back',
    params: BudgetParams,
    response: DeletedBudget,
    errors: [403, 404],
    handle: ({ db, actor, params }) => deleteBudget(db, actor, params.budgetId),
  }),
  defineEndpoint({
    ...anyone,
    method: 'POST',
    path: '/budgets/{budgetId}/top-up',
    summary: 'Add credits to the current period (to a `none` budget’s balance for good); blocked tasks resume',
    params: BudgetParams,
    body: TopUpBody,
    response: BudgetEnvelope,
    errors: [400, 403, 404],
    handle: ({ db, actor, params, body }) => topUpBudget(db, actor, params.budgetId, body),
  }),
  defineEndpoint({
    tags,
    auth: 'user',
    method: 'GET',
    path: '/credits',
    summary: 'Every budget covering the calling user, with what it allows, has spent, holds and has left this period',
    response: CreditsView,
    handle: ({ db, actor }) => userCredits(db, actor),
  }),
];
