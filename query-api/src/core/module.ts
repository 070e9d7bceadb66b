import type { ApiModule } from '@paperlink/domain/http/module';
import type { Operation } from '@paperlink/domain/http/operation';

/** A feature's query side: the reads it documents and the routers that answer them. */
export type QueryModule<Deps> = ApiModule<Deps>;

export const ok = (description: string, content?: Operation['success']['content']) => ({ status: 200 as const, description, ...(content ? { content } : {}) });
