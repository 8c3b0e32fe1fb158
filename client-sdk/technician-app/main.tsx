import '../app-kit/no-eval.js';
import { createRoot } from 'react-dom/client';
import { askPersistentStorage } from '../app-kit/device-storage.js';
import { App } from './app.js';
import './app-update.js';
import './styles.css';

/**
 * The technician app's entry: bundled by `npm run build:tech`, served at /tech/. The service
 * worker (sw.ts, registered by app-update.ts) keeps the app itself on the phone, so it starts with
 * no signal at all.
 */
// Asked at once, before any data is stored: the answer is shown once signed in.
void askPersistentStorage();
createRoot(document.getElementById('app')!).render(<App />);
