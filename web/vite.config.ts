import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // The toast library's styled entry injects a <style> element, which the CSP (style-src 'self') refuses;
  // its unstyled entry does not, and the app imports the same CSS as a file (app/App.tsx).
  resolve: { alias: [{ find: /^react-toastify$/, replacement: 'react-toastify/unstyled' }] },
  server: { proxy: { '/api': `http://localhost:${process.env.API_PORT ?? 3000}` } },
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 400 },
});
