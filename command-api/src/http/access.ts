/** Moved to the module both APIs import (domain/http/access.ts). */
export type * from '@paperlink/domain/http/access';
