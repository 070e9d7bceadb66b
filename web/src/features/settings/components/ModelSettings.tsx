import { useEffect, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'react-toastify';
import { errorMessage } from '../../../lib/api-client';
import { settingsApi, settingsKeys, type Connection } from '../api/settings';
import { useTestConnection } from '../api/queries';
import { canUpdateModel, isRefusal, modelOptions } from '../rules';

function ModelSelector(props: {
  label: string;
  current: string | null;
  options: Array<{ name: string; label: string }>;
  isAdmin: boolean;
  button: string;
  failure: string;
  save: (model: string) => Promise<unknown>;
}) {
  const id = useId();
  // The parent keys each selector by its current model: a new one starts the choice afresh.
  const [selected, setSelected] = useState(props.current ?? '');
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: () => props.save(selected),
    onSuccess: async () => {
      toast.success(`${props.label} updated`);
      await client.invalidateQueries({ queryKey: settingsKeys.all() });
    },
    onError: (error) => toast.error(errorMessage(error, props.failure)),
  });
  const enabled = canUpdateModel(selected, props.current, props.isAdmin, mutation.isPending);
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <div className="row settings-model-row">
        <select id={id} value={selected} disabled={!props.isAdmin} onChange={(e) => setSelected(e.target.value)}>
          <option value="">Select a model</option>
          {props.options.map((m) => <option key={m.name} value={m.name}>{m.label}</option>)}
        </select>
        <button type="button" className="btn primary" disabled={!enabled} onClick={() => mutation.mutate()}>
          {mutation.isPending ? 'Updating...' : props.button}
        </button>
      </div>
      <span className="muted">Current: {props.current ?? 'none'}</span>
    </div>
  );
}

function ConnectionStatus({ connection, pending }: { connection: Connection | undefined; pending: boolean }) {
  if (pending) return <span className="badge">Checking...</span>;
  if (!connection) return <span className="badge">Unknown</span>;
  if (connection.connected) return <span className="badge success">Connected</span>;
  return <span className="badge danger">{connection.keyConfigured === false ? 'No API key (offline)' : 'Not connected'}</span>;
}

/** Language-model selectors (primary and fallback) and the connection status (spec section 2, /settings). */
export function ModelSettings({ isAdmin, model, fallbackModel }: { isAdmin: boolean; model: string | null; fallbackModel: string | null }) {
  const models = useQuery({ queryKey: settingsKeys.models(), queryFn: settingsApi.availableModels, enabled: isAdmin });
  const connection = useQuery({ queryKey: settingsKeys.connection(), queryFn: settingsApi.testConnection, enabled: isAdmin, staleTime: 60_000 });
  const fallback = useQuery({ queryKey: settingsKeys.fallback(), queryFn: settingsApi.fallbackModel });
  const testConnection = useTestConnection();
  const testing = testConnection.isPending;

  useEffect(() => {
    if (models.error && !isRefusal(models.error)) toast.error('Failed to load available models', { toastId: 'settings-models' });
  }, [models.error]);
  useEffect(() => {
    if (fallback.error && !isRefusal(fallback.error, [403, 404])) toast.error('Could not load fallback model setting', { toastId: 'settings-fallback' });
  }, [fallback.error]);

  const test = async () => {
    try {
      const result = await testConnection.mutateAsync();
      if (result.connected) toast.success(result.message ?? 'LLM connection successful');
      else toast.error('LLM connection failed');
    } catch (error) {
      if (!isRefusal(error)) toast.error('Failed to test LLM connection');
    }
  };

  const available = models.data ?? [];
  const currentFallback = fallback.isSuccess ? fallback.data : fallbackModel;
  return (
    <div className="card">
      <div className="row spread">
        <h2>Language Model</h2>
        <div className="row settings-status">
          <span>Connection status:</span>
          <ConnectionStatus connection={connection.data} pending={connection.isFetching || testing} />
          {isAdmin && <button type="button" className="btn small" onClick={() => void test()} disabled={testing}>Test Connection</button>}
        </div>
      </div>
      {connection.data?.chain && <p className="muted">Order tried: {connection.data.chain.join(' → ')}</p>}
      {connection.data?.error && <p className="field-error">{connection.data.error}</p>}
      <ModelSelector key={`primary-${model ?? ''}`} label="Primary model" current={model} options={modelOptions(available, model)} isAdmin={isAdmin} button="Update Model" failure="Failed to update LLM model" save={(m) => settingsApi.setModel(m)} />
      <ModelSelector key={`fallback-${currentFallback ?? ''}`} label="Fallback model" current={currentFallback} options={modelOptions(available, currentFallback)} isAdmin={isAdmin} button="Update Fallback Model" failure="Failed to update LLM fallback model" save={(m) => settingsApi.setFallbackModel(m)} />
      {!isAdmin && <p className="muted">Only admins can change the language model.</p>}
    </div>
  );
}
