import { z } from 'zod';

/**
 * The server's Content-Security-Policy allows no eval: zod parses without compiling code, and
 * without probing whether it may (the probe alone is reported as a violation). Imported first
 * by main.tsx, before any module that parses at load time (stores read from localStorage).
 */
z.config({ jitless: true });
