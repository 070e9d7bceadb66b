import { ok, type CommandModule } from '../core/module';
import { eventTypes, type SettingsEvent } from '@paperlink/domain';
import { ModelBody, SettingBody, SettingKeyParams, settingsRouter, type SettingsDeps } from './routes';

/** A company's advanced settings and language models. */
export const settingsCommands: CommandModule<SettingsDeps> = {
  feature: 'settings',
  events: eventTypes<SettingsEvent>({ CompanySettingChanged: true }),
  operations: [
    // settings (reads for every member, writes for admins; no route takes or shows an API key)
    { method: 'get', path: '/settings', summary: "The company's advanced settings, each with value and description", tags: ['settings'], auth: 'company', success: ok('Settings and the chosen language models') },
    { method: 'get', path: '/settings/llm/model', summary: 'The primary language model', tags: ['settings'], auth: 'company', success: ok('The model') },
    { method: 'put', path: '/settings/llm/model', summary: 'Choose the primary language model', tags: ['settings'], auth: 'company', roles: ['admin'], body: { json: ModelBody }, success: ok('The model'), errors: { 400: 'No model, or not one of the available models' } },
    { method: 'get', path: '/settings/llm/fallback-model', summary: 'The fallback language model', tags: ['settings'], auth: 'company', success: ok('The model (null: none)') },
    { method: 'put', path: '/settings/llm/fallback-model', summary: 'Choose the fallback language model (null: none)', tags: ['settings'], auth: 'company', roles: ['admin'], body: { json: ModelBody }, success: ok('The model') },
    { method: 'post', path: '/settings/llm/test', summary: 'Test the connection to the hosted language model', tags: ['settings'], auth: 'company', roles: ['admin'], success: ok('connected, status, the chain of models') },
    { method: 'get', path: '/settings/llm/available-models', summary: 'Models to choose from (the Models API when a key is set)', tags: ['settings'], auth: 'company', roles: ['admin'], success: ok('models [{name}]; 502 when the Models API could not be read') },
    { method: 'get', path: '/settings/:key', summary: 'One setting', tags: ['settings'], auth: 'company', params: SettingKeyParams, success: ok('key, value, description'), errors: { 404: 'No such setting' } },
    { method: 'put', path: '/settings/:key', summary: 'Change one setting (validated: autoMatchThreshold 0-100, maxFileSize up to the server maximum, flags true/false)', tags: ['settings'], auth: 'company', roles: ['admin'], params: SettingKeyParams, body: { json: SettingBody }, success: ok('key, value, description') },
  ],
  routers: (deps) => [settingsRouter(deps)],
};
