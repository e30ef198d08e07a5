import { fileURLToPath, URL } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const backend = process.env.VITE_BACKEND ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // Inline scripts would be refused by the server's CSP.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: {
      '/api': backend,
      '/healthz': backend,
      '/uploads': backend,
      '/socket.io': { target: backend, ws: true },
    },
  },
});
