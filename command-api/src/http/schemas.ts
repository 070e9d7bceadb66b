/** Moved to the module both APIs import (domain/http/schemas.ts). */
export * from '@paperlink/domain/http/schemas';
