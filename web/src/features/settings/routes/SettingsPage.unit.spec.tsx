import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ToastContainer } from 'react-toastify';
import { AxiosError, AxiosHeaders } from 'axios';
import { api } from '../../../lib/api-client';
import { useSession } from '../../../lib/session';
import { SettingsPage } from './SettingsPage';
import { canUpdateModel, checkGeneral } from '../rules';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const settings = {
  settings: {
    autoMatchThreshold: { value: 75, description: 'Minimum confidence' },
    maxFileSize: { value: 10485760, description: 'Maximum receipt file size' },
    aiEnabled: { value: true, description: 'AI' },
    autoCategorization: { value: false, description: 'Categorise' },
    duplicateDetection: { value: true, description: 'Duplicates' },
  },
  llm: { model: 'claude-a', fallbackModel: 'claude-b' },
  limits: { maxFileSize: { min: 1024, max: 10485760 } },
};

const refused = (status: number) => new AxiosError('refused', String(status), undefined, undefined, { status, statusText: '', headers: {}, config: { headers: new AxiosHeaders() }, data: {} });

function as(role: 'admin' | 'user') {
  useSession.setState({ companies: [{ id: 'c1', name: 'Co', role }], currentCompanyId: 'c1' });
}

function mockApi(role: 'admin' | 'user') {
  vi.spyOn(api, 'get').mockImplementation(async (url: string) => {
    if (url === '/settings') return { data: settings };
    if (url === '/settings/llm/fallback-model') return { data: { model: 'claude-b' } };
    if (url === '/health') return { data: { status: 'ok', version: '1.0.0' } };
    if (url === '/settings/llm/available-models') {
      if (role !== 'admin') throw refused(403);
      return { data: { models: [{ name: 'claude-a' }, { name: 'claude-b' }, { name: 'claude-c' }] } };
    }
    throw new Error(`unexpected ${url}`);
  });
  vi.spyOn(api, 'post').mockImplementation(async () => {
    if (role !== 'admin') throw refused(403);
    return { data: { connected: true, status: 'ok', chain: ['claude-a', 'claude-b', 'no model'] } };
  });
}

function show() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(<QueryClientProvider client={client}><SettingsPage /><ToastContainer /></QueryClientProvider>);
}

describe('/settings', () => {
  it('lets an admin pick a model: Update Model is disabled until another model is selected', async () => {
    as('admin');
    mockApi('admin');
    const put = vi.spyOn(api, 'put').mockResolvedValue({ data: { model: 'claude-c' } });
    show();
    await screen.findByText('Connected');
    const update = screen.getByRole('button', { name: 'Update Model' });
    expect(update).toHaveProperty('disabled', true);
    const select = screen.getByLabelText('Primary model');
    await waitFor(() => expect(screen.getAllByRole('option', { name: 'claude-c' })).toHaveLength(2));
    fireEvent.change(select, { target: { value: '' } });
    expect(update).toHaveProperty('disabled', true);
    fireEvent.change(select, { target: { value: 'claude-c' } });
    expect(update).toHaveProperty('disabled', false);
    fireEvent.click(update);
    await waitFor(() => expect(put).toHaveBeenCalledWith('/settings/llm/model', { model: 'claude-c' }));
    expect(screen.getByText('Edit Settings')).toBeTruthy();
  });

  it('shows a user the settings read-only and tolerates the refused admin calls silently', async () => {
    as('user');
    mockApi('user');
    show();
    expect((await screen.findByText('75%')).getAttribute('data-setting')).toBe('autoMatchThreshold');
    expect(screen.getByText('10MB')).toBeTruthy();
    expect(screen.getByText('Disabled')).toBeTruthy();
    expect(screen.getByLabelText('Primary model')).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Update Model' })).toHaveProperty('disabled', true);
    expect(screen.queryByText('Edit Settings')).toBeNull();
    expect(document.querySelector('[data-info="version"]')!.textContent).toBe('1.0.0');
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByText('Failed to load available models')).toBeNull();
    expect(screen.queryByText('Failed to test LLM connection')).toBeNull();
  });
});

describe('settings rules', () => {
  it('Update Model needs an admin, a selection and a change', () => {
    expect(canUpdateModel('', null, true, false)).toBe(false);
    expect(canUpdateModel('m', 'm', true, false)).toBe(false);
    expect(canUpdateModel('m', 'n', false, false)).toBe(false);
    expect(canUpdateModel('m', 'n', true, true)).toBe(false);
    expect(canUpdateModel('m', 'n', true, false)).toBe(true);
  });
  it('checks the threshold and the file size as the server does', () => {
    expect(checkGeneral('70', '5', 10 * 1024 * 1024)).toEqual({});
    expect(Object.keys(checkGeneral('101', '50', 10 * 1024 * 1024))).toEqual(['threshold', 'maxFileSize']);
  });
});
