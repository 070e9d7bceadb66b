import { apiDocsRouter, buildOpenApi, commandOperations, docsOperations, type OpenApiDocument, type Operation } from '@paperlink/command-api';
import { queryOperations } from '@paperlink/query-api';
import type { Router } from 'express';

/** The routes infra mounts itself (infra/src/app.ts). */
export const infraOperations: Operation[] = [
  { method: 'get', path: '/health', summary: 'Status and version (public)', tags: ['health'], auth: 'none', success: { status: 200, description: '`{ status, version }`' } },
  {
    method: 'get', path: '/health/details', summary: 'Stores, profile and projection lag', tags: ['health'], auth: 'company', roles: ['admin'],
    success: { status: 200, description: 'Status, version and details' },
  },
];

/** Every operation of the API, in the order the docs show them. */
export const apiOperations: Operation[] = [...infraOperations, ...commandOperations, ...queryOperations, ...docsOperations];

/** The OpenAPI 3.1 document of the whole API. */
export const apiDocument = (version: string): OpenApiDocument => buildOpenApi(apiOperations, version);

/** GET /api/openapi.json and /api/docs (public, mounted before authentication). */
export const apiDocs = (version: string): Router => apiDocsRouter(apiDocument(version));
