/** Moved to the module both APIs import (domain/http/params.ts). */
export * from '@paperlink/domain/http/params';
