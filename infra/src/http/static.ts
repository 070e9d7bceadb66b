import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';

/** Serves the built web app, with index.html for every client-side route. */
export function webApp(distDir: string): Router {
  const router = express.Router();
  const index = join(distDir, 'index.html');
  router.use(express.static(distDir, { index: false, maxAge: '1h', setHeaders: (res, path) => {
    if (/[.-][A-Za-z0-9_-]{8}\.(js|css)$/.test(path)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  } }));
  router.get(/^(?!\/api(\/|$)).*/, (_req, res) => {
    if (existsSync(index)) {
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    } else {
      res.status(503).type('text/plain').send('The web app is not built yet. Run `make start` (it builds web/dist).');
    }
  });
  return router;
}
