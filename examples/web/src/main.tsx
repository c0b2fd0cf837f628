// Entry: the connection comes from the page's query string (?api=...&token=...), else from Vite's env
// (VITE_PLANT_STORE_URL, VITE_PLANT_STORE_TOKEN in .env.local), else the user types it.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import './style.css';

const params = new URLSearchParams(location.search);
const baseUrl = params.get('api') ?? import.meta.env.VITE_PLANT_STORE_URL;
const token = params.get('token') ?? import.meta.env.VITE_PLANT_STORE_TOKEN;
const pageSize = Number(params.get('pageSize') ?? 10);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App
      initial={{ ...(baseUrl ? { baseUrl } : {}), ...(token ? { token } : {}) }}
      pageSize={Number.isInteger(pageSize) && pageSize > 0 ? pageSize : 10}
    />
  </StrictMode>,
);
