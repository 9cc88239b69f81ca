// The editor builds to fixed names in dist/ (editor.js, editor.css); the daemon embeds that
// folder and serves it under /app/editor/assets/, from the shell page it renders itself.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/app/editor/assets/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2020",
    cssCodeSplit: false,
    rollupOptions: {
      input: "src/main.ts",
      output: {
        entryFileNames: "editor.js",
        chunkFileNames: "editor-[name].js",
        assetFileNames: "editor.[ext]",
      },
    },
  },
});
