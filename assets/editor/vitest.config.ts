// The editor's unit tests (`npm test`): beside the code as src/*.test.ts, run in Node (the
// store and the message parsing need no page).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { include: ["src/**/*.test.ts"], environment: "node" },
});
