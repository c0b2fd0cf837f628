/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where the service runs, e.g. http://127.0.0.1:3000 (its CORS_ORIGINS must name this page's origin). */
  readonly VITE_PLANT_STORE_URL?: string;
  /** A bearer token (`plant-store token create ...`); in a real app it comes from your sign-in, not from the build. */
  readonly VITE_PLANT_STORE_TOKEN?: string;
}
