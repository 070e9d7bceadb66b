import {
  DEFAULT_SETTING_DESCRIPTIONS,
  withDefaults,
  type CompanySettings,
  type Doc,
  type ReadStore,
  type RecordedEvent,
  type SettingKey,
  type SettingsEvent,
  type SettingValue,
} from '@paperlink/domain';
import type { Projection } from '../core/projection';

export const COMPANY_SETTINGS = 'company_settings';

/** One document per company: the values and descriptions set so far (defaults are not stored). */
export interface CompanySettingsDoc extends Doc {
  values: Partial<Record<SettingKey, SettingValue>>;
  descriptions: Partial<Record<SettingKey, string>>;
  updatedAt: Partial<Record<SettingKey, string>>;
  updatedBy: Partial<Record<SettingKey, string>>;
}

export function evolveCompanySettings(doc: CompanySettingsDoc | null, event: RecordedEvent<SettingsEvent>): CompanySettingsDoc {
  const { companyId, key, value, description } = event.data;
  const base: CompanySettingsDoc = doc ?? { _id: companyId, values: {}, descriptions: {}, updatedAt: {}, updatedBy: {} };
  return {
    ...base,
    values: { ...base.values, [key]: value },
    descriptions: description !== undefined ? { ...base.descriptions, [key]: description } : base.descriptions,
    updatedAt: { ...base.updatedAt, [key]: event.metadata.occurredAt },
    updatedBy: event.metadata.userId ? { ...base.updatedBy, [key]: event.metadata.userId } : base.updatedBy,
  };
}

export const settingsProjection: Projection = {
  name: 'company_settings',
  version: 1,
  collections: { [COMPANY_SETTINGS]: [] },
  handles: new Set(['CompanySettingChanged']),
  async apply(event, view) {
    const e = event as RecordedEvent<SettingsEvent>;
    await view.update<CompanySettingsDoc>(COMPANY_SETTINGS, e.data.companyId, (doc) => evolveCompanySettings(doc, e));
  },
};

async function settingsDoc(store: ReadStore, companyId: string): Promise<CompanySettingsDoc | null> {
  const peeked = store.peek?.(COMPANY_SETTINGS, companyId);
  if (peeked !== undefined) return peeked as CompanySettingsDoc | null;
  return store.collection<CompanySettingsDoc>(COMPANY_SETTINGS).findOne({ _id: companyId });
}

/**
 * A company's settings with the defaults of spec section 9 filled in. Any server code may
 * call it (auto-match reads the threshold, uploads the file size, AI features their flags).
 */
export async function companySettings(store: ReadStore, companyId: string): Promise<CompanySettings> {
  return withDefaults((await settingsDoc(store, companyId))?.values ?? {});
}

export interface SettingView {
  value: SettingValue;
  description: string;
  /** Whether the value is the default (never set for this company). */
  isDefault: boolean;
  updatedAt: string | null;
}

/** Every setting as the API shows it: value, description, whether it is the default. */
export async function companySettingViews(store: ReadStore, companyId: string): Promise<Record<SettingKey, SettingView>> {
  const doc = await settingsDoc(store, companyId);
  const values = withDefaults(doc?.values ?? {});
  const out = {} as Record<SettingKey, SettingView>;
  for (const key of Object.keys(values) as SettingKey[]) {
    out[key] = {
      value: values[key],
      description: doc?.descriptions[key] ?? DEFAULT_SETTING_DESCRIPTIONS[key],
      isDefault: !(doc && key in doc.values),
      updatedAt: doc?.updatedAt[key] ?? null,
    };
  }
  return out;
}
