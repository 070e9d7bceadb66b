import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { Field } from '../../../components/Field';
import { FLAG_KEYS, formatBytes, MB, type Setting, type SettingKey } from '../api/settings';
import { useSaveSettings } from '../api/queries';
import { checkGeneral } from '../rules';

const LABELS: Record<SettingKey, string> = {
  autoMatchThreshold: 'Auto-match threshold',
  maxFileSize: 'Maximum file size',
  aiEnabled: 'AI features',
  autoCategorization: 'Automatic categorisation',
  duplicateDetection: 'Duplicate detection',
};

const shown = (key: SettingKey, s: Setting | undefined) => {
  if (!s) return '—';
  if (key === 'autoMatchThreshold') return `${String(s.value)}%`;
  if (key === 'maxFileSize') return typeof s.value === 'number' ? formatBytes(s.value) : '—';
  return s.value === true ? 'Enabled' : 'Disabled';
};

function Rows({ keys, settings }: { keys: readonly SettingKey[]; settings: Record<string, Setting> }) {
  return (
    <dl className="details">
      {keys.map((key) => (
        <div key={key} className="settings-item">
          <dt>{LABELS[key]}</dt>
          <dd>
            <strong data-setting={key}>{shown(key, settings[key])}</strong>
            {settings[key]?.description && <div className="muted">{settings[key]!.description}</div>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * General settings and AI feature flags, read-only as the spec shows them; an admin may open
 * an edit form (the server refuses everyone else with 403 anyway).
 */
export function GeneralSettings({ settings, isAdmin, serverMax }: { settings: Record<string, Setting>; isAdmin: boolean; serverMax: number }) {
  const [editing, setEditing] = useState(false);
  const [threshold, setThreshold] = useState('');
  const [sizeMb, setSizeMb] = useState('');
  const [flags, setFlags] = useState<Record<string, boolean>>({});
  const [errors, setErrors] = useState<{ threshold?: string; maxFileSize?: string }>({});
  const saving = useSaveSettings();
  const busy = saving.isPending;

  const open = () => {
    setThreshold(String(settings.autoMatchThreshold?.value ?? ''));
    setSizeMb(typeof settings.maxFileSize?.value === 'number' ? String(Math.round((settings.maxFileSize.value / MB) * 100) / 100) : '');
    setFlags(Object.fromEntries(FLAG_KEYS.map((k) => [k, settings[k]?.value === true])));
    setErrors({});
    setEditing(true);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const found = checkGeneral(threshold, sizeMb, serverMax);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const changes: Array<[SettingKey, number | boolean]> = [
      ['autoMatchThreshold', Number(threshold)],
      ['maxFileSize', Math.min(serverMax, Math.round(Number(sizeMb) * MB))],
      ...FLAG_KEYS.map((k) => [k, flags[k] ?? false] as [SettingKey, boolean]),
    ];
    try {
      await saving.mutateAsync(changes.filter(([key, value]) => settings[key]?.value !== value));
      toast.success('Settings saved');
      setEditing(false);
    } catch (error) {
      toast.error(errorMessage(error, 'Failed to update settings'));
    }
  };

  if (editing) {
    return (
      <form className="card" onSubmit={(e) => void save(e)} noValidate aria-label="Edit settings">
        <h2>General Settings</h2>
        <Field label="Auto-match threshold (%)" name="autoMatchThreshold" type="number" value={threshold} error={errors.threshold} onChange={setThreshold} />
        <Field label={`Maximum file size (MB, at most ${Math.round(serverMax / MB)})`} name="maxFileSize" type="number" value={sizeMb} error={errors.maxFileSize} onChange={setSizeMb} />
        <h2>AI Features</h2>
        {FLAG_KEYS.map((k) => (
          <label key={k} className="settings-flag">
            <input type="checkbox" checked={flags[k] ?? false} onChange={(e) => setFlags({ ...flags, [k]: e.target.checked })} /> {LABELS[k]}
          </label>
        ))}
        <div className="row settings-actions">
          <button type="submit" className="btn primary" disabled={busy}>{busy ? 'Saving...' : 'Save Settings'}</button>
          <button type="button" className="btn" onClick={() => setEditing(false)} disabled={busy}>Cancel</button>
        </div>
      </form>
    );
  }
  return (
    <>
      <div className="card">
        <div className="row spread">
          <h2>General Settings</h2>
          {isAdmin && <button type="button" className="btn small" onClick={open}>Edit Settings</button>}
        </div>
        <Rows keys={['autoMatchThreshold', 'maxFileSize']} settings={settings} />
      </div>
      <div className="card">
        <h2>AI Features</h2>
        <Rows keys={FLAG_KEYS} settings={settings} />
      </div>
    </>
  );
}
