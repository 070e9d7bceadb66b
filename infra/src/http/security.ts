import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The Content-Security-Policy of the app and the API. The built web app has no inline script
 * or style element (checked by test/security/headers.int.spec.ts against web/dist): scripts
 * and styles come from our origin. React's `style` prop and the toast library set styles
 * through the CSSOM, which `style-src` does not govern. Receipt previews are `blob:` URLs.
 */
export const CSP_DIRECTIVES = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'blob:', 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'frame-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
} as const;

/**
 * Security headers on every response (helmet): the CSP above, nosniff, no framing
 * (frame-ancestors 'none' and X-Frame-Options DENY), no referrer. Upgrade-insecure-requests is
 * left out: the server also runs on plain http (development, tests, behind a TLS proxy).
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { ...CSP_DIRECTIVES } },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  }) as unknown as RequestHandler;
}

