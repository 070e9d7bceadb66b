import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { Spinner } from '../../../components/Spinner';
import { api } from '../../../lib/api-client';
import { useSession } from '../../../lib/session';
import { settingsApi, settingsKeys } from '../api/settings';
import { GeneralSettings } from '../components/GeneralSettings';
import { ModelSettings } from '../components/ModelSettings';
import { isRefusal } from '../rules';
import '../settings.css';

/** What the settings page shows before the server has said anything (spec section 9). */
const SERVER_MAX_DEFAULT = 10 * 1024 * 1024;
/** The web app's own version, shown until the server has said its own. */
const APP_VERSION = '1.0.0';
const serverVersion = async () => String(((await api.get('/health')).data as { version?: unknown }).version ?? APP_VERSION);

/**
 * /settings (spec section 2): language-model selectors, connection status, general settings
 * and AI flags (read-only; admins may edit), system info. A non-admin's refused calls are
 * tolerated silently.
 */
export function SettingsPage() {
  const isAdmin = useSession((s) => s.role()) === 'admin';
  const list = useQuery({ queryKey: settingsKeys.list(), queryFn: settingsApi.all });
  const version = useQuery({ queryKey: ['server-version'], queryFn: serverVersion, staleTime: Infinity });

  useEffect(() => {
    if (list.error && !isRefusal(list.error)) toast.error('Failed to load settings', { toastId: 'settings-load' });
  }, [list.error]);

  return (
    <section className="page settings-page">
      <h1>Advanced Settings</h1>
      {list.isPending ? (
        <Spinner />
      ) : (
        <>
          <ModelSettings isAdmin={isAdmin} model={list.data?.llm?.model ?? null} fallbackModel={list.data?.llm?.fallbackModel ?? null} />
          <GeneralSettings settings={list.data?.settings ?? {}} isAdmin={isAdmin} serverMax={list.data?.limits?.maxFileSize.max ?? SERVER_MAX_DEFAULT} />
        </>
      )}
      <div className="card">
        <h2>System Information</h2>
        <dl className="details">
          <dt>Version</dt>
          <dd data-info="version">{version.data ?? APP_VERSION}</dd>
          <dt>Environment</dt>
          <dd data-info="environment">{import.meta.env.MODE}</dd>
        </dl>
      </div>
    </section>
  );
}
export default SettingsPage;
