import { describe, expect, it } from 'vitest';
import { isReadOnly, MAX_TOOL_NAME, mcpToolName } from '@/server/workflows/mcp/names';

describe('mcp__<skill>__<tool> names', () => {
  it('reduce to [a-zA-Z0-9_-]', () => {
    expect(mcpToolName('weather desk', 'get.forecast/v2')).toBe('mcp__weather_desk__get_forecast_v2');
    expect(mcpToolName('crm', 'créer-fiche')).toBe('mcp__crm__cr_er-fiche');
  });

  it('cut at 64 characters with a short hash, distinct for names sharing a beginning, stable', () => {
    const long = 'x'.repeat(80);
    const a = mcpToolName('skill', `${long}_a`);
    const b = mcpToolName('skill', `${long}_b`);
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(b).toHaveLength(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcp__skill__x+_[0-9a-f]{8}$/);
    expect(mcpToolName('skill', `${long}_a`)).toBe(a);
    // Exactly 64: kept whole; one more: cut.
    expect(mcpToolName('s', 't'.repeat(56))).toBe(`mcp__s__${'t'.repeat(56)}`);
    expect(mcpToolName('s', 't'.repeat(57))).toMatch(/^mcp__s__t{47}_[0-9a-f]{8}$/);
  });

  it('only readOnlyHint: true is a read', () => {
    expect(isReadOnly({ readOnlyHint: true })).toBe(true);
    expect(isReadOnly({ readOnlyHint: false })).toBe(false);
    expect(isReadOnly({ destructiveHint: false })).toBe(false);
    expect(isReadOnly(null)).toBe(false);
  });
});
