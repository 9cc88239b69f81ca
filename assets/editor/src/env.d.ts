// Vite's own types: `import.meta.glob` (the unit tests read the sources with it).
/// <reference types="vite/client" />
