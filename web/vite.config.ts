import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/api': `http://localhost:${process.env.API_PORT ?? 3000}` } },
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 400 },
});
