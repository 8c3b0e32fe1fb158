import '../app-kit/no-eval.js';
import { createRoot } from 'react-dom/client';
import { askPersistentStorage } from '../app-kit/device-storage.js';
import { App } from './app.js';
import './styles.css';

/** The office web app's entry: bundled by esbuild (`npm run build:app`), served at /app. */
// Asked at once, before any data is stored: the answer is shown once signed in.
void askPersistentStorage();
createRoot(document.getElementById('app')!).render(<App />);
