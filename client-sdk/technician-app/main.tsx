import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import './styles.css';

/**
 * The technician app's entry: bundled by `npm run build:tech`, served at /tech/. The service
 * worker (sw.ts) keeps the app itself on the phone, so it starts with no signal at all.
 */
createRoot(document.getElementById('app')!).render(<App />);
if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/tech/sw.js', { scope: '/tech/' });
