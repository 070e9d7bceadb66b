import { describe, expect, it } from 'vitest';
import { fold } from '../core/decider';
import { checkedCategorization, promptCategories } from '../ai/language-model';
import { aiFeatureOn, DEFAULT_SETTINGS, SERVER_MAX_FILE_SIZE, settingsDecider, withDefaults, type SettingsCommand, type SettingsEvent } from './settings';

/** Given past events, when a command, then events or an error. */
const given = (events: SettingsEvent[]) => ({
  when: (command: Omit<SettingsCommand, 'type' | 'companyId' | 'role'> & { role?: SettingsCommand['role'] }) =>
    () => settingsDecider.decide({ type: 'ChangeSetting', companyId: 'c1', ...command, role: command.role ?? 'admin' }, fold(settingsDecider, events)),
});
const changed = (key: SettingsEvent['data']['key'], value: SettingsEvent['data']['value'], description?: string): SettingsEvent =>
  ({ type: 'CompanySettingChanged', data: { companyId: 'c1', key, value, ...(description ? { description } : {}) } });

describe('settings decider', () => {
  it('records a valid change by an admin, parsed to its type', () => {
    expect(given([]).when({ key: 'autoMatchThreshold', value: '80' })()).toEqual([changed('autoMatchThreshold', 80)]);
    expect(given([]).when({ key: 'aiEnabled', value: 'false' })()).toEqual([changed('aiEnabled', false)]);
    expect(given([]).when({ key: 'maxFileSize', value: 2 * 1024 * 1024, description: ' Two MB ' })()).toEqual([changed('maxFileSize', 2 * 1024 * 1024, 'Two MB')]);
    expect(given([changed('llmFallbackModel', 'm2')]).when({ key: 'llmFallbackModel', value: null })()).toEqual([changed('llmFallbackModel', null)]);
  });

  it('refuses non-admins, unknown keys and values out of range', () => {
    expect(given([]).when({ key: 'aiEnabled', value: false, role: 'manager' })).toThrow(/Admin privileges/);
    expect(given([]).when({ key: 'apiKey', value: 'sk-ant' })).toThrow(/No such setting/);
    expect(given([]).when({ key: 'autoMatchThreshold', value: 100.5 })).toThrow(/0 to 100/);
    expect(given([]).when({ key: 'maxFileSize', value: SERVER_MAX_FILE_SIZE + 1 })).toThrow(/server's maximum/);
    expect(given([]).when({ key: 'duplicateDetection', value: 'no' })).toThrow(/true or false/);
    expect(given([]).when({ key: 'llmModel', value: null })).toThrow(/Choose a model/);
    expect(given([]).when({ key: 'llmModel', value: 'a b' })).toThrow(/Choose a model/);
  });

  it('decides nothing when the value (and description) would not change, defaults included', () => {
    expect(given([]).when({ key: 'autoMatchThreshold', value: DEFAULT_SETTINGS.autoMatchThreshold })()).toEqual([]);
    expect(given([changed('aiEnabled', false, 'Off')]).when({ key: 'aiEnabled', value: false })()).toEqual([]);
    expect(given([changed('aiEnabled', false, 'Off')]).when({ key: 'aiEnabled', value: false, description: 'Paused' })()).toEqual([changed('aiEnabled', false, 'Paused')]);
  });

  it('fills in defaults; a feature is on only with the master switch', () => {
    const s = withDefaults({ aiEnabled: false });
    expect(s).toMatchObject({ autoMatchThreshold: 75, maxFileSize: SERVER_MAX_FILE_SIZE, aiEnabled: false, duplicateDetection: true });
    expect(aiFeatureOn(s, 'duplicateDetection')).toBe(false);
    expect(aiFeatureOn(withDefaults({}), 'autoCategorization')).toBe(true);
  });
});

describe('language-model answers', () => {
  const categories = ['Travel', 'Meals'];
  it('keep only a category of the list (as the list spells it) or none, with a confidence 0-1', () => {
    expect(checkedCategorization({ category: 'travel', confidence: 0.8 }, categories)).toEqual({ category: 'Travel', confidence: 0.8 });
    expect(checkedCategorization({ category: 'None', confidence: 0.4 }, categories)).toEqual({ category: 'none', confidence: 0.4 });
    expect(checkedCategorization({ category: 'Meals', confidence: 85 }, categories)).toEqual({ category: 'Meals', confidence: 0.85 });
    for (const bad of [{ category: 'Lodging', confidence: 0.9 }, { category: 'Travel', confidence: -1 }, { category: 'Travel', confidence: 'high' }, { category: 7 }, null, 'Travel']) {
      expect(checkedCategorization(bad, categories), JSON.stringify(bad)).toBeNull();
    }
  });
  it('send the categories trimmed, once each, without a category named none', () => {
    expect(promptCategories([' Travel ', 'travel', 'Meals', '', 'none', 'NONE'])).toEqual(['Travel', 'Meals']);
  });
});
