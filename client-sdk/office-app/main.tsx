import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import './styles.css';

/** The office web app's entry: bundled by esbuild (`npm run build:app`), served at /app. */
createRoot(document.getElementById('app')!).render(<App />);
